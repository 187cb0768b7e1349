import { afterAll, expect, it } from 'vitest';
import { forEachDatabase } from '../helpers/harness.js';
import { closeReaders } from '../helpers/sse.js';
import { agentSession, answeredByAgent, dialled, endCall, op, progressiveAnswered, started, status, tickAndRead, world } from './campaigns.fixtures.js';
import { advance, ev, ingestOk } from './events.fixtures.js';

afterAll(() => closeReaders());

const nums = (n: number) => Array.from({ length: n }, (_, i) => `91970${String(Math.floor(Math.random() * 90_000) + 10_000)}${i}`);

forEachDatabase(
  'campaign calls: outcomes, dispositions, callbacks, preview',
  (use) => {
    it('a disposition by the agent on the call: final → done; unknown code 1000; another agent 1015; none within 10 minutes → completed', async () => {
      const h = use();
      const numbers = nums(2);
      const w = await world(h, { agents: 2, numbers });
      // The numbers have Directory contacts: their other.obd shows the campaign's last word on them.
      for (const number of numbers)
        expect((await h.post('/api/v2/Directory/create', { ssid: w.t.ssid, contact: number, contactinfo: { name: 'Asha' } })).body.status).toBe('success');
      const id = await started(h, w);
      const calls = await tickAndRead(h, w);
      expect(calls).toHaveLength(2);
      for (const c of calls) await progressiveAnswered(h, w, c);
      for (const c of calls) await endCall(h, w, String(c.callId));
      const [a1, a2] = w.agents;
      const onCall = calls.find((c) => c.agentId === a1!.agentId)!;
      const s1 = await agentSession(h, a1!);
      const s2 = await agentSession(h, a2!);
      expect((await op(h, s1, 'disposition', { callId: onCall.callId, disposition: 'bogus' })).code).toBe(1000);
      expect((await op(h, s2, 'disposition', { callId: onCall.callId, disposition: 'sale' })).code).toBe(1015);
      expect((await op(h, s1, 'disposition', { callId: 'obd-nope', disposition: 'sale' })).code).toBe(1012);
      expect((await op(h, s1, 'disposition', { callId: onCall.callId, disposition: 'sale' })).status).toBe('success');
      expect((await status(h, w, id)).contacts).toMatchObject({ done: 1 });
      // The other call waits for its disposition; ten minutes after its end it is completed (final), not before.
      advance(h, 599);
      await tickAndRead(h, w);
      expect((await status(h, w, id)).contacts).toMatchObject({ done: 1 });
      advance(h, 2);
      await tickAndRead(h, w);
      expect((await status(h, w, id)).contacts).toMatchObject({ done: 2 });
      // Shown by the tick that completed it (the dispositions it sets are shown in the same tick).
      for (const c of calls) {
        const obd = await h.post<{ data: Record<string, unknown> }>('/api/v2/Directory/getFields', { ssid: w.t.ssid, contact: c.customer, project: 'obd' });
        expect(obd.body.data.obd, String(c.customer)).toBe(c === onCall ? 'sale' : 'completed');
      }
    });

    it('callback: dialled again at callbackAt, first in line; dnc: a permanent DNC on the number', async () => {
      const h = use();
      const numbers = nums(3);
      const w = await world(h, { agents: 1, numbers });
      await started(h, w);
      const [c1] = await tickAndRead(h, w);
      await progressiveAnswered(h, w, c1!);
      await endCall(h, w, String(c1!.callId));
      const at = Math.floor(h.clock.now() / 1000) + 300;
      expect((await op(h, w.t, 'disposition', { callId: c1!.callId, disposition: 'callback' })).code).toBe(1000);
      expect((await op(h, w.t, 'disposition', { callId: c1!.callId, disposition: 'callback', callbackAt: at })).status).toBe('success');
      // Meanwhile the next contact in list order.
      const [c2] = await tickAndRead(h, w);
      expect(c2!.customer).toBe(numbers[1]);
      await progressiveAnswered(h, w, c2!);
      await endCall(h, w, String(c2!.callId));
      expect((await op(h, w.t, 'disposition', { callId: c2!.callId, disposition: 'dnc' })).status).toBe('success');
      const dnc = await h.post('/api/v2/Directory/getDnc', { ssid: w.t.ssid, contact: numbers[1] });
      expect(dnc.body.data).toEqual({ dnc: -1 });
      advance(h, 300);
      // The callback is due: it goes before the third contact, which has fewer attempts.
      const [c3] = await tickAndRead(h, w);
      expect(c3).toMatchObject({ customer: numbers[0], retryOf: c1!.callId });
    });

    it('a predictive call a person answers and an agent takes waits for its disposition; a machine (hangup) retries after its delay', async () => {
      const h = use();
      const numbers = nums(2);
      const w = await world(h, { agents: 1, numbers });
      const id = await started(h, w, { mode: 'predictive', maxAbandonRate: 100, retryDelays: { machine: 60 } });
      const calls = await tickAndRead(h, w);
      expect(calls.length).toBeGreaterThanOrEqual(1);
      const human = calls[0]!;
      await answeredByAgent(h, w, human, w.agents[0]!.agentId);
      const machine = calls[1];
      if (machine) {
        await ingestOk(h, w.t.ssid, [
          ev(h, 'call.dialing', { callId: machine.callId, direction: 'outbound' }),
          ev(h, 'call.connected', { callId: machine.callId, answeredBy: 'machine' }),
          ev(h, 'call.ended', { callId: machine.callId, reason: 'machine' }),
        ]);
      }
      await endCall(h, w, String(human.callId));
      const s = await status(h, w, id);
      expect(s.window).toEqual({ humanAnswered: 1, abandoned: 0, abandonRate: 0 });
      expect((await op(h, await agentSession(h, w.agents[0]!), 'disposition', { callId: human.callId, disposition: 'not_interested' })).status).toBe('success');
      if (machine) {
        advance(h, 60);
        const again = await tickAndRead(h, w);
        expect(again.map((c) => c.customer)).toContain(machine.customer);
      }
    });

    it('preview: an agent holds the next contact 60 s, dials it (the command names the agent) or skips it', async () => {
      const h = use();
      const numbers = nums(2);
      const w = await world(h, { agents: 2, numbers });
      const id = await started(h, w, { mode: 'preview' });
      // Preview never dials by itself.
      expect(await tickAndRead(h, w)).toEqual([]);
      const s1 = await agentSession(h, w.agents[0]!);
      const s2 = await agentSession(h, w.agents[1]!);
      const p1 = (await op(h, s1, 'preview', { campaignId: id })).data as { contactId: number; number: string };
      expect(p1.number).toBe(numbers[0]);
      // Asking again answers the same contact; another agent gets the next.
      expect(((await op(h, s1, 'preview', { campaignId: id })).data as { contactId: number }).contactId).toBe(p1.contactId);
      const p2 = (await op(h, s2, 'preview', { campaignId: id })).data as { contactId: number; number: string };
      expect(p2.number).toBe(numbers[1]);
      expect((await op(h, s2, 'previewDial', { campaignId: id, contactId: p1.contactId })).code).toBe(1524);
      expect((await op(h, s2, 'previewSkip', { campaignId: id, contactId: p2.contactId })).status).toBe('success');
      const dial = await op(h, s1, 'previewDial', { campaignId: id, contactId: p1.contactId });
      expect(dial.status, JSON.stringify(dial)).toBe('success');
      const [cmd] = await dialled(h, w);
      expect(cmd).toMatchObject({ callId: (dial.data as { callId: string }).callId, customer: numbers[0], agentId: w.agents[0]!.agentId });
      // The skipped contact is there for anyone; a held one is free again after 60 s.
      expect(((await op(h, s2, 'preview', { campaignId: id })).data as { number: string }).number).toBe(numbers[1]);
      advance(h, 61);
      expect(((await op(h, s1, 'preview', { campaignId: id })).data as { number: string }).number).toBe(numbers[1]);
      // A client is not an agent: preview is for agents.
      expect((await op(h, w.t, 'preview', { campaignId: id })).code).toBe(1015);
    });
  },
  { config: { campaignDialer: false } },
);
