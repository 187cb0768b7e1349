import type { CallRecord } from '../calls/call-record.js';

/** The report's call types (PRODUCT.md §9): inbound, outbound, click-to-call. */
export const CALL_TYPES = ['IBD', 'OBD', 'CTC'] as const;
export type CallType = (typeof CALL_TYPES)[number];

/**
 * The one place a call's cType is decided, from what the call history knows.
 * Today: `direction` outbound → OBD, anything else → IBD. Click-to-call
 * (`call/originate`, branch `asterisk`) plugs in here and in `directionsOf`.
 */
export function callType(call: Pick<CallRecord, 'direction'>): CallType {
  return call.direction === 'outbound' ? 'OBD' : 'IBD';
}

/** The stored directions whose calls have one of `types` (CallReport/list's cType filter): the inverse of callType. */
export function directionsOf(types: readonly CallType[]): string[] {
  const out: string[] = [];
  if (types.includes('IBD')) out.push('inbound');
  if (types.includes('OBD')) out.push('outbound');
  return out;
}
