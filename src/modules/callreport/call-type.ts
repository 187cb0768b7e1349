import { callKind, type CallKind, type CallRecord } from '../calls/call-record.js';

/** The report's call types (PRODUCT.md §9): inbound, outbound, click-to-call. */
export const CALL_TYPES = ['IBD', 'OBD', 'CTC'] as const;
export type CallType = (typeof CALL_TYPES)[number];

const TYPE_OF: Record<CallKind, CallType> = { inbound: 'IBD', outbound: 'OBD', originated: 'CTC' };

/**
 * The one place a call's cType is decided: outbound → OBD, an outbound call
 * placed by `call/originate` (its id is one the service issued, `ctc-…`) → CTC,
 * anything else → IBD.
 */
export function callType(call: Pick<CallRecord, 'direction' | 'callId'>): CallType {
  return TYPE_OF[callKind(call)];
}

/** The stored kinds whose calls have one of `types` (CallReport/list's cType filter): the inverse of callType. */
export function kindsOf(types: readonly CallType[]): CallKind[] {
  return (Object.keys(TYPE_OF) as CallKind[]).filter((k) => types.includes(TYPE_OF[k]));
}
