/**
 * What the report roll-ups cost ingest (issue #18): events/ingest in one
 * process, on one database, with and without the report sinks (finished
 * calls → report_queue / report_agent, agent state spans → report_agent /
 * report_agent_breaks), alternating rounds so machine noise hits both
 * alike; reports the ratio of the medians. The traffic is bench/ingest-live's
 * cycle (login, then per agent queued, ringing, answered, ended, wrap-up
 * start/end), with time advancing 0.5 s per event, batches of 500.
 *
 *   npx tsx bench/reports-ingest-cost.ts [--db sqlite|postgres|both] [--rounds 5] [--batches 40]
 */
import { buildApp } from '../src/app.js';
import { parseArgs } from '../src/cli/args.js';
import { loadConfig } from '../src/config/config.js';
import { migrate } from '../src/db/migrate.js';
import type { Dialect } from '../src/db/types.js';
import { RollupSink } from '../src/modules/analysis/rollup/rollup-sink.js';
import { CallHistoryService } from '../src/modules/calls/call-history.service.js';
import { EventsService } from '../src/modules/events/events.service.js';
import { agentCycleTraffic, tenantWithAgents } from './agent-traffic.js';
import { median, openFreshBenchDatabase } from './support.js';

const { options } = parseArgs(process.argv.slice(2));
const ROUNDS = Number(options.rounds ?? 5);
const BATCHES = Number(options.batches ?? 40);
const DIALECTS: Dialect[] = options.db === 'sqlite' ? ['sqlite'] : options.db === 'postgres' ? ['postgres'] : ['sqlite', 'postgres'];

console.log('| database | without report roll-ups | with | ratio (with ÷ without) |\n|---|---|---|---|');
for (const dialect of DIALECTS) {
  const db = await openFreshBenchDatabase(dialect, 'reports-ingest');
  try {
    await migrate(db);
    const { ctx, services, app } = await buildApp({ config: loadConfig({ LOG_LEVEL: 'silent' }), db });
    const bare = new EventsService({ ctx, accounts: services.accounts, history: new CallHistoryService({ db, sink: new RollupSink() }) });
    const variants = [
      { name: 'without', events: bare, ...(await tenantWithAgents(db, 'bench-without', 200)), eps: [] as number[] },
      { name: 'with', events: services.events, ...(await tenantWithAgents(db, 'bench-with', 200)), eps: [] as number[] },
    ];
    const gens = variants.map((v) => agentCycleTraffic(v.agents, v.name, { clock: 'advancing' }));
    for (let round = 0; round <= ROUNDS; round++) {
      for (const [i, v] of variants.entries()) {
        const t0 = performance.now();
        let accepted = 0;
        for (let b = 0; b < BATCHES; b++) {
          const r = await v.events.ingest(v.accountId, gens[i]!(500));
          if (r.errors.length > 0) throw new Error(JSON.stringify(r.errors[0]));
          accepted += r.accepted;
        }
        // Round 0 warms up (JIT, prepared statements).
        if (round > 0) v.eps.push(accepted / ((performance.now() - t0) / 1000));
      }
    }
    const [without, withReports] = variants.map((v) => median(v.eps));
    console.log(`| ${dialect} | ${Math.round(without!)} events/s | ${Math.round(withReports!)} events/s | ${(withReports! / without!).toFixed(2)} |`);
    await app.close();
  } finally {
    await db.close();
  }
}
