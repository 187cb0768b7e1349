/**
 * When a failed attempt is tried again (PRODUCT.md §9): after about 5 s,
 * 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h (± 20 % jitter), then the
 * delivery fails. A `Retry-After` of a 429 is used as given, up to 1 h.
 */
export const RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 28_800_000] as const;
export const MAX_RETRY_AFTER_MS = 3_600_000;
export const JITTER = 0.2;

/** What an attempt's outcome means for the delivery. */
export type Verdict = { kind: 'delivered' } | { kind: 'retry'; retryAfterMs?: number } | { kind: 'fail' } | { kind: 'disable' };

/** Classifies an answer (null: network error or timeout). */
export function verdictOf(httpStatus: number | null, retryAfter: string | null, nowMs: number): Verdict {
  if (httpStatus === null) return { kind: 'retry' };
  if (httpStatus >= 200 && httpStatus < 300) return { kind: 'delivered' };
  if (httpStatus === 410) return { kind: 'disable' };
  if (httpStatus === 429) {
    const ms = retryAfterMs(retryAfter, nowMs);
    return ms === null ? { kind: 'retry' } : { kind: 'retry', retryAfterMs: ms };
  }
  if (httpStatus === 408 || httpStatus >= 500) return { kind: 'retry' };
  return { kind: 'fail' };
}

/** `Retry-After` as delay-seconds or an HTTP date, capped at 1 h; null when absent or unreadable. */
export function retryAfterMs(header: string | null, nowMs: number): number | null {
  if (header === null) return null;
  const v = header.trim();
  let ms: number;
  if (/^\d+$/.test(v)) ms = Number(v) * 1000;
  else {
    const at = Date.parse(v);
    if (Number.isNaN(at)) return null;
    ms = Math.max(0, at - nowMs);
  }
  return Math.min(ms, MAX_RETRY_AFTER_MS);
}

/**
 * The next attempt's time after `attempts` attempts were made (1 after the
 * first), or null when the schedule is used up. `random` in [0, 1).
 */
export function nextAttemptAt(attempts: number, nowMs: number, verdict: Verdict, random: number): number | null {
  if (verdict.kind !== 'retry' || attempts > RETRY_DELAYS_MS.length) return null;
  if (verdict.retryAfterMs !== undefined) return nowMs + verdict.retryAfterMs;
  const base = RETRY_DELAYS_MS[attempts - 1]!;
  return nowMs + Math.round(base * (1 - JITTER + 2 * JITTER * random));
}
