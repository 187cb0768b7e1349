import type { CallRecord } from '../../calls/call-record.js';
import { STORED_SA, STORED_SL } from '../thresholds.js';

export const QUARTER = 900;
export const quarterOf = (ts: number) => Math.floor(ts / QUARTER) * QUARTER;

/** report_queue's summed columns, in the order of a delta vector. */
export const QUEUE_SUMS = [
  'offered',
  'answered',
  'abandoned',
  'ans_wait_sum',
  'ab_wait_sum',
  'talk_sum',
  'hold_sum',
  'wrap_sum',
  'taken_over',
  'retries',
  ...STORED_SL.map((s) => `sl_${s}`),
  ...STORED_SA.flatMap((s) => [`sa_${s}`, `saw_${s}`]),
] as const;
const IX = new Map<string, number>(QUEUE_SUMS.map((c, i) => [c, i]));
export const ix = (col: string) => IX.get(col)!;

/** A call was taken over when the agent it ended with never answered one of its offers (queue/callTakeover connects without one). */
export function takenOver(r: CallRecord): boolean {
  return r.answeredBy !== null && !r.hits.some((h) => h.answered && h.agentId === r.answeredBy);
}

/** The queue roll-up figures one finished call adds (times `sign`) to its group's quarter hour. */
export function queueDelta(r: CallRecord, sign: 1 | -1): Float64Array {
  const v = new Float64Array(QUEUE_SUMS.length);
  const wait = r.waitSecs;
  v[ix('offered')] = sign;
  if (r.answeredAt !== null) {
    v[ix('answered')] = sign;
    v[ix('ans_wait_sum')] = sign * wait;
    // Talk runs from answer to end less hold (PRODUCT.md §11).
    v[ix('talk_sum')] = sign * Math.max(0, r.talkSecs - r.holdSecs);
    v[ix('hold_sum')] = sign * r.holdSecs;
    for (const t of STORED_SL) if (wait <= t) v[ix(`sl_${t}`)] = sign;
  } else if (r.outcome === 'abandoned') {
    v[ix('abandoned')] = sign;
    v[ix('ab_wait_sum')] = sign * wait;
    for (const s of STORED_SA) {
      if (wait < s) {
        v[ix(`sa_${s}`)] = sign;
        v[ix(`saw_${s}`)] = sign * wait;
      }
    }
  }
  if (takenOver(r)) v[ix('taken_over')] = sign;
  if (r.retryOf !== null) v[ix('retries')] = sign;
  return v;
}
