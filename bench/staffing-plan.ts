/**
 * staffing/plan latency (PRODUCT.md §14, docs/staffing.md §5) on a history
 * of realistic size: `--per-day` calls a day (default 20,000) over the
 * `--days` days before today (default 28: the four weeks a plan reads),
 * seeded with their agent state history as bench/reports.ts seeds them (or a
 * database seeded before, reused). Over real HTTP, one ask at a time,
 * the first ask (nothing kept: the weeks' totals are kept per node under
 * the report change marks), then `--asks` times after a second warm-up
 * ask: p50 / p95 / max of
 *  - today by 30 minutes, every group (what the wallboard asks);
 *  - today by 15 minutes, one group;
 *  - a day a week ago by hour, every group, all its intervals over (offered
 *    and loggedIn read too);
 *  - today by 30 minutes, every group, 12 weeks of history.
 *
 *   npx tsx bench/staffing-plan.ts [--per-day 20000] [--days 28] [--db sqlite|postgres|both] [--asks 30]
 *                                  [--data-dir data/bench-staffing] [--schema bench_staffing]
 */
import fs from 'node:fs';
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
import { ensureBenchDatabase, PG_URL, postJson, root } from './support.js';

const { options } = parseArgs(process.argv.slice(2));
const PER_DAY = Number(options['per-day'] ?? 20_000);
const DAYS = Number(options.days ?? 28);
const ASKS = Number(options.asks ?? 30);
const DIALECTS: Dialect[] = options.db === 'sqlite' ? ['sqlite'] : options.db === 'postgres' ? ['postgres'] : ['sqlite', 'postgres'];
const DATA_DIR = path.resolve(root, options['data-dir'] ?? 'data/bench-staffing');
const SCHEMA = options.schema ?? 'bench_staffing';
const USER = 'bench-staffing';
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

async function ensureData(db: Database): Promise<string> {
  await migrate(db);
  let row = await db.get<{ id: number }>('SELECT id FROM accounts WHERE username = $1', [USER]);
  if (!row) {
    await new AccountService({ db, clock: systemClock }).create({ username: USER, password: PASSWORD, name: 'Staffing benchmark' });
    row = await db.get<{ id: number }>('SELECT id FROM accounts WHERE username = $1', [USER]);
  }
  const accountId = Number(row!.id);
  const total = PER_DAY * DAYS;
  const have = Number((await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM calls WHERE account_id = $1', [accountId]))?.n ?? 0);
  if (have >= total) return `${have.toLocaleString('en-US')} calls (reused)`;
  const started = Date.now();
  await seedCalls(db, accountId, total - have, DAYS);
  return `${total.toLocaleString('en-US')} calls over ${DAYS} days, seeded in ${((Date.now() - started) / 1000).toFixed(0)} s`;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

const out: string[] = [];
for (const dialect of DIALECTS) {
  const db = await open(dialect);
  try {
    const seeded = await ensureData(db);
    const sizes = await db.get<{ q: number; a: number; g: number }>(
      'SELECT (SELECT COUNT(*) FROM report_queue) AS q, (SELECT COUNT(*) FROM report_agent) AS a, (SELECT COUNT(DISTINCT group_id) FROM report_queue) AS g',
    );
    out.push(
      `${dialect}: ${seeded}; ${Number(sizes!.g)} groups, report_queue ${Number(sizes!.q).toLocaleString('en-US')} rows, ` +
        `report_agent ${Number(sizes!.a).toLocaleString('en-US')} rows`,
    );
    const { app } = await buildApp({ config: loadConfig({ LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '1000000000' }), db });
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const port = (app.server.address() as AddressInfo).port;
      const { ssid } = await postJson<{ ssid: string }>(port, '/api/v2/auth/login', { username: USER, password: PASSWORD });
      const groups = await postJson<{ data: Array<{ groupId: number }> }>(port, '/api/v2/group/list', { ssid });
      const now = Math.floor(Date.now() / 1000);
      const target = { serviceLevel: 80, seconds: 20 };
      const mix: Array<[string, Record<string, unknown>]> = [
        ['today by 30m, every group (the wallboard)', { date: now, interval: '30m', target }],
        ['today by 15m, one group', { date: now, interval: '15m', target, groupId: groups.data[0]!.groupId }],
        ['a week ago by hour, every group (all intervals over)', { date: now - 7 * 86400, interval: 'hour', target }],
        ['today by 30m, every group, 12 weeks', { date: now, interval: '30m', target, weeks: 12 }],
      ];
      for (const [name, body] of mix) {
        const times: number[] = [];
        let rows = 0;
        let first = 0;
        for (let i = 0; i < ASKS + 2; i++) {
          const t0 = performance.now();
          const res = await postJson<{ status: string; data: unknown[]; message?: string }>(port, '/api/v2/staffing/plan', { ssid, ...body });
          const ms = performance.now() - t0;
          if (res.status !== 'success') throw new Error(`${name}: ${res.message}`);
          rows = res.data.length;
          if (i === 0) first = ms;
          if (i >= 2) times.push(ms);
        }
        times.sort((a, b) => a - b);
        out.push(
          `  ${name}: ${rows} rows, first ${first.toFixed(1)} ms, then p50 ${pct(times, 50).toFixed(1)} ms, p95 ${pct(times, 95).toFixed(1)} ms, max ${times[times.length - 1]!.toFixed(1)} ms`,
        );
      }
    } finally {
      await app.close();
    }
  } finally {
    await db.close();
  }
}
console.log(out.join('\n'));
