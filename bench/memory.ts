/**
 * Memory benchmark (PRODUCT.md §8: "under 200 MB resident with 1 million
 * contacts and 10 million calls"). One tenant holds the data (1,000,000
 * contacts; 10,000,000 calls over 150 days, as bench/analysis.ts seeds them),
 * a second one 50 agents whose day goes on during the run. The server starts
 * as `npm start` starts it, pinned to core 0, and for --seconds everything a
 * call center's day asks of it runs at once (load on core 1):
 *  - getInfo and getDnc of random contacts (wrk, 6 + 3 connections);
 *  - analysis/hits: the wallboard's and the managers' questions in turn
 *    (31 days ending now and 30 whole days, by agent, group, DID, campaign;
 *    total, date, hour) (wrk, 1 connection);
 *  - report/queue by hour and report/agent by day over 30 days (wrk, 1 + 1);
 *  - Agent/live and queue/count of the live tenant (wrk, 1 + 1);
 *  - events/ingest: the 50 agents' calls, 100 events every 200 ms;
 *  - CallReport/export of the last day (66,700 rows), one after another.
 * The server's RSS is read every second from its start (the first ask of a
 * month of hours after a start is part of the day); the verdict is its
 * maximum against 200 MB (190.7 MiB).
 *
 *   npx tsx bench/memory.ts [--db sqlite|postgres|both] [--seconds 120] [--contacts 1000000]
 *                           [--calls 10000000] [--days 150] [--seed-only] [--data-dir DIR] [--schema S]
 *                           [--loads getInfo,hits,…]
 *
 * The data is bench/analysis.ts's (SQLite: --data-dir, default
 * data/bench-analysis; PostgreSQL: --schema, default bench_analysis of
 * BENCH_DATABASE_URL), seeded here where it is short and kept: seeding 10 M
 * calls takes 15–20 minutes on each database.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { agentCycleTraffic, tenantWithAgents } from './agent-traffic.js';
import { openKeptBenchDatabase, pinned, postJson, root, rssMiB, startServerProcess, stopChild, waitHealthy, wrk, type WrkResult } from './support.js';
import { parseArgs } from '../src/cli/args.js';
import { seedCalls } from '../src/cli/seed-calls.js';
import { seedContacts, progressLine } from '../src/cli/seed-contacts.js';
import { systemClock } from '../src/clock.js';
import { migrate } from '../src/db/migrate.js';
import type { Database, Dialect } from '../src/db/types.js';
import { AccountService } from '../src/modules/account/account.service.js';

const { options } = parseArgs(process.argv.slice(2));
const SECONDS = Number(options.seconds ?? 120);
const CONTACTS = Number(options.contacts ?? 1_000_000);
const CALLS = Number(options.calls ?? 10_000_000);
const DAYS = Number(options.days ?? 150);
const DIALECTS: Dialect[] = options.db === 'sqlite' ? ['sqlite'] : options.db === 'postgres' ? ['postgres'] : ['sqlite', 'postgres'];
// The data of bench/analysis.ts (its account, directory and schema): one seeding of 10 M calls serves both.
const DATA_DIR = path.resolve(root, options['data-dir'] ?? 'data/bench-analysis');
const SCHEMA = options.schema ?? 'bench_analysis';
const DATA = { username: 'bench-analysis', password: 'bench-analysis-password' };
const LIVE_PREFIX = 'bench-memory-live-';

/** The tenant whose day goes on during the run: 50 agents in group 7 (password: agent-traffic.ts's). */
interface LiveTenant {
  username: string;
  agents: number[];
}
const LIMIT_MIB = 200 / 1.048576;

