import { lnGammaStar } from './gamma.js';

/**
 * Erlang B, Erlang C (M/M/n) and Erlang A (M/M/n+M, Palm's model with
 * exponential patience) as fractions and seconds, unrounded. Pure: no I/O,
 * no clock. docs/staffing.md says what each assumes and where it misleads.
 *
 * Notation: A = λ·aht the offered traffic in Erlangs, n agents, T the
 * service-level threshold (s), θ = 1/patience. Erlang B comes from its
 * recurrence B(0) = 1, B(k) = A·B(k−1) / (k + A·B(k−1)), which never leaves
 * [0, 1] (no factorial, no power of A). Erlang C and A are both written
 * through B, so nothing overflows at any traffic.
 *
 * Erlang A (Garnett, Mandelbaum & Reiman 2002; Mandelbaum & Zeltyn,
 * "The Palm/Erlang-A queue, with applications to call centers", 2007): with
 * x = n·patience/aht and y = A·patience/aht, the queue's weight relative to
 * "all agents busy, nobody waiting" is S = x·e^y·y^−x·γ(x, y) = Σ_k y^k / ((x+1)…(x+k)),
 * and
 *   P(wait)            = S·B / (1 + (S − 1)·B)
 *   P(abandon | wait)  = 1 − (1 − 1/S) / ρ,            ρ = A / n
 *   ASA (all calls)    = P(abandon) · patience        (Little: E[queue] = λ·ASA, abandons = θ·E[queue])
 * A call that finds k waiting reaches an agent after k+1 queue departures
 * whose rates are nμ + jθ; e^(−θ·wait) is then Beta(x, k+1) distributed, and
 * summing over k gives the share of waiting calls answered within T:
 *   (1/ρ) · [P(x+1, y) − P(x+1, y·e^(−θT))] / P(x, y)
 * (P the regularized lower incomplete gamma; computed as ratios of the scaled
 * γ*(a, x) of gamma.ts, in which the powers and Γ cancel). The service level is
 * the share of ALL arriving calls answered within T: those that never wait
 * plus those that wait and are answered in time; abandons count against it.
 */

export interface Measures {
  /** Agents the figures are for. */
  agents: number;
  /** Share of all arriving calls answered within T (0..1). */
  serviceLevel: number;
  /** Probability that a call waits at all (0..1). */
  pWait: number;
  /** Mean wait of all calls, seconds (answered or abandoned; 0 for those not waiting). */
  asa: number;
  /** Carried traffic ÷ agents (0..1); carried excludes abandoned calls. */
  occupancy: number;
  /** Probability that a call abandons (0..1); 0 in Erlang C. */
  pAbandon: number;
}

/** Erlang B: the blocking probability of n servers offered A Erlangs, by its recurrence. */
export function erlangB(n: number, traffic: number): number {
  let b = 1;
  for (let k = 1; k <= n; k++) b = (traffic * b) / (k + traffic * b);
  return b;
}

/** Erlang C: the probability of waiting with n agents offered A Erlangs (1 when n ≤ A: the queue grows without bound). */
export function erlangC(n: number, traffic: number): number {
  if (n <= traffic) return 1;
  const b = erlangB(n, traffic);
  return (n * b) / (n - traffic * (1 - b));
}

/** Erlang C measures at n agents, or null when n ≤ A (no steady state: waits grow without bound). */
export function erlangCAt(n: number, traffic: number, aht: number, seconds: number): Measures | null {
  if (traffic === 0) return idle(n);
  if (n <= traffic) return null;
  const c = erlangC(n, traffic);
  return {
    agents: n,
    serviceLevel: 1 - c * Math.exp((-(n - traffic) * seconds) / aht),
    pWait: c,
    asa: (c * aht) / (n - traffic),
    occupancy: traffic / n,
    pAbandon: 0,
  };
}

