import { expect, it } from 'vitest';
import { seededContact } from '../../src/cli/seed-contacts.js';
import { runCli } from '../helpers/cli.js';
import { createTenant, login } from '../helpers/factories.js';
import { forEachDatabase } from '../helpers/harness.js';

forEachDatabase('directory: seed --contacts', (use) => {
  it('bulk-loads contacts into --account, idempotently, readable through the API', async () => {
    const h = use();
    const t = await createTenant(h);
    const first = await runCli(['seed', '--contacts', '1200', '--account', t.username], h.testDb.env);
    expect(first.code, first.output).toBe(0);
    expect(JSON.parse(first.stdout.trim().split('\n').pop()!)).toMatchObject({ accountId: String(t.accountId), requested: 1200, added: 1200 });
    expect(first.output).toContain('1,200/1,200 contacts');
    const again = await runCli(['seed', '--contacts', '1500', '--account', t.username], h.testDb.env);
    expect(JSON.parse(again.stdout.trim().split('\n').pop()!)).toMatchObject({ added: 300 });
    const info = await h.post('/api/v2/Directory/getInfo', { ssid: t.ssid, cn: seededContact(1499) });
    expect(info.body.status).toBe('success');
    expect((info.body.Cu as Record<string, unknown>).mobile).toBe(Number(seededContact(1499)));
    const search = await h.post('/api/v2/Directory/search', { ssid: t.ssid, contact: seededContact(0).slice(0, 9), project: 'name', limit: 500 });
    expect((search.body.data as unknown[]).length).toBe(500);
  });

  it('defaults to the demo tenant, created when missing; an unknown --account is an error', async () => {
    const h = use();
    const res = await runCli(['seed', '--contacts', '10'], {
      ...h.testDb.env,
      CALLCENTER_DEMO_USERNAME: 'demo-seed',
      CALLCENTER_DEMO_PASSWORD: 'demo-seed-password',
    });
    expect(res.code, res.output).toBe(0);
    const demo = await login(h, 'demo-seed', 'demo-seed-password');
    expect((await h.post('/api/v2/getDnc', { ssid: demo.ssid, contact: seededContact(9) })).body.status).toBe('success');
    expect((await h.post('/api/v2/Directory/getInfo', { ssid: demo.ssid, cn: seededContact(9) })).body.status).toBe('success');
    const missing = await runCli(['seed', '--contacts', '10', '--account', 'no-such-account'], h.testDb.env);
    expect(missing.code).toBe(1);
    expect(missing.output).toContain('no account named');
    const bad = await runCli(['seed', '--contacts', 'many'], h.testDb.env);
    expect(bad.code).toBe(2);
  });
});
