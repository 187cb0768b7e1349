/**
 * analysis/hits benchmark (PRODUCT §8): seeds N calls (or reuses a seeded
 * database) and measures p50/p95 of the query mix on SQLite and PostgreSQL,
 * over real HTTP on a local port (authentication, validation, JSON), plus
 * the database size. p50/p95: one client in its own process (wrk, one
 * connection, pinned to the second core) asking the same question for
 * --seconds, timed until the last byte of each answer; "first ask": the
 * first time since the server started (nothing of it kept in memory),
 * timed in process. Each row's "bare floor" is a bare node:http server
 * started here sending the same bytes, measured by the same wrk.
 *
 *   npx tsx bench/analysis.ts [--calls 10000000] [--days 150] [--db sqlite|postgres|both]
 *                             [--seconds 4] [--quick] [--seed-only] [--data-dir data/bench-analysis]
 *                             [--match TEXT (only the rows whose name holds TEXT)]
 *                             [--baseline DIR [--rounds 3] [--control]]
 *
 * --baseline DIR: a before/after on one machine state (runs minutes apart
 * differ by more than most changes). This build and the checkout in DIR
 * (built there: `git worktree add --detach DIR <commit>`, `npm ci`, `npm run
 * build`) each run as a server process, as `npm start` starts them, on the
 * same database (seeded and migrated by this build; the older build skips
 * the migrations it does not know), and are asked each question in the
 * same --rounds, alternated, for --seconds each (analysis-baseline.ts).
 * Per question: p50/p95 and the server's CPU time per request (/proc,
 * around each wrk run) of both, and the medians of baseline ÷ this build
 * (CPU and p50; below 1: this build costs more). A question the baseline
 * cannot answer is left out with a note. No first ask, no bare floor here.
 * --control: a second server of this build in the same rounds (each server
 * first in every third round), and "control ÷ this build" beside the
 * baseline's ratio: how far identical code reads from itself at that moment.
 *
 * SQLite lives in --data-dir; PostgreSQL in schema bench_analysis of
 * BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/callcenter_bench,
 * created when missing).
 * A database already holding at least N calls for the bench account is reused.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { parseArgs } from '../src/cli/args.js';
import { seedCalls } from '../src/cli/seed-calls.js';
import { systemClock } from '../src/clock.js';
import { loadConfig } from '../src/config/config.js';
import { migrate } from '../src/db/migrate.js';
import type { Database, Dialect } from '../src/db/types.js';
import { AccountService } from '../src/modules/account/account.service.js';
import { ask, callStorer, login, PASSWORD, questionMix, USER, whileStoring } from './analysis-mix.js';
import { baselineTable, compareWithBaseline, type BaselineRow } from './analysis-baseline.js';
import { openKeptBenchDatabase, root, wrkLatency } from './support.js';

const { options } = parseArgs(process.argv.slice(2));
const quick = options.quick !== undefined;
// --seed-only: load the databases (for example both at once, in two processes) and measure later.
const SEED_ONLY = options['seed-only'] !== undefined;
const CALLS = Number(options.calls ?? (quick ? 200_000 : 10_000_000));
const DAYS = Number(options.days ?? (quick ? 30 : 150));
const SECONDS = Number(options.seconds ?? (quick ? 1 : 4));
const DIALECTS: Dialect[] = options.db === 'sqlite' ? ['sqlite'] : options.db === 'postgres' ? ['postgres'] : ['sqlite', 'postgres'];
const DATA_DIR = path.resolve(root, options['data-dir'] ?? 'data/bench-analysis');
const SCHEMA = options.schema ?? 'bench_analysis';
// --baseline DIR: this build against another checkout's, both as servers (analysis-baseline.ts).
const BASELINE = options.baseline ? path.resolve(options.baseline) : null;
const ROUNDS = Number(options.rounds ?? 3);

/** The kept database, in process and as a server's environment (--baseline), with its size on disk. */
async function open(dialect: Dialect): Promise<{ db: Database; env: Record<string, string>; size: () => Promise<number> }> {
  const { db, env } = await openKeptBenchDatabase(dialect, DATA_DIR, SCHEMA);
  if (dialect === 'sqlite') {
    const file = path.join(DATA_DIR, 'callcenter.db');
    const size = async () => ['', '-wal'].reduce((n, s) => n + (fs.existsSync(file + s) ? fs.statSync(file + s).size : 0), 0);
    // DATABASE_URL in this shell would take the servers to PostgreSQL.
    return { db, env: { ...env, DATABASE_URL: '' }, size };
  }
  const size = async () => {
    const row = await db.get<{ n: number }>(
      `SELECT COALESCE(SUM(pg_total_relation_size(quote_ident(schemaname) || '.' || quote_ident(tablename))), 0) AS n FROM pg_tables WHERE schemaname = $1`,
      [SCHEMA],
    );
    return Number(row?.n ?? 0);
  };
  return { db, env, size };
}

