import { inAmbient } from './ambient.js';
import { tenant, type TenantQueries } from './tenant.js';
import type { Queryable } from './types.js';

interface Waiter<V> {
  resolve(v: V | undefined): void;
  reject(err: unknown): void;
}

/**
 * One-key reads of a hot lookup (getDnc, getInfo) asked in the same turn of
 * the event loop, read from PostgreSQL by one statement per account (the
 * repository's `inList`: one index probe per key) instead of one round trip
 * each. Every read starts after its caller asked, in the turn's check phase,
 * so it sees every write committed before its request arrived, exactly as a
 * read of its own would (the rule CoalescedRead keeps for one shared value).
 *
 * Why only PostgreSQL: each statement there costs the server ~30 µs of
 * driver work and a round trip to another process, and under load the
 * requests of one turn then share one. SQLite answers a point read in a few
 * microseconds in this process, where waiting for the check phase would
 * only add latency. Reads inside a transaction (the ambient one, db/ambient.ts)
 * run on their own, on the transaction's connection.
 */
export class BatchedPointRead<V> {
  private pending = new Map<number, Map<string, Array<Waiter<V>>>>();
  private scheduled = false;

  constructor(
    private readonly db: Queryable,
    /** The rows of `keys` that exist, by key; one statement. */
    private readonly readMany: (t: TenantQueries, keys: string[]) => Promise<Map<string, V>>,
    /** One key's row (a batch of one, SQLite, a transaction). */
    private readonly readOne: (t: TenantQueries, key: string) => Promise<V | undefined>,
  ) {}

  read(accountId: number, key: string): Promise<V | undefined> {
    if (this.db.dialect !== 'postgres' || inAmbient()) return this.readOne(tenant(this.db, accountId), key);
    let byKey = this.pending.get(accountId);
    if (!byKey) this.pending.set(accountId, (byKey = new Map()));
    let waiters = byKey.get(key);
    if (!waiters) byKey.set(key, (waiters = []));
    const promise = new Promise<V | undefined>((resolve, reject) => waiters.push({ resolve, reject }));
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    return promise;
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = new Map();
    this.scheduled = false;
    for (const [accountId, byKey] of batch) void this.readBatch(accountId, byKey);
  }

  private async readBatch(accountId: number, byKey: Map<string, Array<Waiter<V>>>): Promise<void> {
    const t = tenant(this.db, accountId);
    try {
      if (byKey.size === 1) {
        const [key, waiters] = byKey.entries().next().value!;
        const v = await this.readOne(t, key);
        for (const w of waiters) w.resolve(v);
        return;
      }
      const found = await this.readMany(t, [...byKey.keys()]);
      for (const [key, waiters] of byKey) for (const w of waiters) w.resolve(found.get(key));
    } catch (err) {
      for (const waiters of byKey.values()) for (const w of waiters) w.reject(err);
    }
  }
}
