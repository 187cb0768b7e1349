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
 * `runRows` and `runRecords` (SQLite's transaction executor: one synchronous loop) and the plain
 * path (a `run` per row) write the same rows and fail the same way; bulkWrite on SQLite goes
 * through `runRecords`.
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
        // runRecords: each record's values of the names, in the names' order, undefined as NULL; the
        // same rows through SQLite's loop (one parameter array refilled per record) and a run per record.
        await t.db.exec(`CREATE TABLE run_records (account_id integer NOT NULL, a text, b integer, c ${dialect === 'postgres' ? 'boolean' : 'integer'})`);
        const records: Array<Record<string, Param>> = [
          { c: true, b: 1, a: 'x' },
          { a: undefined, b: 2, c: false },
          { b: 3, a: 'z' },
        ];
        for (const [account, through] of [
          [5, (tx: Queryable) => tx],
          [6, plain],
        ] as const) {
          await t.db.transaction((tx) =>
            tenant(through(tx), account).runRecords('INSERT INTO run_records (account_id, a, b, c) VALUES ($1, $2, $3, $4)', ['a', 'b', 'c'], records),
          );
        }
        const recordRows = async (account: number) =>
          (
            await t.db.all<{ a: string | null; b: number; c: number | boolean | null }>('SELECT a, b, c FROM run_records WHERE account_id = $1 ORDER BY b', [
              account,
            ])
          ).map((r) => [r.a, Number(r.b), r.c === null ? null : Number(r.c)]);
        expect(await recordRows(5)).toEqual([
          ['x', 1, 1],
          [null, 2, 0],
          ['z', 3, null],
        ]);
        expect(await recordRows(6)).toEqual(await recordRows(5));
        if (dialect === 'sqlite') {
          await t.db.transaction(async (tx) => {
            expect(typeof tx.runRecords).toBe('function');
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
