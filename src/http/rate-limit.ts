import { AppError } from '../errors/catalogue.js';

/**
 * Per-credential fixed one-minute windows (per IP for requests without
 * credentials), kept in memory on each node. Over the limit: HTTP 429 with
 * the error envelope. A limit of 0 disables it.
 */
export class RateLimiter {
  private windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  check(key: string): void {
    if (this.perMinute === 0) return;
    const now = this.now();
    let w = this.windows.get(key);
    if (!w || now - w.start >= 60_000) {
      if (this.windows.size > 100_000) this.prune(now);
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    if (++w.count > this.perMinute) {
      throw new AppError(429, `Too many requests: at most ${this.perMinute} a minute per credential`, 429);
    }
  }

  private prune(now: number): void {
    for (const [key, w] of this.windows) if (now - w.start >= 60_000) this.windows.delete(key);
    if (this.windows.size > 100_000) this.windows.clear();
  }
}
