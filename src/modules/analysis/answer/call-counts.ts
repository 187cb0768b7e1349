/**
 * Raw calls counted into counter vectors, as the roll-ups count them: the
 * pieces the raw path (grid-reads.ts fromRaw) and the shared-calls
 * correction (shared-calls.ts) both use.
 */
import { IX, NCOLS, addCallInKey, type CallFacts } from '../rollup/counters.js';
import type { HitsPlan } from '../query/plan.js';
import type { AnalysisQuery } from '../query/request.js';
import { offsetSeconds, wallLabel } from '../../../time/zone.js';

/** The bucket label of a local wall-clock time under the query's display. */
export function labelOf(q: AnalysisQuery, wall: number): string {
  return wallLabel(wall, q.display as Exclude<AnalysisQuery['display'], 'total'>);
}

/** A call's bucket label ('' when the answer is not bucketed). */
export function callLabel(p: HitsPlan, queuedAt: number): string {
  return p.bucketed ? labelOf(p.query, queuedAt + offsetSeconds(p.tz, queuedAt)) : '';
}

/** Hits grouped by their call. */
export function hitsByCall<H extends { call_id: string }>(hits: readonly H[]): Map<string, H[]> {
  const byCall = new Map<string, H[]>();
  for (const h of hits) {
    const list = byCall.get(h.call_id);
    if (list) list.push(h);
    else byCall.set(h.call_id, [h]);
  }
  return byCall;
}

/**
 * Adds (sign 1) or takes back (−1) one call counted through `through` (its
 * hits in one key), with the ghost count and the retry flag as the roll-ups
 * book them (gh<k>, fr_can).
 */
export function addCounted(v: number[], c: CallFacts, through: CallFacts['hits'], sign: number, ghost: number, retried: ReadonlySet<string>): void {
  addCallInKey(v, c, through, sign);
  if (through.some((h) => h.answered) && c.talkSecs <= ghost) v[NCOLS]! += sign;
  if (retried.has(c.callId)) v[IX.fr_can]! += sign;
}
