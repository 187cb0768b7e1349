/**
 * The first ask of a node just started (issues 19 and 21): on the database
 * bench/analysis.ts seeded (run it first, e.g. `--seed-only`), for each
 * question: a node starts, asks once, stops. Three ways, each timed until the
 * last byte over real HTTP:
 *   - nothing stored: the stored hour grids (analysis_hour_grids) of the
 *     account are deleted first, as on the day the feature is deployed;
 *   - after a start: a second node started afterwards (what every restart or
 *     new node sees once any node has asked);
 *   - again on that node (its memory holds the days now).
 * Then the stored-hours job (analysis/hour-grid-job.ts) over every account,
 * with nothing stored and again: what keeping the days stored costs.
 *
 *   npx tsx bench/analysis-first-ask.ts [--db sqlite|postgres|both] [--data-dir data/bench-analysis] [--schema bench_analysis]
 *                                       [--rounds 3]
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../src/app.js';
import { parseArgs } from '../src/cli/args.js';
import { loadConfig } from '../src/config/config.js';
import { systemClock } from '../src/clock.js';
import { migrate } from '../src/db/migrate.js';
import { AccountService } from '../src/modules/account/account.service.js';
import { HourGridJob } from '../src/modules/analysis/hour-grid-job.js';
import { PostgresDatabase } from '../src/db/postgres.js';
import { SqliteDatabase } from '../src/db/sqlite.js';
import type { Database, Dialect } from '../src/db/types.js';
import { median, PG_URL, postJson, root } from './support.js';

const { options } = parseArgs(process.argv.slice(2));
const DIALECTS: Dialect[] = options.db === 'sqlite' ? ['sqlite'] : options.db === 'postgres' ? ['postgres'] : ['sqlite', 'postgres'];
const DATA_DIR = path.resolve(root, options['data-dir'] ?? 'data/bench-analysis');
const SCHEMA = options.schema ?? 'bench_analysis';
const ROUNDS = Number(options.rounds ?? 3);
const USER = 'bench-analysis';
const PASSWORD = 'bench-analysis-password';

function open(dialect: Dialect): Database {
  return dialect === 'sqlite' ? new SqliteDatabase(path.join(DATA_DIR, 'callcenter.db')) : new PostgresDatabase(PG_URL, 4, `-c search_path=${SCHEMA}`);
}

const run = promisify(execFile);
/** Starts a node on its own connection, asks `body` once, stops it: milliseconds to the last byte, and the answer's size. */
async function askOnce(dialect: Dialect, body: Record<string, unknown>, times = 1): Promise<{ ms: number[]; cpu: number[]; bytes: number }> {
  const db = open(dialect);
  const { app } = await buildApp({ config: loadConfig({ LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '1000000000', WEBHOOK_DELIVERY: '0' }), db });
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as AddressInfo).port;
    const { ssid } = await postJson<{ ssid: string }>(port, '/api/v2/auth/login', { username: USER, password: PASSWORD });
    const ms: number[] = [];
    const cpu: number[] = [];
    let bytes = 0;
    for (let i = 0; i < times; i++) {
      // The client in its own process (curl), as a dashboard is: gathering 26 MB in this process would be timed too.
      const before = process.cpuUsage();
      const { stdout } = await run('curl', [
        '-s',
        '-o',
        '/dev/null',
        '-w',
        '%{http_code} %{size_download} %{time_total}',
        '-H',
        'content-type: application/json',
        '--data-binary',
        JSON.stringify({ ssid, ...body }),
        `http://127.0.0.1:${port}/api/v2/analysis/hits`,
      ]);
      const [status, size, seconds] = stdout.trim().split(' ');
      if (status !== '200') throw new Error(`HTTP ${status}`);
      ms.push(Number(seconds) * 1000);
      const used = process.cpuUsage(before);
      cpu.push((used.user + used.system) / 1000);
      bytes = Number(size);
    }
    return { ms, cpu, bytes };
  } finally {
    await app.close();
    await db.close();
  }
}

