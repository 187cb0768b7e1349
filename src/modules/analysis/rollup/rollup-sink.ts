import type { Queryable } from '../../../db/types.js';
import type { CallRecordSink } from '../../calls/call-record-sink.js';
import type { CallRecord } from '../../calls/call-record.js';
import { batchStore } from './rollup-store.js';
import { RollupBatch } from './rollup-batch.js';

/**
 * The analysis roll-ups as the call history's sink (ingest, late events,
 * tests): one RollupBatch per change, written in one flush — the same sums
 * as record by record, one write per cell. The flag bookings and answered
 * retries the records depend on are read up front, one statement each for
 * the whole batch (batchStore); the originals they retry as needed.
 */
export class RollupSink implements CallRecordSink {
  async apply(tx: Queryable, accountId: number, records: readonly CallRecord[], sign: 1 | -1): Promise<void> {
    if (records.length === 0) return;
    const store = await batchStore(tx, accountId, records);
    const batch = new RollupBatch();
    for (const r of records) await batch.add(r, sign, store);
    await batch.flush(tx, accountId);
  }
}
