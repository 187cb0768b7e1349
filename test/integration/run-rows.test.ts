import { describe, expect, it } from 'vitest';
import { bulkWrite, type BulkColumn } from '../../src/db/bulk.js';
import { migrate } from '../../src/db/migrate.js';
import { tenant } from '../../src/db/tenant.js';
import type { Param, Queryable } from '../../src/db/types.js';
import { freshDatabase, testDialects, withoutRunRows as plain } from '../helpers/databases.js';

const COLUMNS: BulkColumn[] = [
  { name: 'event_id', pg: 'text' },
  { name: 'seq', pg: 'bigint' },
];

/**
 * `runRows` (SQLite's transaction executor: one synchronous loop) and the plain path (a `run` per
 * row) write the same rows and fail the same way; bulkWrite on SQLite goes through it.
 */
for (const dialect of testDialects()) {
  describe(`runRows against a run per row [${dialect}]`, () => {
    it('same rows written, same conflicts, same failure', async () => {
      const t = await freshDatabase(dialect);
      try {
        await migrate(t.db);
        const write = async (account: number, through: (tx: Queryable) => Queryable) => {
          await t.db.transaction(async (tx) => {
            const q = tenant(through(tx), account);
            await bulkWrite(
              q,
              'event_ids',
              COLUMNS,
              ['event_id'],
              [1, 2, 3].map((i) => ({ event_id: `e${i}`, seq: i })),
              'nothing',
            );
            // A conflict skipped and a new row; then an update run per row, twice on one row.
            await bulkWrite(
              q,
              'event_ids',
              COLUMNS,
              ['event_id'],
              [
                { event_id: 'e2', seq: 99 },
                { event_id: 'e4', seq: 4 },
              ],
              'nothing',
            );
            await q.runRows('UPDATE event_ids SET seq = seq + $3 WHERE account_id = $1 AND event_id = $2', [
              ['e1', 10],
              ['e4', 40],
              ['e1', 100],
            ]);
          });
        };
        await write(1, (tx) => tx);
        await write(2, plain);
        const rows = (account: number) =>
          t.db.all<{ event_id: string; seq: number }>('SELECT event_id, seq FROM event_ids WHERE account_id = $1 ORDER BY event_id', [account]);
        const fast = (await rows(1)).map((r) => [r.event_id, Number(r.seq)]);
        expect(fast).toEqual([
          ['e1', 111],
          ['e2', 2],
          ['e3', 3],
          ['e4', 44],
        ]);
        expect((await rows(2)).map((r) => [r.event_id, Number(r.seq)])).toEqual(fast);

        // A row that breaks a constraint: the error reaches the caller and the transaction rolls back, either way.
        for (const [account, through] of [
          [3, (tx: Queryable) => tx],
          [4, plain],
        ] as const) {
          const failing = t.db.transaction(async (tx) => {
            await tenant(through(tx), account).runRows('INSERT INTO event_ids (account_id, event_id, seq) VALUES ($1, $2, $3)', [
              ['x1', 1],
              ['x2', null as Param],
            ]);
          });
          await expect(failing).rejects.toThrow(/null|NOT NULL/i);
          expect(await rows(account)).toEqual([]);
        }
        if (dialect === 'sqlite') {
          await t.db.transaction(async (tx) => {
            expect(typeof tx.runRows).toBe('function');
            await expect(tenant(tx, 1).runRows('SELECT event_id FROM event_ids WHERE account_id = $1 AND seq > $2', [[0]])).rejects.toThrow(/answers rows/);
          });
        }
      } finally {
        await t.db.close();
        await t.drop();
      }
    });
  });
}
