import type { Queryable } from '../../../db/types.js';
import type { CallRecordSink } from '../../calls/call-record-sink.js';
import type { CallRecord } from '../../calls/call-record.js';
import { batchStore, tableStore } from './rollup-store.js';
import { RollupBatch } from './rollup-batch.js';

/**
 * The analysis roll-ups as the call history's sink (ingest, late events,
 * tests): one RollupBatch per change, written in one flush — the same sums
 * as record by record, one write per cell. The other calls a record depends
 * on are read from the tables in the caller's transaction: for a batch, the
 * flag bookings and answered retries of all its calls up front (batchStore),
 * for one call its few rows as needed (tableStore, never more statements).
 */
export class RollupSink implements CallRecordSink {
  async apply(tx: Queryable, accountId: number, records: readonly CallRecord[], sign: 1 | -1): Promise<void> {
    if (records.length === 0) return;
    const store = records.length > 1 ? await batchStore(tx, accountId, records) : tableStore(tx, accountId);
    const batch = new RollupBatch();
    for (const r of records) await batch.add(r, sign, store);
    await batch.flush(tx, accountId);
  }
}
