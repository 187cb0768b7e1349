import { expect, it, vi } from 'vitest';
import { afterCommit } from '../../src/db/ambient.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';

let markers = 0;

/**
 * Resolves once every notification sent before it has reached `got`: on
 * PostgreSQL a marker NOTIFY from a second connection, outside any
 * transaction (PostgreSQL delivers in commit order, so what was committed
 * earlier arrives first); on SQLite the feed delivers in a microtask, so a
 * turn of the event loop is enough. A condition, not a guessed delay.
 */
async function delivered(h: Harness, got: string[]): Promise<void> {
  if (h.dialect === 'sqlite') return new Promise((r) => setImmediate(r));
  const marker = `marker-${++markers}`;
  const other = h.testDb.connect();
  try {
    await other.notify('ambient_probe', marker);
    await vi.waitFor(() => expect(got).toContain(marker), { timeout: 10_000, interval: 5 });
  } finally {
    await other.close();
  }
  got.splice(got.indexOf(marker), 1);
}

forEachDatabase('the ambient transaction (db/ambient.ts)', (use) => {
  it('joins every statement and nested transaction; a failure rolls all of it back, a caught inner failure only its savepoint', async () => {
    const h = use();
    await h.db.exec('CREATE TABLE ambient_probe (k TEXT PRIMARY KEY)');
    await h.db.ambient(async () => {
      await h.db.run("INSERT INTO ambient_probe (k) VALUES ('a')");
      await h.db.transaction(async (tx) => tx.run("INSERT INTO ambient_probe (k) VALUES ('b')"));
      // A service that catches its own failure: only its savepoint is undone.
      await h.db
        .transaction(async (tx) => {
          await tx.run("INSERT INTO ambient_probe (k) VALUES ('c')");
          throw new Error('inner');
        })
        .catch(() => undefined);
      // Reads inside see the writes not yet committed.
      expect((await h.db.all<{ k: string }>('SELECT k FROM ambient_probe ORDER BY k')).map((r) => r.k)).toEqual(['a', 'b']);
    });
    await expect(
      h.db.ambient(async () => {
        await h.db.run("INSERT INTO ambient_probe (k) VALUES ('d')");
        throw new Error('outer');
      }),
    ).rejects.toThrow('outer');
    expect((await h.db.all<{ k: string }>('SELECT k FROM ambient_probe ORDER BY k')).map((r) => r.k)).toEqual(['a', 'b']);
  });

  it('NOTIFY and afterCommit wait for the commit, and are dropped on rollback', async () => {
    const h = use();
    const got: string[] = [];
    const unlisten = await h.db.listen('ambient_probe', (p) => got.push(p));
    try {
      let seenInside: string[] = [];
      const later: string[] = [];
      await h.db.ambient(async () => {
        await h.db.notify('ambient_probe', 'committed');
        afterCommit(() => later.push('committed'));
        await delivered(h, got);
        seenInside = [...got];
      });
      expect(seenInside).toEqual([]);
      await expect(
        h.db.ambient(async () => {
          await h.db.notify('ambient_probe', 'rolled-back');
          afterCommit(() => later.push('rolled-back'));
          throw new Error('no');
        }),
      ).rejects.toThrow('no');
      await delivered(h, got);
      expect(got).toEqual(['committed']);
      expect(later).toEqual(['committed']);
    } finally {
      unlisten();
    }
  });
});
