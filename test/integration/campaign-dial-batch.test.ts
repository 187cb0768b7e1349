import { afterAll, expect, it } from 'vitest';
import { tenant } from '../../src/db/tenant.js';
import type { Queryable } from '../../src/db/types.js';
import { CampaignLeaseRepository } from '../../src/modules/campaign/campaign.repository.js';
import type { ContactListsPort } from '../../src/modules/campaign/contact-lists.port.js';
import { Dialer } from '../../src/modules/campaign/dialer.js';
import { DialerWorker } from '../../src/modules/campaign/dialer.worker.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { baseUrl, closeReaders, openSse } from '../helpers/sse.js';
import { createList, dialled, noAnswer, started, status, tickAndRead, world, type World, freshNumbers, ok } from './campaigns.fixtures.js';
import { advance } from './events.fixtures.js';

/*
 * A campaign's dials of one tick are placed in one transaction
 * (modules/campaign/dial-batch.ts): each rule must still hold for every dial
 * of the batch, a refused one must not take the others with it, and each
 * command must reach the switch as before, a group with its own sequence.
 */

afterAll(() => closeReaders());

const numbers = (n: number, base = 919810100000) => freshNumbers(n, base);

/** The attempts of the campaign's contacts, by number (nothing dialled: all 0). */
async function attempts(h: Harness, w: World, campaignId: number): Promise<Record<string, number>> {
  const rows = await h.db.all<{ number: string; attempts: number }>(
    'SELECT number, attempts FROM campaign_contacts WHERE account_id = $1 AND campaign_id = $2',
    [w.t.accountId, campaignId],
  );
  return Object.fromEntries(rows.map((r) => [r.number, Number(r.attempts)]));
}

/** The attempt rows of the campaign's contacts, by number: attempts and the call each is in. */
async function attemptRows(h: Harness, w: World, campaignId: number): Promise<Record<string, { attempts: number; in_call: string | null }>> {
  const rows = await h.db.all<{ number: string; attempts: number; in_call: string | null }>(
    'SELECT number, attempts, in_call FROM campaign_contacts WHERE account_id = $1 AND campaign_id = $2',
    [w.t.accountId, campaignId],
  );
  return Object.fromEntries(rows.map((r) => [r.number, { attempts: Number(r.attempts), in_call: r.in_call }]));
}

/**
 * The node's list port, with `hook` run once in a dial batch's transaction
 * (given it) just after the batch read its candidates: the batch's first
 * read of the lists (`contactsByIds`, the candidates' list contacts) comes
 * right after, before the account's lock and the batch's write.
 */
function afterCandidatesRead(lists: ContactListsPort, hook: (tx: Queryable) => Promise<void>): ContactListsPort {
  let fired = false;
  const contactsByIds: ContactListsPort['contactsByIds'] = async (accountId, ids, q) => {
    if (q && !fired) {
      fired = true;
      await hook(q);
    }
    return lists.contactsByIds(accountId, ids, q);
  };
  return new Proxy(lists, {
    get: (target, prop) => {
      if (prop === 'contactsByIds') return contactsByIds;
      const v: unknown = Reflect.get(target, prop, target);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
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
      await new CampaignLeaseRepository(tenant(h.db, 0)).claim(nodeB.owner, h.clock.now(), h.clock.now() + 15_000, h.clock.now() + 10_000);
      const before = await attempts(h, w, id);
      // Node A wakes up mid-tick, its pacing decided: the batch finds the lease is B's.
      const figures = await h.services.dialer.tick(w.t.accountId, id, nodeA.owner, () => ({ dials: 1, as: 'progressive', fallback: false, budget: 0 }));
      expect(figures?.dialled).toBe(0);
      expect(await dialled(h, w)).toEqual([]);
      expect(await attempts(h, w, id)).toEqual(before);
      expect((await nodeB.tick()).map((x) => x.campaignId)).toContain(id);
      expect(await dialled(h, w)).toHaveLength(1);
    });

    it('a contact’s attempts moved by another node between the batch’s read and its write: the whole batch rolls back, places nothing; the next tick dials both', async () => {
      const h = use();
      const nums = numbers(2);
      const w = await world(h, { agents: 2, numbers: nums });
      const id = await started(h, w, { maxAttempts: 3 });
      const s = h.services;
      // Node B's own connection to the database.
      const nodeB = h.testDb.connect();
      try {
        let movedBy: string | null = null;
        const moveFirst = async (q: Queryable) => {
          movedBy = h.dialect;
          await q.run('UPDATE campaign_contacts SET attempts = attempts + 1 WHERE account_id = $1 AND campaign_id = $2 AND number = $3', [
            w.t.accountId,
            id,
            nums[0]!,
          ]);
        };
        // Node A: this node's services, its list port telling the test when a batch has read its candidates. There
        // node B moves the first contact's attempts: on PostgreSQL from its own connection, committed at once; on
        // SQLite no other connection can write while the batch's transaction (BEGIN IMMEDIATE) is open, so the one
        // write that can come between the read and the write is in that transaction (and rolls back with it).
        const nodeA = new Dialer({
          db: h.db,
          clock: h.clock,
          log: h.ctx.log,
          events: s.events,
          accounts: s.accounts,
          agents: s.agents,
          liveState: s.liveState,
          dnc: s.dnc,
          blacklist: s.blacklist,
          contacts: s.contacts,
          lists: afterCandidatesRead(s.contactLists, (tx) => moveFirst(h.dialect === 'postgres' ? nodeB : tx)),
          onDisposed: (accountId, callId) => s.webhooks.release(accountId, callId),
        });
        const figures = await nodeA.tick(w.t.accountId, id, null);
        expect(movedBy).toBe(h.dialect);
        // Both contacts were chosen (two free agents): neither is dialled, no command reaches the switch.
        expect(figures?.dialled).toBe(0);
        expect(await dialled(h, w)).toEqual([]);
        const [calls] = await h.db.all<{ n: number }>('SELECT COUNT(*) AS n FROM campaign_calls WHERE account_id = $1 AND campaign_id = $2', [
          w.t.accountId,
          id,
        ]);
        expect(Number(calls!.n)).toBe(0);
        // Node B's move stands where it was committed; nothing of node A's batch does.
        const moved = h.dialect === 'postgres' ? 1 : 0;
        expect(await attemptRows(h, w, id)).toEqual({ [nums[0]!]: { attempts: moved, in_call: null }, [nums[1]!]: { attempts: 0, in_call: null } });
        // The next tick dials both, each as its attempt count now says.
        const next = await tickAndRead(h, w);
        expect(next.map((c) => c.customer).sort()).toEqual([...nums].sort());
        const after = await attemptRows(h, w, id);
        expect(after[nums[0]!]!.attempts).toBe(moved + 1);
        expect(after[nums[1]!]!.attempts).toBe(1);
        expect(new Set(Object.values(after).map((a) => a.in_call))).toEqual(new Set(next.map((c) => c.callId)));
      } finally {
        await nodeB.close();
      }
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
