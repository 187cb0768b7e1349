import { expect, it } from 'vitest';
import { createGroup } from '../helpers/admin.js';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase } from '../helpers/harness.js';
import { pseudonymiseNumberInAudit, purgeAuditBefore } from '../../src/modules/audit/audit.service.js';
import { auditList } from './audit.fixtures.js';

const NUMBER = '919876501234';

forEachDatabase('audit trail: append-only, and its two maintenance paths', (use) => {
  it('on PostgreSQL a plain DELETE, UPDATE or TRUNCATE of audit_log fails; SQLite has no such guard', async () => {
    const h = use();
    const t = await createTenant(h);
    await createGroup(h, t);
    const count = async () => Number((await h.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM audit_log WHERE account_id = $1', [t.accountId]))!.n);
    const before = await count();
    expect(before).toBeGreaterThan(0);
    if (h.db.dialect !== 'postgres') return;
    await expect(h.db.run('DELETE FROM audit_log WHERE account_id = $1', [t.accountId])).rejects.toThrow(/append-only/);
    await expect(h.db.run("UPDATE audit_log SET operation = 'x' WHERE account_id = $1", [t.accountId])).rejects.toThrow(/append-only/);
    await expect(h.db.exec('TRUNCATE audit_log')).rejects.toThrow(/append-only/);
    // Nor inside a transaction that switched maintenance on and off again around another statement.
    await expect(
      h.db.transaction(async (tx) => {
        await purgeAuditBefore(tx, t.accountId, 0, 10);
        await tx.run('DELETE FROM audit_log WHERE account_id = $1', [t.accountId]);
      }),
    ).rejects.toThrow(/append-only/);
    expect(await count()).toBe(before);
  });

  it('pseudonymiseNumberInAudit rewrites the number in earlier records (target id and values) and nothing else', async () => {
    const h = use();
    const t = await createTenant(h);
    const other = await createTenant(h);
    for (const s of [t, other]) {
      expect((await h.post('/api/v2/Directory/create', { ssid: s.ssid, contact: NUMBER, contactinfo: { name: 'Ravi' } })).body.status).toBe('success');
      expect((await h.post('/api/v2/Directory/setDnc', { ssid: s.ssid, contact: NUMBER, dnc: -1 })).body.status).toBe('success');
    }
    // A longer number that contains it is not touched.
    expect((await h.post('/api/v2/Directory/create', { ssid: t.ssid, contact: `${NUMBER}5`, contactinfo: { name: 'Other' } })).body.status).toBe('success');
    const changed = await h.db.transaction((tx) => pseudonymiseNumberInAudit(tx, t.accountId, NUMBER, 'erased-abc123'));
    expect(changed).toBe(2);
    const mine = JSON.stringify((await auditList(h, t)).data);
    expect(mine).not.toContain(`"${NUMBER}"`);
    expect(mine).toContain('erased-abc123');
    expect(mine).toContain(`${NUMBER}5`);
    expect(JSON.stringify((await auditList(h, other)).data)).toContain(`"${NUMBER}"`);
  });

  it('purgeAuditBefore deletes in batches only records older than the cutoff, of one account', async () => {
    const h = use();
    const t = await createTenant(h);
    const other = await createTenant(h);
    for (let i = 0; i < 3; i++) await createGroup(h, t);
    await createGroup(h, other);
    const cutoff = Math.floor(h.clock.now() / 1000) + 1;
    h.clock.advance(10_000);
    await createGroup(h, t);
    const total = (await auditList(h, t)).data.length;
    const first = await h.db.transaction((tx) => purgeAuditBefore(tx, t.accountId, cutoff, 2));
    expect(first).toBe(2);
    const rest = await h.db.transaction((tx) => purgeAuditBefore(tx, t.accountId, cutoff, 1000));
    const left = (await auditList(h, t)).data;
    expect(first + rest + left.length).toBe(total);
    expect(left.every((r) => r.at >= cutoff)).toBe(true);
    expect(left).toHaveLength(1);
    expect((await auditList(h, other)).data.length).toBeGreaterThan(0);
  });
});
