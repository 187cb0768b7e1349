import { describe, expect, it } from 'vitest';
import { dialectOf } from '../../src/db/dialect.js';
import { migrate } from '../../src/db/migrate.js';
import { tenant } from '../../src/db/tenant.js';
import type { Database, Param } from '../../src/db/types.js';
import { DialerRepository } from '../../src/modules/campaign/dialer.repository.js';
import { freshDatabase, testDialects } from '../helpers/databases.js';

/*
 * Every steady dialer tick reads the answered calls whose disposition is
 * overdue (DialerRepository.undisposedOf). On fresh tables with no planner
 * statistics PostgreSQL planned it from the account's finished calls, all of
 * them (unanswered calls are never disposed) and a scan of the contacts for
 * each: seconds a tick. It must start from the few contacts awaiting a
 * disposition and probe each one's call by its key, whatever the statistics.
 */

const NOW = 2_000_000_000;

/** `calls` finished dials of account 1 over 10 campaigns (250 each in turn); every 250th answered and awaiting its disposition, every other one of those overdue. */
async function seed(db: Database, calls: number): Promise<{ overdue: string[] }> {
  const contacts: Array<Record<string, unknown>> = [];
  const dials: Array<Record<string, unknown>> = [];
  const overdue: string[] = [];
  for (let i = 0; i < calls; i++) {
    const awaiting = i % 250 === 0;
    const late = awaiting && i % 500 === 0;
    const endedAt = awaiting ? (late ? NOW - 900 : NOW - 60) : NOW - 60 - (calls - i);
    const campaign = 1 + (Math.floor(i / 250) % 10);
    if (late) overdue.push(`obd-${i}`);
    contacts.push({ campaign_id: campaign, contact_id: i, number: String(919_000_000_000 + i), awaiting: awaiting ? `obd-${i}` : null });
    dials.push({ call_id: `obd-${i}`, campaign_id: campaign, contact_id: i, number: String(919_000_000_000 + i), ended_at: endedAt });
  }
  const d = dialectOf(db);
  await db.run(
    `INSERT INTO campaign_contacts (account_id, campaign_id, contact_id, cl_id, position, number, attempts, awaiting)
     SELECT 1, j.campaign_id, j.contact_id, 1, j.contact_id, j.number, 1, j.awaiting FROM ${d.jsonRows(1, 'j', [
       ['campaign_id', 'bigint'],
       ['contact_id', 'bigint'],
       ['number', 'text'],
       ['awaiting', 'text'],
     ])}`,
    [JSON.stringify(contacts)],
  );
  await db.run(
    `INSERT INTO campaign_calls (account_id, call_id, campaign_id, contact_id, number, attempt, dialled_at, ended_at)
     SELECT 1, j.call_id, j.campaign_id, j.contact_id, j.number, 1, j.ended_at - 40, j.ended_at FROM ${d.jsonRows(1, 'j', [
       ['call_id', 'text'],
       ['campaign_id', 'bigint'],
       ['contact_id', 'bigint'],
       ['number', 'text'],
       ['ended_at', 'bigint'],
     ])}`,
    [JSON.stringify(dials)],
  );
  // Another account's overdue call under the same campaign and contact ids.
  await db.run(
    `INSERT INTO campaign_contacts (account_id, campaign_id, contact_id, cl_id, position, number, attempts, awaiting) VALUES (2, 1, 0, 1, 0, '919000000000', 1, 'obd-0')`,
  );
  await db.run(
    `INSERT INTO campaign_calls (account_id, call_id, campaign_id, contact_id, number, attempt, dialled_at, ended_at) VALUES (2, 'obd-0', 1, 0, '919000000000', 1, ${NOW - 1000}, ${NOW - 900})`,
  );
  return { overdue };
}

for (const dialect of testDialects()) {
  describe(`campaign dialer: the overdue-disposition read without planner statistics [${dialect}]`, () => {
    it('reads exactly the overdue calls, starting from the contacts awaiting a disposition, each call probed by its key', async () => {
      const t = await freshDatabase(dialect);
      try {
        await migrate(t.db);
        // No statistics for the planner: a server whose autovacuum is on would gather them within a minute.
        if (dialect === 'postgres')
          await t.db.exec('ALTER TABLE campaign_contacts SET (autovacuum_enabled = false); ALTER TABLE campaign_calls SET (autovacuum_enabled = false)');
        const { overdue } = await seed(t.db, 5000);
        // The statement as the repository sends it.
        let sent: { sql: string; params: readonly Param[] } | undefined;
        const catching = Object.create(t.db, {
          all: { value: (sql: string, params: readonly Param[] = []) => ((sent = { sql, params }), t.db.all(sql, params)) },
        }) as Database;
        const repo = new DialerRepository(tenant(catching, 1));
        const campaigns = Array.from({ length: 10 }, (_, i) => i + 1);

        const got = await repo.undisposedOf(campaigns, NOW - 600);
        expect(got.map((u) => u.call_id).sort()).toEqual([...overdue].sort());
        expect(got.find((u) => u.call_id === 'obd-0')).toEqual({ campaign_id: 1, contact_id: 0, call_id: 'obd-0' });
        // Only the campaigns asked for; the answered calls not yet 10 minutes over are not overdue.
        expect((await repo.undisposedOf([1], NOW - 600)).map((u) => u.call_id).sort()).toEqual(
          overdue.filter((id) => Math.floor(Number(id.slice(4)) / 250) % 10 === 0).sort(),
        );
        expect(await repo.undisposedOf(campaigns, NOW - 900 - 1)).toEqual([]);

        await repo.undisposedOf(campaigns, NOW - 600);
        const { sql, params } = sent!;
        if (dialect === 'postgres') {
          const plan = (await t.db.all<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params)).map((r) => r['QUERY PLAN']).join('\n');
          expect(plan).toMatch(/Index Scan (on|using) campaign_contacts_awaiting/);
          expect(plan).toMatch(/SubPlan/);
          // The calls are reached by their key alone: no scan of the account's finished calls.
          expect(plan).toMatch(/Index Scan using campaign_calls_pkey on campaign_calls k/);
          expect(plan).not.toMatch(
            /(Seq Scan|Bitmap Heap Scan|Index Scan using campaign_calls_open|Index Only Scan using campaign_calls_\w+) on campaign_calls/,
          );
        } else {
          const plan = (await t.db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, params)).map((r) => r.detail).join('\n');
          expect(plan).toMatch(/SEARCH c USING INDEX campaign_contacts_awaiting \(account_id=\? AND campaign_id=\?\)/);
          expect(plan).toMatch(/SEARCH k USING INDEX sqlite_autoindex_campaign_calls_1 \(account_id=\? AND call_id=\?\)/);
          expect(plan).not.toMatch(/SCAN (c|k)\b/);
        }
      } finally {
        await t.db.close();
        await t.drop();
      }
    });
  });
}
