/**
 * The dialer's read of the calls whose disposition is overdue
 * (`DialerRepository.undisposedOf`, every steady tick) on fresh tables with
 * no planner statistics, as a new PostgreSQL database (or one whose
 * autovacuum is off) has them: one account, `--calls` finished dials over
 * `--campaigns` campaigns, each contact dialled once, none of the
 * unanswered ones disposed (they never are), `--awaiting` answered calls
 * still waiting for a disposition, half of them for longer than 10 minutes.
 * Prints the statement's plan (PostgreSQL: EXPLAIN ANALYZE; SQLite: EXPLAIN
 * QUERY PLAN) and the read's time, median of `--reps`. `--analyze` gathers
 * statistics first, for the plan a database with them gets.
 *
 *   node --import tsx bench/campaign-overdue.ts [--db sqlite|postgres|both] [--calls 5000] [--campaigns 100] [--awaiting 20] [--reps 20] [--analyze]
 */
import { parseArgs } from '../src/cli/args.js';
import { dialectOf } from '../src/db/dialect.js';
import { migrate } from '../src/db/migrate.js';
import { tenant } from '../src/db/tenant.js';
import type { Database, Dialect, Param } from '../src/db/types.js';
import { DialerRepository } from '../src/modules/campaign/dialer.repository.js';
import { median, openFreshBenchDatabase } from './support.js';

const { options } = parseArgs(process.argv.slice(2));
const DBS: Dialect[] = options.db === 'both' ? ['sqlite', 'postgres'] : [options.db === 'postgres' ? 'postgres' : 'sqlite'];
const CALLS = Number(options.calls ?? 5000);
const CAMPAIGNS = Number(options.campaigns ?? 100);
const AWAITING = Number(options.awaiting ?? 20);
const REPS = Number(options.reps ?? 20);
const ANALYZE = options.analyze !== undefined;
const NOW = 2_000_000_000;

async function seed(db: Database): Promise<void> {
  const every = Math.max(1, Math.floor(CALLS / AWAITING));
  const contacts: Array<Record<string, unknown>> = [];
  const calls: Array<Record<string, unknown>> = [];
  for (let i = 0; i < CALLS; i++) {
    const awaiting = i % every === 0;
    // Half the awaiting calls ended 15 minutes ago (overdue), the other half a minute ago; the rest over the hours before.
    const endedAt = awaiting ? (i % (2 * every) === 0 ? NOW - 900 : NOW - 60) : NOW - 60 - (CALLS - i);
    contacts.push({
      campaign_id: 1 + (i % CAMPAIGNS),
      contact_id: i,
      number: String(919_000_000_000 + i),
      awaiting: awaiting ? `obd-${i}` : null,
      last_call: `obd-${i}`,
    });
    calls.push({
      call_id: `obd-${i}`,
      campaign_id: 1 + (i % CAMPAIGNS),
      contact_id: i,
      number: String(919_000_000_000 + i),
      dialled_at: endedAt - 40,
      ended_at: endedAt,
    });
  }
  const d = dialectOf(db);
  for (let k = 0; k < CALLS; k += 1000) {
    await db.run(
      `INSERT INTO campaign_contacts (account_id, campaign_id, contact_id, cl_id, position, number, attempts, awaiting, last_call)
       SELECT 1, j.campaign_id, j.contact_id, 1, j.contact_id, j.number, 1, j.awaiting, j.last_call FROM ${d.jsonRows(1, 'j', [
         ['campaign_id', 'bigint'],
         ['contact_id', 'bigint'],
         ['number', 'text'],
         ['awaiting', 'text'],
         ['last_call', 'text'],
       ])}`,
      [JSON.stringify(contacts.slice(k, k + 1000))],
    );
    await db.run(
      `INSERT INTO campaign_calls (account_id, call_id, campaign_id, contact_id, number, attempt, dialled_at, ended_at)
       SELECT 1, j.call_id, j.campaign_id, j.contact_id, j.number, 1, j.dialled_at, j.ended_at FROM ${d.jsonRows(1, 'j', [
         ['call_id', 'text'],
         ['campaign_id', 'bigint'],
         ['contact_id', 'bigint'],
         ['number', 'text'],
         ['dialled_at', 'bigint'],
         ['ended_at', 'bigint'],
       ])}`,
      [JSON.stringify(calls.slice(k, k + 1000))],
    );
  }
}

async function measure(dialect: Dialect): Promise<string> {
  const db = await openFreshBenchDatabase(dialect, 'campaign_overdue');
  try {
    await migrate(db);
    // No statistics unless asked: a server whose autovacuum is on would gather them a minute later.
    if (dialect === 'postgres')
      await db.exec('ALTER TABLE campaign_contacts SET (autovacuum_enabled = false); ALTER TABLE campaign_calls SET (autovacuum_enabled = false)');
    await seed(db);
    if (ANALYZE) await db.exec(dialect === 'postgres' ? 'ANALYZE campaign_contacts; ANALYZE campaign_calls' : 'ANALYZE');
    // The statement as the repository sends it, caught on its way to the database.
    let caught: { sql: string; params: readonly Param[] } | undefined;
    const catching: Database = Object.create(db, {
      all: { value: (sql: string, params: readonly Param[] = []) => ((caught = { sql, params }), db.all(sql, params)) },
    }) as Database;
    const campaigns = Array.from({ length: CAMPAIGNS }, (_, i) => i + 1);
    const repo = new DialerRepository(tenant(catching, 1));
    const overdue = (await repo.undisposedOf(campaigns, NOW - 600)).length;
    const explain = dialect === 'postgres' ? 'EXPLAIN (ANALYZE, COSTS OFF)' : 'EXPLAIN QUERY PLAN';
    const plan = await db.all<Record<string, unknown>>(`${explain} ${caught!.sql}`, caught!.params);
    console.log(
      `\n${dialect}, ${CALLS} finished calls, ${AWAITING} awaiting a disposition (${overdue} overdue)${ANALYZE ? ', after ANALYZE' : ', no statistics'}:`,
    );
    for (const r of plan) console.log(`  ${dialect === 'postgres' ? String(Object.values(r)[0]) : String(r.detail)}`);
    const times: number[] = [];
    for (let i = 0; i < REPS; i++) {
      const t0 = performance.now();
      await repo.undisposedOf(campaigns, NOW - 600);
      times.push(performance.now() - t0);
    }
    return `| ${dialect} | ${CALLS} | ${AWAITING} | ${ANALYZE ? 'yes' : 'no'} | ${median(times).toFixed(2)} ms |`;
  } finally {
    await db.close();
  }
}

async function main(): Promise<void> {
  const rows: string[] = [];
  for (const dialect of DBS) rows.push(await measure(dialect));
  console.log(`\nundisposedOf, median of ${REPS}, in process, ${new Date().toISOString()}\n`);
  console.log('| database | finished calls | awaiting | statistics | read, median |');
  console.log('|---|---|---|---|---|');
  for (const r of rows) console.log(r);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
