import type { Database } from '../../db/types.js';
import type { CallHistoryService } from '../calls/call-history.service.js';
import { callType } from './webhook-filter.js';
import type { ReportSource } from './delivery.worker.js';

/** Stand-in until the callreport module's push-report builder is merged: the call's stored facts. */
export function interimReports(db: Database, history: CallHistoryService): ReportSource {
  return {
    async build(accountId, callId) {
      const r = (await history.load(db, accountId, [callId])).get(callId);
      if (!r) return null;
      return { callId: r.callId, cType: callType(r), DID: r.did, userId: String(accountId), retryOf: r.retryOf };
    },
  };
}
