import { dialectOf } from '../../../db/dialect.js';
import type { Database, Param, Queryable } from '../../../db/types.js';
import { tenant } from '../../../db/tenant.js';
import { CallHistoryService } from '../../calls/call-history.service.js';
import { allSinks, type CallRecordSink } from '../../calls/call-record-sink.js';
import type { CallRecord } from '../../calls/call-record.js';
import type { CallFacts } from './counters.js';
import { RollupBatch, type FlagBooking, type RollupStore } from './rollup-batch.js';

/**
 * The roll-up store of a bulk load whose records only refer to each other
 * (a fresh seed run: new call ids, retries right after their original):
 * the calls it depends on are kept in memory for a sliding window instead of
 * being read back, and flag bookings are written once per batch. The
 * counting itself is RollupBatch.add, the code every roll-up runs.
 */
class WindowStore implements RollupStore {
  private readonly recent = new Map<string, CallFacts>();
  private readonly answered = new Map<string, string[]>();
  private readonly flags = new Map<string, FlagBooking | null>();
  readonly pending = new Map<string, FlagBooking | null>();
  /**
   * The remembered ids in arrival order, oldest at `head`. Not the Map's own
   * order: V8 keeps a deleted Map entry as a hole until the next rehash, so
   * taking the first key of a Map used as a queue skips ever more holes
   * (half the seed's time at 333,000 calls a day).
   */
  private order: string[] = [];
  private head = 0;

  constructor(private readonly window = 200_000) {}

  async answeredRetries(callId: string): Promise<string[]> {
    return this.answered.get(callId) ?? [];
  }
  async loadCall(callId: string): Promise<CallFacts | null> {
    return this.recent.get(callId) ?? null;
  }
  async getFlag(callId: string): Promise<FlagBooking | null> {
    return this.flags.get(callId) ?? null;
  }
  async setFlag(callId: string, booking: FlagBooking | null): Promise<void> {
    this.flags.set(callId, booking);
    this.pending.set(callId, booking);
  }

  /** The record is now applied: later records may depend on it. */
  remember(r: CallRecord): void {
    if (!this.recent.has(r.callId)) this.order.push(r.callId);
    this.recent.set(r.callId, r);
    if (r.retryOf && r.answeredAt !== null) {
      const list = this.answered.get(r.retryOf);
      if (list) list.push(r.callId);
      else this.answered.set(r.retryOf, [r.callId]);
    }
    while (this.recent.size > this.window) {
      const oldest = this.order[this.head++]!;
      this.recent.delete(oldest);
      this.answered.delete(oldest);
      this.flags.delete(oldest);
    }
    if (this.head > this.window) {
      this.order = this.order.slice(this.head);
      this.head = 0;
    }
  }

  async writeFlags(tx: Queryable, accountId: number): Promise<void> {
    const t = tenant(tx, accountId);
    const rows = [...this.pending.entries()];
    this.pending.clear();
    for (const [callId] of rows.filter(([, b]) => b === null)) {
      await t.run('DELETE FROM analysis_retry_flags WHERE account_id = $1 AND call_id = $2', [callId]);
    }
    const live = rows.filter((r): r is [string, FlagBooking] => r[1] !== null);
    for (let i = 0; i < live.length; i += 200) {
      const chunk = live.slice(i, i + 200);
      const params: Param[] = [];
      const values = chunk.map(([callId, b], r) => {
        params.push(callId, b.slot, b.direction, JSON.stringify(b.cells));
        return `($1, $${2 + r * 4}, $${3 + r * 4}, $${4 + r * 4}, $${5 + r * 4})`;
      });
      await t.run(
        `INSERT INTO analysis_retry_flags (account_id, call_id, hour, direction, cells) VALUES ${values.join(', ')}
         ON CONFLICT (account_id, call_id) DO UPDATE SET hour = excluded.hour, direction = excluded.direction, cells = excluded.cells`,
        params,
      );
    }
  }
}

/**
 * The roll-ups as the call history's sink during a bulk load whose records
 * only refer to each other (see WindowStore): the same RollupBatch as
 * ingest, with the calls it depends on kept in memory and flag bookings
 * written once per batch. Adds only; one instance per load.
 */
export class BulkRollupSink implements CallRecordSink {
  private readonly store = new WindowStore();

  async apply(tx: Queryable, accountId: number, records: readonly CallRecord[], sign: 1 | -1): Promise<void> {
    if (sign !== 1) throw new Error('a bulk load only adds calls');
    const rollup = new RollupBatch();
    for (const r of records) {
      await rollup.add(r, 1, this.store);
      this.store.remember(r);
    }
    await rollup.flush(tx, accountId);
    await this.store.writeFlags(tx, accountId);
  }
}

export interface LoadProgress {
  done: number;
  hits: number;
  elapsedMs: number;
}

/**
 * Writes calls, hits and roll-ups for a stream of records of one account, one
 * transaction per `batchSize` calls (a crash loses at most the open batch).
 */
export async function bulkLoadCalls(
  db: Database,
  accountId: number,
  records: Iterable<CallRecord>,
  opts: {
    batchSize?: number;
    onProgress?: (p: LoadProgress) => void;
    /** Another sink of the same records (the report roll-ups), after the analysis roll-ups. */
    alsoSink?: CallRecordSink;
    /** Runs in each batch's transaction after its calls are stored (the seeder's agent state history). */
    onBatch?: (tx: Queryable, records: CallRecord[]) => Promise<void>;
  } = {},
): Promise<LoadProgress> {
  const batchSize = opts.batchSize ?? 5000;
  // A bulk load touches far more index pages than the default 2 MB page cache holds.
  await dialectOf(db).prepareBulkLoad(db);
  const history = new CallHistoryService({ db, sink: opts.alsoSink ? allSinks(new BulkRollupSink(), opts.alsoSink) : new BulkRollupSink() });
  const started = Date.now();
  const progress: LoadProgress = { done: 0, hits: 0, elapsedMs: 0 };
  let batch: CallRecord[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const records = batch;
    batch = [];
    await db.transaction(async (tx) => {
      await history.record(tx, accountId, records);
      await opts.onBatch?.(tx, records);
    });
    progress.done += records.length;
    progress.hits += records.reduce((n, r) => n + r.hits.length, 0);
    progress.elapsedMs = Date.now() - started;
    opts.onProgress?.({ ...progress });
  };
  for (const r of records) {
    batch.push(r);
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  // Fresh planner statistics: without them PostgreSQL guesses a few rows per
  // table and picks nested loops that scan millions of calls.
  await dialectOf(db).analyzeAfterBulkLoad(db, ['calls', 'call_hits', 'analysis_daily', 'analysis_hourly', 'analysis_fine', 'analysis_cube']);
  return { ...progress, elapsedMs: Date.now() - started };
}
