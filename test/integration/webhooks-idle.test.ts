import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Database } from '../../src/db/types.js';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { deliverDue, startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { createHook, deliveries, endCall } from './webhooks.fixtures.js';

/**
 * The delivery worker's idle poll only reads: with nothing in the outbox and
 * nothing due it must not open a write transaction (on SQLite a write waits,
 * synchronously, for any other connection's open transaction: the busy-wait
 * behind the day-cache tests' workaround; on every node it costs CPU).
 *
 * Observed through the databases' own locks, not a counter in our code:
 * another connection holds the write side of the queue's tables while the
 * worker polls. SQLite: its BEGIN IMMEDIATE holds the database's one write
 * lock, so a write by the worker would wait out the busy timeout and fail
 * (SQLITE_BUSY → the round rejects). PostgreSQL: LOCK … IN EXCLUSIVE MODE
 * lets plain SELECTs through but not UPDATE / INSERT / SELECT … FOR UPDATE,
 * and a worker waiting for it shows up in pg_locks as a lock not granted.
 */

let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
});
afterAll(async () => rx.close());

const QUEUE_TABLES = ['webhook_outbox', 'webhook_deliveries', 'webhook_attempts'];

/** PostgreSQL: resolves when some session waits for a lock on the queue's tables (polls pg_locks). */
async function someoneWaits(watch: Database, settled: () => boolean): Promise<void> {
  const rels = QUEUE_TABLES.map((t) => `CAST('${t}' AS regclass)`).join(', ');
  while (!settled()) {
    const row = await watch.get<{ n: number }>(`SELECT COUNT(*) AS n FROM pg_locks WHERE NOT granted AND relation IN (${rels})`);
    if (Number(row?.n) > 0) return;
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Runs `fn` while another connection holds the write side of the queue; rejects if `fn` had to wait for it. */
async function whileLocked<T>(h: Harness, fn: () => Promise<T>): Promise<T> {
  const other = h.testDb.connect();
  const watch = h.testDb.connect();
  let pending: Promise<T> | undefined;
  try {
    return await other.transaction(async (tx) => {
      if (h.dialect === 'postgres') await tx.run(`LOCK TABLE ${QUEUE_TABLES.join(', ')} IN EXCLUSIVE MODE`);
      let settled = false;
      pending = fn().finally(() => (settled = true));
      if (h.dialect === 'sqlite') return await pending;
      const waited = someoneWaits(watch, () => settled).then(() => {
        if (!settled) throw new Error('the worker waited for a write lock on the queue');
      });
      const [result] = await Promise.all([pending, waited]);
      return result;
    });
  } finally {
    // The lock is released (rolled back or committed): a worker that waited finishes now.
    await pending?.catch(() => undefined);
    await other.close();
    await watch.close();
  }
}

forEachDatabase(
  'webhook delivery worker: the idle poll writes nothing',
  (use) => {
    it('polls an empty queue and a queue with nothing due without waiting for a writer, and still sends what becomes due', async () => {
      const h = use();
      const worker = h.services.webhookWorker;
      // Empty: no subscription, no outbox row, no delivery.
      expect(await whileLocked(h, () => worker.runDue())).toBe(0);

      // One delivery waiting for its retry (a 500 first): pending, but not due for ~5 s.
      const t = await createTenant(h);
      await createHook(h, t, { url: rx.url });
      rx.script = [{ status: 500, body: 'later' }];
      await endCall(h, t, 'idle-1');
      await deliverDue(h);
      expect((await deliveries(h, t))[0]).toMatchObject({ status: 'pending', attempts: [{ httpStatus: 500 }] });
      expect(await whileLocked(h, () => worker.runDue())).toBe(0);

      // Once due, the round writes as before.
      h.clock.advance(7000);
      await deliverDue(h);
      expect((await deliveries(h, t))[0]).toMatchObject({ status: 'delivered', attempts: [{ httpStatus: 500 }, { httpStatus: 200 }] });
    });
  },
  { config: { webhookAllowPrivate: true } },
);
