/**
 * What the run-all benchmark and the soak share: wrk with a Lua request
 * script, child processes pinned to a core, a fresh database, RSS sampling.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { PostgresDatabase } from '../src/db/postgres.js';
import { SqliteDatabase } from '../src/db/sqlite.js';
import type { Database, Dialect } from '../src/db/types.js';

export const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
export const PG_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/callcenter_bench';

/**
 * Creates PG_URL's database when it does not exist yet (through the server's
 * `postgres` database), so the benchmarks run on a fresh machine; answers
 * false when PostgreSQL is not reachable at all.
 */
export async function ensureBenchDatabase(): Promise<boolean> {
  const target = new URL(PG_URL);
  const name = decodeURIComponent(target.pathname.slice(1));
  const probe = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await probe.connect();
    await probe.end();
    return true;
  } catch (err) {
    if ((err as { code?: string }).code !== '3D000') return false; // anything but "database does not exist"
  }
  const maintenance = new URL(PG_URL);
  maintenance.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: maintenance.toString(), connectionTimeoutMillis: 2000 });
  try {
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
    return true;
  } catch {
    return false;
  } finally {
    await admin.end().catch(() => undefined);
  }
}

function has(cmd: string): boolean {
  try {
    execFileSync('which', [cmd], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
export const hasTaskset = has('taskset');
export const hasWrk = has('wrk');

/**
 * The server's command line: BENCH_SERVER_NODE_ARGS adds node flags (for example
 * `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile the server under load).
 */
export function serverArgs(): string[] {
  const extra = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  return [...extra, 'bin/callcenter.js', 'serve'];
}

/** The words of `dir`'s start script (package.json). */
function startScriptWords(dir: string): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { scripts: { start: string } };
  return pkg.scripts.start.split(/\s+/).filter(Boolean);
}

/**
 * The environment `npm start` gives the server: the leading `NAME=value`
 * words of `dir`'s start script (package.json), so a benchmark measures the
 * server as the README starts it.
 */
export function startScriptEnv(dir = root): Record<string, string> {
  const env: Record<string, string> = {};
  for (const word of startScriptWords(dir)) {
    const m = /^([A-Za-z_]\w*)=(.*)$/.exec(word);
    if (!m) break;
    env[m[1]!] = m[2]!;
  }
  return env;
}

/** The node flags of `dir`'s start script: the `--…` words between `node` and the script. */
export function startScriptNodeArgs(dir = root): string[] {
  const words = startScriptWords(dir);
  const flags: string[] = [];
  for (let i = words.indexOf('node') + 1; i > 0 && i < words.length && words[i]!.startsWith('--'); i++) flags.push(words[i]!);
  return flags;
}

/**
 * A server (`callcenter serve` of checkout `cwd`, default this one) started
 * as its `npm start` starts it (environment and node flags), with `env` on
 * top; `nodeArgs` after the start script's flags (a runtime variant). Pinned
 * to `core`.
 */
export function startServerProcess(env: Record<string, string>, opts: { core?: number; cwd?: string; nodeArgs?: string[] } = {}): ChildProcess {
  const cwd = opts.cwd ?? root;
  const nodeArgs = [...startScriptNodeArgs(cwd), ...(opts.nodeArgs ?? [])];
  return startChild(process.execPath, [...nodeArgs, ...serverArgs()], { ...startScriptEnv(cwd), ...env }, opts.core ?? 0, cwd);
}

/** The command, pinned to one core when taskset exists (server on 0, load on 1). */
export function pinned(core: number, cmd: string, args: string[]): [string, string[]] {
  return hasTaskset && os.cpus().length > 1 ? ['taskset', ['-c', String(core), cmd, ...args]] : [cmd, args];
}

/** `cwd`: another checkout to run (a before/after comparison); default this one. */
export function startChild(cmd: string, args: string[], env: Record<string, string>, core = 0, cwd = root): ChildProcess {
  const [c, a] = pinned(core, cmd, args);
  return spawn(c, a, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const done = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([done, new Promise((r) => setTimeout(r, 5000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

export async function waitHealthy(port: number, path = '/healthz', ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}${path}`)).status < 500) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error(`port ${port} did not come up`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function postJson<T = Record<string, unknown>>(port: number, route: string, body: unknown): Promise<T> {
  const res = await fetch(`http://127.0.0.1:${port}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return (await res.json()) as T;
}

/** Drops a schema of the bench PostgreSQL database (when there) and creates it empty. */
async function recreateSchema(schema: string): Promise<void> {
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE; CREATE SCHEMA ${schema}`);
  await admin.end();
}

/**
 * An empty database opened in this process (for benchmarks that run the
 * service's code without a server): a new SQLite file in a temporary
 * directory, or schema bench_<name> of the bench PostgreSQL database,
 * dropped and created again.
 */
export async function openFreshBenchDatabase(dialect: Dialect, name: string): Promise<Database> {
  if (dialect === 'sqlite') return new SqliteDatabase(path.join(fs.mkdtempSync(path.join(os.tmpdir(), `callcenter-${name}-`)), 'callcenter.db'));
  await ensureBenchDatabase();
  const schema = `bench_${name.replaceAll('-', '_')}`;
  await recreateSchema(schema);
  return new PostgresDatabase(PG_URL, 4, `-c search_path=${schema}`);
}

/** The bench PostgreSQL database's URL with `schema` as the search path (a server's DATABASE_URL). */
function schemaUrl(schema: string): string {
  return `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
}

/**
 * A database kept between runs (seeded data a benchmark reuses), opened in
 * this process and as a server's environment: `dataDir`'s SQLite file, or
 * `schema` of the bench PostgreSQL database (created when missing).
 */
export async function openKeptBenchDatabase(dialect: Dialect, dataDir: string, schema: string): Promise<{ db: Database; env: Record<string, string> }> {
  if (dialect === 'sqlite') {
    fs.mkdirSync(dataDir, { recursive: true });
    return { db: new SqliteDatabase(path.join(dataDir, 'callcenter.db')), env: { DATA_DIR: dataDir } };
  }
  await ensureBenchDatabase();
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  await admin.end();
  return { db: new PostgresDatabase(PG_URL, 4, `-c search_path=${schema}`), env: { DATABASE_URL: schemaUrl(schema) } };
}

/** A fresh, empty database for one benchmark's server: a temporary SQLite directory or a new PostgreSQL schema, as environment. */
export async function freshBenchDatabase(dialect: Dialect, name: string): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  if (dialect === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `callcenter-${name}-`));
    return { env: { DATA_DIR: dir }, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const schema = `bench_${name}_${process.pid}`;
  await recreateSchema(schema);
  return {
    env: { DATABASE_URL: schemaUrl(schema) },
    drop: async () => {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
    },
  };
}

export interface WrkResult {
  rps: number;
  p50ms: number;
  p99ms: number;
  /** Non-2xx answers plus answers whose body was not a success envelope. */
  errors: number;
  /** Connection errors, timeouts. */
  socketErrors: number;
}

function ms(m: RegExpExecArray | null): number {
  if (!m) return NaN;
  return Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1);
}

/**
 * wrk against `url` with POST bodies taken in turn from `bodies` (each a JSON
 * text). Answers that are not `"status":"success"` count as errors (the API
 * answers application errors with HTTP 200).
 */
export async function wrk(url: string, bodies: string[], opts: { seconds: number; connections: number; checkBody?: boolean }): Promise<WrkResult> {
  const script = path.join(os.tmpdir(), `bench-run-all-${process.pid}-${Math.random().toString(36).slice(2)}.lua`);
  const list = bodies.map((b) => `[==[${b}]==]`).join(',\n');
  fs.writeFileSync(
    script,
    `wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local bodies = {${list}}
local i = 0
local bad = 0
request = function()
  i = i % #bodies + 1
  return wrk.format(nil, nil, nil, bodies[i])
end
${
  opts.checkBody === false
    ? ''
    : `response = function(status, headers, body)
  if status ~= 200 or not string.find(body, '"status":"success"', 1, true) then bad = bad + 1 end
end`
}
done = function(summary, latency, requests)
  io.write(string.format("BAD %d\\n", bad))
end
`,
  );
  const [c, a] = pinned(1, 'wrk', ['-t1', `-c${opts.connections}`, `-d${opts.seconds}s`, '--latency', '-s', script, url]);
  const { stdout: out } = await promisify(execFile)(c, a, { encoding: 'utf8' });
  fs.rmSync(script, { force: true });
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0),
    p50ms: ms(/50%\s+([\d.]+)(us|ms|s)/.exec(out)),
    p99ms: ms(/99%\s+([\d.]+)(us|ms|s)/.exec(out)),
    errors: Number(/BAD (\d+)/.exec(out)?.[1] ?? 0) + Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0) * (opts.checkBody === false ? 1 : 0),
    socketErrors: sock ? sock.slice(1).reduce((s, n) => s + Number(n), 0) : 0,
  };
}

/**
 * Latency of one client asking one question again and again (wrk, one
 * connection, in its own process): p50 and p95 in ms. Answers are not
 * handed to Lua (a 25 MB body per answer would cost wrk more than the
 * server); `failures` counts non-2xx answers and socket errors only.
 */
export async function wrkLatency(url: string, body: string, seconds: number): Promise<{ p50: number; p95: number; requests: number; failures: number }> {
  const script = path.join(os.tmpdir(), `bench-latency-${process.pid}-${Math.random().toString(36).slice(2)}.lua`);
  fs.writeFileSync(
    script,
    `wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = [==[${body}]==]
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("P50 %d\\nP95 %d\\nN %d\\nFAILED %d\\n", latency:percentile(50), latency:percentile(95), summary.requests, e.status + e.connect + e.read + e.write + e.timeout))
end
`,
  );
  const [c, a] = pinned(1, 'wrk', ['-t1', '-c1', `-d${seconds}s`, '--timeout', '10s', '-s', script, url]);
  try {
    const { stdout: out } = await promisify(execFile)(c, a, { encoding: 'utf8' });
    const num = (k: string) => Number(new RegExp(`${k} (\\d+)`).exec(out)?.[1] ?? NaN);
    return { p50: num('P50') / 1000, p95: num('P95') / 1000, requests: num('N'), failures: num('FAILED') };
  } finally {
    fs.rmSync(script, { force: true });
  }
}

/** Resident set size of a process in MiB (Linux /proc). */
export function rssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : NaN;
}

export const ECHO_SERVER = `
const http = require('node:http');
const body = process.env.ECHO_BODY;
http.createServer((req, res) => {
  let got = '';
  req.on('data', (c) => (got += c));
  req.on('end', () => {
    // Parse like the API does (the work a JSON endpoint cannot avoid); a GET probe has no body.
    if (got) JSON.parse(got);
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
}).listen(Number(process.env.PORT), '127.0.0.1');
`;

/** The last markdown table (a header row, a |---| row and rows) in a script's output. */
export function lastTable(out: string): string {
  const tables: string[][] = [];
  let current: string[] = [];
  for (const line of out.split(/\r?\n|\r/)) {
    if (line.startsWith('|')) current.push(line);
    else if (current.length) {
      tables.push(current);
      current = [];
    }
  }
  if (current.length) tables.push(current);
  const real = tables.filter((t) => t.length >= 2 && /^\|\s*-/.test(t[1]!));
  return (real[real.length - 1] ?? []).join('\n');
}

/** utime + stime of a process, in microseconds (Linux /proc). */
export function cpuMicros(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
  } catch {
    return NaN;
  }
}
