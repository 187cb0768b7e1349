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

const ZEROS: readonly number[] = new Array<number>(QUEUE_SUMS.length).fill(0);
/**
 * A queue row's figures, all zero: a plain array, not a Float64Array (a typed array costs ~0.45 µs
 * to make, its ArrayBuffer and backing store, against ~0.05 µs for copying an array; a complete-call
 * batch makes one per finished call and per row).
 */
export const queueZeros = (): number[] => ZEROS.slice();

// The thresholds' columns, found once (a column name built per call and threshold before).
const SL_IX = STORED_SL.map((t) => [t, ix(`sl_${t}`)] as const);
const SA_IX = STORED_SA.map((s) => [s, ix(`sa_${s}`), ix(`saw_${s}`)] as const);

/** The queue roll-up figures one finished call adds (times `sign`) to its group's quarter hour. */
export function queueDelta(r: CallRecord, sign: 1 | -1): number[] {
  const v = queueZeros();
  const wait = r.waitSecs;
  v[ix('offered')] = sign;
  if (r.answeredAt !== null) {
    v[ix('answered')] = sign;
    v[ix('ans_wait_sum')] = sign * wait;
    // Talk runs from answer to end less hold (PRODUCT.md §11).
    v[ix('talk_sum')] = sign * Math.max(0, r.talkSecs - r.holdSecs);
    v[ix('hold_sum')] = sign * r.holdSecs;
    for (const [t, col] of SL_IX) if (wait <= t) v[col] = sign;
  } else if (r.outcome === 'abandoned') {
    v[ix('abandoned')] = sign;
    v[ix('ab_wait_sum')] = sign * wait;
    for (const [s, sa, saw] of SA_IX) {
      if (wait < s) {
        v[sa] = sign;
        v[saw] = sign * wait;
      }
    }
  }
  if (takenOver(r)) v[ix('taken_over')] = sign;
  if (r.retryOf !== null) v[ix('retries')] = sign;
  return v;
}
