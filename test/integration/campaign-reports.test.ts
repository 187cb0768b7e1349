import { afterAll, beforeAll, expect, it } from 'vitest';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { closeReaders } from '../helpers/sse.js';
import { deliverDue, startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { endCall, noAnswer, op, progressiveAnswered, started, tickAndRead, world, type World } from './campaigns.fixtures.js';
import { advance, ev, ingestOk } from './events.fixtures.js';
import { createHook } from './webhooks.fixtures.js';

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  closeReaders();
  await receiver.close();
});

type Row = Record<string, unknown>;
const nums = (n: number) => Array.from({ length: n }, (_, i) => `91972${String(Math.floor(Math.random() * 90_000) + 10_000)}${i}`);

/** The push reports this tenant's subscription received, by callId (account ids repeat across the two databases: posts since `from`). */
function reportsOf(w: World, from: number): Map<string, Row> {
  const out = new Map<string, Row>();
  for (const p of receiver.posts().slice(from)) {
    const r = JSON.parse(p.body) as Row;
    if (r.userId === String(w.t.accountId)) out.set(String(r.callId), r);
  }
  return out;
}

async function hits(h: Harness, w: World, body: Row, from: number, to: number): Promise<Row> {
  const res = await h.post<{ data: Row }>('/api/v2/analysis/hits', {
    ssid: w.t.ssid,
    filter: [{ key: 'date', condi: 'range', val: `${from},${to}` }, ...((body.filter as Row[] | undefined) ?? [])],
    disPlay: 'total',
    fields: 'TC,AC,UC,CA',
    breakDown: body.breakDown,
  });
  expect(res.body.status, JSON.stringify(res.body)).toBe('success');
  return res.body.data;
}

