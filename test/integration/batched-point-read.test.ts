import { describe, expect, it } from 'vitest';
import { BatchedPointRead } from '../../src/db/batched-point-read.js';
import { migrate } from '../../src/db/migrate.js';
import type { TenantQueries } from '../../src/db/tenant.js';
import { DncRepository } from '../../src/modules/directory/dnc.repository.js';
import { freshDatabase, testDialects } from '../helpers/databases.js';

for (const dialect of testDialects()) {
  describe(`BatchedPointRead: the reads of a turn in one statement on PostgreSQL [${dialect}]`, () => {
    async function setup() {
      const t = await freshDatabase(dialect);
      await migrate(t.db);
      for (const [account, contact, dnc] of [
        [1, '911000000001', -1],
        [1, '911000000002', 2_000_000_000],
        [2, '911000000001', 1_900_000_000],
      ] as const) {
        await t.db.run('INSERT INTO contact_dnc (account_id, contact, dnc, updated_at) VALUES ($1, $2, $3, 0)', [account, contact, dnc]);
      }
      // The statements each read ran as (the repository's own reads, counted).
      const statements: string[] = [];
      const reads = new BatchedPointRead<number>(
        t.db,
        (q: TenantQueries, keys) => (statements.push(`many ${q.accountId} ${keys.join(',')}`), new DncRepository(q).getMany(keys)),
        (q: TenantQueries, key) => (statements.push(`one ${q.accountId} ${key}`), new DncRepository(q).get(key)),
      );
      return { t, reads, statements };
    }

    it('answers each read with its own account and key; on PostgreSQL one statement per account for the turn, each key once', async () => {
      const { t, reads, statements } = await setup();
      try {
        const asked: Array<[number, string]> = [
          [1, '911000000001'],
          [1, '911000000002'],
          [1, '911000000003'],
          [2, '911000000001'],
          [2, '911000000002'],
          [1, '911000000001'],
        ];
        // Absent: undefined from a batch, the repository's 0 from a read alone (DncService reads both as 0).
        const got = await Promise.all(asked.map(([a, k]) => reads.read(a, k)));
        expect(got.map((v) => v ?? 0)).toEqual([-1, 2_000_000_000, 0, 1_900_000_000, 0, -1]);
        if (dialect === 'postgres') {
          expect(statements.sort()).toEqual(['many 1 911000000001,911000000002,911000000003', 'many 2 911000000001,911000000002']);
        } else {
          expect(statements).toHaveLength(asked.length);
        }
        // A turn with a single read reads it alone.
        statements.length = 0;
        expect(await reads.read(2, '911000000001')).toBe(1_900_000_000);
        expect(statements).toEqual(['one 2 911000000001']);
      } finally {
        await t.db.close();
        await t.drop();
      }
    });

    it('sees a write committed before the read was asked; inside a transaction reads on its connection', async () => {
      const { t, reads, statements } = await setup();
      try {
        await t.db.run('UPDATE contact_dnc SET dnc = 5 WHERE account_id = 1');
        expect(await Promise.all([reads.read(1, '911000000001'), reads.read(1, '911000000002')])).toEqual([5, 5]);
        statements.length = 0;
        const inside = await t.db.ambient(async () => {
          await t.db.run('UPDATE contact_dnc SET dnc = 7 WHERE account_id = 1');
          return Promise.all([reads.read(1, '911000000001'), reads.read(1, '911000000002')]);
        });
        expect(inside).toEqual([7, 7]);
        expect(statements).toEqual(['one 1 911000000001', 'one 1 911000000002']);
      } finally {
        await t.db.close();
        await t.drop();
      }
    });

    it('a failed statement fails every read of its batch, and the next turn reads again', async () => {
      const { t } = await setup();
      try {
        let fail = true;
        const reads = new BatchedPointRead<number>(
          t.db,
          async (q, keys) => {
            if (fail) throw new Error('connection lost');
            return new DncRepository(q).getMany(keys);
          },
          async (q, key) => {
            if (fail) throw new Error('connection lost');
            return new DncRepository(q).get(key);
          },
        );
        const first = await Promise.allSettled([reads.read(1, '911000000001'), reads.read(1, '911000000002')]);
        expect(first.map((r) => r.status)).toEqual(['rejected', 'rejected']);
        fail = false;
        expect(await Promise.all([reads.read(1, '911000000001'), reads.read(1, '911000000002')])).toEqual([-1, 2_000_000_000]);
      } finally {
        await t.db.close();
        await t.drop();
      }
    });
  });
}
