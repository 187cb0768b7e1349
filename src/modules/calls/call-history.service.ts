import { tenant } from '../../db/tenant.js';
import type { Queryable } from '../../db/types.js';
import { batchStore } from '../analysis/rollup-store.js';
import { RollupBatch, applyToRollups } from '../analysis/rollups.js';
import { CallHistoryRepository } from './call-history.repository.js';
import type { CallRecord } from './call-record.js';

/**
 * Writes finished calls (one `calls` row + its `call_hits`) and keeps the
 * analysis roll-ups in step, inside the caller's transaction.
 */
export class CallHistoryService {
  constructor(private readonly db: Queryable) {}

  /** New finished calls: rows, then roll-ups (+1). */
  async record(tx: Queryable, accountId: number, records: CallRecord[]): Promise<void> {
    if (records.length === 0) return;
    await new CallHistoryRepository(tenant(tx, accountId)).insert(records);
    // One roll-up batch for the whole ingest batch: the same sums as applyToRollups per record, one write per cell.
    const batch = new RollupBatch();
    const store = await batchStore(tx, accountId, records);
    for (const r of records) await batch.add(r, 1, store);
    await batch.flush(tx, accountId);
  }

  /** A finished call changed by a late event: the old version leaves the roll-ups, the new one replaces its rows. */
  async replace(tx: Queryable, accountId: number, old: CallRecord, next: CallRecord): Promise<void> {
    await applyToRollups(tx, old, -1);
    const t = tenant(tx, accountId);
    await t.run('DELETE FROM call_hits WHERE account_id = $1 AND call_id = $2', [old.callId]);
    await new CallHistoryRepository(t).insert([next]);
    await applyToRollups(tx, next, 1);
  }

  /** Stored finished calls (to correct them with a late event), inside the caller's transaction. */
  load(tx: Queryable, accountId: number, callIds: string[]) {
    return new CallHistoryRepository(tenant(tx, accountId)).load(callIds);
  }

  recentSince(accountId: number, since: number) {
    return new CallHistoryRepository(tenant(this.db, accountId)).recentSince(since);
  }

  ringSecsSince(accountId: number, since: number) {
    return new CallHistoryRepository(tenant(this.db, accountId)).ringSecsSince(since);
  }
}
