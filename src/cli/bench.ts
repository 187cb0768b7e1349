import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from './command.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * `callcenter bench [...]`: runs bench/run-all.ts (the benchmark suite lives
 * beside the sources, not in them) in its own process with the same options
 * and environment, and answers its exit code.
 */
export const bench: Command = (argv) =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'bench', 'run-all.ts'), ...argv], {
      cwd: root,
      env: process.env,
      stdio: 'inherit',
    });
    child.on('close', (code) => resolve(code ?? 1));
  });
