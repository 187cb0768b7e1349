/**
 * The dialer's tick with many running campaigns (PRODUCT.md §13: 50 running
 * campaigns and 500 calls in progress on one node; the dial decision for 100
 * campaigns under 50 ms a tick). One tenant, N progressive campaigns, each
 * with its own group of 4 agents logged in, dialRatio 2.5 and a list of 50
 * contacts: the first tick places 10 calls per campaign (N × 10 in progress,
 * nobody answers them), then every further tick (the clock one second on)
 * runs each campaign's housekeeping, reads, pacing decision and compliance
 * with nothing to dial — the steady cost of a node holding them. Measured
 * on the worker's own `tick()` (lease claim included), in this process.
 *
 * `--predictive K`: the first K campaigns are predictive, each with 1,000
 * finished dials before its start (outside its abandon window: with no one
 * answered in it the pacing falls back to progressive, so a steady tick
 * still dials nothing) for its look-ahead to learn from.
 *
 * `--statements` prints the statements the database ran (by text: how
 * many, time spent), most time first: the first tick's, and per steady tick.
 *
 * Besides the wall time, the CPU this process spent in a steady tick
 * (`process.cpuUsage`, its threads' included: the collector's): on the
 * shared 2-core machine the wall time moves with the other work's load,
 * the CPU much less.
 *
 *   node --import tsx bench/campaign-tick.ts [--campaigns 50,100] [--db sqlite|postgres|both] [--ticks 30] [--predictive K] [--statements]
 */
import { parseArgs } from '../src/cli/args.js';
import type { Database, Dialect } from '../src/db/types.js';
import { benchService, contactList, seedDialHistory, startedCampaign, tenantWorld } from './campaign-support.js';
import { loggingDatabase, type StatementLog } from './statement-log.js';
import { median } from './support.js';

const { options } = parseArgs(process.argv.slice(2));
const COUNTS = (options.campaigns ?? '50,100').split(',').map(Number);
const DBS: Dialect[] = options.db === 'both' ? ['sqlite', 'postgres'] : [options.db === 'postgres' ? 'postgres' : 'sqlite'];
const TICKS = Number(options.ticks ?? 30);
const STATEMENTS = options.statements !== undefined;
const PREDICTIVE = Number(options.predictive ?? 0);
const HISTORY = 1000;

async function measure(dialect: Dialect, campaigns: number): Promise<string> {
  let log: StatementLog | undefined;
  const wrap = STATEMENTS
    ? (db: Database) => {
        const l = loggingDatabase(db);
        log = l.log;
        return l.db;
      }
    : undefined;
  const s = await benchService(dialect, `campaign_tick_${campaigns}`, Date.UTC(2026, 10, 23, 8, 0, 0), wrap);
  try {
    const w = await tenantWorld(s, { groups: campaigns, agentsPerGroup: 4 });
    for (let i = 0; i < campaigns; i++) {
      const clId = await contactList(s, w, 50, 14_160_000_000 + i * 1000);
      const predictive = i < PREDICTIVE;
      const id = await startedCampaign(s, w, { clIds: [clId], groupId: w.groupIds[i], mode: predictive ? 'predictive' : 'progressive', dialRatio: 2.5 });
      if (predictive) await seedDialHistory(s, w.accountId, id, HISTORY, Math.floor(s.clock.now() / 1000) - 60);
    }
    const worker = s.services.dialerWorker;
    s.clock.advance(1000);
    log?.clear();
    let t0 = performance.now();
    await worker.tick();
    const first = performance.now() - t0;
    const [lines] = await s.db.all<{ n: number }>('SELECT COUNT(*) AS n FROM campaign_calls WHERE ended_at IS NULL');
    if (log) printStatements(`${dialect}, ${campaigns} campaigns, the first tick`, log, 1);
    log?.clear();
    const times: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < TICKS; i++) {
      s.clock.advance(1000);
      const c0 = process.cpuUsage();
      t0 = performance.now();
      const held = await worker.tick();
      times.push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1000);
      if (held.length !== campaigns) throw new Error(`the node held ${held.length} of ${campaigns} campaigns`);
    }
    if (log) printStatements(`${dialect}, ${campaigns} campaigns, a steady tick`, log, TICKS);
    times.sort((a, b) => a - b);
    const p95 = times[Math.min(times.length - 1, Math.floor(times.length * 0.95))]!;
    return `| ${dialect} | ${campaigns} | ${Number(lines!.n)} | ${first.toFixed(0)} ms | ${median(times).toFixed(1)} ms | ${p95.toFixed(1)} ms | ${(median(times) / campaigns).toFixed(2)} ms | ${median(cpu).toFixed(1)} ms |`;
  } finally {
    await s.close();
  }
}

/** The statements of `ticks` ticks, per tick. */
function printStatements(title: string, log: StatementLog, ticks: number): void {
  const rows = [...log].sort((a, b) => b[1].ms - a[1].ms);
  const total = rows.reduce((n, [, e]) => n + e.n, 0);
  const ms = rows.reduce((n, [, e]) => n + e.ms, 0);
  console.log(`\n${title}: ${(total / ticks).toFixed(1)} statements a tick, ${(ms / ticks).toFixed(1)} ms in them`);
  for (const [sql, e] of rows) console.log(`${(e.n / ticks).toFixed(1).padStart(7)} ${(e.ms / ticks).toFixed(2).padStart(8)} ms  ${sql}`);
}

async function main(): Promise<void> {
  const rows: string[] = [];
  for (const dialect of DBS) for (const n of COUNTS) rows.push(await measure(dialect, n));
  console.log(`\n${TICKS} steady ticks each, in process${PREDICTIVE > 0 ? `, ${PREDICTIVE} predictive` : ''}, ${new Date().toISOString()}\n`);
  console.log(
    '| database | running campaigns | calls in progress | first tick (places the calls) | tick, median | tick, p95 | per campaign | CPU of this process a tick, median |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
