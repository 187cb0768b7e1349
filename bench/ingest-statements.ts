/**
 * What one complete-call ingest batch asks the database (issue 34): the
 * traffic of bench/ingest-calls.ts (batches of 500 events forming whole
 * calls, 200 agents) through EventsService.ingest in process, every
 * statement counted and timed by its text, and the batch's wall time.
 *
 *   npx tsx bench/ingest-statements.ts [--db sqlite|postgres] [--batches 200]
 *
 * --gc: also the garbage collector's time a batch (PerformanceObserver's
 * `gc` entries) and the bytes allocated a batch (V8's sampling heap
 * profiler keeping the samples GC collected, so every allocation counts,
 * not only what survives), with the functions that allocate most. Run it
 * under the flags of `npm start` to see what they cost:
 *
 *   node --max-semi-space-size=8 --import tsx bench/ingest-statements.ts --no-log --gc
 */
import { completeCallTraffic, tenantWithAgents } from './agent-traffic.js';
import { benchService } from './campaign-support.js';
import { loggingDatabase, type StatementLog } from './statement-log.js';
import { median } from './support.js';
import { parseArgs } from '../src/cli/args.js';
import type { Database } from '../src/db/types.js';
import { gcMeter } from './gc-meter.js';

const { options } = parseArgs(process.argv.slice(2));
const DIALECT = options.db === 'postgres' ? 'postgres' : 'sqlite';
const BATCHES = Number(options.batches ?? 200);
const WARMUP = 20;

async function main(): Promise<void> {
  let log: StatementLog | undefined;
  // --no-log: the database unwrapped (for --cpu-prof: the proxy's own cost stays out).
  const wrap = (db: Database) => {
    if (options['no-log'] !== undefined) return db;
    const l = loggingDatabase(db);
    log = l.log;
    return l.db;
  };
  const s = await benchService(DIALECT, 'ingest_statements', Date.now(), wrap);
  try {
    const { accountId, agents } = await tenantWithAgents(s.db, 'bench-statements', 200);
    const next = completeCallTraffic(agents, 'st');
    for (let i = 0; i < WARMUP; i++) await s.services.events.ingest(accountId, next(500));
    log?.clear();
    const times: number[] = [];
    const gc = options.gc !== undefined ? await gcMeter() : undefined;
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < BATCHES; i++) {
      const t0 = performance.now();
      const r = await s.services.events.ingest(accountId, next(500));
      times.push(performance.now() - t0);
      if (r.errors.length > 0) throw new Error(JSON.stringify(r.errors[0]));
    }
    const cpu = process.cpuUsage(cpu0);
    if (gc) console.log(await gc.report(BATCHES));
    // CPU time (this process: the statements of SQLite run on its thread) moves far less than wall time with the machine's load.
    console.log(`${DIALECT}: batch median ${median(times).toFixed(2)} ms, CPU ${((cpu.user + cpu.system) / 1000 / BATCHES).toFixed(2)} ms a batch`);
    if (!log) return;
    const rows = [...log].sort((a, b) => b[1].ms - a[1].ms);
    const n = rows.reduce((sum, [, e]) => sum + e.n, 0);
    const ms = rows.reduce((sum, [, e]) => sum + e.ms, 0);
    console.log(`${(n / BATCHES).toFixed(1)} statements a batch, ${(ms / BATCHES).toFixed(2)} ms in them`);
    for (const [sql, e] of rows.slice(0, 40)) console.log(`${(e.n / BATCHES).toFixed(1).padStart(7)} ${(e.ms / BATCHES).toFixed(3).padStart(8)} ms  ${sql}`);
  } finally {
    await s.close();
  }
}

await main();
