/**
 * Answer rows of whole local days, kept in memory per node (the analysis
 * module keeps its own the same way): a month of every group by hour is
 * 14,400 rows, 4.7 MB of JSON to read, sum and write, yet 29 of its 30 days
 * have not changed since the last time anyone asked. An entry is kept under
 * its token, the change marks of the UTC days the day overlaps
 * (report_versions, set anew by every roll-up flush on any node in its own
 * transaction): a request reads the marks first and uses an entry only
 * under the current ones.
 *
 * Least recently used entries go first once the byte budget
 * (`REPORT_CACHE_MB`) is spent; an entry larger than the budget is not kept.
 */
export class DayCache<F extends { readonly size: number }> {
  /** Map order is recency order: a hit moves its entry to the end. */
  private readonly entries = new Map<string, { token: string; fragment: F; size: number }>();
  private used = 0;

  constructor(readonly maxBytes: number) {}

  get(key: string, token: string): F | undefined {
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

  set(key: string, token: string, fragment: F): void {
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.used -= old.size;
    }
    const size = fragment.size + key.length * 2 + 256;
    if (size > this.maxBytes) return;
    for (const [k, e] of this.entries) {
      if (this.used + size <= this.maxBytes) break;
      this.entries.delete(k);
      this.used -= e.size;
    }
    this.entries.set(key, { token, fragment, size });
    this.used += size;
  }

  get bytes(): number {
    return this.used;
  }

  get size(): number {
    return this.entries.size;
  }
}
