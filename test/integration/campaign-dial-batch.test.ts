import { afterAll, expect, it } from 'vitest';
import { tenant } from '../../src/db/tenant.js';
import { CampaignLeaseRepository } from '../../src/modules/campaign/campaign.repository.js';
import { DialerWorker } from '../../src/modules/campaign/dialer.worker.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { baseUrl, closeReaders, openSse } from '../helpers/sse.js';
import { createList, dialled, noAnswer, started, status, tickAndRead, world, type World } from './campaigns.fixtures.js';
import { advance } from './events.fixtures.js';

/*
 * A campaign's dials of one tick are placed in one transaction
 * (modules/campaign/dial-batch.ts): each rule must still hold for every dial
 * of the batch, a refused one must not take the others with it, and each
 * command must reach the switch as before, a group with its own sequence.
 */

afterAll(() => closeReaders());

const numbers = (n: number, base = 919810100000) => Array.from({ length: n }, (_, i) => String(base + Math.floor(Math.random() * 50_000) * 10 + i));

async function ok(h: Harness, path: string, body: Record<string, unknown>) {
  const res = await h.post(path, body);
  expect(res.body.status, `${path} ${JSON.stringify(res.body)}`).toBe('success');
}

/** The attempts of the campaign's contacts, by number (nothing dialled: all 0). */
async function attempts(h: Harness, w: World, campaignId: number): Promise<Record<string, number>> {
  const rows = await h.db.all<{ number: string; attempts: number }>(
    'SELECT number, attempts FROM campaign_contacts WHERE account_id = $1 AND campaign_id = $2',
    [w.t.accountId, campaignId],
  );
  return Object.fromEntries(rows.map((r) => [r.number, Number(r.attempts)]));
}

forEachDatabase(
  'campaign dialer: one transaction for a campaign’s dials of a tick',
  (use) => {
    it('each command of the batch is a group of its own: its id is its seq, consecutive; a switch resuming after the first gets the others', async () => {
      const h = use();
      const w = await world(h, { agents: 3, numbers: numbers(3) });
      await started(h, w);
      const calls = await tickAndRead(h, w);
      expect(calls).toHaveLength(3);
      const sent = w.stream.messages.filter((m) => m.event === 'call.originate' && String(m.data.callId).startsWith('obd-'));
      const seqs = sent.map((m) => Number(m.data.seq));
      expect(sent.map((m) => m.id)).toEqual(seqs.map(String));
      expect(seqs).toEqual([seqs[0]!, seqs[0]! + 1, seqs[0]! + 2]);
      const sw = await h.post<{ userId: string; token: string }>('/api/v2/auth/token', { ssid: w.t.ssid, kind: 'switch' });
      const resumed = await openSse(`${await baseUrl(h)}/api/v2/stream?userId=${sw.body.userId}&token=${sw.body.token}`, { 'last-event-id': String(seqs[0]) });
      await resumed.next((m) => m.data.callId === calls[2]!.callId);
      const again = resumed.messages.filter((m) => m.event === 'call.originate' && String(m.data.callId).startsWith('obd-')).map((m) => m.data.callId);
      expect(again).toEqual([calls[1]!.callId, calls[2]!.callId]);
    });

    it('one batch: a number twice (two lists) is dialled once; a number put on DNC and one blacklisted are refused alone, the others dialled', async () => {
      const h = use();
      const [shared, onDnc, blocked, fine] = numbers(4);
      const w = await world(h, { agents: 4, numbers: [shared!, onDnc!, blocked!] });
      const second = await createList(h, w.t, [shared!, fine!]);
      const id = await started(h, w, { clIds: [w.clId, second] });
      await ok(h, '/api/v2/Directory/setDnc', { ssid: w.t.ssid, contact: onDnc, dnc: -1 });
      await ok(h, '/api/v2/Directory/Blacklist', { ssid: w.t.ssid, contact: blocked, DID: [w.did] });
      advance(h, 1);
      const calls = await tickAndRead(h, w);
      expect(calls.map((c) => c.customer).sort()).toEqual([shared, fine].sort());
      expect((await status(h, w, id)).contacts).toMatchObject({ excluded: 2 });
      // The second contact of the shared number waits for the first call to end, then is dialled.
      await noAnswer(h, w, String(calls.find((c) => c.customer === shared)!.callId));
      expect((await tickAndRead(h, w)).map((c) => c.customer)).toEqual([shared]);
    });

    it('the lease lost before the batch: nothing dialled, no contact touched; the node holding it dials them', async () => {
      const h = use();
      const nums = numbers(3);
      const w = await world(h, { agents: 1, numbers: nums });
      const id = await started(h, w);
      const nodeA = h.services.dialerWorker;
      const [first] = await tickAndRead(h, w);
      await noAnswer(h, w, String(first!.callId));
      // Node A stalls past its lease; node B takes the campaign over (its claim, before it dials).
      advance(h, 16);
      const nodeB = new DialerWorker({ db: h.db, clock: h.clock, log: h.ctx.log, dialer: h.services.dialer });
      await new CampaignLeaseRepository(tenant(h.db, 0)).claim(nodeB.owner, h.clock.now(), h.clock.now() + 15_000);
      const before = await attempts(h, w, id);
      // Node A wakes up mid-tick, its pacing decided: the batch finds the lease is B's.
      const figures = await h.services.dialer.tick(w.t.accountId, id, nodeA.owner, () => ({ dials: 1, as: 'progressive', fallback: false, budget: 0 }));
      expect(figures?.dialled).toBe(0);
      expect(await dialled(h, w)).toEqual([]);
      expect(await attempts(h, w, id)).toEqual(before);
      expect((await nodeB.tick()).map((x) => x.campaignId)).toContain(id);
      expect(await dialled(h, w)).toHaveLength(1);
    });

    it('maxLines holds at the moment of dialling, whatever the pacing asked', async () => {
      const h = use();
      const w = await world(h, { agents: 1, numbers: numbers(5) });
      const id = await started(h, w, { mode: 'predictive', maxLines: 2 });
      const figures = await h.services.dialer.tick(w.t.accountId, id, null, () => ({ dials: 5, as: 'predictive', fallback: false, budget: 5 }));
      expect(figures?.dialled).toBe(2);
      expect(await dialled(h, w)).toHaveLength(2);
      expect((await status(h, w, id)).lines).toBe(2);
    });
  },
  { config: { campaignDialer: false } },
);
