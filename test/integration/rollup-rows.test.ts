import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { rollupTable, writeRollup } from '../../src/db/rollup-write.js';
import { tenant } from '../../src/db/tenant.js';
import type { Param, Queryable } from '../../src/db/types.js';
import { REPORT_MARKS } from '../../src/modules/report/rollup/marks.js';
import { freshDatabase, testDialects, withoutRunRows as plain } from '../helpers/databases.js';

const BREAKS = rollupTable('report_agent_breaks', { key: ['bucket', 'agent_id', 'reason'], sum: ['secs'], max: [] }, REPORT_MARKS);
const QUEUE = rollupTable('report_queue', { key: ['bucket', 'group_id'], sum: ['offered', 'answered', 'ans_wait_sum'], max: ['max_wait'] }, REPORT_MARKS);

/**
 * writeRollup in a SQLite transaction writes one row a statement in a runRows loop; elsewhere it
 * writes 50-row VALUES statements. Both add the same sums, keep the same maxima (NULL keeps the
 * stored one) and set the marks: the same tables either way, over more rows than one statement holds.
 */
for (const dialect of testDialects()) {
  describe(`roll-up rows one a statement and 50 a statement [${dialect}]`, () => {
    it('same sums, maxima and marked days', async () => {
      const t = await freshDatabase(dialect);
      try {
        await migrate(t.db);
        const day = 20_000 * 86_400;
        const breaks = (k: number): Param[][] => Array.from({ length: 120 }, (_, i) => [day + (i % 7) * 900, i, `r${k}`, i + 0.5 * k]);
        const queue = (k: number): Param[][] => Array.from({ length: 73 }, (_, i) => [day + i * 900, (i % 3) + 1, 1, k, 2.5 * i, i % 4 === 0 ? null : i * k]);
        const write = async (account: number, through: (tx: Queryable) => Queryable) => {
          for (const k of [1, 2, 3]) {
            await t.db.transaction(async (tx) => {
              const q = tenant(through(tx), account);
              expect(q.rowLoop).toBe(dialect === 'sqlite' && through !== plain);
              await writeRollup(q, {
                writes: [
                  { table: BREAKS, rows: breaks(k % 2) },
                  { table: QUEUE, rows: queue(k) },
                ],
                times: [day + 10, day + 86_400 * k],
              });
            });
          }
        };
        await write(1, (tx) => tx);
        await write(2, plain);
        const read = async (account: number) => ({
          breaks: await t.db.allValues(
            'SELECT bucket, agent_id, reason, secs FROM report_agent_breaks WHERE account_id = $1 ORDER BY bucket, agent_id, reason',
            [account],
          ),
          queue: await t.db.allValues(
            'SELECT bucket, group_id, offered, answered, ans_wait_sum, max_wait FROM report_queue WHERE account_id = $1 ORDER BY bucket, group_id',
            [account],
          ),
          days: (await t.db.allValues('SELECT utc_day FROM report_versions WHERE account_id = $1 ORDER BY utc_day', [account])).map((r) => Number(r[0])),
        });
        const loop = await read(1);
        expect(loop.breaks.length).toBe(240);
        expect(loop.queue.length).toBe(73);
        // Sums added over the three writes, the largest non-null maximum kept.
        expect(loop.queue[4]).toEqual([day + 4 * 900, 2, 3, 6, 30, null]);
        expect(loop.queue[5]).toEqual([day + 5 * 900, 3, 3, 6, 37.5, 15]);
        expect(loop.days).toEqual([20_000, 20_001, 20_002, 20_003]);
        expect(await read(2)).toEqual(loop);
      } finally {
        await t.db.close();
        await t.drop();
      }
    });
  });
}
