import { randomUUID } from 'node:crypto';
import { holding, lockConnection, notHeldHere } from '../../db/locks.js';
import type { Queryable } from '../../db/types.js';
import { swallowed } from '../../swallowed.js';

/** How long an agent lock may be held before it is considered abandoned (a crashed process). */
export const AGENT_LOCK_MS = 30_000;

/** The lock that serialises changes to one agent (1501 for the later request). Agent ids are unique across the service. */
export function agentLockKey(agentId: number): string {
  return `agent:${agentId}`;
}

/**
 * Runs `fn` holding the locks of every listed agent, or returns null at once
 * when any of them is held elsewhere. Same lock table and keys as
 * db/locks.ts (tryLock/withLocks), so both kinds exclude each other across
 * nodes; the difference is that all keys are taken in ONE statement (and
 * released in one), because a 500-agent bulk request taking its locks one
 * round trip at a time spent seconds on PostgreSQL. All or nothing: when the
 * statement took fewer keys than asked, the ones it took are released.
 */
export async function withAgentLocks<T>(db: Queryable, agentIds: number[], fn: () => Promise<T>, ttlMs = AGENT_LOCK_MS): Promise<{ value: T } | null> {
  // Sorted, so concurrent multi-key statements meet the keys in one order (no deadlock on PostgreSQL).
  const keys = notHeldHere([...new Set(agentIds)].map(agentLockKey).sort());
  db = lockConnection(db);
  if (keys.length === 0) return { value: await fn() };
  const owner = randomUUID();
  const now = Date.now();
  const rows = keys.map((_, i) => `($${i + 4}, $1, $2)`).join(', ');
  const taken = await db.run(
    `INSERT INTO locks (lock_key, owner, expires_at) VALUES ${rows}
     ON CONFLICT (lock_key) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
     WHERE locks.expires_at < $3`,
    [owner, now + ttlMs, now, ...keys],
  );
  const release = () => {
    const list = keys.map((_, i) => `$${i + 2}`).join(', ');
    return db.run(`DELETE FROM locks WHERE owner = $1 AND lock_key IN (${list})`, [owner, ...keys]).then(() => undefined, swallowed('lock.release'));
  };
  if (taken.changes !== keys.length) {
    await release();
    return null;
  }
  try {
    return { value: await holding(keys, fn) };
  } finally {
    await release();
  }
}
