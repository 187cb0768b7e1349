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
  });
}
