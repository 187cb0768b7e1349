/**
 * The foundation's hot path against the ceiling: `account/getSettings` with
 * ssid and with userId + token (authentication served from the credential
 * cache, one indexed read), against a bare node:http server answering a
 * precomputed body of the same size, measured back to back in rounds.
 * Also the soak: steady mixed load for minutes, RSS sampled, no error.
 */
import type { Dialect } from '../src/db/types.js';
import {
  ECHO_SERVER,
  freshBenchDatabase,
  median,
  postJson,
  rssMiB,
  startServerProcess,
  startChild,
  stopChild,
  waitHealthy,
  wrk,
  type WrkResult,
} from './support.js';

const ADMIN = { username: 'bench-operator', password: 'bench-operator-password' };
const TENANT = { username: 'bench-core', password: 'bench-core-password' };
const CONNECTIONS = 50;

export interface CoreRow {
  dialect: Dialect;
  name: string;
  rps: number;
  p99ms: number;
  ratio: number;
  errors: number;
}

interface Running {
  port: number;
  ssid: string;
  userId: string;
  token: string;
  stop(): Promise<void>;
  pid: number;
}

/** A server process on a fresh database with a tenant, its session and an API token. */
export async function startBenchServer(dialect: Dialect, port: number, name: string): Promise<Running> {
  const db = await freshBenchDatabase(dialect, name);
  const child = startServerProcess({
    ...db.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '0',
    CALLCENTER_ADMIN_USERNAME: ADMIN.username,
    CALLCENTER_ADMIN_PASSWORD: ADMIN.password,
  });
  try {
    await waitHealthy(port);
    const op = await postJson<{ ssid: string }>(port, '/api/v2/auth/login', ADMIN);
    await postJson(port, '/api/v2/account/create', { ssid: op.ssid, ...TENANT, name: 'Bench' });
    const login = await postJson<{ ssid: string }>(port, '/api/v2/auth/login', TENANT);
    const tok = await postJson<{ userId: string; token: string }>(port, '/api/v2/auth/token', { ssid: login.ssid, name: 'bench' });
    return {
      port,
      ssid: login.ssid,
      userId: tok.userId,
      token: tok.token,
      pid: child.pid!,
      stop: async () => {
        await stopChild(child);
        await db.drop();
      },
    };
  } catch (err) {
    await stopChild(child);
    await db.drop();
    throw err;
  }
}

export async function runCore(dialects: Dialect[], seconds: number, rounds: number, log: (line: string) => void): Promise<CoreRow[]> {
  const rows: CoreRow[] = [];
  for (const dialect of dialects) {
    const s = await startBenchServer(dialect, 18_191, 'core');
    const sample = await (
      await fetch(`http://127.0.0.1:${s.port}/api/v2/account/getSettings`, { method: 'POST', body: JSON.stringify({ ssid: s.ssid }) })
    ).text();
    const echo = startChild(process.execPath, ['-e', ECHO_SERVER], { PORT: '18190', ECHO_BODY: sample });
    try {
      await waitHealthy(18_190, '/', 20_000);
      const cases: Array<[string, string, string]> = [
        ['bare node:http, same body', 'http://127.0.0.1:18190/', JSON.stringify({ ssid: s.ssid })],
        ['account/getSettings (ssid)', `http://127.0.0.1:${s.port}/api/v2/account/getSettings`, JSON.stringify({ ssid: s.ssid })],
        ['account/getSettings (userId + token)', `http://127.0.0.1:${s.port}/api/v2/account/getSettings`, JSON.stringify({ userId: s.userId, token: s.token })],
      ];
      for (const [, url, body] of cases) await wrk(url, [body], { seconds: 2, connections: CONNECTIONS }); // warm-up: JIT, caches, pool
      const results = new Map<string, Array<WrkResult & { ratio: number }>>();
      for (let r = 0; r < rounds; r++) {
        let bare = 0;
        // Each operation is compared with the ceiling measured right before it: other load on the machine shifts both.
        for (const [name, url, body] of cases) {
          const res = await wrk(url, [body], { seconds, connections: CONNECTIONS });
          if (!bare) bare = res.rps;
          results.set(name, [...(results.get(name) ?? []), { ...res, ratio: res.rps / bare }]);
        }
      }
      for (const [name, list] of results) {
        const row = {
          dialect,
          name,
          rps: median(list.map((x) => x.rps)),
          p99ms: median(list.map((x) => x.p99ms)),
          ratio: median(list.map((x) => x.ratio)),
          errors: list.reduce((n, x) => n + x.errors + x.socketErrors, 0),
        };
        rows.push(row);
        log(`[${dialect}] ${name}: ${Math.round(row.rps)} req/s, p99 ${row.p99ms.toFixed(2)} ms, ${row.ratio.toFixed(2)} × ceiling, ${row.errors} errors`);
      }
    } finally {
      await stopChild(echo);
      await s.stop();
    }
  }
  return rows;
}

export interface SoakResult {
  dialect: Dialect;
  seconds: number;
  requests: number;
  rps: number;
  errors: number;
  rssStart: number;
  rssWarm: number;
  rssEnd: number;
  rssMax: number;
  /** Growth from the end of warm-up (first fifth) to the end, in MiB. */
  growth: number;
  ok: boolean;
}

/**
 * Steady mixed load (reads and writes of settings, lists, token use) for
 * `seconds`, RSS of the server sampled every second. Passes when nothing
 * failed and RSS after warm-up grew by less than max(16 MiB, 10 %).
 */
export async function runSoak(dialect: Dialect, seconds: number, log: (line: string) => void): Promise<SoakResult> {
  const s = await startBenchServer(dialect, 18_192, 'soak');
  try {
    const base = `http://127.0.0.1:${s.port}/api/v2`;
    const bodies = [
      JSON.stringify({ ssid: s.ssid }),
      JSON.stringify({ userId: s.userId, token: s.token }),
      JSON.stringify({ ssid: s.ssid, ghostThresholdSecs: 7 }),
    ];
    const samples: number[] = [rssMiB(s.pid)];
    const timer = setInterval(() => samples.push(rssMiB(s.pid)), 1000);
    // One wrk per path, all at once: reads with two credential forms and a settings write.
    const runs = await Promise.all([
      wrk(`${base}/account/getSettings`, bodies.slice(0, 2), { seconds, connections: 8 }),
      wrk(`${base}/account/updateSettings`, [bodies[2]!], { seconds, connections: 2 }),
      wrk(`${base}/auth/token`, [bodies[0]!], { seconds, connections: 1 }),
    ]);
    clearInterval(timer);
    samples.push(rssMiB(s.pid));
    const warm = samples[Math.max(1, Math.floor(samples.length / 5))]!;
    const end = samples[samples.length - 1]!;
    const errors = runs.reduce((n, r) => n + r.errors + r.socketErrors, 0);
    const rps = runs.reduce((n, r) => n + r.rps, 0);
    const growth = end - warm;
    const result: SoakResult = {
      dialect,
      seconds,
      rps,
      errors,
      requests: Math.round(rps * seconds),
      rssStart: samples[0]!,
      rssWarm: warm,
      rssEnd: end,
      rssMax: Math.max(...samples),
      growth,
      ok: errors === 0 && growth < Math.max(16, warm * 0.1),
    };
    log(
      `[${dialect}] soak ${seconds} s: ${Math.round(rps)} req/s, ${errors} errors, RSS ${warm.toFixed(0)} → ${end.toFixed(0)} MiB (max ${result.rssMax.toFixed(0)}): ${result.ok ? 'ok' : 'FAILED'}`,
    );
    return result;
  } finally {
    await s.stop();
  }
}
