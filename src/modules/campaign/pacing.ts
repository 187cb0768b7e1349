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

/** Tail risk accepted per tick that the humans answering outnumber free agents by more than the budget. */
const TAIL = 0.01;

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
 * The decision. Progressive: (free + reserved agents) × dialRatio − calls in
 * progress. Predictive: enough calls in flight that the people expected to
 * answer match the free agents (n · humanRate ≈ free), but never so many that
 * — with probability above 1 % — more people answer than free agents plus the
 * window's abandon budget; with no budget left (the next abandon would pass
 * the limit) it dials as progressive. Never beyond maxLines.
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
  const wanted = Math.max(0, Math.ceil(i.freeAgents / p - 1e-9));
  // The most calls in flight whose surplus of people over free agents stays within the budget but for the tail risk.
  let safe = i.pendingPredictive;
  const cap = i.pendingPredictive + room;
  while (safe < cap && safe < wanted && binomialTailAbove(safe + 1, p, i.freeAgents + budget) <= TAIL) safe++;
  const dials = Math.min(room, Math.max(0, Math.min(wanted, safe) - i.pendingPredictive));
  return { dials, as: 'predictive', fallback: false, budget };
}
