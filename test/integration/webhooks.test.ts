import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAgent, createRole } from '../helpers/admin.js';
import { createTenant, login } from '../helpers/factories.js';
import { forEachDatabase } from '../helpers/harness.js';
import { deliverDue, startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { ingestOk } from './events.fixtures.js';
import { createHook, deliveries, endCall, verifyStandardWebhook } from './webhooks.fixtures.js';

let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
});
afterAll(async () => rx.close());

forEachDatabase(
  'webhook subscriptions and signed push reports',
  (use) => {
    it('creates a verified subscription whose secret is shown once', async () => {
      const h = use();
      const t = await createTenant(h);
      const before = rx.received.length;
      const hook = await createHook(h, t, { url: rx.url, name: ' CRM ' });
      expect(hook.status).toBe('active');
      expect(hook.lastError).toBeUndefined();
      expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(hook.secret.slice(6), 'base64')).toHaveLength(32);
      // The verification: one GET to the url.
      expect(rx.received.slice(before).map((r) => r.method)).toEqual(['GET']);
      const list = await h.post('/api/v2/webhook/list', { ssid: t.ssid });
      expect(list.body.data).toEqual([{ webhookId: hook.webhookId, url: rx.url, name: 'CRM', filter: {}, status: 'active', lastError: null }]);
      expect(JSON.stringify(list.body)).not.toContain(hook.secret.slice(6));
    });

    it('is unverified unless a 2xx answer says GODBLESSYOU, and verify makes it active later', async () => {
      const h = use();
      const t = await createTenant(h);
      try {
        rx.verifyAnswer = { status: 200, body: 'godblessyou' };
        const wrong = await createHook(h, t, { url: rx.url });
        expect(wrong.status).toBe('unverified');
        expect(wrong.lastError).toContain('GODBLESSYOU');
        rx.verifyAnswer = { status: 500, body: 'GODBLESSYOU' };
        const err = await createHook(h, t, { url: rx.url });
        expect(err).toMatchObject({ status: 'unverified', lastError: 'verification answered HTTP 500' });
        // A redirect is never followed, even to an address that would answer correctly.
        rx.verifyAnswer = { status: 302, body: '', headers: { location: rx.url } };
        const moved = await createHook(h, t, { url: rx.url });
        expect(moved).toMatchObject({ status: 'unverified', lastError: 'verification answered HTTP 302' });
        rx.verifyAnswer = { status: 201, body: '\tGODBLESSYOU \r\n' };
        const res = await h.post('/api/v2/webhook/verify', { ssid: t.ssid, webhookId: wrong.webhookId });
        expect(res.body.data).toMatchObject({ webhookId: wrong.webhookId, status: 'active', lastError: null });
      } finally {
        rx.verifyAnswer = { status: 200, body: 'GODBLESSYOU' };
      }
    });

    it('sends one signed report per ended call, verifiable with the Standard Webhooks text', async () => {
      const h = use();
      const t = await createTenant(h);
      const hook = await createHook(h, t, { url: rx.url });
      const before = rx.posts().length;
      await endCall(h, t, 'sig-1');
      await deliverDue(h);
      const got = rx.posts().slice(before);
      expect(got).toHaveLength(1);
      const r = got[0]!;
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['webhook-id']).toMatch(/^msg_[\w-]+$/);
      expect(Number(r.headers['webhook-timestamp'])).toBe(Math.floor(h.clock.now() / 1000));
      expect(verifyStandardWebhook(hook.secret, r)).toBe(true);
      // A changed body or another secret does not verify.
      expect(verifyStandardWebhook(hook.secret, { ...r, body: r.body.replace('sig-1', 'sig-2') })).toBe(false);
      // The body is the push report of the call (fields: the callreport module's tests): ended before any offer.
      expect(JSON.parse(r.body)).toMatchObject({ callId: 'sig-1', callStatus: 1, cType: 'IBD', userId: String(t.accountId), cNumber: '919876543210' });
      const log = await deliveries(h, t, { webhookId: hook.webhookId });
      expect(log).toEqual([
        {
          deliveryId: expect.any(Number),
          webhookId: hook.webhookId,
          callId: 'sig-1',
          status: 'delivered',
          attempts: [{ at: Math.floor(h.clock.now() / 1000), httpStatus: 200, durationMs: expect.any(Number), error: null, response: 'ok' }],
        },
      ]);
    });

    it('sends a report only when every given filter list holds the call value', async () => {
      const h = use();
      const t = await createTenant(h);
      const did = await createHook(h, t, { url: `${rx.url}?f=did`, filter: { did: ['1 800 555 0100'] } });
      const outbound = await createHook(h, t, { url: `${rx.url}?f=obd`, filter: { cType: ['OBD'] } });
      const both = await createHook(h, t, { url: `${rx.url}?f=both`, filter: { did: ['18005550100'], campaignId: [0] } });
      await endCall(h, t, 'f-1', { did: '18005550100' });
      await endCall(h, t, 'f-2', { did: '18005550199' });
      await deliverDue(h);
      const calls = async (webhookId: number) => (await deliveries(h, t, { webhookId })).map((d) => d.callId).sort();
      expect(await calls(did.webhookId)).toEqual(['f-1']);
      expect(await calls(outbound.webhookId)).toEqual([]);
      expect(await calls(both.webhookId)).toEqual(['f-1']);
    });

    it('never reports a call that ended while the subscription was not active', async () => {
      const h = use();
      const t = await createTenant(h);
      rx.verifyAnswer = { status: 200, body: 'no' };
      const hook = await createHook(h, t, { url: rx.url });
      rx.verifyAnswer = { status: 200, body: 'GODBLESSYOU' };
      expect(hook.status).toBe('unverified');
      await endCall(h, t, 'early');
      await h.post('/api/v2/webhook/verify', { ssid: t.ssid, webhookId: hook.webhookId });
      await endCall(h, t, 'late');
      await deliverDue(h);
      expect((await deliveries(h, t)).map((d) => d.callId)).toEqual(['late']);
    });

    it('sends no second report for a late correction, and none to a subscription that became active after the end', async () => {
      const h = use();
      const t = await createTenant(h);
      const a = (await createAgent(h, t)).agentId;
      const active = await createHook(h, t, { url: `${rx.url}?late=active` });
      rx.verifyAnswer = { status: 200, body: 'no' };
      const later = await createHook(h, t, { url: `${rx.url}?late=later` });
      rx.verifyAnswer = { status: 200, body: 'GODBLESSYOU' };
      const t0 = Math.floor(h.clock.now() / 1000) - 60;
      const id = `late-${h.dialect}`;
      await ingestOk(h, t.ssid, [
        { eventId: `${id}-1`, type: 'agent.login', agentId: a, ts: t0 },
        { eventId: `${id}-2`, type: 'call.queued', callId: id, ts: t0 },
        { eventId: `${id}-3`, type: 'call.ringing', callId: id, agentId: a, ts: t0 },
        { eventId: `${id}-4`, type: 'call.ended', callId: id, ts: t0 + 10 },
      ]);
      expect((await h.post('/api/v2/webhook/verify', { ssid: t.ssid, webhookId: later.webhookId })).body.data).toMatchObject({ status: 'active' });
      // The offer really ended after 4 s: the stored call is corrected (sign -1, then +1).
      await ingestOk(h, t.ssid, [{ eventId: `${id}-5`, type: 'call.missed', callId: id, ts: t0 + 4 }]);
      await deliverDue(h);
      expect((await deliveries(h, t, { webhookId: active.webhookId })).map((d) => d.callId)).toEqual([id]);
      expect(await deliveries(h, t, { webhookId: later.webhookId })).toEqual([]);
      expect(rx.posts().filter((r) => JSON.parse(r.body).callId === id)).toHaveLength(1);
    });

    it('merges updates, verifies a new url again, deletes with the log, and answers 1012 for unknown ids', async () => {
      const h = use();
      const t = await createTenant(h);
      const hook = await createHook(h, t, { url: rx.url, name: 'a', filter: { groupId: [5] } });
      const renamed = await h.post('/api/v2/webhook/update', { ssid: t.ssid, webhookId: hook.webhookId, name: 'b' });
      expect(renamed.body.data).toMatchObject({ url: rx.url, name: 'b', filter: { groupId: [5] }, status: 'active' });
      rx.verifyAnswer = { status: 404, body: '' };
      const moved = await h.post('/api/v2/webhook/update', { ssid: t.ssid, webhookId: hook.webhookId, url: `${rx.url}/v2` });
      rx.verifyAnswer = { status: 200, body: 'GODBLESSYOU' };
      expect(moved.body.data).toMatchObject({ url: `${rx.url}/v2`, name: 'b', status: 'unverified', lastError: 'verification answered HTTP 404' });
      expect((await h.post('/api/v2/webhook/delete', { ssid: t.ssid, webhookId: hook.webhookId })).body.status).toBe('success');
      for (const [path, body] of [
        ['update', { webhookId: hook.webhookId, name: 'x' }],
        ['delete', { webhookId: hook.webhookId }],
        ['verify', { webhookId: hook.webhookId }],
        ['redeliver', { deliveryId: 987654 }],
      ] as const) {
        const res = await h.post(`/api/v2/webhook/${path}`, { ssid: t.ssid, ...body });
        expect(res.body.code, path).toBe(1012);
      }
      // Another tenant's subscription is unknown too.
      const other = await createTenant(h);
      const theirs = await createHook(h, other, { url: rx.url });
      expect((await h.post('/api/v2/webhook/verify', { ssid: t.ssid, webhookId: theirs.webhookId })).body.code).toBe(1012);
    });

    it('refuses a url that is not http(s) with 1000 naming url', async () => {
      const h = use();
      const t = await createTenant(h);
      for (const url of ['ftp://example.com/x', 'not a url', 'file:///etc/passwd']) {
        const res = await h.post('/api/v2/webhook/create', { ssid: t.ssid, url });
        expect(res.body.code, url).toBe(1000);
        expect(res.body.message, url).toContain('url');
      }
    });

    it('pages the delivery log newest first and redelivers with the same webhook-id and body', async () => {
      const h = use();
      const t = await createTenant(h);
      await createHook(h, t, { url: rx.url });
      const p = (n: number) => `p-${n}-${h.dialect}`;
      for (const n of [1, 2, 3]) await endCall(h, t, p(n));
      await deliverDue(h);
      const first = await h.post('/api/v2/webhook/deliveries', { ssid: t.ssid, limit: 2 });
      expect((first.body.data as Array<{ callId: string }>).map((d) => d.callId)).toEqual([p(3), p(2)]);
      const second = await h.post('/api/v2/webhook/deliveries', { ssid: t.ssid, limit: 2, cursor: first.body.nextCursor });
      expect((second.body.data as Array<{ callId: string }>).map((d) => d.callId)).toEqual([p(1)]);
      expect(second.body.nextCursor).toBeNull();
      expect((await deliveries(h, t, { callId: p(2), status: 'delivered' })).map((d) => d.callId)).toEqual([p(2)]);

      const target = (await deliveries(h, t, { callId: p(1) }))[0]!;
      const ofCall = (r: { body: string }) => JSON.parse(r.body).callId === p(1);
      const sent = rx.posts().filter(ofCall);
      const res = await h.post('/api/v2/webhook/redeliver', { ssid: t.ssid, deliveryId: target.deliveryId });
      expect(res.body.data).toEqual({ deliveryId: target.deliveryId, status: 'pending' });
      await deliverDue(h);
      const again = rx.posts().filter(ofCall);
      expect(again).toHaveLength(sent.length + 1);
      expect(again.at(-1)!.headers['webhook-id']).toBe(sent[0]!.headers['webhook-id']);
      expect(again.at(-1)!.body).toBe(sent[0]!.body);
      expect((await deliveries(h, t, { callId: p(1) }))[0]!.attempts).toHaveLength(2);
    });

    it("webhook/deliveries of an unknown or another account's webhookId is 1012, not an empty log", async () => {
      const h = use();
      const t = await createTenant(h);
      const other = await createTenant(h);
      const foreign = await createHook(h, other, { url: rx.url });
      const mine = await createHook(h, t, { url: rx.url });
      for (const webhookId of [foreign.webhookId, 999_999_999]) {
        const res = await h.post('/api/v2/webhook/deliveries', { ssid: t.ssid, webhookId });
        expect(res.body, String(webhookId)).toMatchObject({ status: 'error', code: 1012 });
      }
      expect(await deliveries(h, t, { webhookId: mine.webhookId })).toEqual([]);
      expect(await deliveries(h, other, { webhookId: foreign.webhookId })).toEqual([]);
    });

    it('requires webhook.manage', async () => {
      const h = use();
      const t = await createTenant(h);
      const agent = await createAgent(h, t, { role: await createRole(h, t, { permissions: ['agent.view'] }) });
      const s = await login(h, agent.email, agent.password);
      for (const op of ['create', 'list', 'update', 'delete', 'verify', 'deliveries', 'redeliver']) {
        const res = await h.post(`/api/v2/webhook/${op}`, { ssid: s.ssid, url: rx.url, webhookId: 1, deliveryId: 1 });
        expect(res.body.code, op).toBe(1015);
      }
    });
  },
  { config: { webhookAllowPrivate: true } },
);