async function ensureData(db: Database): Promise<{ accountId: number; calls: number; seeded: number; seedSeconds: number }> {
  await migrate(db);
  let row = await db.get<{ id: number }>('SELECT id FROM accounts WHERE username = $1', [USER]);
  const accounts = new AccountService({ db, clock: systemClock });
  if (!row) {
    await accounts.create({ username: USER, password: PASSWORD, name: 'Analysis benchmark' });
    row = await db.get<{ id: number }>('SELECT id FROM accounts WHERE username = $1', [USER]);
  }
  const accountId = Number(row!.id);
  const have = Number((await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM calls WHERE account_id = $1', [accountId]))?.n ?? 0);
  if (have >= CALLS) return { accountId, calls: have, seeded: 0, seedSeconds: 0 };
  const started = Date.now();
  let last = 0;
  await seedCalls(db, accountId, CALLS - have, DAYS, (p) => {
    if (Date.now() - last > 5000) {
      last = Date.now();
      process.stderr.write(
        `  ${db.dialect}: ${p.done.toLocaleString('en-US')} calls, ${Math.round(p.done / (p.elapsedMs / 1000)).toLocaleString('en-US')}/s\n`,
      );
    }
  });
  return { accountId, calls: CALLS, seeded: CALLS - have, seedSeconds: (Date.now() - started) / 1000 };
}

interface Row {
  dialect: Dialect;
  name: string;
  path: string;
  p50: number;
  p95: number;
  /** The first ask of the query since the server started: nothing of it kept in memory yet (bucket-day-cache.ts). */
  first: number;
  keys: number;
  bytes: number;
  /** p50 of a bare node:http server answering the same bytes precomputed, measured the same way. */
  floor: number;
  requests: number;
}

/**
 * The transport's share of an answer: a bare node:http server that sends a
 * precomputed body, measured by the same wrk. A 25 MB answer cannot arrive
 * faster than this, whatever the service does.
 */
async function floorMs(body: Buffer, ask: string): Promise<number> {
  const bare = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length }).end(body));
  });
  await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
  try {
    return (await wrkLatency(`http://127.0.0.1:${(bare.address() as AddressInfo).port}/`, ask, SECONDS)).p50;
  } finally {
    bare.closeAllConnections();
    await new Promise((r) => bare.close(r));
  }
}

async function measure(dialect: Dialect): Promise<{ rows: Row[]; info: string }> {
  const { db, env, size } = await open(dialect);
  const data = await ensureData(db);
  if (SEED_ONLY) {
    await db.close();
    return {
      rows: [],
      info: `${dialect}: ${data.calls.toLocaleString('en-US')} calls${data.seeded ? `, ${data.seeded.toLocaleString('en-US')} seeded in ${data.seedSeconds.toFixed(0)} s` : ' (reused)'}`,
    };
  }
  if (BASELINE) {
    try {
      const out = await compareWithBaseline({
        dialect,
        db,
        accountId: data.accountId,
        env,
        baselineDir: BASELINE,
        rounds: ROUNDS,
        seconds: SECONDS,
        match: options.match,
        control: options.control !== undefined,
      });
      compared.push(...out.rows);
      notes.push(...out.notes);
      return { rows: [], info: `${dialect}: ${data.calls.toLocaleString('en-US')} calls over ${DAYS} days${data.seeded ? ', seeded now' : ' (reused)'}` };
    } finally {
      await db.close();
    }
  }
  const { app } = await buildApp({ config: loadConfig({ LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '1000000000' }), db });
  try {
    return await measureOn(dialect, app, db, size, data);
  } finally {
    await app.close();
    await db.close();
  }
}

