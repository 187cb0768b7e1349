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
 *
 * --wal-pages (SQLite): the WAL pages the measured batches wrote, by table
 * and index: checkpoints off for them, each frame's page mapped to its
 * owner by `dbstat`. A larger --warmup lets the tables grow first (an
 * index keyed by agent or caller dirties more pages as it grows).
 */
import { completeCallTraffic, tenantWithAgents } from './agent-traffic.js';
import { benchService } from './campaign-support.js';
import { loggingDatabase, type StatementLog } from './statement-log.js';
import { median } from './support.js';
import { parseArgs } from '../src/cli/args.js';
import type { Database } from '../src/db/types.js';
import { gcMeter } from './gc-meter.js';
import fs from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';

const { options } = parseArgs(process.argv.slice(2));
const DIALECT = options.db === 'postgres' ? 'postgres' : 'sqlite';
const BATCHES = Number(options.batches ?? 200);
const WARMUP = Number(options.warmup ?? 20);
const WAL_PAGES = options['wal-pages'] !== undefined && DIALECT === 'sqlite';

/** The frames of `file`'s WAL by the table or index their page belongs to, a batch. */
function walPages(file: string, batches: number): void {
  const wal = fs.readFileSync(`${file}-wal`);
  const pageSize = wal.readUInt32BE(8);
  const reader = new BetterSqlite3(file, { readonly: true });
  const owner = new Map<number, string>();
  for (const r of reader.prepare('SELECT name, pageno FROM dbstat').all() as Array<{ name: string; pageno: number }>) owner.set(r.pageno, r.name);
  reader.close();
  const pages = new Map<string, number>();
  let frames = 0;
  // A frame: a 24-byte header (its page number first), then the page; the file starts with a 32-byte header.
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize, frames++) {
    const name = owner.get(wal.readUInt32BE(at)) ?? 'free or header';
    pages.set(name, (pages.get(name) ?? 0) + 1);
  }
  console.log(`${(frames / batches).toFixed(1)} WAL pages a batch (${pageSize} bytes):`);
  for (const [name, n] of [...pages].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`${(n / batches).toFixed(1).padStart(7)}  ${name}`);
}

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
    let file = '';
    if (WAL_PAGES) {
      file = (await s.db.all<{ name: string; file: string }>('PRAGMA database_list')).find((d) => d.name === 'main')!.file;
      await s.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      await s.db.exec('PRAGMA wal_autocheckpoint = 0');
    }
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
    if (WAL_PAGES) walPages(file, BATCHES);
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
