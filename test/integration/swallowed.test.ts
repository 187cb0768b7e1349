import { expect, it } from 'vitest';
import { afterCommit } from '../../src/db/ambient.js';
import { swallowedCounts, type SwallowSite } from '../../src/swallowed.js';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { auditList } from './audit.fixtures.js';

/** The series of one site on GET /metrics. */
async function scraped(h: Harness, site: SwallowSite): Promise<number> {
  const text = (await h.app.inject({ method: 'GET', url: '/metrics' })).body;
  const m = new RegExp(`^callcenter_swallowed_errors_total\\{site="${site.replace('.', '\\.')}"\\} (\\d+)$`, 'm').exec(text);
  expect(m, `callcenter_swallowed_errors_total{site="${site}"} on /metrics`).not.toBeNull();
  return Number(m![1]);
}

forEachDatabase('errors not passed on are logged and counted (src/swallowed.ts)', (use) => {
  it('an effect after a commit that fails leaves the change committed and counts ambient.after_commit', async () => {
    const h = use();
    const before = await scraped(h, 'ambient.after_commit');
    await h.db.exec('CREATE TABLE swallow_probe (k TEXT PRIMARY KEY)');
    await h.db.ambient(async () => {
      await h.db.run("INSERT INTO swallow_probe (k) VALUES ('kept')");
      afterCommit(() => {
        throw new Error('a cache drop that throws');
      });
      afterCommit(() => Promise.reject(new Error('a nudge that rejects')));
    });
    expect(await h.db.all('SELECT k FROM swallow_probe')).toEqual([{ k: 'kept' }]);
    await expect.poll(() => scraped(h, 'ambient.after_commit')).toBe(before + 2);
  });

  it('a login protection record that cannot be written: the login answers as ever, the loss is counted as auth.login_audit', async () => {
    const h = use();
    const t = await createTenant(h);
    const before = swallowedCounts().get('auth.login_audit')!;
    await h.db.exec('ALTER TABLE audit_log RENAME TO audit_log_away');
    try {
      for (let i = 0; i < 5; i++) {
        const res = await h.post('/api/v2/auth/login', { username: t.username, password: 'wrong-password' });
        expect(res.body.code).toBe(1014);
      }
    } finally {
      await h.db.exec('ALTER TABLE audit_log_away RENAME TO audit_log');
    }
    // The fifth failure locks the username out: its record is the one lost, and counted.
    expect(swallowedCounts().get('auth.login_audit')).toBe(before + 1);
    expect(await scraped(h, 'auth.login_audit')).toBe(before + 1);
    expect((await auditList(h, t, { operation: 'auth/lockout' })).data).toEqual([]);
  });
});
