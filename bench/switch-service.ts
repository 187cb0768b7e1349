/**
 * A running service for the switch-connector benchmarks (bench/agi.ts,
 * bench/queue-log.ts): `callcenter serve` as a child process on a fresh
 * database, an account, a switch token, a session, and helpers to set up
 * groups, DIDs and agents through the API.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { freshBenchDatabase, postJson, root, startServerProcess, stopChild, waitHealthy } from './support.js';
import type { Dialect } from '../src/db/types.js';

export interface SwitchService {
  port: number;
  api: string;
  ssid: string;
  sw: { userId: string; token: string };
  env: Record<string, string>;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

export async function startSwitchService(dialect: Dialect, name: string, extraEnv: Record<string, string> = {}): Promise<SwitchService> {
  const fresh = await freshBenchDatabase(dialect, name);
  const port = await freePort();
  const env = { ...fresh.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '100000000', ...extraEnv };
  const cli = (...args: string[]) =>
    execFileSync(process.execPath, ['bin/callcenter.js', ...args], { cwd: root, env: { ...process.env, ...env }, encoding: 'utf8' });
  cli('migrate');
  cli('account', 'create', `bench-${name}`, 'bench-password-1');
  const sw = JSON.parse(cli('token', 'create', `bench-${name}`, '--kind', 'switch').trim().split('\n').pop()!) as { userId: string; token: string };
  const child = startServerProcess(env);
  await waitHealthy(port);
  const login = await postJson<{ ssid: string }>(port, '/api/v2/auth/login', { username: `bench-${name}`, password: 'bench-password-1' });
  return {
    port,
    api: `http://127.0.0.1:${port}`,
    ssid: login.ssid,
    sw,
    env,
    child,
    async stop() {
      await stopChild(child);
      await fresh.drop();
    },
  };
}

/** POSTs with the session; throws unless the answer is a success. */
export async function ok<T = Record<string, unknown>>(s: SwitchService, op: string, body: Record<string, unknown>): Promise<T> {
  const res = await postJson<{ status: string } & T>(s.port, `/api/v2/${op}`, { ssid: s.ssid, ...body });
  if (res.status !== 'success') throw new Error(`${op}: ${JSON.stringify(res)}`);
  return res;
}
