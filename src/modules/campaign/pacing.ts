/**
 * How many calls a campaign places now (PRODUCT.md §13; the reasoning and
 * the measured behaviour are in docs/campaigns.md, "How the dialer paces").
 * Pure: the dialer gathers the figures, this decides.
 */
export interface PacingInput {
  mode: 'preview' | 'progressive' | 'predictive';
  /** Agents of the group free now and not reserved by a campaign call. */
  freeAgents: number;
  /** Agents reserved by the campaign's progressive calls in progress. */
  reservedAgents: number;
  /** The campaign's calls in progress (dialled, not ended). */
  lines: number;
  /** Of those, predictive calls not yet answered by an agent (each may still need one). */
  pendingPredictive: number;
  maxLines: number;
  /** Progressive: calls per available agent (1–3). */
  dialRatio: number;
  /** Over the window: people who answered, and of them those abandoned. */
  humanAnswered: number;
  abandoned: number;
  /** Percent. */
  maxAbandonRate: number;
  /** Share of recent dials a person answered (0–1), smoothed by the dialer. */
  humanRate: number;
  /**
   * What the predictive estimate looks ahead with (all optional: without
   * them it counts only the agents free now, and every call in flight as a
   * person with probability humanRate).
   */
  outlook?: PacingOutlook;
}

/** The predictive look-ahead's figures (gathered by the dialer, see dialer.ts). */
export interface PacingOutlook {
  /** Seconds since each agent of the group now on a call answered it. */
  talking: number[];
  /** Seconds since each agent of the group now in wrap-up began it. */
  wrapping: number[];
  /** Seconds since each predictive call in flight and not yet answered was dialled. */
  ringing: number[];
  /** Predictive calls answered and not yet with an agent (each needs one now). */
  waiting: number;
  /** Recent resolved dials: seconds from the dial to the answer (or to the end when nobody answered), whether a person answered, and how many dials did so. */
  outcomes: Array<{ secs: number; human: boolean; n: number }>;
  /** Mean talk and wrap-up seconds of the campaign's recent calls. */
  talkSecs: number;
  wrapSecs: number;
}

export interface PacingDecision {
  dials: number;
  /** How the calls are placed: progressive ones each reserve an agent. */
  as: 'progressive' | 'predictive' | 'none';
  /** Predictive asked, but the abandon budget had no room: dialled as progressive. */
  fallback: boolean;
  /** Abandons the window can still take at worst (predictive only). */
  budget: number;
}

/**
 * Tail risk accepted per tick that the humans answering outnumber the agents
 * sure to be there by more than the budget. A call in flight is checked again
 * every second of its ring, so the risks of one pipeline add up. Replayed
 * two-hour runs (bench/pacing-replay.ts, seeds 1–288) that passed the limit
 * for a while after 100 people had answered — PRODUCT.md §13's zero
 * tolerance — at a 3 % / 1 % limit: 3 / 9 at 0.3 % a tick, 0 / 0 at 0.03 %,
 * for 0.6 / 1.1 points of talk share (docs/campaigns.md, "Measured pacing").
 */
export const TAIL = 0.0003;
/** Busy agents count in the tail check only as many as are free within the look-ahead with this probability (the release count's lower quantile). */
const SURE = 0.99;
/**
 * The abandon share aimed at, of the limit. The rest is the margin for what
 * the estimate misses (a person answering seconds before the agent expected
 * is free) and, above all, keeps the window's budget from running out: each
 * time it does the campaign dials as progressive, which costs more talk time
 * than the margin (docs/campaigns.md, "Measured pacing": aiming at 75 % of
 * the limit the fallback took 12 % of the ticks, at 40 % under 1 %).
 */
const TARGET_SHARE = 0.4;
/** Weight, in dials, of humanRate as the prior of the answer-by-age estimate (few calls ring long). */
const AGE_PRIOR = 5;
/** The seconds from a dial to a person answering, assumed before any person answered. */
const PRIOR_ANSWER_SECS = 10;

/**
 * Abandons the window can take before its rate would pass the limit, even if
 * every one of them were a person who answered (each adds to both counts):
 * the largest x with (A + x) / (H + x) ≤ r, i.e. x ≤ (rH − A) / (1 − r).
 */
