import { describe, expect, it } from 'vitest';
import { bulkWrite } from '../../src/db/bulk.js';
import { dialectOf } from '../../src/db/dialect.js';
import { inList } from '../../src/db/in-list.js';
import { migrate } from '../../src/db/migrate.js';
import { tenant } from '../../src/db/tenant.js';
import { freshDatabase, testDialects } from '../helpers/databases.js';

/** Each named capability of db/dialect.ts is valid SQL on its own backend and does what it says. */
for (const dialect of testDialects()) {
  describe(`dialect capabilities [${dialect}]`, () => {
    it('row lock, transaction lock, packed integers, IN lists, bulk write, custom plans, bulk-load hooks', async () => {
      const t = await freshDatabase(dialect);
      try {
        await migrate(t.db);
        const ops = dialectOf(t.db);
        expect(ops.name).toBe(dialect);
        expect(dialectOf(dialect)).toBe(ops);
        expect(dialectOf(tenant(t.db, 1))).toBe(ops);

        const q = tenant(t.db, 1);
        const columns = [
          { name: 'group_id', pg: 'bigint' as const },
          { name: 'name', pg: 'text' as const },
          { name: 'created_at', pg: 'bigint' as const },
        ];
        await bulkWrite(
          q,
          'groups',
          columns,
          ['group_id'],
          [1, 2, 3].map((g) => ({ group_id: g, name: `g${g}`, created_at: 0 })),
          'nothing',
        );
        // Update on conflict; skip on conflict.
        await bulkWrite(q, 'groups', columns, ['group_id'], [{ group_id: 2, name: 'two', created_at: 5 }], 'update');
        await bulkWrite(q, 'groups', columns, ['group_id'], [{ group_id: 3, name: 'three', created_at: 5 }], 'nothing');
        await bulkWrite(tenant(t.db, 2), 'groups', columns, ['group_id'], [{ group_id: 1, name: 'other', created_at: 0 }], 'nothing');

        const ids = inList(q, 'group_id', 2, [1, 2, 9]);
        const found = await q.all<{ name: string }>(`SELECT name FROM groups WHERE account_id = $1 AND ${ids.sql} ORDER BY group_id`, [ids.param]);
        expect(found.map((r) => r.name)).toEqual(['g1', 'two']);
        const names = inList(q, 'name', 2, ['g3', 'other']);
        expect(await q.all(`SELECT group_id FROM groups WHERE account_id = $1 AND ${names.sql}`, [names.param])).toEqual([{ group_id: 3 }]);
        // An empty list matches nothing, on a numeric column as on a text one (PostgreSQL once compared bigint with text[]: 500).
        for (const column of ['group_id', 'name']) {
          const none = inList(q, column, 2, []);
          expect(await q.all(`SELECT group_id FROM groups WHERE account_id = $1 AND ${none.sql}`, [none.param])).toEqual([]);
        }

        const packed = await q.all<{ p: string }>(
          `SELECT ${ops.packedIntegers(['group_id', 'created_at', '-group_id'])} AS p FROM groups WHERE account_id = $1 ORDER BY group_id`,
        );
        expect(packed.map((r) => r.p)).toEqual(['1,0,-1', '2,5,-2', '3,0,-3']);

        await t.db.transaction(async (tx) => {
          await ops.transactionLock(tx, [7_241_999]);
          await ops.transactionLock(tx, [7_241_999, 1]);
          const locked = await tenant(tx, 1).get<{ name: string }>(`SELECT name FROM groups WHERE account_id = $1 AND group_id = $2${ops.forUpdate}`, [2]);
          expect(locked).toEqual({ name: 'two' });
          if (ops.customPlansUntilCommit) {
            await tenant(tx, 1).untenanted('a planner setting', ops.customPlansUntilCommit);
            expect(await tx.get("SELECT current_setting('plan_cache_mode') AS mode")).toEqual({ mode: 'force_custom_plan' });
          }
        });
        if (ops.customPlansUntilCommit) expect(await t.db.get("SELECT current_setting('plan_cache_mode') AS mode")).toEqual({ mode: 'auto' });

        await ops.prepareBulkLoad(t.db);
        await ops.analyzeAfterBulkLoad(t.db, ['groups', 'agents']);
        expect(ops.bulkInsertRows).toBeGreaterThan(0);
      } finally {
        await t.db.close();
        await t.drop();
      }
    });

    it('probeRows: the rows of the listed values, one index probe per value even with statistics older than the table', async () => {
      const t = await freshDatabase(dialect);
      try {
        await migrate(t.db);
        const ops = dialectOf(t.db);
        const q = tenant(t.db, 1);
        // An account that grew to 20,000 accepted event ids since the planner last looked (none of these tables was analysed).
        const rows = Array.from({ length: 20_000 }, (_, i) => ({ event_id: `ev-${i}`, seq: i }));
        const cols = [
          { name: 'event_id', pg: 'text' as const },
          { name: 'seq', pg: 'bigint' as const },
        ];
        await bulkWrite(q, 'event_ids', cols, ['event_id'], rows, 'nothing');
        await bulkWrite(tenant(t.db, 2), 'event_ids', cols, ['event_id'], [{ event_id: 'ev-7', seq: 1 }], 'nothing');

        const asked = [...Array.from({ length: 500 }, (_, i) => `ev-${19_600 + i * 2}`), 'missing'];
        const found = async (values: string[]) => {
          const p = ops.probeRows('event_ids', 'e', 'event_id', 2, values);
          return (await q.all<{ event_id: string; seq: number }>(`SELECT e.event_id, e.seq FROM ${p.sql} ORDER BY e.seq`, [p.param])).map((r) => r.event_id);
        };
        const inl = inList(q, 'event_id', 2, asked);
        const expected = (
          await q.all<{ event_id: string }>(`SELECT event_id FROM event_ids WHERE account_id = $1 AND ${inl.sql} ORDER BY seq`, [inl.param])
        ).map((r) => r.event_id);
        expect(expected).toHaveLength(200);
        expect(await found(asked)).toEqual(expected);
        // A value listed twice finds its row once, as an IN list does.
        expect(await found(['ev-19600', 'ev-19600', 'ev-19602'])).toEqual(['ev-19600', 'ev-19602']);
        // Only the account's rows; an empty list finds none (a number column too).
        expect(await found(['ev-7'])).toEqual(['ev-7']);
        expect(await found([])).toEqual([]);
        const none = ops.probeRows('groups', 'g', 'group_id', 2, []);
        expect(await q.all(`SELECT g.group_id FROM ${none.sql}`, [none.param])).toEqual([]);
        const groups = ops.probeRows('groups', 'g', 'group_id', 2, [1]);
        expect(await q.all(`SELECT g.group_id FROM ${groups.sql}`, [groups.param])).toEqual([]);

        if (ops.customPlansUntilCommit) {
          // The ingest plans with its values (custom plans): the IN list became a hash join over all 20,000 rows here.
          await t.db.transaction(async (tx) => {
            await tenant(tx, 1).untenanted('a planner setting', ops.customPlansUntilCommit!);
            const p = ops.probeRows('event_ids', 'e', 'event_id', 2, asked);
            const plan = (await tenant(tx, 1).all<{ 'QUERY PLAN': string }>(`EXPLAIN SELECT e.event_id FROM ${p.sql}`, [p.param]))
              .map((r) => r['QUERY PLAN'])
              .join('\n');
            expect(plan).toMatch(/Nested Loop/);
            expect(plan).toMatch(/Index (Only )?Scan using event_ids_pkey/);
            expect(plan).not.toMatch(/Hash|Seq Scan|Bitmap/);
          });
          // After its reads the ingest writes under the planner's default (customPlansEnd): reads there are
          // probes, whose generic plan (the one a prepared statement settles on) is the same nested loop.
          await t.db.transaction(async (tx) => {
            const q = tenant(tx, 1);
            await q.untenanted('a planner setting', "SELECT set_config('plan_cache_mode', 'force_generic_plan', true)");
            const p = ops.probeRows('event_ids', 'e', 'event_id', 2, asked);
            await q.untenanted('a statement to explain', `PREPARE probe_generic (bigint, text[]) AS SELECT e.event_id FROM ${p.sql}`);
            const plan = (await q.untenanted<{ 'QUERY PLAN': string }>('its plan', `EXPLAIN EXECUTE probe_generic (1, '{${asked.join(',')}}')`))
              .map((r) => r['QUERY PLAN'])
              .join('\n');
            await q.untenanted('done', 'DEALLOCATE probe_generic');
            expect(plan).toMatch(/account_id = \$1/); // the generic plan: parameters, not values
            expect(plan).toMatch(/Nested Loop/);
            expect(plan).toMatch(/Index (Only )?Scan using event_ids_pkey/);
            expect(plan).not.toMatch(/Hash|Seq Scan|Bitmap/);
          });
          await t.db.transaction(async (tx) => {
            await tenant(tx, 1).untenanted('a planner setting', ops.customPlansUntilCommit!);
            await tenant(tx, 1).untenanted('the default again', ops.customPlansEnd!);
            expect(await tx.get("SELECT current_setting('plan_cache_mode') AS mode")).toEqual({ mode: 'auto' });
          });
        }
      } finally {
        await t.db.close();
        await t.drop();
      }
    });
  });
}
