import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onFreePort } from '../helpers/ports.js';

export const ADMIN = { username: 'wallboard-admin', password: 'wallboard-password' };

export interface RunningServer {
  baseUrl: string;
  /** The embedded database's directory (DATA_DIR). */
  dataDir: string;
  output(): string;
  /** SIGTERM and wait for the exit; the data directory stays (for restart). */
  halt(): Promise<void>;
  /** Start again on the same port and data directory. */
  restart(): Promise<void>;
  /** halt() and remove the data directory. */
  stop(): Promise<void>;
}

/**
 * The real server as a user starts it (`node bin/callcenter.js serve`) on a
 * free port (again on another when it was taken first: onFreePort) and a
 * fresh embedded database in a temporary DATA_DIR; ready only when /healthz
 * gives our own answer, not another listener's.
 */
export async function startServer(extraEnv: Record<string, string> = {}): Promise<RunningServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cc-browser-'));
  try {
    return await onFreePort((port) => startOn(port, dataDir, extraEnv));
  } catch (err) {
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

async function startOn(port: number, dataDir: string, extraEnv: Record<string, string>): Promise<RunningServer> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: dataDir,
    CALLCENTER_ADMIN_USERNAME: ADMIN.username,
    CALLCENTER_ADMIN_PASSWORD: ADMIN.password,
    LOG_LEVEL: 'warn',
    POISON_RELEASED_CHUNKS: '1',
    ...extraEnv,
  };
  // The embedded database unless the caller names one (a fresh PostgreSQL schema: test/helpers/databases.ts).
  if (!extraEnv.DATABASE_URL) delete env.DATABASE_URL;
  delete env.CALLCENTER_DEMO;
  const baseUrl = `http://127.0.0.1:${port}`;
  let out = '';
  let child: ChildProcess;
  const launch = async () => {
    child = spawn(process.execPath, ['bin/callcenter.js', 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}):\n${out}`);
      try {
        const res = await fetch(`${baseUrl}/healthz`);
        if (res.status === 200 && ((await res.json()) as { status?: string }).status === 'ok') return;
      } catch {
        // not listening yet (or another listener's answer)
      }
      if (Date.now() > deadline) throw new Error(`server did not start within 60 s:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const halt = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
    if (child.exitCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  };
  await launch();
  return {
    baseUrl,
    dataDir,
    output: () => out,
    halt,
    restart: launch,
    async stop() {
      await halt();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
