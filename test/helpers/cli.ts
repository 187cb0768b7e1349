import { spawn } from 'node:child_process';

/** Runs `callcenter <args>` as a real process with the given environment. */
export function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bin/callcenter.js', ...args], { env: { ...process.env, LOG_LEVEL: 'warn', ...env } });
    let output = '';
    let stdout = '';
    child.stdout.on('data', (d) => {
      output += d;
      stdout += d;
    });
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => resolve({ code, output, stdout }));
  });
}