/** Erlang A measures at n agents; every n ≥ 0 has a steady state (callers who wait too long leave). */
export function erlangAAt(n: number, traffic: number, aht: number, seconds: number, patience: number): Measures {
  if (traffic === 0) return idle(n);
  if (n === 0) return { agents: 0, serviceLevel: 0, pWait: 1, asa: patience, occupancy: 0, pAbandon: 1 };
  const x = (n * patience) / aht;
  const y = (traffic * patience) / aht;
  // A patience so short against the handling time that x underflows to 0: the limit θ → ∞, where a caller who
  // would wait leaves at once — Erlang B's loss system (tests/fuzz found a 500 here with patience 9e-323 s).
  if (!(x > 0)) return lossAt(n, traffic, patience);
  const rho = traffic / n;
  const lnGx = lnGammaStar(x, y);
  // S = x·γ*(x, y): the series itself, no power or factorial formed.
  const lnS = Math.log(x) + lnGx;
  const b = erlangB(n, traffic);
  // S·B / (1 − B + S·B), written as 1 / (1 + (1 − B)/(S·B)) so a huge S cannot overflow.
  const pWait = b === 0 ? 0 : 1 / (1 + (1 - b) * Math.exp(-lnS - Math.log(b)));
  const abandonIfWait = clamp01(1 - -Math.expm1(-lnS) / rho);
  const pAbandon = pWait * abandonIfWait;
  // (1/ρ)·P(x+1, y)/P(x, y) = γ*(x+1, y)/γ*(x, y): the share of waiting calls ever answered;
  // 1 − P(x+1, y·e^−θT)/P(x+1, y) the part of them answered within T.
  const thetaT = seconds / patience;
  const lnG1 = lnGammaStar(x + 1, y);
  const answeredIfWait = Math.exp(lnG1 - lnGx);
  const lnRatioT = -(x + 1) * thetaT + y * -Math.expm1(-thetaT) + lnGammaStar(x + 1, y * Math.exp(-thetaT)) - lnG1;
  const inTimeIfWait = clamp01(answeredIfWait * -Math.expm1(lnRatioT));
  return {
    agents: n,
    serviceLevel: clamp01(1 - pWait + pWait * inTimeIfWait),
    pWait,
    asa: pAbandon * patience,
    occupancy: clamp01((traffic * (1 - pAbandon)) / n),
    pAbandon,
  };
}

const clamp01 = (v: number) => Math.min(1, Math.max(0, v));

/** Callers who find every agent busy leave at once (Erlang B): they are the ones who wait, and abandon. */
function lossAt(n: number, traffic: number, patience: number): Measures {
  const b = erlangB(n, traffic);
  return { agents: n, serviceLevel: 1 - b, pWait: b, asa: b * patience, occupancy: clamp01((traffic * (1 - b)) / n), pAbandon: b };
}

/** No traffic: nobody waits, nobody is busy. */
function idle(n: number): Measures {
  return { agents: n, serviceLevel: 1, pWait: 0, asa: 0, occupancy: 0, pAbandon: 0 };
}

export interface StaffingQuestion {
  /** Offered traffic, Erlangs. */
  traffic: number;
  /** Mean handle time, seconds (> 0). */
  aht: number;
  /** Target: this share (0..1) of all calls answered within `seconds`. */
  serviceLevel: number;
  seconds: number;
  /** Occupancy cap (0..1]; 1 = none. */
  maxOccupancy: number;
  /** Mean patience, seconds: Erlang A when given, else Erlang C. */
  patience?: number;
}

/** Room for the last bits of floating point: a target met to 1e-12 is met (7 Erlangs at a 70 % cap needs 10 agents, not 11). */
const SLACK = 1e-12;

/** The measures at n agents, for the question's model (null: no steady state). */
export function measuresAt(q: StaffingQuestion, n: number): Measures | null {
  return q.patience === undefined ? erlangCAt(n, q.traffic, q.aht, q.seconds) : erlangAAt(n, q.traffic, q.aht, q.seconds, q.patience);
}

function meets(q: StaffingQuestion, m: Measures | null): m is Measures {
  return m !== null && m.serviceLevel >= q.serviceLevel - SLACK && m.occupancy <= q.maxOccupancy + SLACK;
}

/**
 * The fewest agents meeting the service level and the occupancy cap, with
 * their measures. Both figures improve with every agent added, so the answer
 * is found by doubling an upper bound and bisecting: about 2·log2(A) model
 * evaluations, each O(n) for Erlang B plus the incomplete gamma's O(√(n·patience/aht)).
 */
export function fewestAgents(q: StaffingQuestion): Measures {
  if (q.traffic === 0) return idle(0);
  // Erlang C needs n > A; Erlang A may need fewer than A agents.
  let lo = q.patience === undefined ? Math.floor(q.traffic) : 0; // fails (or is below every answer)
  let hi = Math.max(lo + 1, Math.ceil(q.traffic));
  let atHi = measuresAt(q, hi);
  while (!meets(q, atHi)) {
    lo = hi;
    hi *= 2;
    atHi = measuresAt(q, hi);
  }
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    const m = measuresAt(q, mid);
    if (meets(q, m)) {
      hi = mid;
      atHi = m;
    } else lo = mid;
  }
  return atHi;
}