const count = async (db: Database, table: string, accountId: number) =>
  Number((await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE account_id = $1`, [accountId]))?.n ?? 0);

/** The data tenant with CONTACTS contacts and CALLS calls, and the live tenant (50 agents in group 7); seeded only where short. */
async function prepare(dialect: Dialect): Promise<{ env: Record<string, string>; live: LiveTenant }> {
  const { db, env } = await openKeptBenchDatabase(dialect, DATA_DIR, SCHEMA);
  try {
    await migrate(db);
    const accounts = new AccountService({ db, clock: systemClock });
    await accounts.bootstrap('operator', 'operator-password');
    const idOf = async (username: string) => (await db.get<{ id: number }>('SELECT id FROM accounts WHERE username = $1', [username]))?.id;
    const accountId = Number((await idOf(DATA.username)) ?? (await accounts.create({ ...DATA, name: 'Analysis benchmark' })));
    const haveCalls = await count(db, 'calls', accountId);
    if (haveCalls < CALLS) {
      console.log(`[${dialect}] seeding ${(CALLS - haveCalls).toLocaleString('en-US')} calls over ${DAYS} days`);
      let last = 0;
      await seedCalls(db, accountId, CALLS - haveCalls, DAYS, (p) => {
        if (Date.now() - last < 5000) return;
        last = Date.now();
        console.log(`  ${p.done.toLocaleString('en-US')} calls, ${Math.round(p.done / (p.elapsedMs / 1000)).toLocaleString('en-US')}/s`);
      });
    }
    if ((await count(db, 'contacts', accountId)) < CONTACTS) {
      await seedContacts(db, accountId, CONTACTS, (p) => process.stdout.write(progressLine(p)), accounts);
      console.log();
    }
    // A new live tenant every run: the last run's agents are still logged in, some in a call.
    const username = `${LIVE_PREFIX}${Date.now()}`;
    const live = await tenantWithAgents(db, username, 50);
    for (const agentId of live.agents) await db.run('INSERT INTO agent_groups (account_id, agent_id, group_id) VALUES ($1, $2, 7)', [live.accountId, agentId]);
    return { env, live: { username, agents: live.agents } };
  } finally {
    await db.close();
  }
}

/** wrk with a random seeded contact in every request (`field` holds it). */
async function wrkContacts(url: string, ssid: string, field: string, connections: number): Promise<LoadResult> {
  const script = path.join(os.tmpdir(), `bench-memory-${process.pid}-${field}.lua`);
  fs.writeFileSync(
    script,
    `wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
request = function()
  return wrk.format(nil, nil, nil, '{"ssid":"${ssid}","${field}":"' .. tostring(917000000000 + math.random(0, ${CONTACTS - 1})) .. '"}')
end
`,
  );
  const [c, a] = pinned(1, 'wrk', ['-t1', `-c${connections}`, `-d${SECONDS}s`, '--latency', '-s', script, url]);
  const { stdout } = await promisify(execFile)(c, a, { encoding: 'utf8' });
  fs.rmSync(script, { force: true });
  return {
    rate: perSecond(Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? 0)),
    errors: Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0),
  };
}

/** Until `until`: 100 events of the live tenant's agents every 200 ms. */
async function ingestLoop(port: number, ssid: string, agents: number[], until: number): Promise<{ events: number; rejected: number }> {
  const next = agentCycleTraffic(agents, `memory-${Date.now()}`, { clock: 'now', did: '18005550100', loginType: 'SIP' });
  let events = 0;
  let rejected = 0;
  while (Date.now() < until) {
    const started = Date.now();
    const out = await postJson(port, '/api/v2/events/ingest', { ssid, events: next(100) });
    const data = out.data as { accepted: number; errors: unknown[] } | undefined;
    if (!data) throw new Error(`events/ingest: ${JSON.stringify(out).slice(0, 300)}`);
    events += data.accepted;
    if (rejected === 0 && data.errors.length > 0) console.warn(`  events/ingest: first rejection ${JSON.stringify(data.errors[0])}`);
    rejected += data.errors.length;
    await new Promise((r) => setTimeout(r, Math.max(0, 200 - (Date.now() - started))));
  }
  return { events, rejected };
}

/** Until `until`: the last day's call report as CSV, one download after another (bytes counted, not kept). */
async function exportLoop(port: number, ssid: string, until: number): Promise<number> {
  let exports = 0;
  while (Date.now() < until) {
    const res = await fetch(`http://127.0.0.1:${port}/api/v2/CallReport/export?from=${Math.floor(Date.now() / 1000) - 86400}`, {
      headers: { authorization: `Bearer ${ssid}` },
    });
    if (res.status !== 200 || !res.body) throw new Error(`export answered HTTP ${res.status}`);
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) void chunk;
    exports++;
  }
  return exports;
}

