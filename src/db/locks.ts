import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { Queryable } from './types.js';
import { swallowed } from '../swallowed.js';

/**
 * Keys the current request already holds. An operation may take its locks
 * before its audited transaction opens (`Operation.around`), so that on
 * SQLite, where that transaction holds the one connection, a request that
 * finds them held answers 1501 at once instead of queueing behind the other;
 * the service's own lock calls inside then find the keys held by this very
 * request and go on.
 */
const heldHere = new AsyncLocalStorage<ReadonlySet<string>>();

/** The keys of `keys` this request does not hold yet. */
export function notHeldHere(keys: string[]): string[] {
  const held = heldHere.getStore();
  return held ? keys.filter((k) => !held.has(k)) : keys;
}

/** Runs `fn` with `keys` counted as held by this request. */
export function holding<T>(keys: string[], fn: () => Promise<T>): Promise<T> {
  if (keys.length === 0) return fn();
  return heldHere.run(new Set([...(heldHere.getStore() ?? []), ...keys]), fn);
}

/**
 * Short-lived named locks held in the database, so they hold across every
 * node that shares it. A lock left by a crashed process expires after `ttlMs`.
 * Used for "data already in processing" (1501): the later request does not
 * wait, it is told to retry.
 */
/**
 * The connection a lock statement runs on: never inside the ambient
 * transaction on PostgreSQL (db/ambient.ts), so other nodes see the lock at
 * once and a request that finds it held answers 1501 instead of waiting.
 */
export function lockConnection(db: Queryable): Queryable {
  const d = db as Queryable & { independent?: () => Queryable };
  return typeof d.independent === 'function' ? d.independent() : db;
}

export async function tryLock(db: Queryable, key: string, ttlMs: number, now = Date.now()): Promise<string | null> {
  db = lockConnection(db);
  const owner = randomUUID();
  // Take a free or expired lock in one statement; a held one is left alone.
  const res = await db.run(
    `INSERT INTO locks (lock_key, owner, expires_at) VALUES ($1, $2, $3)
     ON CONFLICT (lock_key) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
     WHERE locks.expires_at < $4`,
    [key, owner, now + ttlMs, now],
  );
  return res.changes === 1 ? owner : null;
}

/** Extends a held lock (a long job renews its lease as it goes); false when it is no longer ours (expired and taken). */
export async function renewLock(db: Queryable, key: string, owner: string, ttlMs: number, now = Date.now()): Promise<boolean> {
  const res = await db.run('UPDATE locks SET expires_at = $3 WHERE lock_key = $1 AND owner = $2', [key, owner, now + ttlMs]);
  return res.changes === 1;
}

export async function unlock(db: Queryable, key: string, owner: string): Promise<void> {
  await lockConnection(db).run('DELETE FROM locks WHERE lock_key = $1 AND owner = $2', [key, owner]);
}

/** Runs `fn` holding every key, or returns null at once when any is held elsewhere. */
export async function withLocks<T>(db: Queryable, keys: string[], ttlMs: number, fn: () => Promise<T>): Promise<{ value: T } | null> {
  const held: Array<[string, string]> = [];
  try {
    for (const key of notHeldHere([...new Set(keys)].sort())) {
      const owner = await tryLock(db, key, ttlMs);
      if (!owner) return null;
      held.push([key, owner]);
    }
    return {
      value: await holding(
        held.map(([k]) => k),
        fn,
      ),
    };
  } finally {
    for (const [key, owner] of held) await unlock(db, key, owner).catch(swallowed('lock.release'));
  }
}
