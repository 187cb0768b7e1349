/**
 * What the analysis roll-ups' 5-minute slots and per-hour change marks
 * (migration 100) cost events/ingest on SQLite: events/ingest in one
 * process with the service's sinks (analysis roll-ups, report roll-ups,
 * agent time), on two SQLite databases, alternating rounds (each in
 * another order) so machine noise hits both alike; the medians, their
 * ratio and the median of the rounds' ratios:
 *  - "no fine": the roll-up writes to analysis_fine and
 *    analysis_hour_versions dropped (what ingest cost before migration 100);
 *  - "with fine": as the service runs.
 * The traffic is bench/ingest-live's cycle (login, then per agent queued,
 * ringing, answered, ended, wrap-up start/end), batches of 500, 200 agents;
 * the clock advancing 0.5 s per event (a new 5-minute slot every batch or
 * so: rows inserted), or with --now at the current second as ingest-live
 * sends (the same slot's rows updated).
 *
 *   npx tsx bench/analysis-ingest-cost.ts [--rounds 5] [--batches 40] [--now]
 */
import { buildApp } from '../src/app.js';
import { parseArgs } from '../src/cli/args.js';
import { loadConfig } from '../src/config/config.js';
import { migrate } from '../src/db/migrate.js';
import type { Database, Queryable } from '../src/db/types.js';
import { RollupSink } from '../src/modules/analysis/rollup/rollup-sink.js';
import { CallHistoryService } from '../src/modules/calls/call-history.service.js';
import { allSinks, type CallRecordSink } from '../src/modules/calls/call-record-sink.js';
import { EventsService } from '../src/modules/events/events.service.js';
import { ReportAgentTimeSink, ReportCallSink } from '../src/modules/report/rollup/report-sinks.js';
import { agentCycleTraffic, tenantWithAgents } from './agent-traffic.js';
import { median, openFreshBenchDatabase } from './support.js';

const { options } = parseArgs(process.argv.slice(2));
const ROUNDS = Number(options.rounds ?? 5);
const BATCHES = Number(options.batches ?? 40);
const NOW = options.now !== undefined;

/** The roll-up sink with its statements on analysis_fine and analysis_hour_versions dropped. */
function withoutFine(sink: CallRecordSink): CallRecordSink {
  const skip = /^INSERT INTO analysis_(fine|hour_versions) /;
  const filtered = (tx: Queryable): Queryable => ({
    dialect: tx.dialect,
    all: (sql, params) => tx.all(sql, params),
    get: (sql, params) => tx.get(sql, params),
    allValues: (sql, params) => tx.allValues(sql, params),
    getValues: (sql, params) => tx.getValues(sql, params),
    run: (sql, params) => (skip.test(sql) ? Promise.resolve({ changes: 0 }) : tx.run(sql, params)),
  });
  return { apply: (tx, accountId, records, sign) => sink.apply(filtered(tx), accountId, records, sign) };
}

interface Variant {
  name: string;
  db: Database;
  app: { close(): Promise<unknown> };
  events: EventsService;
  accountId: number;
  gen: (count: number) => unknown[];
  eps: number[];
}
const variants: Variant[] = [];
for (const [name, fine] of [
  ['no fine', false],
  ['with fine', true],
] as const) {
  const db = await openFreshBenchDatabase('sqlite', 'analysis-ingest');
  await migrate(db);
  const { ctx, services, app } = await buildApp({ config: loadConfig({ LOG_LEVEL: 'silent' }), db });
  const rollups = fine ? new RollupSink() : withoutFine(new RollupSink());
  const events = new EventsService({
    ctx,
    accounts: services.accounts,
    history: new CallHistoryService({ db, sink: allSinks(rollups, new ReportCallSink()) }),
    agentTime: new ReportAgentTimeSink(),
  });
  const t = await tenantWithAgents(db, 'bench-ingest', 200);
  variants.push({
    name,
    db,
    app,
    events,
    ...t,
    gen: agentCycleTraffic(t.agents, name.replace(' ', '-'), { clock: NOW ? 'now' : 'advancing', did: '18005550100' }),
    eps: [] as number[],
  });
}
for (let round = 0; round <= ROUNDS; round++) {
  // Each round in another order: none always runs first (or right after another).
  for (const v of variants.map((_, i) => variants[(i + round) % variants.length]!)) {
    const t0 = performance.now();
    let accepted = 0;
    for (let b = 0; b < BATCHES; b++) {
      const r = await v.events.ingest(v.accountId, v.gen(500));
      if (r.errors.length > 0) throw new Error(JSON.stringify(r.errors[0]));
      accepted += r.accepted;
    }
    // Round 0 warms up (JIT, prepared statements).
    if (round > 0) v.eps.push(accepted / ((performance.now() - t0) / 1000));
  }
}
const base = median(variants[0]!.eps);
console.log(
  `| SQLite events/ingest${NOW ? ' (--now)' : ''} | median events/s (rounds) | ÷ no fine: medians, median of the rounds' ratios | analysis_fine rows |\n|---|---|---|---|`,
);
for (const v of variants) {
  const m = median(v.eps);
  // Both variants run back to back in a round: a round's ratio is less exposed to the machine's drift than the medians'.
  const paired = median(v.eps.map((e, i) => e / variants[0]!.eps[i]!));
  // The rows show the variant did (or did not) write the 5-minute slots.
  const rows = Number((await v.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM analysis_fine'))?.n ?? 0);
  console.log(`| ${v.name} | ${Math.round(m)} (${v.eps.map(Math.round).join(', ')}) | ${(m / base).toFixed(2)}, ${paired.toFixed(2)} | ${rows} |`);
  await v.app.close();
  await v.db.close();
}
