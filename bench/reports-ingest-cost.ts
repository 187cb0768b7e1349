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
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { parseArgs } from '../src/cli/args.js';
import { loadConfig } from '../src/config/config.js';
import { migrate } from '../src/db/migrate.js';
import { PostgresDatabase } from '../src/db/postgres.js';
import { SqliteDatabase } from '../src/db/sqlite.js';
import type { Database, Dialect } from '../src/db/types.js';
import { RollupSink } from '../src/modules/analysis/rollup/rollup-sink.js';
import { CallHistoryService } from '../src/modules/calls/call-history.service.js';
import { EventsService } from '../src/modules/events/events.service.js';
import { agentCycleTraffic, tenantWithAgents } from './agent-traffic.js';
import { ensureBenchDatabase, median, PG_URL } from './support.js';

const { options } = parseArgs(process.argv.slice(2));
const ROUNDS = Number(options.rounds ?? 5);
const BATCHES = Number(options.batches ?? 40);
const DIALECTS: Dialect[] = options.db === 'sqlite' ? ['sqlite'] : options.db === 'postgres' ? ['postgres'] : ['sqlite', 'postgres'];
const SCHEMA = 'bench_reports_ingest';

async function open(dialect: Dialect): Promise<Database> {
  if (dialect === 'sqlite') return new SqliteDatabase(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'callcenter-reports-ingest-')), 'callcenter.db'));
  await ensureBenchDatabase();
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await admin.query(`CREATE SCHEMA ${SCHEMA}`);
  await admin.end();
  return new PostgresDatabase(PG_URL, 4, `-c search_path=${SCHEMA}`);
}

console.log('| database | without report roll-ups | with | ratio (with ÷ without) |\n|---|---|---|---|');
for (const dialect of DIALECTS) {
  const db = await open(dialect);
  try {
    await migrate(db);
    const { ctx, services, app } = await buildApp({ config: loadConfig({ LOG_LEVEL: 'silent' }), db });
    const bare = new EventsService(ctx, { accounts: services.accounts, history: new CallHistoryService(db, new RollupSink()) });
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