export function abandonBudget(humanAnswered: number, abandoned: number, maxAbandonRate: number): number {
  const r = maxAbandonRate / 100;
  if (r >= 1) return Number.POSITIVE_INFINITY;
  return Math.floor((r * humanAnswered - abandoned) / (1 - r) + 1e-9);
}

/** P(Binomial(n, p) > k). */
export function binomialTailAbove(n: number, p: number, k: number): number {
  if (k < 0) return 1;
  if (k >= n) return 0;
  if (p <= 0) return 0;
  if (p >= 1) return 1;
  // Sum P(X ≤ k) with the recurrence P(i+1) = P(i) · (n−i)/(i+1) · p/(1−p), in logs for the first term.
  let term = Math.exp(n * Math.log1p(-p));
  let cdf = term;
  for (let i = 0; i < k; i++) {
    term *= ((n - i) / (i + 1)) * (p / (1 - p));
    cdf += term;
  }
  return Math.max(0, 1 - cdf);
}

function progressive(i: PacingInput): number {
  // Each call reserves an agent: free plus already reserved agents, times the ratio, less the calls that hold reservations.
  return Math.floor((i.freeAgents + i.reservedAgents) * i.dialRatio + 1e-9) - (i.lines - i.pendingPredictive);
}

/**
 * The chance that a call still ringing after `age` seconds is answered by a
 * person: of the recent dials still unresolved at that age, the share a
 * person answered later (with humanRate as a prior worth AGE_PRIOR dials).
 * A call that has rung for long is mostly one nobody will answer: counting
 * it at the overall rate, as the first version did, saw people coming who
 * were not, and held dials back.
 */
export function humanChanceAtAge(age: number, outcomes: PacingOutlook['outcomes'], humanRate: number): number {
  let later = 0;
  let humansLater = 0;
  for (const o of outcomes)
    if (o.secs > age) {
      later += o.n;
      if (o.human) humansLater += o.n;
    }
  return (humansLater + humanRate * AGE_PRIOR) / (later + AGE_PRIOR);
}

/**
 * The chance that each busy agent is free within `horizon` seconds. Talk is
 * taken as memoryless (exponential, the Erlang models' assumption: how long a
 * call has lasted says little about when it ends), then the mean wrap-up
 * follows: 1 − e^(−(h − W)/T) when h > W. A wrap-up under way ends after
 * its expected remainder, at least half the mean (an overdue one is not
 * assumed to end at once): 1 − e^(−h/m).
 */
export function releaseChances(o: PacingOutlook, horizon: number): number[] {
  const T = Math.max(1, o.talkSecs);
  const W = Math.max(0, o.wrapSecs);
  const talk = horizon > W ? 1 - Math.exp(-(horizon - W) / T) : 0;
  return [...o.talking.map(() => talk), ...o.wrapping.map((e) => 1 - Math.exp(-horizon / Math.max(1, W - e, W / 2)))];
}

/**
 * The most agents free with probability at least `sure`: the largest k with
 * P(count ≥ k) ≥ sure, for a distribution of counts (index = count).
 */
export function surelyAtLeast(dist: readonly number[], sure: number): number {
  let below = 0;
  for (let k = 0; k < dist.length; k++) {
    // P(count ≥ k + 1) = 1 − P(count ≤ k).
    below += dist[k]!;
    if (1 - below < sure - 1e-12) return k;
  }
  return dist.length - 1;
}

/** Adds one Bernoulli(p) to a distribution of counts (Poisson-binomial, in place order). */
function addBernoulli(dist: number[], p: number): number[] {
  const next = new Array<number>(dist.length + 1).fill(0);
  for (let k = 0; k < dist.length; k++) {
    next[k]! += dist[k]! * (1 - p);
    next[k + 1]! += dist[k]! * p;
  }
  return next;
}

/** E[(H − R − k)+] for independent counts H and R: the people expected to find no agent. */
function expectedSurplus(humans: number[], released: number[], k: number): number {
  let sum = 0;
  for (let r = 0; r < released.length; r++) {
    if (released[r]! === 0) continue;
    let s = 0;
    for (let h = Math.max(0, Math.floor(k + r) + 1); h < humans.length; h++) s += humans[h]! * (h - k - r);
    sum += released[r]! * s;
  }
  return sum;
}

