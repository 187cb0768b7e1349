import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { freePort } from '../helpers/ports.js';
import { deliverDue, startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { createHook, deliveries, endCall, nextAt } from './webhooks.fixtures.js';

/**
 * The retry schedule of PRODUCT.md §9 against a receiver failing in scripted
 * ways, on the harness's ManualClock: 5 s, 30 s, 2 min, 10 min, 30 min, 1 h,
 * 2 h, 4 h, 8 h (± 20 %), then failed; Retry-After used as given up to 1 h;
 * 410 disables; other 4xx fail at once.
 */

let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
});
afterAll(async () => rx.close());

const SCHEDULE_S = [5, 30, 120, 600, 1800, 3600, 7200, 14400, 28800];

forEachDatabase(
  'webhook retries',
  (use) => {
    async function setup(h: Harness, callId: string) {
      const t = await createTenant(h);
      const hook = await createHook(h, t, { url: rx.url });
      // Only an active subscription gets deliveries: say so here rather than as an empty delivery log later.
      expect(hook, 'the subscription was verified').toMatchObject({ status: 'active' });
      return { t, hook, callId };
    }

    it('retries a 500 after 5 s ± 20 % with the same webhook-id and body, then delivers', async () => {
      const h = use();
      const { t } = await setup(h, 'r500');
      rx.script = [{ status: 500, body: 'boom' }];
      const before = rx.posts().length;
      await endCall(h, t, 'r500');
      await deliverDue(h);
      const [d] = await deliveries(h, t);
      expect(d).toMatchObject({ status: 'pending', attempts: [{ httpStatus: 500, error: 'HTTP 500', response: 'boom' }] });
      const wait = (await nextAt(h, d!.deliveryId)) - h.clock.now();
      expect(wait).toBeGreaterThanOrEqual(4000);
      expect(wait).toBeLessThanOrEqual(6000);
      h.clock.advance(3900);
      await deliverDue(h);
      expect(rx.posts().length - before).toBe(1);
      h.clock.advance(2100);
      await deliverDue(h);
      const sent = rx.posts().slice(before);
      expect(sent).toHaveLength(2);
      expect(sent[1]!.headers['webhook-id']).toBe(sent[0]!.headers['webhook-id']);
      expect(sent[1]!.body).toBe(sent[0]!.body);
      expect(Number(sent[1]!.headers['webhook-timestamp']) - Number(sent[0]!.headers['webhook-timestamp'])).toBe(6);
      expect((await deliveries(h, t))[0]).toMatchObject({ status: 'delivered', attempts: [{ httpStatus: 500 }, { httpStatus: 200 }] });
    });

    it('retries a timeout', async () => {
      const h = use();
      const { t } = await setup(h, 'rto');
      rx.script = ['hang'];
      await endCall(h, t, 'rto');
      await deliverDue(h);
      const [d] = await deliveries(h, t);
      expect(d!.status).toBe('pending');
      expect(d!.attempts[0]).toMatchObject({ httpStatus: null, error: 'timeout after 300 ms', response: null });
      h.clock.advance(6000);
      await deliverDue(h);
      expect((await deliveries(h, t))[0]!.status).toBe('delivered');
    });

    it('honours Retry-After of a 429 without jitter, capped at 1 h', async () => {
      const h = use();
      const { t } = await setup(h, 'r429');
      rx.script = [
        { status: 429, headers: { 'retry-after': '120' } },
        { status: 429, headers: { 'retry-after': '7200' } },
      ];
      await endCall(h, t, 'r429');
      await deliverDue(h);
      const [d] = await deliveries(h, t);
      expect(await nextAt(h, d!.deliveryId)).toBe(h.clock.now() + 120_000);
      h.clock.advance(120_000);
      await deliverDue(h);
      expect(await nextAt(h, d!.deliveryId)).toBe(h.clock.now() + 3_600_000);
      h.clock.advance(3_600_000);
      await deliverDue(h);
      expect((await deliveries(h, t))[0]).toMatchObject({ status: 'delivered', attempts: [{ httpStatus: 429 }, { httpStatus: 429 }, { httpStatus: 200 }] });
    });

    it('disables the subscription on 410 and sends it nothing more', async () => {
      const h = use();
      const { t, hook } = await setup(h, 'r410');
      rx.script = [{ status: 410, body: 'gone' }];
      await endCall(h, t, 'r410');
      await deliverDue(h);
      expect((await deliveries(h, t))[0]).toMatchObject({ status: 'failed', attempts: [{ httpStatus: 410 }] });
      const list = await h.post('/api/v2/webhook/list', { ssid: t.ssid });
      expect(list.body.data).toMatchObject([{ webhookId: hook.webhookId, status: 'disabled' }]);
      await endCall(h, t, 'r410-after');
      await deliverDue(h);
      expect((await deliveries(h, t)).map((d) => d.callId)).toEqual(['r410']);
    });

    it('fails at once on another 4xx and keeps only the first 1 kB of an answer', async () => {
      const h = use();
      const { t } = await setup(h, 'r404');
      rx.script = [{ status: 404, body: 'x'.repeat(5000) }];
      await endCall(h, t, 'r404');
      await deliverDue(h);
      const [d] = await deliveries(h, t);
      expect(d).toMatchObject({ status: 'failed', attempts: [{ httpStatus: 404, error: 'HTTP 404' }] });
      expect(d!.attempts[0]!.response).toBe('x'.repeat(1024));
    });

    it('retries a refused connection', async () => {
      const h = use();
      const t = await createTenant(h);
      const hook = await createHook(h, t, { url: rx.url });
      const closed = await freePort();
      // The subscription moves to a port nobody listens on (stored directly: an update would verify it).
      await h.db.run('UPDATE webhooks SET url = $1 WHERE id = $2', [`http://127.0.0.1:${closed}/hook`, hook.webhookId]);
      await endCall(h, t, 'rref');
      await deliverDue(h);
      const [d] = await deliveries(h, t);
      expect(d!.status).toBe('pending');
      expect(d!.attempts[0]!.httpStatus).toBeNull();
      expect(d!.attempts[0]!.error).toContain('ECONNREFUSED');
    });

    it('follows the whole schedule and then fails: 10 attempts', async () => {
      const h = use();
      const { t } = await setup(h, 'rall');
      rx.script = Array.from({ length: 10 }, () => ({ status: 503 }));
      await endCall(h, t, 'rall');
      await deliverDue(h);
      for (const [i, secs] of SCHEDULE_S.entries()) {
        const [d] = await deliveries(h, t);
        expect(d!.attempts, `after attempt ${i + 1}`).toHaveLength(i + 1);
        const wait = (await nextAt(h, d!.deliveryId)) - h.clock.now();
        expect(wait, `delay ${i + 1}`).toBeGreaterThanOrEqual(secs * 800);
        expect(wait, `delay ${i + 1}`).toBeLessThanOrEqual(secs * 1200);
        h.clock.advance(wait);
        await deliverDue(h);
      }
      const [d] = await deliveries(h, t);
      expect(d!.status).toBe('failed');
      expect(d!.attempts).toHaveLength(10);
      expect(rx.script).toEqual([]);
    });
  },
  { config: { webhookAllowPrivate: true, webhookTimeoutMs: 300 } },
);