/** analysis/hits bodies: what a wallboard and a manager ask, in turn. */
function hitsBodies(ssid: string): string[] {
  const now = Math.floor(Date.now() / 1000);
  const today = Math.floor(now / 86400) * 86400;
  const untilNow = { key: 'date', condi: 'range', val: `${now - 31 * 86400},${now}` };
  const month = { key: 'date', condi: 'range', val: `${today - 30 * 86400},${today - 1}` };
  const bodies: unknown[] = [];
  for (const breakDown of ['agentId', 'groupId', 'did', 'campaignId']) {
    bodies.push({ ssid, breakDown, disPlay: 'total', fields: 'UC,TC,MC,AC,CM,PM,CA,GH_UC,avgRingTime,avgHoldTime', filter: [untilNow] });
    bodies.push({ ssid, breakDown, disPlay: 'hour', multi: true, filter: [untilNow] });
    bodies.push({ ssid, breakDown, disPlay: 'date', multi: true, filter: [month] });
  }
  return bodies.map((b) => JSON.stringify(b));
}

type Month = { from: number; to: number };

/** One part of the day's load: what it did, as a rate, and its errors (answers that were not a success). */
interface LoadResult {
  rate: string;
  errors: number;
}

interface Ctx {
  port: number;
  base: string;
  ssid: string;
  liveSsid: string;
  liveAgents: number[];
  month: Month;
  until: number;
}

const perSecond = (n: number) => `${Math.round(n).toLocaleString('en-US')}/s`;
const wrkLoad = async (run: Promise<WrkResult>): Promise<LoadResult> => {
  const r = await run;
  // Socket errors (wrk's 2 s timeout, mostly) named apart from answers that were not a success.
  return { rate: `${perSecond(r.rps)}${r.socketErrors ? ` (${r.socketErrors} socket errors)` : ''}`, errors: r.errors + r.socketErrors };
};
const oneConnection = (c: Ctx, route: string, body: Record<string, unknown>) =>
  wrkLoad(wrk(`${c.base}/${route}`, [JSON.stringify(body)], { seconds: SECONDS, connections: 1 }));

/** The day's load by name (--loads picks some, to see what each one costs). */
const LOADS: Record<string, (c: Ctx) => Promise<LoadResult>> = {
  getInfo: (c) => wrkContacts(`${c.base}/Directory/getInfo`, c.ssid, 'contact', 6),
  getDnc: (c) => wrkContacts(`${c.base}/Directory/getDnc`, c.ssid, 'contact', 3),
  hits: (c) => wrkLoad(wrk(`${c.base}/analysis/hits`, hitsBodies(c.ssid), { seconds: SECONDS, connections: 1 })),
  reportQueue: (c) => oneConnection(c, 'report/queue', { ssid: c.ssid, ...c.month, interval: 'hour' }),
  reportAgent: (c) => oneConnection(c, 'report/agent', { ssid: c.ssid, ...c.month, interval: 'day' }),
  live: (c) => oneConnection(c, 'Agent/live', { ssid: c.liveSsid, groupid: 7 }),
  queueCount: (c) => oneConnection(c, 'queue/count', { ssid: c.liveSsid }),
  ingest: async (c) => {
    const r = await ingestLoop(c.port, c.liveSsid, c.liveAgents, c.until);
    return { rate: `${perSecond(r.events / SECONDS)} events`, errors: r.rejected };
  },
  export: async (c) => ({ rate: `${await exportLoop(c.port, c.ssid, c.until)} day exports`, errors: 0 }),
};
const CHOSEN = options.loads ? options.loads.split(',') : Object.keys(LOADS);
for (const l of CHOSEN) if (!LOADS[l]) throw new Error(`--loads: unknown load ${l} (${Object.keys(LOADS).join(', ')})`);

interface Outcome {
  rss: { start: number; loaded: number; max: number; end: number; idle: number };
  loads: Record<string, LoadResult>;
  /** V8 heap used and total, and external memory, at the end of the load (/metrics). */
  heap: string;
  /** RSS every 5 s from the start (MiB). */
  trace: number[];
}

