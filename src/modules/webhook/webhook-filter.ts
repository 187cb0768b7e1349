import type { CallRecord } from '../calls/call-record.js';
import { callType } from '../callreport/call-type.js';

/** A subscription's filter (PRODUCT.md §9): a report is sent when every given list contains the call's value. */
export interface WebhookFilter {
  cType?: string[];
  did?: string[];
  campaignId?: Array<string | number>;
  groupId?: number[];
}

/** Whether a finished call passes the filter. An empty or absent list does not restrict. */
export function matchesFilter(f: WebhookFilter, r: Pick<CallRecord, 'callId' | 'direction' | 'did' | 'campaignId' | 'groupId'>): boolean {
  const has = <T>(list: T[] | undefined, value: T | null, eq: (a: T, b: T) => boolean = (a, b) => a === b) =>
    list === undefined || list.length === 0 || (value !== null && list.some((x) => eq(x, value)));
  // campId is 0 for a call without a campaign, as in the report.
  const campaign = r.campaignId ?? '0';
  return (
    has(f.cType, callType(r), (a, b) => a.toUpperCase() === b) &&
    has(f.did, r.did) &&
    has<string | number>(f.campaignId, campaign, (a, b) => String(a) === String(b)) &&
    has(f.groupId, r.groupId)
  );
}

export function parseFilter(stored: string): WebhookFilter {
  try {
    return JSON.parse(stored) as WebhookFilter;
  } catch {
    return {};
  }
}
