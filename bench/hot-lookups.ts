/**
 * Hot-lookup benchmark (PRODUCT.md §8): Directory/getDnc and Directory/getInfo
 * with ssid authentication on 1,000,000 contacts, against a bare node:http
 * JSON echo measured in the same run, on SQLite and PostgreSQL.
 *
 *   npx tsx bench/hot-lookups.ts [--db sqlite|postgres|both] [--duration 5] [--rounds 3] [--contacts 1000000]
 *                                [--runtimes tsx,build] [--ops getDnc,getInfo] [--baseline DIR] [--seed-only]
 *
 * Servers run as child processes pinned to core 0 (taskset), the load
 * generator (wrk, 50 connections, one thread) on core 1. Every request looks
 * up a random one of the seeded contacts. The seeded databases are kept
 * (SQLite: BENCH_DATA_DIR, default /tmp/callcenter-bench; PostgreSQL: schema
 * bench_directory of BENCH_DATABASE_URL) so a second run skips the seeding.
 * --baseline DIR adds a server started from another checkout (built: its
 * dist/ current), measured in the same rounds: before/after on one machine
 * state. To profile the server, set BENCH_SERVER_NODE_ARGS (bench/support.ts)
 * and pick one operation with --ops.
 * The server runs with RATE_LIMIT_PER_MINUTE=0: one session at 40,000 req/s
 * is far above the default per-credential limit.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cpuMicros, hasTaskset, openKeptBenchDatabase, pinned, root, startServerProcess, startChild, stopChild } from './support.js';
import { parseArgs } from '../src/cli/args.js';
import { seedContacts, seededContact, progressLine } from '../src/cli/seed-contacts.js';
import { systemClock } from '../src/clock.js';
import { migrate } from '../src/db/migrate.js';
import type { Dialect } from '../src/db/types.js';
import { AccountService } from '../src/modules/account/account.service.js';
import { DncService } from '../src/modules/directory/dnc.service.js';

const { options } = parseArgs(process.argv.slice(2));
const DURATION = Number(options.duration ?? 5);
const ROUNDS = Number(options.rounds ?? 3);
const CONTACTS = Number(options.contacts ?? 1_000_000);
const CONNECTIONS = 50;
/**
 * --runtimes tsx,build: one server per way of running it, side by side in the same rounds
 * (`tsx`: the TypeScript sources, CALLCENTER_NO_BUILD=1, the old default start; `build`: dist/,
 * compiled first when stale). Default: one server, started as `npm start` starts it.
 */
const RUNTIMES = (options.runtimes ?? 'default').split(',').filter(Boolean);
const RUNTIME_ENV: Record<string, Record<string, string>> = {
  default: {},
  tsx: { CALLCENTER_NO_BUILD: '1' },
  build: {},
  // The build with V8's young generation capped (semi-spaces of 4 / 8 MB instead of 16): memory against speed.
  'build-semi4': { NODE_OPTIONS: '--max-semi-space-size=4' },
  'build-semi8': { NODE_OPTIONS: '--max-semi-space-size=8' },
  // The build with glibc's own number of malloc arenas instead of the start script's MALLOC_ARENA_MAX=2 (package.json).
  'build-glibc-arenas': { MALLOC_ARENA_MAX: '0' },
  // The build with V8's own heap growing factor instead of the 50 % the server sets (boundHeapGrowth in src/server.ts; node's command line only).
  'build-v8growth': {},
};
/** Node flags of a runtime that NODE_OPTIONS does not accept. */
const RUNTIME_NODE_ARGS: Record<string, string[]> = { 'build-v8growth': ['--heap-growing-percent=0'] };
for (const r of RUNTIMES) if (!RUNTIME_ENV[r]) throw new Error(`--runtimes: unknown runtime ${r} (tsx, build)`);
const BASELINE = options.baseline ? path.resolve(options.baseline) : null;
if (BASELINE) RUNTIMES.push('baseline');
const OPS = (options.ops ?? 'getDnc,getInfo').split(',').filter(Boolean);
const DIALECTS: Dialect[] = options.db === 'sqlite' ? ['sqlite'] : options.db === 'postgres' ? ['postgres'] : ['sqlite', 'postgres'];
const DATA_DIR = process.env.BENCH_DATA_DIR ?? path.join(os.tmpdir(), 'callcenter-bench');
const PG_SCHEMA = 'bench_directory';
const ACCOUNT = { username: 'bench-directory', password: 'bench-directory-password' };

