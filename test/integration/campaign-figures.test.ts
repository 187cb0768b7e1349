import { afterAll, expect, it } from 'vitest';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { closeReaders } from '../helpers/sse.js';
import { createCampaign, noAnswer, op, started, tickAndRead, world, type World } from './campaigns.fixtures.js';
import { advance, ev, ingestOk } from './events.fixtures.js';

afterAll(() => closeReaders());

type Row = Record<string, unknown>;
const nums = (n: number) => Array.from({ length: n }, (_, i) => `91971${String(Math.floor(Math.random() * 90_000) + 10_000)}${i}`);
const sec = (h: Harness) => Math.floor(h.clock.now() / 1000);

async function campIds(h: Harness, w: World, window?: number): Promise<Row[]> {
  const res = await h.post<{ data: { campId: Row[] } }>('/api/v2/queue/count', { ssid: w.t.ssid, ...(window !== undefined ? { window } : {}) });
  expect(res.body.status, JSON.stringify(res.body)).toBe('success');
  return res.body.data.campId;
}

/**
 * Five progressive dials at T0 (5 agents, 6 contacts), the suite answering as the switch:
 * c1 a person answers at T0 and an agent 4 s later, talk to T0+124, disposition sale (then 10 s of wrap-up in the report test);
 * c2 a machine; c3 no answer; c4 busy; c5 a person answers, no agent, abandoned.
 */
async function scenario(h: Harness) {
  // Whole seconds: the dials are stored in seconds, agent time is not.
  h.clock.advance(1000 - (h.clock.now() % 1000));
  const W = sec(h);
  const numbers = nums(6);
  const w = await world(h, { agents: 5, numbers });
  const id = await started(h, w);
  const T0 = sec(h);
  const calls = await tickAndRead(h, w);
  expect(calls.map((c) => c.customer)).toEqual(numbers.slice(0, 5));
  const [c1, c2, c3, c4, c5] = calls.map((c) => ({ callId: String(c.callId), agentId: Number(c.agentId), customer: String(c.customer) }));
  await ingestOk(h, w.t.ssid, [
    ev(h, 'call.dialing', { callId: c2!.callId, direction: 'outbound' }),
    ev(h, 'call.connected', { callId: c2!.callId, answeredBy: 'machine' }),
    ev(h, 'call.ended', { callId: c2!.callId, reason: 'machine' }),
    ev(h, 'call.dialing', { callId: c5!.callId, direction: 'outbound' }),
    ev(h, 'call.connected', { callId: c5!.callId, answeredBy: 'human' }),
    ev(h, 'call.dialing', { callId: c1!.callId, direction: 'outbound' }),
    ev(h, 'call.connected', { callId: c1!.callId, answeredBy: 'human' }),
  ]);
  await noAnswer(h, w, c3!.callId);
  await noAnswer(h, w, c4!.callId, 'busy');
  advance(h, 4);
  await ingestOk(h, w.t.ssid, [
    ev(h, 'call.queued', { callId: c1!.callId, groupId: w.group, campaignId: String(id), caller: c1!.customer, direction: 'outbound' }),
    ev(h, 'call.ringing', { callId: c1!.callId, agentId: c1!.agentId }),
    ev(h, 'call.answered', { callId: c1!.callId, agentId: c1!.agentId }),
  ]);
  return { w, id, T0, W, c1: c1!, c5: c5! };
}

