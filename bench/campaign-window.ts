/**
 * The dialer's abandon-window read (every steady tick, one statement for the
 * account's campaigns) on fresh tables with no planner statistics, as a new
 * PostgreSQL database (or one whose autovacuum is off) has them: one
 * account, `--campaigns` predictive campaigns, each with `--dials` dials
 * spread over the last 30 days (a third answered by a person, 3 % of those
 * abandoned). The read from the counters (`AbandonWindowRepository.windowsOf`,
 * migration 272) against the plain read it replaced (every dial of each
 * window, the statement as it was at 971b31a), for 30-day and 24-hour
 * windows, median of `--reps`; the two must agree.
 *
 *   node --import tsx bench/campaign-window.ts [--db sqlite|postgres|both] [--campaigns 20] [--dials 1000,10000] [--reps 30]
 */
import { parseArgs } from '../src/cli/args.js';
import { dialectOf } from '../src/db/dialect.js';
import { migrate } from '../src/db/migrate.js';
import { tenant, type TenantQueries } from '../src/db/tenant.js';
import type { Database, Dialect } from '../src/db/types.js';
import { AbandonWindowRepository, type WindowFigures } from '../src/modules/campaign/abandon-window.repository.js';
import { median, openFreshBenchDatabase } from './support.js';

const { options } = parseArgs(process.argv.slice(2));
const DBS: Dialect[] = options.db === 'both' ? ['sqlite', 'postgres'] : [options.db === 'postgres' ? 'postgres' : 'sqlite'];
const CAMPAIGNS = Number(options.campaigns ?? 20);
const DIALS = (options.dials ?? '1000,10000').split(',').map(Number);
const REPS = Number(options.reps ?? 30);
// Not on an hour: the 24-hour and 30-day windows start inside an hour, so the read takes that hour's dials one by one.
const NOW = 2_000_000_000 + 1234;

/** The read the counters replaced: every dial of each campaign's window (971b31a's `DialerRepository.windowsOf`). */
async function plainWindows(t: TenantQueries, campaigns: ReadonlyArray<{ campaign_id: number; since: number }>): Promise<Map<number, WindowFigures>> {
  const j = dialectOf(t).jsonRows(2, 'j', [
    ['campaign_id', 'bigint'],
    ['since', 'bigint'],
  ]);
  const rows = await t.all<{ campaign_id: number; h: number | null; a: number | null }>(
    `SELECT j.campaign_id,
            SUM(CASE WHEN w.answered_by = 'human' OR (w.outcome = 'abandoned' AND w.answered_by IS NULL) THEN 1 ELSE 0 END) AS h,
            SUM(CASE WHEN w.outcome = 'abandoned' THEN 1 ELSE 0 END) AS a
     FROM ${j} LEFT JOIN campaign_calls w ON w.account_id = $1 AND w.campaign_id = j.campaign_id AND w.dialled_at >= j.since
     GROUP BY j.campaign_id`,
    [JSON.stringify(campaigns)],
  );
  return new Map(rows.map((r) => [Number(r.campaign_id), { humanAnswered: Number(r.h ?? 0), abandoned: Number(r.a ?? 0) }]));
}

async function seed(db: Database, dials: number): Promise<void> {
  const d = dialectOf(db);
  for (let c = 1; c <= CAMPAIGNS; c++) {
    const rows = Array.from({ length: dials }, (_, i) => {
      const at = NOW - 60 - Math.floor(((i + 0.5) / dials) * 30 * 86_400);
      const human = i % 3 === 0;
      const abandoned = human && i % 100 === 0;
      return {
        call_id: `obd-${c}-${i}`,
        contact_id: i,
        dialled_at: at,
        answered_by: human ? 'human' : null,
        outcome: abandoned ? 'abandoned' : human ? 'completed' : 'no_answer',
      };
    });
    for (let k = 0; k < rows.length; k += 1000)
      await db.run(
        `INSERT INTO campaign_calls (account_id, call_id, campaign_id, contact_id, number, attempt, predictive, dialled_at, answered_by, ended_at, outcome)
         SELECT 1, j.call_id, ${c}, j.contact_id, '919000000000', 1, 1, j.dialled_at, j.answered_by, j.dialled_at + 30, j.outcome FROM ${d.jsonRows(1, 'j', [
           ['call_id', 'text'],
           ['contact_id', 'bigint'],
           ['dialled_at', 'bigint'],
           ['answered_by', 'text'],
           ['outcome', 'text'],
         ])}`,
        [JSON.stringify(rows.slice(k, k + 1000))],
      );
    await db.transaction((tx) => new AbandonWindowRepository(tenant(tx, 1)).recount(c));
  }
}

async function timeIt(fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < REPS; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return median(times);
}

async function measure(dialect: Dialect, dials: number): Promise<string[]> {
  const db = await openFreshBenchDatabase(dialect, `campaign_window_${dials}`);
  try {
    await migrate(db);
    await seed(db, dials);
    const t = tenant(db, 1);
    const counters = new AbandonWindowRepository(t);
    const out: string[] = [];
    for (const [name, secs] of [
      ['30 days', 30 * 86_400],
      ['24 hours', 86_400],
    ] as const) {
      const campaigns = Array.from({ length: CAMPAIGNS }, (_, i) => ({ campaign_id: i + 1, since: NOW - secs }));
      const a = await counters.windowsOf(campaigns);
      const b = await plainWindows(t, campaigns);
      for (const [id, w] of b)
        if (JSON.stringify(a.get(id)) !== JSON.stringify(w))
          throw new Error(`campaign ${id}: counters ${JSON.stringify(a.get(id))}, dials ${JSON.stringify(w)}`);
      const plain = await timeIt(() => plainWindows(t, campaigns));
      const counted = await timeIt(() => counters.windowsOf(campaigns));
      const inWindow = Math.round((dials * secs) / (30 * 86_400)) * CAMPAIGNS;
      out.push(
        `| ${dialect} | ${CAMPAIGNS} × ${dials.toLocaleString('en')} | ${name} (${inWindow.toLocaleString('en')} dials) | ${plain.toFixed(2)} ms | ${counted.toFixed(2)} ms |`,
      );
    }
    return out;
  } finally {
    await db.close();
  }
}

async function main(): Promise<void> {
  const rows: string[] = [];
  for (const dialect of DBS) for (const n of DIALS) rows.push(...(await measure(dialect, n)));
  console.log(`\nmedian of ${REPS} reads, no planner statistics, ${new Date().toISOString()}\n`);
  console.log('| database | campaigns × dials (30 days) | window | every dial of the window | the counters |');
  console.log('|---|---|---|---|---|');
  for (const r of rows) console.log(r);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