forEachDatabase(
  'campaign calls: OBD push reports and analysis/hits by campaign',
  (use) => {
    it('push reports: campId, callDisposition (held until the disposition, or the service’s completed), retryOf, contactListData; a dial the queue never saw is reported', async () => {
      const h = use();
      h.clock.advance(1000 - (h.clock.now() % 1000));
      const seen = receiver.posts().length;
      const numbers = nums(3);
      const w = await world(h, {
        agents: 3,
        numbers: [{ number: numbers[0], name: 'Asha', fields: { plan: 'gold' } }, numbers[1]!, { number: numbers[2], timezone: 'Asia/Kolkata' }],
      });
      await createHook(h, w.t, { url: receiver.url, filter: { cType: ['OBD'] } });
      const id = await started(h, w, { retryDelays: { noAnswer: 60 } });
      const T0 = Math.floor(h.clock.now() / 1000);
      const calls = await tickAndRead(h, w);
      expect(calls.map((c) => c.customer)).toEqual(numbers);
      const [c1, c2, c3] = calls as Array<Row & { callId: string; agentId: number; customer: string }>;
      const contacts = (
        await h.post<{ data: Array<{ contact_id: number; number: string }> }>('/api/v2/contactList/contacts', { ssid: w.t.ssid, clId: w.clId, limit: 10 })
      ).body.data;
      const contactOf = (n: string) => contacts.find((c) => c.number === n)!.contact_id;

      // c2: nobody answers; the queue never sees it: reported at once.
      await noAnswer(h, w, c2!.callId);
      // c1: the switch queues it without campaignId (the service fills it in), the agent answers, it ends: its report waits for the disposition.
      await ingestOk(h, w.t.ssid, [
        ev(h, 'call.queued', { callId: c1!.callId, groupId: w.group, caller: c1!.customer, direction: 'outbound' }),
        ev(h, 'call.ringing', { callId: c1!.callId, agentId: c1!.agentId }),
        ev(h, 'call.answered', { callId: c1!.callId, agentId: c1!.agentId }),
        ev(h, 'call.dialing', { callId: c1!.callId, direction: 'outbound' }),
        ev(h, 'call.connected', { callId: c1!.callId, answeredBy: 'human' }),
      ]);
      advance(h, 30);
      await endCall(h, w, c1!.callId);
      await deliverDue(h);
      let got = reportsOf(w, seen);
      expect([...got.keys()]).toEqual([c2!.callId]);
      expect(got.get(c2!.callId)).toMatchObject({
        callStatus: 1,
        cType: 'OBD',
        DID: w.did,
        campId: id,
        cNumber: numbers[1],
        ivrDuration: 0,
        talkDuration: 0,
        masterAgent: null,
        firstAttended: null,
        nHDetail: [],
        callDisposition: 'no_answer',
        retryOf: null,
        contactListData: { clId: w.clId, contact_id: contactOf(numbers[1]!), number: numbers[1], name: '', timezone: '', fields: {} },
      });
      // queue/count's windowed rows count queued calls only: c1 (c2 never reached a queue).
      const count = await h.post<{ data: { user: Row[] } }>('/api/v2/queue/count', { ssid: w.t.ssid });
      expect(count.body.data.user).toEqual([expect.objectContaining({ add: 1, con: 1 })]);

      expect((await op(h, w.t, 'disposition', { callId: c1!.callId, disposition: 'sale' })).status).toBe('success');
      await deliverDue(h);
      got = reportsOf(w, seen);
      expect(got.get(c1!.callId)).toMatchObject({
        callStatus: 3,
        cType: 'OBD',
        campId: id,
        cNumber: numbers[0],
        masterAgent: c1!.agentId,
        talkDuration: 30,
        callDisposition: 'sale',
        retryOf: null,
        contactListData: { clId: w.clId, contact_id: contactOf(numbers[0]!), number: numbers[0], name: 'Asha', timezone: '', fields: { plan: 'gold' } },
      });

      // c3: answered, no disposition: reported with the service's `completed` ten minutes after its end.
      await progressiveAnswered(h, w, c3!);
      await endCall(h, w, c3!.callId);
      // c2's number again after its 60 s delay: the retry names the attempt before.
      advance(h, 61);
      const [c4] = (await tickAndRead(h, w)) as Array<Row & { callId: string }>;
      expect(c4).toMatchObject({ customer: numbers[1], retryOf: c2!.callId });
      await noAnswer(h, w, c4!.callId, 'busy');
      await deliverDue(h);
      got = reportsOf(w, seen);
      expect(got.has(c3!.callId)).toBe(false);
      expect(got.get(c4!.callId)).toMatchObject({ callStatus: 1, campId: id, callDisposition: 'busy', retryOf: c2!.callId });
      advance(h, 600);
      await tickAndRead(h, w);
      await deliverDue(h);
      got = reportsOf(w, seen);
      expect(got.get(c3!.callId)).toMatchObject({
        callStatus: 3,
        campId: id,
        callDisposition: 'completed',
        retryOf: null,
        contactListData: expect.objectContaining({ number: numbers[2], timezone: 'Asia/Kolkata' }),
      });
      expect(got.size).toBe(4);
      // CallReport/list shows the dials the queue never saw too, in the same shape.
      const list = await h.post<{ data: Row[] }>('/api/v2/CallReport/list', { ssid: w.t.ssid, cType: 'OBD', limit: 10 });
      expect(list.body.data.map((r) => r.callId).sort()).toEqual([c1!.callId, c2!.callId, c3!.callId, c4!.callId].sort());
      expect(list.body.data.find((r) => r.callId === c2!.callId)).toEqual(got.get(c2!.callId));
      // callStatus 1 selects the dials that ended before an offer (no answer, busy), not 0.
      const ended = await h.post<{ data: Row[] }>('/api/v2/CallReport/list', { ssid: w.t.ssid, callStatus: 1, limit: 10 });
      expect(ended.body.data.map((r) => r.callId).sort()).toEqual([c2!.callId, c4!.callId].sort());
      expect((await h.post<{ data: Row[] }>('/api/v2/CallReport/list', { ssid: w.t.ssid, callStatus: 0, limit: 10 })).body.data).toEqual([]);

      // analysis/hits by campaign: the hits of its calls (c1 queued without campaignId counts under it); dials without an offer add no hit.
      const to = Math.floor(h.clock.now() / 1000);
      expect(await hits(h, w, { breakDown: 'campaignId' }, T0, to)).toEqual({ [String(id)]: { TC: 2, AC: 2, UC: 2, CA: 2 } });
      const agentRows = await hits(h, w, { breakDown: 'agentId', filter: [{ key: 'campaignId', condi: 'eq', val: String(id) }] }, T0, to);
      expect(agentRows).toEqual({
        [String(c1!.agentId)]: { TC: 1, AC: 1, UC: 1, CA: 1 },
        [String(c3!.agentId)]: { TC: 1, AC: 1, UC: 1, CA: 1 },
      });
    });
  },
  { config: { campaignDialer: false, webhookAllowPrivate: true } },
);
