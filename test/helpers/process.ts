import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { onFreePort } from './ports.js';

/**
 * Real server processes (`node bin/callcenter.js serve`) for the tests that
 * must cross a process boundary: kill -9, several nodes, what the process
 * writes to its log.
 */

export const TEST_ADMIN = { username: 'operator', password: 'operator-password' };

// Whatever happens to the test (timeout, crash), no server it started outlives the test process.
const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export interface Answer {
  http: number;
  /** The parsed body, or undefined when it was not JSON. */
  body: Record<string, unknown> | undefined;
  raw: string;
}

// One keep-alive agent for every request of the tests: connection reuse like a real client.
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** One HTTP request; a refused or reset connection rejects. */
export function request(port: number, method: string, path: string, body?: string, headers: Record<string, string> = {}, timeoutMs = 15_000): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method, path, agent, headers: { 'content-type': 'application/json', ...headers }, timeout: timeoutMs },
      (res) => {
        let raw = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (raw += d));
        res.on('end', () => {
          let parsed: Record<string, unknown> | undefined;
          try {
            parsed = JSON.parse(raw) as Record<string, unknown>;
          } catch {
            parsed = undefined;
          }
          resolve({ http: res.statusCode ?? 0, body: parsed, raw });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timeout ${method} ${path}`)));
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

export interface ServerProcess {
  port: number;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  post(path: string, body: unknown): Promise<Answer>;
  get(path: string, headers?: Record<string, string>): Promise<Answer>;
  alive(): boolean;
  /** SIGKILL (no chance to flush anything) and wait for the exit. */
  kill(): Promise<void>;
  /** SIGTERM (graceful) and wait for the exit; answers the exit code. */
  stop(): Promise<number | null>;
}

export interface StartOptions {
  /** Database selection: `TestDatabase.env` (DATA_DIR or DATABASE_URL). */
  env: Record<string, string>;
  logLevel?: string;
  port?: number;
  /** How long to wait for /healthz 200. */
  readyTimeoutMs?: number;
}

/** Starts `callcenter serve` and resolves once /healthz answers 200. */
export async function startServerProcess(opts: StartOptions): Promise<ServerProcess> {
  return opts.port !== undefined ? startOnce(opts, opts.port) : onFreePort((port) => startOnce(opts, port));
}

async function startOnce(opts: StartOptions, port: number): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['bin/callcenter.js', 'serve'], {
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: opts.logLevel ?? 'warn',
      POISON_RELEASED_CHUNKS: '1',
      CALLCENTER_ADMIN_USERNAME: TEST_ADMIN.username,
      CALLCENTER_ADMIN_PASSWORD: TEST_ADMIN.password,
      // Sharing one rate limit across the test's clients would only make the test slow.
      RATE_LIMIT_PER_MINUTE: '0',
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let out = '';
  let exited = false;
  const exit = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      exited = true;
      live.delete(child);
      resolve(code);
    }),
  );
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));

  const proc: ServerProcess = {
    port,
    child,
    output: () => out,
    post: (path, body) => request(port, 'POST', path, typeof body === 'string' ? body : JSON.stringify(body)),
    get: (path, headers) => request(port, 'GET', path, undefined, headers),
    alive: () => !exited,
    async kill() {
      if (!exited) child.kill('SIGKILL');
      await exit;
    },
    async stop() {
      if (!exited) child.kill('SIGTERM');
      return exit;
    },
  };

  const deadline = Date.now() + (opts.readyTimeoutMs ?? 30_000);
  for (;;) {
    if (exited) throw new Error(`server exited before it was ready:\n${out}`);
    try {
      const res = await request(port, 'GET', '/healthz', undefined, {}, 2000);
      // Our health answer, not just any 200: another test's listener may hold the port.
      if (res.http === 200 && res.body?.status === 'ok') return proc;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await proc.kill();
      throw new Error(`server not ready after ${opts.readyTimeoutMs ?? 30_000} ms:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Logs in through a running process and answers the session id. */
export async function processLogin(p: ServerProcess, username: string, password: string): Promise<string> {
  const res = await p.post('/api/v2/auth/login', { username, password });
  if (res.body?.status !== 'success') throw new Error(`login ${username} failed: ${res.raw}`);
  return res.body.ssid as string;
}

/**
 * Starts several processes at the same instant. When one fails to come up the
 * others are killed before the error is thrown, so no server outlives the test.
 */
export async function startServerProcesses(n: number, opts: StartOptions): Promise<ServerProcess[]> {
  const settled = await Promise.allSettled(Array.from({ length: n }, () => startServerProcess(opts)));
  const up = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    await Promise.all(up.map((p) => p.kill()));
    throw failed.reason;
  }
  return up;
}