/** Deletes the account's stored hour grids: of one breakdown (`dim`: agent, did, group, campaign), or all. */
async function forget(dialect: Dialect, dim?: string): Promise<void> {
  const db = open(dialect);
  await migrate(db);
  await db.run(
    `DELETE FROM analysis_hour_grids WHERE account_id = (SELECT id FROM accounts WHERE username = $1)${dim ? ' AND dim = $2' : ''}`,
    dim ? [USER, dim] : [USER],
  );
  await db.close();
}

/** The stored-hours job's run over every account's last 35 days: with nothing stored, then again (nothing changed). */
async function jobRuns(dialect: Dialect): Promise<string> {
  await forget(dialect);
  const db = open(dialect);
  try {
    const accounts = new AccountService({ db, clock: systemClock });
    const job = new HourGridJob({ db, clock: systemClock, accounts, log: { error: (o) => console.error(o) } });
    const timed = async () => {
      const t = performance.now();
      const r = await job.runOnce();
      return `${(performance.now() - t).toFixed(0)} ms (${r.ran ? r.summed : 0} days summed)`;
    };
    return `| ${dialect} | ${await timed()} | ${await timed()} |`;
  } finally {
    await db.close();
  }
}

const dimOf = (body: Record<string, unknown>) => ({ agentId: 'agent', did: 'did', groupId: 'group', campaignId: 'campaign' })[String(body.breakDown)]!;

const rows: string[] = [];
const jobs: string[] = [];
for (const dialect of DIALECTS) {
  jobs.push(await jobRuns(dialect));
  const now = Math.floor(Date.now() / 1000);
  const today = Math.floor(now / 86400) * 86400;
  const untilNow = { key: 'date', condi: 'range', val: `${now - 31 * 86400},${now}` };
  const wholeDays = { key: 'date', condi: 'range', val: `${today - 30 * 86400},${today - 1}` };
  const questions: [string, Record<string, unknown>][] = [];
  for (const b of ['agentId', 'did', 'groupId', 'campaignId']) {
    questions.push([`${b}: 31 days ending now, hour (multi)`, { breakDown: b, disPlay: 'hour', multi: true, filter: [untilNow] }]);
  }
  questions.push(['agentId: 30 whole days, hour (multi)', { breakDown: 'agentId', disPlay: 'hour', multi: true, filter: [wholeDays] }]);
  for (const [name, body] of questions) {
    const nothing: number[] = [];
    const restart: number[] = [];
    const again: number[] = [];
    const nothingCpu: number[] = [];
    const restartCpu: number[] = [];
    let bytes = 0;
    for (let r = 0; r < ROUNDS; r++) {
      await forget(dialect, dimOf(body));
      const cold = await askOnce(dialect, body);
      nothing.push(cold.ms[0]!);
      nothingCpu.push(cold.cpu[0]!);
      const later = await askOnce(dialect, body, 2);
      restart.push(later.ms[0]!);
      restartCpu.push(later.cpu[0]!);
      again.push(later.ms[1]!);
      bytes = later.bytes;
    }
    const f = (xs: number[]) => `${median(xs).toFixed(0)} ms`;
    const line = `| ${dialect} | ${name} | ${(bytes / 1e6).toFixed(1)} MB | ${f(nothing)} (${f(nothingCpu)} CPU) | **${f(restart)}** (${f(restartCpu)} CPU) | ${f(again)} |`;
    rows.push(line);
    process.stderr.write(`${line}\n`);
  }
}
console.log(
  `\nMedian of ${ROUNDS} rounds; each ask on a node just started, timed to the last byte by curl; CPU: the server process's user + system time during the ask.\n`,
);
console.log('| database | question | answer | nothing stored | after a start (days stored) | asked again |\n|---|---|---|---|---|---|');
for (const r of rows) console.log(r);
console.log('\nThe stored-hours job (every account, 4 breakdowns, 35 days):\n');
console.log('| database | nothing stored | next run |\n|---|---|---|');
for (const j of jobs) console.log(j);
