import { AsyncLocalStorage } from 'node:async_hooks';
import type { Queryable } from './types.js';
import { noteSwallowed, swallowed } from '../swallowed.js';

/**
 * The ambient transaction: one transaction that every statement of the
 * database runs in while it is open in the current async context. The audit
 * recorder opens one around an operation, so the change and its audit record
 * commit together, while services keep calling `db.transaction(...)` and
 * `db.get(...)` as before: inside the ambient transaction those join it (a
 * nested `transaction` becomes a SAVEPOINT, so a service that catches its own
 * failure still rolls back only its part).
 *
 * Side effects that other nodes or other requests would see before the commit
 * (NOTIFY, nudging a worker, invalidating a cache) wait for the commit:
 * `afterCommit(fn)`; they are dropped on rollback.
 */
interface Frame {
  /** The database the transaction belongs to (one process may hold several). */
  owner: object;
  tx: Queryable;
  afterCommit: Array<() => unknown>;
  savepoints: number;
  closed: boolean;
}

const als = new AsyncLocalStorage<Frame>();

/** The open ambient transaction of `owner` in this async context, if any. */
export function ambientOf(owner: object): Queryable | undefined {
  const f = als.getStore();
  return f && f.owner === owner && !f.closed ? f.tx : undefined;
}

/** True while any ambient transaction is open in this async context. */
export function inAmbient(): boolean {
  const f = als.getStore();
  return f !== undefined && !f.closed;
}

/** Runs `fn` after the ambient transaction commits (dropped on rollback); at once when none is open. */
export function afterCommit(fn: () => unknown): void {
  const f = als.getStore();
  if (f && !f.closed) f.afterCommit.push(fn);
  else void fn();
}

/**
 * Opens the ambient transaction with `begin` (the backend's own transaction)
 * and runs `fn` inside it. Deferred work runs after the commit, outside the
 * async context (so it cannot join a finished transaction).
 */
export async function runAmbient<T>(owner: object, begin: (body: (tx: Queryable) => Promise<T>) => Promise<T>, fn: () => Promise<T>): Promise<T> {
  if (ambientOf(owner)) return fn();
  let frame: Frame | undefined;
  try {
    const result = await begin((tx) => {
      frame = { owner, tx, afterCommit: [], savepoints: 0, closed: false };
      return als.run(frame, fn);
    });
    const later = frame?.afterCommit ?? [];
    if (frame) frame.closed = true;
    als.exit(() => {
      for (const f of later) {
        // A deferred side effect must not turn a committed change into an error: its failure is logged and counted.
        try {
          void Promise.resolve(f()).catch(swallowed('ambient.after_commit'));
        } catch (err) {
          noteSwallowed('ambient.after_commit', err);
        }
      }
    });
    return result;
  } finally {
    if (frame) frame.closed = true;
  }
}

/** A `transaction(fn)` inside the ambient one: a SAVEPOINT, released on success, rolled back to on failure. */
export async function joinAmbient<T>(owner: object, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  const f = als.getStore()!;
  if (f.owner !== owner || f.closed) throw new Error('no ambient transaction of this database');
  const name = `sp_${++f.savepoints}`;
  await f.tx.run(`SAVEPOINT ${name}`);
  try {
    const result = await fn(f.tx);
    await f.tx.run(`RELEASE SAVEPOINT ${name}`);
    return result;
  } catch (err) {
    await f.tx.run(`ROLLBACK TO SAVEPOINT ${name}`).catch(swallowed('ambient.savepoint'));
    await f.tx.run(`RELEASE SAVEPOINT ${name}`).catch(swallowed('ambient.savepoint'));
    throw err;
  }
}
