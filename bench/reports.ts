/**
 * Manager reports benchmark (PRODUCT §11 targets), in the form of
 * bench/analysis.ts: seeds N calls with their agent state history (or reuses
 * a seeded database) and measures p50/p95 over real HTTP (one wrk
 * connection) of:
 *  - report/queue, every group by hour over 30 days (target p50 < 25 ms);
 *  - report/agent, 200 agents by day over 30 days (target p50 < 50 ms);
 *  - a few companions (queue by day, agent by hour for one group, the first
 *    page of report/abandoned);
 * each beside a bare node:http server sending the same bytes, and beside a
 * node that keeps no answers of whole days (REPORT_CACHE_MB=0: every ask
 * reads its whole range from the roll-ups). The "first ask" is the keeping
 * node's first answer after its start (nothing kept yet). A question slower
 * than the run (wrk finished none) is timed over three asks instead.
 *
 *   npx tsx bench/reports.ts [--calls 1000000] [--days 30] [--db sqlite|postgres|both] [--seconds 4] [--quick]
 *                            [--data-dir data/bench-reports] [--schema bench_reports] [--user bench-reports]
 *
 * --user: the account to seed or reuse (password: "<user>-password"); `--user bench-analysis`
 * with bench/analysis.ts's --data-dir and --schema measures on the calls it seeded (seedCalls
 * writes the report roll-ups and agent state history too), so 10 M calls are loaded once.
 *
 * --quick: 200,000 calls, 1-second runs (callcenter bench --quick).
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
import { ensureBenchDatabase, PG_URL, postJson, root, wrkLatency } from './support.js';

const { options } = parseArgs(process.argv.slice(2));
const quick = options.quick !== undefined;
const CALLS = Number(options.calls ?? (quick ? 200_000 : 1_000_000));
const DAYS = Number(options.days ?? 30);
const SECONDS = Number(options.seconds ?? (quick ? 1 : 4));
const DIALECTS: Dialect[] = options.db === 'sqlite' ? ['sqlite'] : options.db === 'postgres' ? ['postgres'] : ['sqlite', 'postgres'];
const DATA_DIR = path.resolve(root, options['data-dir'] ?? 'data/bench-reports');
const SCHEMA = options.schema ?? 'bench_reports';
const USER = options.user ?? 'bench-reports';
const PASSWORD = `${USER}-password`;

async function open(dialect: Dialect): Promise<Database> {
  if (dialect === 'sqlite') {
    fs.mkdirSync(DATA_DIR, { recursive: true });
    return new SqliteDatabase(path.join(DATA_DIR, 'callcenter.db'));
  }
  await ensureBenchDatabase();
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA IF NOT EXISTS ${SCHEMA}`);
  await admin.end();
  return new PostgresDatabase(PG_URL, 4, `-c search_path=${SCHEMA}`);
}

async function ensureData(db: Database): Promise<{ calls: number; seeded: number; seconds: number }> {
  await migrate(db);
  let row = await db.get<{ id: number }>('SELECT id FROM accounts WHERE username = $1', [USER]);
  if (!row) {
    await new AccountService({ db, clock: systemClock }).create({ username: USER, password: PASSWORD, name: 'Reports benchmark' });
    row = await db.get<{ id: number }>('SELECT id FROM accounts WHERE username = $1', [USER]);
  }
  const accountId = Number(row!.id);
  const have = Number((await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM calls WHERE account_id = $1', [accountId]))?.n ?? 0);
  if (have >= CALLS) return { calls: have, seeded: 0, seconds: 0 };
  const started = Date.now();
  let last = 0;
  await seedCalls(db, accountId, CALLS - have, DAYS, (p) => {
    if (Date.now() - last > 10_000) {
      last = Date.now();
      process.stderr.write(
        `  ${db.dialect}: ${p.done.toLocaleString('en-US')} calls, ${Math.round(p.done / (p.elapsedMs / 1000)).toLocaleString('en-US')}/s\n`,
      );
    }
  });
  return { calls: CALLS, seeded: CALLS - have, seconds: (Date.now() - started) / 1000 };
}

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

/** p50 / p95 of one question (wrk, one connection); timed over three asks when wrk finished none in the run. */
async function latency(port: number, url: string, op: string, body: Record<string, unknown>, ask: string) {
  const w = await wrkLatency(url, ask, SECONDS);
  if (w.failures > 0) throw new Error(`${op}: wrk saw ${w.failures} failures in ${w.requests} requests`);
  if (w.requests >= 3) return w;
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    await postJson(port, `/api/v2/report/${op}`, body);
    times.push(performance.now() - t0);
  }
  times.sort((a, c) => a - c);
  return { p50: times[1]!, p95: times[2]!, requests: 3, failures: 0 };
}