function requireWrk(): void {
  try {
    execFileSync('which', ['wrk'], { stdio: 'ignore' });
  } catch {
    console.error('wrk is required: apt-get install -y wrk');
    process.exit(2);
  }
}

/** Migrated database with the bench account holding CONTACTS contacts (and a few DNC entries). */
async function prepare(dialect: Dialect): Promise<Record<string, string>> {
  const { db, env } = await openKeptBenchDatabase(dialect, DATA_DIR, PG_SCHEMA);
  try {
    await migrate(db);
    const accounts = new AccountService({ db, clock: systemClock });
    await accounts.bootstrap('operator', 'operator-password');
    let row = await db.get<{ id: number }>('SELECT id FROM accounts WHERE username = $1', [ACCOUNT.username]);
    if (!row) row = { id: await accounts.create({ ...ACCOUNT, name: 'Benchmark' }) };
    const accountId = Number(row.id);
    const have = Number((await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM contacts WHERE account_id = $1', [accountId]))?.n ?? 0);
    if (have < CONTACTS) {
      console.log(`[${dialect}] seeding ${CONTACTS.toLocaleString('en-US')} contacts (have ${have.toLocaleString('en-US')})`);
      const { elapsedMs } = await seedContacts(db, accountId, CONTACTS, (p) => process.stdout.write(progressLine(p)));
      console.log(`\n[${dialect}] seeded in ${(elapsedMs / 1000).toFixed(1)} s`);
      const dnc = new DncService({ db, clock: systemClock });
      for (let i = 0; i < CONTACTS; i += 1000) await dnc.set(accountId, seededContact(i), -1);
    }
    return env;
  } finally {
    await db.close();
  }
}

const ECHO = `
const http = require('node:http');
http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const parsed = JSON.parse(body);
    const out = JSON.stringify({ status: 'success', code: 200, data: { dnc: 0, contact: parsed.contact } });
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(out) });
    res.end(out);
  });
}).listen(Number(process.env.PORT), '127.0.0.1');
`;

async function waitFor(url: string, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      const res = await fetch(url, { method: url.endsWith('/healthz') ? 'GET' : 'POST', body: url.endsWith('/healthz') ? undefined : '{"contact":"1"}' });
      if (res.ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > until) throw new Error(`${url} did not come up`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

interface Result {
  rps: number;
  p99ms: number;
  /** CPU time the server process spent per request (µs): independent of what else the machine runs. */
  cpuUs: number;
}

/** wrk: random seeded contact per request; field is the body key holding the number. */
function load(url: string, bodyPrefix: string, field: string, seconds = DURATION, pid?: number): Result {
  const script = path.join(os.tmpdir(), `bench-hot-${process.pid}.lua`);
  fs.writeFileSync(
    script,
    `wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
math.randomseed(os.time())
request = function()
  local body = '{${bodyPrefix}"${field}":"' .. tostring(917000000000 + math.random(0, ${CONTACTS - 1})) .. '"}'
  return wrk.format(nil, nil, nil, body)
end
`,
  );
  const [c, a] = pinned(1, 'wrk', ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', '-s', script, url]);
  const cpuBefore = cpuMicros(pid);
  const out = execFileSync(c, a, { encoding: 'utf8' });
  const cpu = cpuMicros(pid) - cpuBefore;
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0);
  const p99 = /99%\s+([\d.]+)(us|ms|s)/.exec(out);
  const p99ms = p99 ? Number(p99[1]) * (p99[2] === 'us' ? 0.001 : p99[2] === 's' ? 1000 : 1) : NaN;
  const errors = /Non-2xx or 3xx responses: (\d+)/.exec(out);
  if (errors) console.warn(`  ${errors[1]} non-2xx responses`);
  return { rps, p99ms, cpuUs: requests > 0 ? cpu / requests : NaN };
}

async function main(): Promise<void> {
  requireWrk();
  console.log(
    `hot lookups: ${CONTACTS.toLocaleString('en-US')} contacts, ${CONNECTIONS} connections, ${DURATION} s per run, taskset ${hasTaskset ? 'on' : 'off'}`,
  );
  const envs = new Map<Dialect, Record<string, string>>();
  for (const d of DIALECTS) envs.set(d, await prepare(d));
  if (options['seed-only'] !== undefined) return;

  // The build must be current before its server starts (bin/callcenter.js would compile it, but not under a test runner).
  if (RUNTIMES.includes('build')) execFileSync(process.execPath, [path.join(root, 'bin/build.js'), '--if-possible'], { stdio: 'inherit' });
  const echoPort = 18_090;
  const echoUrl = `http://127.0.0.1:${echoPort}/`;
  const echo = startChild(process.execPath, ['-e', ECHO], { PORT: String(echoPort) });
  const rows: string[] = [];
  try {
    await waitFor(echoUrl);
    load(echoUrl, '"ssid":"x",', 'contact', 3); // warm-up
    for (const d of DIALECTS) {
      // One server per runtime, all on core 0 (an idle server costs nothing), measured in the same rounds.
      const servers = RUNTIMES.map((runtime, i) => ({
        runtime,
        port: 18_091 + i,
        child: startServerProcess(
          {
            ...envs.get(d)!,
            ...(RUNTIME_ENV[runtime] ?? {}),
            PORT: String(18_091 + i),
            HOST: '127.0.0.1',
            LOG_LEVEL: 'warn',
            RATE_LIMIT_PER_MINUTE: '0',
          },
          { nodeArgs: RUNTIME_NODE_ARGS[runtime] ?? [], cwd: runtime === 'baseline' ? BASELINE! : root },
        ),
        auth: '',
      }));
      try {
        const ops = (
          [
            ['getDnc', 'contact'],
            ['getInfo', 'cn'],
          ] as const
        ).filter(([op]) => OPS.includes(op));
        const label = (op: string, runtime: string) => (runtime === 'default' ? op : `${op} (${runtime})`);
        for (const s of servers) {
          await waitFor(`http://127.0.0.1:${s.port}/healthz`);
          const login = (await (await fetch(`http://127.0.0.1:${s.port}/api/v2/auth/login`, { method: 'POST', body: JSON.stringify(ACCOUNT) })).json()) as {
            ssid: string;
          };
          s.auth = `"ssid":"${login.ssid}",`;
          for (const [op, field] of ops) load(`http://127.0.0.1:${s.port}/api/v2/Directory/${op}`, s.auth, field, 3); // warm-up: caches, JIT, pool
        }
        // Rounds of echo, then each operation on each server back to back: each is compared with the echo
        // measured right before it, so load from other processes on the machine shifts both alike.
        const results = new Map<string, Array<Result & { ratio: number; cpuRatio: number }>>();
        for (let round = 0; round < ROUNDS; round++) {
          const bare = load(echoUrl, '"ssid":"x",', 'contact', DURATION, echo.pid);
          const list = results.get('echo') ?? [];
          list.push({ ...bare, ratio: 1, cpuRatio: 1 });
          results.set('echo', list);
          for (const s of servers) {
            for (const [op, field] of ops) {
              const r = load(`http://127.0.0.1:${s.port}/api/v2/Directory/${op}`, s.auth, field, DURATION, s.child.pid);
              const key = label(op, s.runtime);
              const l = results.get(key) ?? [];
              l.push({ ...r, ratio: r.rps / bare.rps, cpuRatio: bare.cpuUs / r.cpuUs });
              results.set(key, l);
            }
          }
        }
        const target = d === 'sqlite' ? 0.5 : 0.17;
        for (const [op, list] of results) {
          const rps = median(list.map((r) => r.rps));
          const p99 = median(list.map((r) => r.p99ms));
          const ratio = median(list.map((r) => r.ratio));
          const cpuUs = median(list.map((r) => r.cpuUs));
          const cpuRatio = median(list.map((r) => r.cpuRatio));
          const verdict = op === 'echo' ? '' : ratio >= target && p99 < 10 ? 'met' : ratio >= target ? 'ratio met, p99 not' : 'NOT met';
          const line = `| ${d} | ${op === 'echo' ? 'bare node:http echo' : op} | ${Math.round(rps)} | ${p99.toFixed(2)} ms | ${ratio.toFixed(2)} × | ${cpuUs.toFixed(1)} µs | ${cpuRatio.toFixed(2)} × | ${op === 'echo' ? '' : `${target} × / p99 < 10 ms: ${verdict}`} |`;
          console.log(line);
          rows.push(line);
        }
      } finally {
        for (const s of servers) await stopChild(s.child);
      }
    }
  } finally {
    await stopChild(echo);
  }
  console.log(`\nmedian of ${ROUNDS} rounds, ${DURATION} s each, load average at the end: ${os.loadavg()[0]!.toFixed(1)}`);
  console.log(
    `| database | operation | req/s | p99 | req/s ÷ echo | server CPU per request | echo CPU ÷ server CPU | target (req/s ratio) |\n|---|---|---|---|---|---|---|---|\n${rows.join('\n')}`,
  );
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