async function measureOn(
  dialect: Dialect,
  app: Awaited<ReturnType<typeof buildApp>>['app'],
  db: Database,
  size: () => Promise<number>,
  data: Awaited<ReturnType<typeof ensureData>>,
): Promise<{ rows: Row[]; info: string }> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  const ssid = await login(port);
  const { mix, agentKey } = await questionMix(port, ssid);
  const storeOne = callStorer(db, data.accountId, agentKey);
  const rows: Row[] = [];
  const match = options.match;
  for (const [name, body] of mix) {
    if (match !== undefined && !name.includes(match)) continue;
    const live = name.startsWith('live');
    if (live) await storeOne();
    const first = await ask(port, ssid, body, name);
    const w = await whileStoring(live ? storeOne : null, () =>
      wrkLatency(`http://127.0.0.1:${port}/api/v2/analysis/hits`, JSON.stringify({ ssid, ...body }), SECONDS),
    );
    if (w.failures > 0 || !(w.requests > 0)) throw new Error(`${name}: wrk saw ${w.failures} failures in ${w.requests} requests`);
    const last = await ask(port, ssid, body, name); // still a success answer after the run (wrk does not read the bodies)
    const floor = await floorMs(last.reply, JSON.stringify({ ssid, ...body }));
    rows.push({ dialect, name, path: '', p50: w.p50, p95: w.p95, first: first.ms, keys: last.keys, bytes: last.reply.length, floor, requests: w.requests });
    process.stderr.write(
      `  ${dialect} ${name}: p50 ${w.p50.toFixed(1)} ms, p95 ${w.p95.toFixed(1)} ms (${w.requests} asks), first ask ${first.ms.toFixed(1)} ms (bare floor ${floor.toFixed(1)} ms, ${last.reply.length} B)\n`,
    );
  }
  const bytes = await size();
  const rollupRows = Number(
    (
      await db.get<{ n: number }>(
        'SELECT (SELECT COUNT(*) FROM analysis_fine) + (SELECT COUNT(*) FROM analysis_hourly) + (SELECT COUNT(*) FROM analysis_daily) + (SELECT COUNT(*) FROM analysis_cube) AS n',
      )
    )?.n ?? 0,
  );
  const info = `${dialect}: ${data.calls.toLocaleString('en-US')} calls over ${DAYS} days${data.seeded ? `, ${data.seeded.toLocaleString('en-US')} seeded in ${data.seedSeconds.toFixed(0)} s (${Math.round(data.seeded / data.seedSeconds).toLocaleString('en-US')} calls/s)` : ' (reused)'}, database ${(bytes / 2 ** 30).toFixed(2)} GiB, ${rollupRows.toLocaleString('en-US')} roll-up rows`;
  return { rows, info };
}

const all: Row[] = [];
const compared: BaselineRow[] = [];
const notes: string[] = [];
const infos: string[] = [];
const loadBefore = os.loadavg()[0]!;
for (const d of DIALECTS) {
  try {
    const { rows, info } = await measure(d);
    all.push(...rows);
    infos.push(info);
  } catch (err) {
    infos.push(`${d}: failed: ${(err as Error).message}`);
  }
}
console.log(infos.map((i) => `- ${i}`).join('\n'));
console.log('');
if (BASELINE) {
  if (notes.length) console.log(`${notes.map((n) => `- ${n}`).join('\n')}\n`);
  console.log(baselineTable(compared, { baselineDir: BASELINE, rounds: ROUNDS, seconds: SECONDS, loadBefore }));
} else {
  const human = (b: number) => (b >= 1e6 ? `${(b / 1e6).toFixed(1)} MB` : `${(b / 1e3).toFixed(1)} kB`);
  console.log('| database | query | keys | answer | p50 | p95 | first ask | bare floor p50 |\n|---|---|---|---|---|---|---|---|');
  for (const r of all)
    console.log(
      `| ${r.dialect} | ${r.name} | ${r.keys} | ${human(r.bytes)} | ${r.p50.toFixed(1)} ms | ${r.p95.toFixed(1)} ms | ${r.first.toFixed(1)} ms | ${r.floor.toFixed(1)} ms |`,
    );
}
