#!/usr/bin/env node
// Runs the compiled build (dist/). `npm install` builds it (the `prepare` script); when a
// source file is newer than the last successful build, this compiles again first (a few
// seconds), so `npm start` always runs the fast path. Falls back to the TypeScript sources
// through tsx when no compiler is installed (`npm ci --omit=dev`) or the compile fails,
// under the test runner (tests run what is current without compiling), and with
// CALLCENTER_NO_BUILD=1 (forces the sources).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, buildIsCurrent } from './build.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const forceSources = process.env.CALLCENTER_NO_BUILD === '1';
// vitest sets VITEST in its workers; the servers they spawn inherit it.
const mayCompile = !forceSources && !process.env.VITEST;

let useBuild = !forceSources && buildIsCurrent();
if (!useBuild && mayCompile) {
  console.error('callcenter: dist/ is missing or older than src/: compiling first (npm run build)…');
  useBuild = build();
  if (!useBuild) console.error('callcenter: no usable build: running the sources through tsx (slower).');
}

// Tells child processes and reports (callcenter bench) which of the two runs.
process.env.CALLCENTER_RUNTIME = useBuild ? 'build' : 'tsx';
if (useBuild) {
  await import(path.join(root, 'dist', 'cli', 'main.js'));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