forEachDatabase(
  'campaign figures: queue/count campId[], report/campaign',
  (use) => {
    it('queue/count campId[]: add dialled, drop abandoned, con connected to an agent (in the window), pen dialable now, process in progress', async () => {
      const h = use();
      const { w, id, c1, c5 } = await scenario(h);
      // A draft campaign is not listed; a running one is, even without dials.
      await createCampaign(h, w);
      const key = String(id);
      // T0+4: five dials; c1 connected; c1 and c5 in progress; the sixth contact dialable; c2–c4 wait for their retry.
      expect(await campIds(h, w)).toEqual([{ key, add: 5, drop: 0, con: 1, pen: 1, process: 2 }]);
      await ingestOk(h, w.t.ssid, [ev(h, 'call.ended', { callId: c5.callId, reason: 'abandoned' })]);
      expect(await campIds(h, w)).toEqual([{ key, add: 5, drop: 1, con: 1, pen: 1, process: 1 }]);
      advance(h, 120);
      await ingestOk(h, w.t.ssid, [ev(h, 'call.ended', { callId: c1.callId, reason: 'completed' })]);
      expect(await campIds(h, w)).toEqual([{ key, add: 5, drop: 1, con: 1, pen: 1, process: 0 }]);
      // A window of 100 s starts after the dials (T0+24): they leave add, drop and con.
      expect(await campIds(h, w, 100)).toEqual([{ key, add: 0, drop: 0, con: 0, pen: 1, process: 0 }]);
      // Paused: still listed; stopped, with no dial in the window and none in progress: not.
      expect((await op(h, w.t, 'pause', { campaignId: id })).status).toBe('success');
      expect(await campIds(h, w)).toEqual([{ key, add: 5, drop: 1, con: 1, pen: 1, process: 0 }]);
      expect((await op(h, w.t, 'stop', { campaignId: id })).status).toBe('success');
      advance(h, 300);
      expect(await campIds(h, w)).toEqual([]);
    });

    it('the service’s own abandon (connectSecs passed, no agent) is in campId[] drop at the next request, without a new event', async () => {
      const h = use();
      h.clock.advance(1000 - (h.clock.now() % 1000));
      const w = await world(h, { agents: 1, numbers: nums(2) });
      const id = await started(h, w, { connectSecs: 2 });
      const [c] = await tickAndRead(h, w);
      await ingestOk(h, w.t.ssid, [
        ev(h, 'call.dialing', { callId: c!.callId, direction: 'outbound' }),
        ev(h, 'call.connected', { callId: c!.callId, answeredBy: 'human' }),
      ]);
      advance(h, 4);
      const key = String(id);
      expect(await campIds(h, w)).toEqual([{ key, add: 1, drop: 0, con: 0, pen: 1, process: 1 }]);
      // Same second, no event: the dialer's tick counts the abandon; the cached answer is not served again.
      await tickAndRead(h, w);
      expect(await campIds(h, w)).toEqual([{ key, add: 1, drop: 1, con: 0, pen: 1, process: 1 }]);
      const s = (await op(h, w.t, 'status', { campaignId: id })).data as { window: Row };
      expect(s.window).toEqual({ humanAnswered: 1, abandoned: 1, abandonRate: 100 });
    });

    it('report/campaign: every figure by hand, an empty campaign has zeros and null rates, campaignId filter, 1012, CSV', async () => {
      const h = use();
      const { w, id, T0, W, c1, c5 } = await scenario(h);
      const other = await createCampaign(h, w);
      await ingestOk(h, w.t.ssid, [ev(h, 'call.ended', { callId: c5.callId, reason: 'abandoned' })]);
      advance(h, 120);
      await ingestOk(h, w.t.ssid, [ev(h, 'call.ended', { callId: c1.callId, reason: 'completed' })]);
      expect((await op(h, w.t, 'disposition', { callId: c1.callId, disposition: 'sale' })).status).toBe('success');
      // c1's agent wraps the call up for 10 s: aht = 120 (talk) + 10 (wrap-up).
      await ingestOk(h, w.t.ssid, [ev(h, 'agent.wrapup.start', { agentId: c1.agentId, callId: c1.callId })]);
      advance(h, 10);
      await ingestOk(h, w.t.ssid, [ev(h, 'agent.wrapup.end', { agentId: c1.agentId })]);
      // The agents log out at T0+200: 5 agents × 200 s logged in (W = T0), 120 s of talk.
      advance(h, 66);
      expect(T0).toBe(W);
      await ingestOk(
        h,
        w.t.ssid,
        w.agents.map((a) => ev(h, 'agent.logout', { agentId: a.agentId })),
      );
      const L = sec(h);
      const start = Math.floor(W / 900) * 900;
      const end = Math.floor(L / 900) * 900 + 900;
      const res = await h.post<{ data: Row[] }>('/api/v2/report/campaign', { ssid: w.t.ssid, from: W, to: L, interval: 'total' });
      expect(res.body.status, JSON.stringify(res.body)).toBe('success');
      const row = {
        campaignId: id,
        start,
        end,
        dialled: 5,
        humanAnswered: 2,
        machine: 1,
        noAnswer: 1,
        busy: 1,
        failed: 0,
        connected: 1,
        abandoned: 1,
        abandonRate: 50,
        contactRate: 40,
        avgConnectWait: 4,
        aht: 130,
        dispositions: { sale: 1 },
        agentTalkShare: 12,
      };
      const empty = {
        campaignId: other,
        start,
        end,
        dialled: 0,
        humanAnswered: 0,
        machine: 0,
        noAnswer: 0,
        busy: 0,
        failed: 0,
        connected: 0,
        abandoned: 0,
        abandonRate: null,
        contactRate: null,
        avgConnectWait: null,
        aht: null,
        dispositions: {},
        agentTalkShare: 12,
      };
      expect(res.body.data).toEqual([row, empty]);
      const one = await h.post<{ data: Row[] }>('/api/v2/report/campaign', { ssid: w.t.ssid, from: W, to: L, interval: 'total', campaignId: id });
      expect(one.body.data).toEqual([row]);
      expect((await h.post('/api/v2/report/campaign', { ssid: w.t.ssid, from: W, to: L, interval: 'total', campaignId: 999_999 })).body.code).toBe(1012);
      expect((await h.post('/api/v2/report/campaign', { ssid: w.t.ssid, from: L, to: W, interval: 'total' })).body.code).toBe(1001);
      // By 15 minutes: the dials fall in the quarter hour of T0; the other quarters of the range are present with zeros.
      const q = await h.post<{ data: Row[] }>('/api/v2/report/campaign', { ssid: w.t.ssid, from: W, to: L, interval: '15m', campaignId: id });
      const quarters = (end - start) / 900;
      expect(q.body.data).toHaveLength(quarters);
      const atT0 = Math.floor(T0 / 900) * 900;
      for (const r of q.body.data) expect(r.dialled).toBe(r.start === atT0 ? 5 : 0);
      const csv = await h.app.inject({
        method: 'POST',
        url: '/api/v2/report/campaign',
        payload: { ssid: w.t.ssid, from: W, to: L, interval: 'total', format: 'csv' },
      });
      expect(csv.headers['content-type']).toMatch(/^text\/csv/);
      expect(csv.body.split('\r\n')).toEqual([
        'campaignId,start,end,dialled,humanAnswered,machine,noAnswer,busy,failed,connected,abandoned,abandonRate,contactRate,avgConnectWait,aht,dispositions.sale,agentTalkShare',
        `${id},${start},${end},5,2,1,1,1,0,1,1,50,40,4,130,1,12`,
        `${other},${start},${end},0,0,0,0,0,0,0,0,,,,,,12`,
        '',
      ]);
    });
  },
  { config: { campaignDialer: false } },
);