/** Mean seconds from the dial to a person answering, over the recent dials a person answered. */
export function answerHorizon(outcomes: PacingOutlook['outcomes']): number {
  let n = 0;
  let sum = 0;
  for (const o of outcomes)
    if (o.human) {
      n += o.n;
      sum += o.secs * o.n;
    }
  return (sum + PRIOR_ANSWER_SECS * 2) / (n + 2);
}

/**
 * The decision. Progressive: (free + reserved agents) × dialRatio − calls in
 * progress. Predictive (docs/campaigns.md, "How the dialer paces"): with no
 * budget left (the next abandon would pass the limit) it dials as
 * progressive. Otherwise it looks ahead by the time a person takes to
 * answer (h): the agents free then are those free now plus each busy one
 * with its chance of being free within h; the people who will want them are
 * those already waiting plus each call ringing with its chance, at its age,
 * of being answered by a person. It adds calls while the people expected to
 * find no agent (E[(people − agents)+], both counts Poisson-binomial) stay
 * within TARGET_SHARE of the limit, as a share of the people expected; and
 * never so many that — with probability above TAIL (0.03 %) — the people
 * among all calls in flight (each at humanRate) outnumber the agents free
 * now and those sure to be free by then (SURE) by more than the window's
 * abandon budget. Never beyond maxLines, never more than the people expected
 * matching the agents.
 */
export function decideDials(i: PacingInput): PacingDecision {
  const room = Math.max(0, i.maxLines - i.lines);
  if (i.mode === 'preview' || room === 0) return { dials: 0, as: 'none', fallback: false, budget: 0 };
  if (i.mode === 'progressive') return { dials: Math.min(room, Math.max(0, progressive(i))), as: 'progressive', fallback: false, budget: 0 };
  const budget = abandonBudget(i.humanAnswered, i.abandoned, i.maxAbandonRate);
  if (budget < 1) {
    // Progressive calls hold their own agent: the predictive calls still in flight keep theirs (free agents cover them first).
    const free = Math.max(0, i.freeAgents - i.pendingPredictive);
    const dials = Math.min(room, Math.max(0, free));
    return { dials, as: 'progressive', fallback: true, budget: Math.max(0, budget) };
  }
  const p = Math.min(1, Math.max(0.01, i.humanRate));
  const o = i.outlook;
  // Who may need an agent: the people waiting (certain), each call ringing at its own chance.
  const demand: number[] = o
    ? [...new Array<number>(o.waiting).fill(1), ...o.ringing.map((age) => Math.min(1, humanChanceAtAge(age, o.outcomes, p)))]
    : new Array<number>(i.pendingPredictive).fill(p);
  const release = o ? releaseChances(o, answerHorizon(o.outcomes)) : [];
  const expectedAgents = i.freeAgents + release.reduce((a, b) => a + b, 0);
  const expectedPeople = demand.reduce((a, b) => a + b, 0);
  const wanted = Math.max(0, Math.ceil((expectedAgents - expectedPeople) / p - 1e-9));
  let humans = [1];
  for (const d of demand) humans = addBernoulli(humans, d);
  let released = [1];
  for (const q of release) released = addBernoulli(released, q);
  // The tail check counts the free agents, the budget, and the busy agents all but certain to be free by then (mostly those in wrap-up).
  const limit = i.freeAgents + budget + surelyAtLeast(released, SURE);
  // The people expected to find no agent, as a share of the people expected, held to TARGET_SHARE of the limit.
  const target = (i.maxAbandonRate / 100) * TARGET_SHARE;
  let people = expectedPeople;
  let dials = 0;
  while (dials < room && dials < wanted) {
    const next = addBernoulli(humans, p);
    // The tail risk counts every call in flight at the overall rate (not the look-ahead's age-weighted chances) and
    // of the agents coming free only those sure to: the estimates decide how close to run, not how much risk to take.
    if (binomialTailAbove(i.pendingPredictive + dials + 1, p, limit) > TAIL) break;
    if (expectedSurplus(next, released, i.freeAgents) > target * (people + p)) break;
    humans = next;
    people += p;
    dials++;
  }
  return { dials, as: 'predictive', fallback: false, budget };
}
