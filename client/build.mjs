/* global process, console */
// Builds the package: client/*.ts → dist/*.js + dist/*.d.ts (tsc, client/tsconfig.json), and the
// generated types beside them (tsc does not copy a .d.ts). Run by `npm run client:build` at the
// repository root and by `npm pack` here (prepack). Needs the repository's dev dependencies.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, 'dist');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

fs.rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', path.join(here, 'tsconfig.json')], { stdio: 'inherit' });
fs.mkdirSync(path.join(dist, 'generated'), { recursive: true });
fs.copyFileSync(path.join(here, 'generated', 'schema.d.ts'), path.join(dist, 'generated', 'schema.d.ts'));
console.log(`client: built ${path.relative(process.cwd(), dist) || 'dist'}`);
