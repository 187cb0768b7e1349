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
 *
 * SQLite lives in --data-dir; PostgreSQL in schema bench_analysis of
 * BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/callcenter_bench,
 * created when missing).
 * A database already holding at least N calls for the bench account is reused.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { parseArgs } from '../src/cli/args.js';
import { seedCalls } from '../src/cli/seed-calls.js';
import { systemClock } from '../src/clock.js';
import { loadConfig } from '../src/config/config.js';
import { migrate } from '../src/db/migrate.js';
import { PostgresDatabase } from '../src/db/postgres.js';
import { SqliteDatabase } from '../src/db/sqlite.js';
import type { Database, Dialect } from '../src/db/types.js';
import { AccountService } from '../src/modules/account/account.service.js';
import { RollupSink } from '../src/modules/analysis/rollup/rollup-sink.js';
import { CallHistoryService } from '../src/modules/calls/call-history.service.js';
import type { CallRecord } from '../src/modules/calls/call-record.js';
import { ensureBenchDatabase, PG_URL, root, wrkLatency } from './support.js';

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
const USER = 'bench-analysis';
const PASSWORD = 'bench-analysis-password';

async function open(dialect: Dialect): Promise<{ db: Database; size: () => Promise<number> }> {
  if (dialect === 'sqlite') {
    const file = path.join(DATA_DIR, 'callcenter.db');
    const db = new SqliteDatabase(file);
    const size = async () => ['', '-wal'].reduce((n, s) => n + (fs.existsSync(file + s) ? fs.statSync(file + s).size : 0), 0);
    return { db, size };
  }
  await ensureBenchDatabase();
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA IF NOT EXISTS ${SCHEMA}`);
  await admin.end();
  const db = new PostgresDatabase(PG_URL, 4, `-c search_path=${SCHEMA}`);
  const size = async () => {
    const row = await db.get<{ n: number }>(
      `SELECT COALESCE(SUM(pg_total_relation_size(quote_ident(schemaname) || '.' || quote_ident(tablename))), 0) AS n FROM pg_tables WHERE schemaname = $1`,
      [SCHEMA],
    );
    return Number(row?.n ?? 0);
  };
  return { db, size };
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

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** POSTs a JSON body; resolves with the answer's chunks once the last one has arrived (not joined, not parsed: the client's time). */
function postRaw(port: number, route: string, body: string): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: route,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(chunks));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
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
  const { db, size } = await open(dialect);
  const data = await ensureData(db);
  if (SEED_ONLY) {
    await db.close();
    return {
      rows: [],
      info: `${dialect}: ${data.calls.toLocaleString('en-US')} calls${data.seeded ? `, ${data.seeded.toLocaleString('en-US')} seeded in ${data.seedSeconds.toFixed(0)} s` : ' (reused)'}`,
    };
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
  const post = async (url: string, body: unknown) =>
    JSON.parse(Buffer.concat(await postRaw(port, url, JSON.stringify(body))).toString()) as Record<string, unknown>;
  const login = await post('/api/v2/auth/login', { username: USER, password: PASSWORD });
  const ssid = login.ssid as string;
  const today = Math.floor(Date.now() / 86400_000) * 86400;
  const range = { key: 'date', condi: 'range', val: `${today - 30 * 86400},${today - 1}` };
  const mmdd = (t: number) => {
    const d = new Date(t * 1000);
    return `${String(d.getUTCMonth() + 1).padStart(2, '0')}-${String(d.getUTCDate()).padStart(2, '0')}-${d.getUTCFullYear()}`;
  };
  const stringRange = { key: 'date', condi: 'range', val: `${mmdd(today - 30 * 86400)} 00:00:00,${mmdd(today - 86400)} 23:59:59` };
  const some = async (breakDown: string) =>
    Object.keys(((await post('/api/v2/analysis/hits', { ssid, breakDown, filter: [range], fields: 'TC' })).data ?? {}) as object).slice(0, 3);
  const keys: Record<string, string[]> = {};
  for (const b of ['agentId', 'groupId', 'did', 'campaignId']) keys[b] = await some(b);
  const mix: Array<[string, Record<string, unknown>]> = [];
  // What dashboards ask (issue 21): the last 31 days up to the current second, and a range starting
  // and ending mid-hour (the same time of day 31 days ago and yesterday: both ends dense), totals
  // without multi, with the counters a wallboard shows.
  const now = Math.floor(Date.now() / 1000);
  const wallboard = 'UC,TC,MC,AC,CM,PM,CA,GH_UC,avgRingTime,avgHoldTime';
  const untilNow = { key: 'date', condi: 'range', val: `${now - 31 * 86400},${now}` };
  const midHours = { key: 'date', condi: 'range', val: `${now - 31 * 86400},${now - 86400}` };
  for (const b of ['agentId', 'groupId', 'did', 'campaignId']) {
    mix.push([`${b}: 31 days ending now, total (no multi)`, { breakDown: b, disPlay: 'total', fields: wallboard, filter: [untilNow] }]);
    mix.push([`${b}: 31 days mid-hour to mid-hour, total (no multi)`, { breakDown: b, disPlay: 'total', fields: wallboard, filter: [midHours] }]);
    mix.push([`${b}: 31 days ending now, date (multi)`, { breakDown: b, disPlay: 'date', multi: true, filter: [untilNow] }]);
    mix.push([`${b}: 31 days ending now, hour (multi)`, { breakDown: b, disPlay: 'hour', multi: true, filter: [untilNow] }]);
    mix.push([`${b}: 31 days mid-hour to mid-hour, hour (multi)`, { breakDown: b, disPlay: 'hour', multi: true, filter: [midHours] }]);
  }
  for (const b of ['agentId', 'groupId', 'did', 'campaignId']) {
    mix.push([`${b}: 30 days, disPlay date (multi)`, { breakDown: b, disPlay: 'date', multi: true, filter: [stringRange] }]);
    mix.push([`${b}: 30 days, total`, { breakDown: b, disPlay: 'total', filter: [range] }]);
    mix.push([`${b}: 30 days, month (multi)`, { breakDown: b, disPlay: 'month', multi: true, filter: [range] }]);
    mix.push([`${b}: 30 days, ${b} in 3 keys, date (multi)`, { breakDown: b, multi: true, filter: [range, { key: b, condi: 'in', val: keys[b] }] }]);
    mix.push([`${b}: 30 days, disPlay hour (multi)`, { breakDown: b, disPlay: 'hour', multi: true, filter: [range] }]);
  }
  mix.push(['other: agentId by did filter (cube)', { breakDown: 'agentId', filter: [range, { key: 'did', condi: 'eq', val: keys.did![0] }] }]);
  mix.push([
    'other: groupId by campaign + direction (cube)',
    { breakDown: 'groupId', filter: [range, { key: 'campaignId', condi: 'eq', val: keys.campaignId![0] }, { key: 'direction', condi: 'eq', val: 'inbound' }] },
  ]);
  mix.push(['other: did by one agent (cube)', { breakDown: 'did', filter: [range, { key: 'agentId', condi: 'eq', val: keys.agentId![0] }] }]);
  mix.push([
    'other: groupId by 2 agents, 30 days (cube + shared calls)',
    { breakDown: 'groupId', filter: [range, { key: 'agentId', condi: 'in', val: keys.agentId!.slice(0, 2) }] },
  ]);
  mix.push([
    'other: agentId, 1 day not whole days (hourly + raw edges)',
    { breakDown: 'agentId', filter: [{ key: 'date', condi: 'range', val: `${today - 2 * 86400 + 1800},${today - 86400 + 1799}` }] },
  ]);
  // Up to the end of today, with calls ending meanwhile (as ingest stores them all day): today is
  // computed again every time, the 30 days before it come from memory.
  const live = (display: string) => ({
    breakDown: 'agentId',
    disPlay: display,
    multi: true,
    filter: [{ key: 'date', condi: 'range', val: `${today - 30 * 86400},${today + 86400 - 1}` }],
  });
  mix.push([
    'live: agentId, 31 days ending now, total (no multi), 10 calls/s stored meanwhile',
    { breakDown: 'agentId', disPlay: 'total', fields: wallboard, filter: [untilNow] },
  ]);
  mix.push(['live: agentId, 30 days + today, date (multi), 10 calls/s stored meanwhile', live('date')]);
  mix.push(['live: agentId, 30 days + today, disPlay hour (multi), 10 calls/s stored meanwhile', live('hour')]);
  let stored = 0;
  const history = new CallHistoryService({ db, sink: new RollupSink() });
  const storeOne = async () => {
    const at = Math.floor(Date.now() / 1000) - 60;
    const agentId = Number(keys.agentId![0]);
    const record: CallRecord = {
      accountId: data.accountId,
      callId: `bench-live-${process.pid}-${Date.now()}-${stored++}`,
      queuedAt: at,
      endedAt: at + 40,
      groupId: null,
      did: null,
      campaignId: null,
      direction: 'inbound',
      caller: null,
      retryOf: null,
      answeredBy: agentId,
      answeredAt: at + 5,
      talkSecs: 30,
      holdSecs: 0,
      waitSecs: 5,
      outcome: 'completed',
      hits: [{ seq: 0, agentId, ringAt: at + 1, ringSecs: 4, answered: true }],
    };
    await db.transaction((tx) => history.record(tx, record.accountId, [record]));
  };
  const ask = async (body: Record<string, unknown>, name: string) => {
    const t = performance.now();
    const chunks = await postRaw(port, '/api/v2/analysis/hits', JSON.stringify({ ssid, ...body }));
    const ms = performance.now() - t;
    const reply = Buffer.concat(chunks);
    const res = JSON.parse(reply.toString()) as Record<string, unknown>;
    if (res.status !== 'success') throw new Error(`${name}: ${JSON.stringify(res).slice(0, 300)}`);
    return { ms, reply, keys: Object.keys(res.data as object).length };
  };
  const rows: Row[] = [];
  const match = options.match;
  for (const [name, body] of mix) {
    if (match !== undefined && !name.includes(match)) continue;
    const live = name.startsWith('live');
    if (live) await storeOne();
    const first = await ask(body, name);
    // Calls keep ending while a live row is measured: ten a second, as ingest would store them.
    let storing = Promise.resolve();
    const timer = live ? setInterval(() => (storing = storing.then(storeOne)), 100) : null;
    const w = await wrkLatency(`http://127.0.0.1:${port}/api/v2/analysis/hits`, JSON.stringify({ ssid, ...body }), SECONDS);
    if (timer) clearInterval(timer);
    await storing;
    if (w.failures > 0 || !(w.requests > 0)) throw new Error(`${name}: wrk saw ${w.failures} failures in ${w.requests} requests`);
    const last = await ask(body, name); // still a success answer after the run (wrk does not read the bodies)
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
const infos: string[] = [];
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
const human = (b: number) => (b >= 1e6 ? `${(b / 1e6).toFixed(1)} MB` : `${(b / 1e3).toFixed(1)} kB`);
console.log('| database | query | keys | answer | p50 | p95 | first ask | bare floor p50 |\n|---|---|---|---|---|---|---|---|');
for (const r of all)
  console.log(
    `| ${r.dialect} | ${r.name} | ${r.keys} | ${human(r.bytes)} | ${r.p50.toFixed(1)} ms | ${r.p95.toFixed(1)} ms | ${r.first.toFixed(1)} ms | ${r.floor.toFixed(1)} ms |`,
  );
