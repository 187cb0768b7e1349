import { expect, it } from 'vitest';
import { afterCommit } from '../../src/db/ambient.js';
import { forEachDatabase } from '../helpers/harness.js';

/** Lets NOTIFY (PostgreSQL, a round trip away) or the in-process feed (SQLite) arrive. */
const settle = () => new Promise((r) => setTimeout(r, 300));

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
        await settle();
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
      await settle();
      expect(got).toEqual(['committed']);
      expect(later).toEqual(['committed']);
    } finally {
      unlisten();
    }
  });
});