const lines: string[] = [];
const infos: string[] = [];
for (const dialect of DIALECTS) {
  const db = await open(dialect);
  try {
    const data = await ensureData(db);
    const rollupRows = await db.get<{ q: number; a: number }>('SELECT (SELECT COUNT(*) FROM report_queue) AS q, (SELECT COUNT(*) FROM report_agent) AS a');
    infos.push(
      `${dialect}: ${data.calls.toLocaleString('en-US')} calls over ${DAYS} days${data.seeded ? `, seeded in ${data.seconds.toFixed(0)} s` : ' (reused)'}; ` +
        `report_queue ${Number(rollupRows!.q).toLocaleString('en-US')} rows, report_agent ${Number(rollupRows!.a).toLocaleString('en-US')} rows`,
    );
    const config = loadConfig({ LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '1000000000' });
    const { app } = await buildApp({ config, db });
    const { app: bare } = await buildApp({ config: { ...config, reportCacheBytes: 0 }, db });
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      await bare.listen({ port: 0, host: '127.0.0.1' });
      const port = (app.server.address() as AddressInfo).port;
      const barePort = (bare.server.address() as AddressInfo).port;
      const { ssid } = await postJson<{ ssid: string }>(port, '/api/v2/auth/login', { username: USER, password: PASSWORD });
      const today = Math.floor(Date.now() / 86400_000) * 86400;
      const month = { from: today - 30 * 86400, to: today - 1 };
      const mix: Array<[string, string, Record<string, unknown>, number | null]> = [
        ['report/queue: every group by hour, 30 days', 'queue', { ...month, interval: 'hour', slThresholds: [20, 30] }, 25],
        ['report/agent: 200 agents by day, 30 days', 'agent', { ...month, interval: 'day' }, 50],
        ['report/queue: every group by day, 30 days', 'queue', { ...month, interval: 'day' }, null],
        ['report/queue: by hour, unstored threshold 17 s (reads the calls)', 'queue', { ...month, groupId: 55, interval: 'hour', slThresholds: [17] }, null],
        ['report/agent: group 55 by hour, 30 days', 'agent', { ...month, groupId: 55, interval: 'hour' }, null],
        ['report/abandoned: first page of 100, 30 days', 'abandoned', { ...month }, null],
      ];
      for (const [name, op, body, target] of mix) {
        const url = `http://127.0.0.1:${port}/api/v2/report/${op}`;
        const ask = JSON.stringify({ ssid, ...body });
        const t0 = performance.now();
        const answer = await postJson<Record<string, unknown>>(port, `/api/v2/report/${op}`, { ssid, ...body });
        const first = performance.now() - t0;
        if (answer.status !== 'success') throw new Error(`${name}: ${JSON.stringify(answer).slice(0, 300)}`);
        const w = await latency(port, url, op, { ssid, ...body }, ask);
        const b = await latency(barePort, `http://127.0.0.1:${barePort}/api/v2/report/${op}`, op, { ssid, ...body }, ask);
        const bytes = Buffer.from(JSON.stringify(answer));
        const floor = await floorMs(bytes, ask);
        const rows = (answer.data as unknown[]).length;
        lines.push(
          `| ${dialect} | ${name} | ${rows} | ${(bytes.length / 1e3).toFixed(1)} kB | ${w.p50.toFixed(1)} ms | ${w.p95.toFixed(1)} ms | ${first.toFixed(1)} ms | ${b.p50.toFixed(1)} ms | ${floor.toFixed(1)} ms | ${target === null ? '' : w.p50 < target ? `< ${target} ms: met` : `< ${target} ms: NOT met`} |`,
        );
        process.stderr.write(`${lines[lines.length - 1]}\n`);
      }
    } finally {
      await app.close();
      await bare.close();
    }
  } finally {
    await db.close();
  }
}
console.log(infos.map((i) => `- ${i}`).join('\n'));
console.log(
  '\n| database | query | rows | answer | p50 | p95 | first ask | p50, nothing kept | bare floor p50 | target |\n|---|---|---|---|---|---|---|---|---|---|',
);
console.log(lines.join('\n'));
