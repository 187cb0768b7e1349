/** What a node keeps in one of its caches, for GET /metrics: bytes held and the budget. */
export interface CacheUse {
  bytes: number;
  maxBytes: number;
}

/**
 * Values kept in memory per node under a token (the change marks of what
 * they were computed from): `get` answers a value only under the token it
 * was kept with, so a caller that reads the current marks first never sees
 * a stale one. Least recently used entries go first once the byte budget
 * is spent; a value larger than the whole budget is not kept. `sizeOf`
 * estimates a value's bytes (the key and the entry itself are added).
 */
export class TokenedCache<V> {
  /** Map order is recency order: a hit moves its entry to the end. */
  private readonly entries = new Map<string, { token: string; value: V; size: number }>();
  private used = 0;

  constructor(
    readonly maxBytes: number,
    private readonly sizeOf: (value: V) => number,
  ) {}

  get(key: string, token: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key);
    if (e.token !== token) {
      this.used -= e.size;
      return undefined;
    }
    this.entries.set(key, e);
    return e.value;
  }

  set(key: string, token: string, value: V): void {
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.used -= old.size;
    }
    const size = this.charge(key, value);
    if (size > this.maxBytes) return;
    for (const [k, e] of this.entries) {
      if (this.used + size <= this.maxBytes) break;
      this.entries.delete(k);
      this.used -= e.size;
    }
    this.entries.set(key, { token, value, size });
    this.used += size;
  }

  /** What keeping `value` under `key` counts against the budget. */
  charge(key: string, value: V): number {
    return this.sizeOf(value) + key.length * 2 + 256;
  }

  /** Bytes held, as counted against the budget. */
  get bytes(): number {
    return this.used;
  }

  /** Bytes held and the budget (see CacheUse). */
  use(): CacheUse {
    return { bytes: this.used, maxBytes: this.maxBytes };
  }

  get size(): number {
    return this.entries.size;
  }
}
