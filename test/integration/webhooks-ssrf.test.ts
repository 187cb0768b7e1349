import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { deliverDue, startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { deliveries, endCall } from './webhooks.fixtures.js';

/**
 * The SSRF guard with WEBHOOK_ALLOW_PRIVATE off (the default): non-public
 * targets are refused at create, and the address actually connected to is
 * checked at every request, so a name that resolved to a public address
 * when the subscription was made and to 127.0.0.1 now (DNS rebinding) is
 * never reached. The rebinding is simulated by storing such a subscription
 * directly, as if its name had resolved to a public address at creation.
 */

let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
});
afterAll(async () => rx.close());

forEachDatabase('webhook SSRF guard', (use) => {
  async function storedHook(h: Harness, accountId: number, url: string): Promise<number> {
    const row = await h.db.get<{ id: number }>(
      `INSERT INTO webhooks (account_id, url, name, filter, secret, status, last_error, created_at)
       VALUES ($1, $2, '', '{}', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'active', NULL, 0) RETURNING id`,
      [accountId, url],
    );
    return Number(row!.id);
  }

  it('refuses loopback, private, link-local and unspecified targets at create with 1000 naming url', async () => {
    const h = use();
    const t = await createTenant(h);
    const before = rx.received.length;
    for (const url of [
      rx.url,
      `http://localhost:${rx.port}/hook`,
      'http://[::1]/x',
      'http://10.0.0.8/x',
      'http://192.168.1.20/x',
      'http://172.20.0.1/x',
      'http://169.254.169.254/latest/meta-data',
      'http://0.0.0.0/x',
      'http://[::ffff:127.0.0.1]/x',
      'https://[fe80::1]/x',
    ]) {
      const res = await h.post('/api/v2/webhook/create', { ssid: t.ssid, url });
      expect(res.body.code, url).toBe(1000);
      expect(res.body.message, url).toMatch(/url: .*non-public/);
    }
    expect(rx.received.length).toBe(before);
  });

  it('refuses a non-public url at update too', async () => {
    const h = use();
    const t = await createTenant(h);
    const id = await storedHook(h, t.accountId, 'https://crm.example.com/hook');
    const res = await h.post('/api/v2/webhook/update', { ssid: t.ssid, webhookId: id, url: 'http://10.1.2.3/hook' });
    expect(res.body.code).toBe(1000);
    expect(res.body.message).toMatch(/url: .*non-public/);
    const list = await h.post('/api/v2/webhook/list', { ssid: t.ssid });
    expect(list.body.data).toMatchObject([{ url: 'https://crm.example.com/hook', status: 'active' }]);
  });

  it('does not connect when a name resolves to 127.0.0.1 at connect time (DNS rebinding)', async () => {
    const h = use();
    const t = await createTenant(h);
    await storedHook(h, t.accountId, `http://localhost:${rx.port}/hook`);
    const before = rx.received.length;
    await endCall(h, t, 'rebind');
    await deliverDue(h);
    const [d] = await deliveries(h, t);
    expect(d!.status).toBe('pending');
    expect(d!.attempts[0]).toMatchObject({ httpStatus: null });
    expect(d!.attempts[0]!.error).toMatch(/EWEBHOOKPRIVATE|non-public/);
    expect(rx.received.length).toBe(before);
  });

  it('checks the connected address of an IP literal too, on delivery and on verify', async () => {
    const h = use();
    const t = await createTenant(h);
    const id = await storedHook(h, t.accountId, rx.url);
    const before = rx.received.length;
    await endCall(h, t, 'literal');
    await deliverDue(h);
    const [d] = await deliveries(h, t);
    expect(d!.attempts[0]!.error).toMatch(/not public/);
    const verify = await h.post('/api/v2/webhook/verify', { ssid: t.ssid, webhookId: id });
    expect(verify.body.data).toMatchObject({ status: 'unverified', lastError: expect.stringMatching(/not public/) });
    expect(rx.received.length).toBe(before);
  });
});
