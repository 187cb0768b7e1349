import type { BucketFragment } from '../wire/hits-json.js';

/**
 * Answers of whole days, kept in memory per node: a month of hours by agent
 * is 144,000 buckets (25 MB) to read, sum and write, yet 29 of its 30 days
 * have not changed since the last time anyone asked (today is kept too, and
 * replaced whenever ingest changes it). An entry is a
 * day's written buckets (hits-json.ts, BucketFragment) under the day's
 * token: the change marks of the UTC days it covers (analysis_versions,
 * set anew by every roll-up flush in the flush's own transaction, on any
 * node). A request reads the tokens first, then uses an
 * entry only when its token is the current one, so an acknowledged ingest
 * or late event is in the next answer on every node.
 *
 * Least recently used entries go first once the byte budget is spent
 * (`ANALYSIS_CACHE_MB`); a day larger than the whole budget is not kept.
 */
export class DayCache {
  /** Map order is recency order: a hit moves its entry to the end. */
  private readonly entries = new Map<string, { token: string; fragment: BucketFragment; size: number }>();
  private used = 0;

  constructor(readonly maxBytes: number) {}

  get(key: string, token: string): BucketFragment | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key);
    if (e.token !== token) {
      this.used -= e.size;
      return undefined;
    }
    this.entries.set(key, e);
    return e.fragment;
  }

  set(key: string, token: string, fragment: BucketFragment): void {
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.used -= old.size;
    }
    // The bytes, about 128 bytes per key of the span table, and the entry itself with its key.
    const size = fragment.bytes.length + fragment.keys.size * 128 + key.length * 2 + 256;
    if (size > this.maxBytes) return;
    for (const [k, e] of this.entries) {
      if (this.used + size <= this.maxBytes) break;
      this.entries.delete(k);
      this.used -= e.size;
    }
    this.entries.set(key, { token, fragment, size });
    this.used += size;
  }

  /** Bytes held, as counted against the budget. */
  get bytes(): number {
    return this.used;
  }

  get size(): number {
    return this.entries.size;
  }
}
