import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createClient, type CallCenterClient } from '../../client/index.js';
import { dialects, expectAccessibleEverywhere, hasChromium, launch, LAPTOP, PHONE, serve, shotPath, until, type Served } from './app.fixtures.js';

interface Received {
  id: string;
  body: string;
}

/**
 * The console's Integrations and Audit pages (/console) end to end in Chromium against the server
 * process on each database: a webhook made in the page is verified by a receiver in this test,
 * its delivery shows in the log and is sent again with Redeliver (the same webhook-id); a token
 * made in the page works and stops working once revoked there; the audit trail narrows with its
 * filters and pages; a narrow role sees neither webhooks nor the audit trail, and the API refuses
 * them anyway; axe in both themes at both sizes.
 */
describe.skipIf(!hasChromium).each(dialects())('console: Integrations and Audit [%s]', (dialect) => {
  let s: Served;
  let browser: Browser;
  let page: Page;
  let switchApi: CallCenterClient;
  let receiver: http.Server;
  let receiverUrl = '';
  const received: Received[] = [];
  let seq = 0;
  const ev = (type: string, fields: Record<string, unknown>) => ({ eventId: `a${++seq}-${Math.random()}`, type, ts: Date.now() / 1000, ...fields });

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      if (req.method === 'GET') return void res.end('GODBLESSYOU');
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        received.push({ id: String(req.headers['webhook-id']), body });
        res.end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    // A receiver on this machine: the service refuses private addresses unless told otherwise.
    s = await serve(dialect, { WEBHOOK_ALLOW_PRIVATE: '1' });
    await s.api.call('group/create', { groupId: 55, name: 'Support' });
    const token = await s.api.call('auth/token', { name: 'PBX', kind: 'switch' });
    switchApi = createClient({ baseUrl: s.server.baseUrl, credentials: { userId: token.userId, token: token.token } });
    browser = await launch();
    page = await browser.newPage({ viewport: LAPTOP });
    await page.goto(`${s.server.baseUrl}/console#/integrations`);
    await page.getByLabel('Username or agent e-mail').fill('wallboard-admin');
    await page.getByLabel('Password').fill('wallboard-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#webhook-form').waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await s?.stop();
    await new Promise((r) => receiver?.close(r));
  });

  it('adds a webhook, shows its delivery and sends it again with Redeliver', async () => {
    await page.getByLabel('Receiver url').fill(receiverUrl);
    await page.getByLabel('Name (optional)').fill('CRM');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await expect.poll(() => page.locator('#webhook-form-status').textContent(), until).toMatch(/^Webhook \d+ created and verified\.$/);
    expect(await page.locator('#webhook-secret').textContent()).toMatch(/^whsec_/);
    expect((await s.api.call('webhook/list', {})).data).toMatchObject([{ url: receiverUrl, name: 'CRM', status: 'active' }]);
    // A caller hangs up waiting: the call's report is sent to the receiver.
    const callId = `hook-${dialect}-${Date.now()}`;
    const res = await switchApi.call('events/ingest', {
      events: [ev('call.queued', { callId, groupId: 55, caller: '919811100042', did: '18005550100' }), ev('call.ended', { callId })] as Array<{
        eventId: string;
        type: string;
        ts: number;
      }>,
    });
    expect(res.data.errors).toEqual([]);
    await page.getByRole('button', { name: 'Deliveries of CRM' }).click();
    const row = page.locator('#deliveries tbody tr', { hasText: callId });
    await expect
      .poll(async () => {
        await page.locator('#btn-deliveries-refresh').click();
        return row.locator('[data-delivery-status]').getAttribute('data-delivery-status');
      }, until)
      .toBe('delivered');
    expect(await row.locator('[data-attempts]').textContent()).toBe('1');
    await expect.poll(() => received.filter((r) => r.body.includes(callId)).length, until).toBe(1);
    await expectAccessibleEverywhere(page, 'console Integrations: webhooks and deliveries');
    await page.screenshot({ path: shotPath('console-integrations.png') });
    // Redeliver: the same report (same webhook-id) again, a second attempt in the log.
    await row.getByRole('button', { name: `Redeliver call ${callId}` }).click();
    await expect.poll(() => page.locator('#deliveries-status').textContent(), until).toContain('is being sent again');
    await expect.poll(() => received.filter((r) => r.body.includes(callId)).length, until).toBe(2);
    const [first, second] = received.filter((r) => r.body.includes(callId));
    expect(second!.id).toBe(first!.id);
    expect(second!.body).toBe(first!.body);
    await expect
      .poll(async () => {
        await page.locator('#btn-deliveries-refresh').click();
        return row.locator('[data-attempts]').textContent();
      }, until)
      .toBe('2');
    // Delete, with the in-place confirmation.
    await page.getByRole('button', { name: 'Delete CRM' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await expect.poll(() => page.locator('#webhooks-status').textContent(), until).toBe('Webhook CRM deleted with its delivery log.');
    expect((await s.api.call('webhook/list', {})).data).toEqual([]);
  }, 90_000);

  it('makes a token that works, and revokes it', async () => {
    await page.locator('[data-section="tokens"]').click();
    await page.getByLabel('Name').fill('Reports script');
    await page.getByRole('button', { name: 'Create token' }).click();
    await expect.poll(() => page.locator('#token-form-status').textContent(), until).toBe('An API token was created.');
    const userId = (await page.locator('#token-user').textContent())!;
    const token = (await page.locator('#token-value').textContent())!;
    const script = createClient({ baseUrl: s.server.baseUrl, credentials: { userId, token } });
    expect((await script.call('group/list', {})).data).toMatchObject([{ groupId: 55 }]);
    await expectAccessibleEverywhere(page, 'console Integrations: tokens');
    await page.getByLabel('Token to revoke').fill(token);
    await page.getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => page.locator('#revoke-form-status').textContent(), until).toContain('The token is revoked');
    await expect(script.call('group/list', {})).rejects.toMatchObject({ code: 1014 });
  }, 60_000);

  it('narrows the audit trail with its filters and pages through it', async () => {
    for (let i = 0; i < 27; i++) await s.api.call('group/create', { name: `Audit ${i}` });
    await page.locator('nav.pages [data-page="audit"]').click();
    const ops = () => page.locator('#main tbody [data-operation]').allTextContents();
    await expect.poll(() => page.locator('#audit-status').textContent(), until).toBe('Page 1: 25 records.');
    expect(await page.getByRole('button', { name: 'Older' }).isDisabled()).toBe(false);
    // Operation: only webhook/create.
    await page.getByLabel('Operation').fill('webhook/create');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(ops, until).toEqual(['webhook/create']);
    expect(await page.locator('#main tbody tr').first().textContent()).toContain('Operator (1)');
    await expectAccessibleEverywhere(page, 'console Audit');
    await page.screenshot({ path: shotPath('console-audit.png') });
    // Operation group/create: 28 records (Support and 27 more), 25 on the first page, 3 on the next.
    await page.getByLabel('Operation').fill('group/create');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => page.locator('#audit-status').textContent(), until).toBe('Page 1: 25 records matching the filters.');
    expect(new Set(await ops())).toEqual(new Set(['group/create']));
    await page.getByRole('button', { name: 'Older' }).click();
    await expect.poll(() => page.locator('#audit-status').textContent(), until).toBe('Page 2: 3 records matching the filters.');
    expect(await page.getByRole('button', { name: 'Older' }).isDisabled()).toBe(true);
    expect(await page.locator('#main tbody').textContent()).toContain('Support');
    await page.getByRole('button', { name: 'Newer' }).click();
    await expect.poll(() => page.locator('#audit-status').textContent(), until).toBe('Page 1: 25 records matching the filters.');
    // A range in the future: nothing.
    await page.getByLabel('From').fill('2099-01-01T00:00');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => page.locator('#main tbody').textContent(), until).toBe('No record matches.');
    // Target type and id: the one group.
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByLabel('Target type').selectOption('group');
    await page.getByLabel('Target id').fill('55');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => page.locator('#audit-status').textContent(), until).toBe('Page 1: 1 record matching the filters.');
  }, 60_000);

  it('a narrow role sees only its tokens: no webhooks, no audit trail, and the API refuses them', async () => {
    const role = await s.api.call('role/create', { name: 'Narrow', permissions: ['agent.live'] });
    await s.api.call('Agent/create', {
      name: 'Ben Okafor',
      email: 'ben@example.test',
      password: 'agent-password',
      phone: '919810000002',
      call_pass: '34567812',
      dest_type: 'MOBILE',
      dest_value: '919810000002',
      role: role.data.roleId,
    });
    const ctx = await browser.newContext({ viewport: PHONE });
    const p = await ctx.newPage();
    try {
      await p.goto(`${s.server.baseUrl}/console#/integrations`);
      await p.getByLabel('Username or agent e-mail').fill('ben@example.test');
      await p.getByLabel('Password').fill('agent-password');
      await p.getByRole('button', { name: 'Sign in' }).click();
      await p.locator('#token-form').waitFor();
      expect(await p.locator('[data-section]').evaluateAll((els) => els.map((e) => e.getAttribute('data-section')))).toEqual(['tokens']);
      expect(await p.locator('#webhook-form').count()).toBe(0);
      expect(await p.getByLabel('Kind').count()).toBe(0); // switch tokens: clients only
      expect(await p.locator('nav.pages [data-page="audit"]').count()).toBe(0);
      await expectAccessibleEverywhere(p, 'console Integrations for a narrow role');
      const ben = createClient({ baseUrl: s.server.baseUrl });
      await ben.login('ben@example.test', 'agent-password');
      await expect(ben.call('webhook/list', {})).rejects.toMatchObject({ code: 1015 });
      await expect(ben.call('audit/list', {})).rejects.toMatchObject({ code: 1015 });
      await expect(ben.call('auth/token', { kind: 'switch' })).rejects.toMatchObject({ code: 1015 });
    } finally {
      await ctx.close();
    }
  }, 60_000);
});
