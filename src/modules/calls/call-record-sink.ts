import type { Queryable } from '../../db/types.js';
import type { CallRecord } from './call-record.js';

/**
 * What else follows the call history: told, inside the writer's transaction,
 * which versions of finished calls entered it (sign 1: their rows are
 * already written) or leave it (sign -1: their rows are still there). The
 * calls module declares it and CallHistoryService calls it; the analysis
 * module implements it with its roll-ups (RollupSink, BulkRollupSink), so
 * calls does not depend on analysis.
 */
export interface CallRecordSink {
  /** All records belong to `accountId`. */
  apply(tx: Queryable, accountId: number, records: readonly CallRecord[], sign: 1 | -1): Promise<void>;
}

/** Several sinks told of the same changes, in order (the analysis roll-ups, then the reports'). */
export class SinkChain implements CallRecordSink {
  constructor(private readonly sinks: readonly CallRecordSink[]) {}

  async apply(tx: Queryable, accountId: number, records: readonly CallRecord[], sign: 1 | -1): Promise<void> {
    for (const s of this.sinks) await s.apply(tx, accountId, records, sign);
  }
}
