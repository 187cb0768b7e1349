/**
 * A short-lived cache of computed live views (Agent/live, queue/count). An
 * entry is served only while the account's event sequence is unchanged (read
 * from the database for every request — one read shared by the requests of a
 * moment, CoalescedRead — so an applied event, on any node, is visible to the
 * next request) and within the same clock second (the views
 * show whole-second durations). Callers may fold more into `seq` (Agent/live
 * adds the agent and group-mapping counts and the default group, so a new,
 * deleted or re-mapped agent shows at once); changes of agents and roles drop
 * the account's entries through AuthService.onAccountChange (on every node).
 *
 * A computed view is frozen, deeply, before any request gets it: one object
 * is answered to every request of its second (and its JSON encoded once for
 * all of them, http/send-answer.ts), so no one may change it.
 */
export class ViewCache<T> {
  private readonly entries = new Map<string, { seq: number | string; second: number; value: T }>();
  private readonly inflight = new Map<string, Promise<T>>();
  /** Bumped by every drop. */
  private generation = 0;

  constructor(private readonly max = 2000) {}

  get(key: string, seq: number | string, second: number): T | undefined {
    const e = this.entries.get(key);
    return e && e.seq === seq && e.second === second ? e.value : undefined;
  }

  /**
   * The cached value, or `compute()`'s — computed once however many requests
   * ask at the same time: at each new second every waiting request would
   * otherwise miss together and compute the same view side by side.
   */
  async getOrCompute(key: string, seq: number | string, second: number, compute: () => Promise<T>): Promise<T> {
    const hit = this.get(key, seq, second);
    if (hit) return hit;
    const id = `${key}\u0000${seq}\u0000${second}`;
    let pending = this.inflight.get(id);
    if (!pending) {
      // A drop while computing (an agent changed) must not let the older answer into the cache.
      const generation = this.generation;
      pending = compute().then(
        (value) => {
          deepFreeze(value);
          this.inflight.delete(id);
          if (generation === this.generation) this.set(key, seq, second, value);
          return value;
        },
        (err: unknown) => {
          this.inflight.delete(id);
          throw err;
        },
      );
      this.inflight.set(id, pending);
    }
    return pending;
  }

  /** Forgets every entry whose key starts with `prefix` (an account's views, keyed `<accountId>|…`). */
  dropPrefix(prefix: string): void {
    this.generation++;
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
    for (const id of this.inflight.keys()) if (id.startsWith(prefix)) this.inflight.delete(id);
  }

  set(key: string, seq: number | string, second: number, value: T): void {
    if (this.entries.size >= this.max) this.entries.clear();
    this.entries.set(key, { seq, second, value });
  }
}

/** Freezes plain objects and arrays all the way down (a view's rows and counters). */
function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return;
  if (!Array.isArray(value) && Object.getPrototypeOf(value) !== Object.prototype) return;
  Object.freeze(value);
  for (const v of Object.values(value)) deepFreeze(v);
}
