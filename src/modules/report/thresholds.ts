/**
 * The service-level and short-abandon thresholds (whole seconds) whose
 * counts the queue roll-up keeps per group and quarter hour (migration 080:
 * columns `sl_<T>` = answered with wait ≤ T, `sa_<S>` / `saw_<S>` = abandons
 * with wait < S and their wait sum). A report asking for another threshold
 * reads those few figures from the finished calls of the range instead
 * (exact, slower); docs/reports.md says so.
 */
export const STORED_SL = [5, 10, 15, 20, 25, 30, 40, 45, 60, 90, 120, 180, 240, 300] as const;
export const STORED_SA = [1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 60] as const;

export const isStoredSl = (t: number) => (STORED_SL as readonly number[]).includes(t);
export const isStoredSa = (s: number) => (STORED_SA as readonly number[]).includes(s);