/** The process's heap figures from /metrics, in MiB. */
async function heapFigures(port: number): Promise<string> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const mib = (name: string) => (Number(new RegExp(`^${name} ([\\d.e+]+)`, 'm').exec(text)?.[1] ?? NaN) / 1048576).toFixed(0);
  return `heap ${mib('nodejs_heap_size_used_bytes')} / ${mib('nodejs_heap_size_total_bytes')}, external ${mib('nodejs_external_memory_bytes')} MiB`;
}

async function run(env: Record<string, string>, live: LiveTenant): Promise<Outcome> {
  const port = 18_300;
  const server = startServerProcess({ ...env, PORT: String(port), LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0' });
  const samples: number[] = [];
  const timer = setInterval(() => samples.push(rssMiB(server.pid!)), 1000);
  try {
    await waitHealthy(port);
    const login = async (a: { username: string; password: string }) =>
      (await postJson<{ ssid: string }>(port, '/api/v2/auth/login', { username: a.username, password: a.password })).ssid;
    const [ssid, liveSsid] = [await login(DATA), await login({ username: live.username, password: 'bench-password' })];
    if (!ssid || !liveSsid) throw new Error('login failed');
    const start = rssMiB(server.pid!);
    const today = Math.floor(Date.now() / 86400_000) * 86400;
    const ctx: Ctx = {
      port,
      base: `http://127.0.0.1:${port}/api/v2`,
      ssid,
      liveSsid,
      liveAgents: live.agents,
      month: { from: today - 30 * 86400, to: today - 1 },
      until: Date.now() + SECONDS * 1000,
    };
    const results = await Promise.all(CHOSEN.map((l) => LOADS[l]!(ctx)));
    const heap = await heapFigures(port);
    const loaded = samples[Math.min(samples.length - 1, Math.floor(samples.length / 5))] ?? start;
    const end = rssMiB(server.pid!);
    await new Promise((r) => setTimeout(r, 5000));
    return {
      rss: { start, loaded, max: Math.max(...samples, end), end, idle: rssMiB(server.pid!) },
      loads: Object.fromEntries(CHOSEN.map((l, i) => [l, results[i]!])),
      heap,
      trace: samples.filter((_, i) => i % 5 === 0).map(Math.round),
    };
  } finally {
    clearInterval(timer);
    await stopChild(server);
  }
}

async function main(): Promise<void> {
  const prepared = new Map<Dialect, Awaited<ReturnType<typeof prepare>>>();
  for (const d of DIALECTS) prepared.set(d, await prepare(d));
  if (options['seed-only'] !== undefined) return;
  const rows: string[] = [];
  for (const d of DIALECTS) {
    const { env, live } = prepared.get(d)!;
    const o = await run(env, live);
    const r = o.rss;
    const loads = Object.entries(o.loads);
    const errors = loads.reduce((n, [, l]) => n + l.errors, 0);
    const rates = loads.map(([k, l]) => `${k} ${l.rate}${l.errors ? ` (${l.errors} errors)` : ''}`).join(', ');
    rows.push(
      `| ${d} | ${SECONDS} s | ${rates} | ${errors} | ${r.start.toFixed(0)} / ${r.loaded.toFixed(0)} / ${r.end.toFixed(0)} / ${r.idle.toFixed(0)} MiB; ${o.heap} | **${r.max.toFixed(0)} MiB** (${(r.max * 1.048576).toFixed(0)} MB) | ${r.max < LIMIT_MIB && errors === 0 ? 'met' : 'MISSED'} |`,
    );
    console.log(rows[rows.length - 1]);
    console.log(`  RSS every 5 s (MiB): ${o.trace.join(' ')}`);
  }
  console.log(
    `\n${CONTACTS.toLocaleString('en-US')} contacts, ${CALLS.toLocaleString('en-US')} calls over ${DAYS} days, load average ${os.loadavg()[0]!.toFixed(1)}`,
  );
  console.log('| database | duration | req/s | errors | RSS start / after a fifth / end / 5 s idle | max | < 200 MB |\n|---|---|---|---|---|---|---|');
  console.log(rows.join('\n'));
}

await main();
