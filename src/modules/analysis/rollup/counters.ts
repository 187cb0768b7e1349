import type { CallHit } from '../../calls/call-record.js';

/**
 * The additive form of the PRODUCT §7 counters. Every counter of one call in
 * one breakdown key is a vector of these columns; a key's counters over many
 * calls are the column sums, so roll-ups, the raw fallback and the tests all
 * add the same vectors. Distinct-call counters become additive because each
 * call contributes at most once per key.
 */
export const GHOST_MAX = 10;
export const COLS = [
  'tc',
  'ac',
  'mc',
  'uc',
  'ca',
  'pm',
  'cm',
  'fr_uc',
  'fr_ca',
  'fr_pm',
  'fr_cm',
  'fr_can',
  'gh0',
  'gh1',
  'gh2',
  'gh3',
  'gh4',
  'gh5',
  'gh6',
  'gh7',
  'gh8',
  'gh9',
  'gh10',
  'ring_sum',
  'hold_sum',
] as const;
export type Col = (typeof COLS)[number];
export const NCOLS = COLS.length;
export const IX = Object.fromEntries(COLS.map((c, i) => [c, i])) as Record<Col, number>;
const GH0 = IX.gh0;

/** A vector of COLS (roll-up rows keep typed arrays; query grids plain arrays, much cheaper to allocate). */
export type CounterVector = number[] | Float64Array;

export const DIMS = ['agent', 'group', 'did', 'campaign'] as const;
export type Dim = (typeof DIMS)[number];

/** The part of a call the counters read (a CallRecord or a calls row). */
export interface CallFacts {
  callId: string;
  queuedAt: number;
  direction: string;
  groupId: number | null;
  did: string | null;
  campaignId: string | null;
  retryOf: string | null;
  answeredAt: number | null;
  talkSecs: number;
  holdSecs: number;
  hits: Pick<CallHit, 'agentId' | 'ringSecs' | 'answered'>[];
}

/** A call is answered when somebody answered it (`answeredAt` set). */
export function isAnswered(c: Pick<CallFacts, 'answeredAt'>): boolean {
  return c.answeredAt !== null && c.answeredAt !== undefined;
}

/** The breakdown keys of a call in a dimension, each with the call's hits in that key. */
export function keysOf(c: CallFacts, dim: Dim): Map<string, CallFacts['hits']> {
  const out = new Map<string, CallFacts['hits']>();
  if (c.hits.length === 0) return out;
  if (dim === 'agent') {
    for (const h of c.hits) {
      const k = String(h.agentId);
      const list = out.get(k);
      if (list) list.push(h);
      else out.set(k, [h]);
    }
    return out;
  }
  const v = dim === 'group' ? c.groupId : dim === 'did' ? c.did : c.campaignId;
  // Calls without a group / DID / campaign have no key in that breakdown.
  if (v !== null && v !== undefined && v !== '') out.set(String(v), c.hits);
  return out;
}

/** Adds `sign` × the counters of call `c` through `hits` (its hits in one key) to `vec`. */
export function addCallInKey(vec: CounterVector, c: CallFacts, hits: CallFacts['hits'], sign: number): void {
  if (hits.length === 0) return;
  let answered = 0;
  let ring = 0;
  for (const h of hits) {
    if (h.answered) answered++;
    ring += h.ringSecs;
  }
  vec[IX.tc]! += sign * hits.length;
  vec[IX.ac]! += sign * answered;
  vec[IX.mc]! += sign * (hits.length - answered);
  vec[IX.ring_sum]! += sign * ring;
  vec[IX.uc]! += sign;
  const retry = c.retryOf !== null && c.retryOf !== undefined && c.retryOf !== '';
  if (retry) vec[IX.fr_uc]! += sign;
  if (answered > 0) {
    vec[IX.ca]! += sign;
    if (retry) vec[IX.fr_ca]! += sign;
    vec[IX.hold_sum]! += sign * c.holdSecs;
    // gh<k>: talk ≤ k seconds, for every threshold k the roll-up can answer.
    for (let k = GHOST_MAX; k >= 0 && c.talkSecs <= k; k--) vec[GH0 + k]! += sign;
  } else if (isAnswered(c)) {
    vec[IX.pm]! += sign;
    if (retry) vec[IX.fr_pm]! += sign;
  } else {
    vec[IX.cm]! += sign;
    if (retry) vec[IX.fr_cm]! += sign;
  }
}

/** The API counter codes, in answer order. */
export const CODES = [
  'TC',
  'AC',
  'MC',
  'UC',
  'CA',
  'PM',
  'CM',
  'FR_UC',
  'FR_CA',
  'FR_PM',
  'FR_CM',
  'FR_CAN_FR_PM_N',
  'GH_UC',
  'avgRingTime',
  'avgHoldTime',
] as const;
export type Code = (typeof CODES)[number];

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

// The column of a plain counter code (TC → tc), built once: a month of days by agent reads 100,000 counters.
const COLUMN_OF_CODE: Record<string, number> = Object.fromEntries(COLS.map((c, i) => [c.toUpperCase(), i]));

/**
 * Columns that are sums of others, call by call (so in every sum of calls):
 * a missed hit is a hit not answered; a distinct call in a key is answered
 * there, answered elsewhere or missed by all, exactly one of the three; and
 * the same for retries. Queries compute them instead of reading them.
 */
export const DERIVED: Partial<Record<Col, (v: ArrayLike<number>) => number>> = {
  mc: (v) => v[IX.tc]! - v[IX.ac]!,
  uc: (v) => v[IX.ca]! + v[IX.pm]! + v[IX.cm]!,
  fr_uc: (v) => v[IX.fr_ca]! + v[IX.fr_pm]! + v[IX.fr_cm]!,
};

/** Counters computed from several columns: the averages and the DERIVED counters. */
const COMPUTED: Partial<Record<Code, (v: ArrayLike<number>) => number | null>> = {
  MC: DERIVED.mc!,
  UC: DERIVED.uc!,
  FR_UC: DERIVED.fr_uc!,
  avgRingTime: (v) => (v[IX.tc]! > 0 ? round2(v[IX.ring_sum]! / v[IX.tc]!) : null),
  avgHoldTime: (v) => (v[IX.ca]! > 0 ? round2(v[IX.hold_sum]! / v[IX.ca]!) : null),
};

/**
 * How an API counter is read from a summed vector: as it is from a slot
 * (GH_UC from slot NCOLS, the ghost count for the account's threshold), or
 * computed (averages, DERIVED counters). Writers look this up once per
 * answer, not once per bucket.
 */
export type CounterRead = { slot: number } | { compute: (v: ArrayLike<number>) => number | null };

export function counterRead(code: Code): CounterRead {
  const compute = COMPUTED[code];
  if (compute) return { compute };
  if (code === 'GH_UC') return { slot: NCOLS };
  if (code === 'FR_CAN_FR_PM_N') return { slot: IX.fr_can };
  return { slot: COLUMN_OF_CODE[code]! };
}

/** One API counter from a summed vector (slot NCOLS holding the ghost count). */
export function counterValue(v: ArrayLike<number>, code: Code): number | null {
  const read = counterRead(code);
  return 'slot' in read ? v[read.slot]! : read.compute(v);
}
