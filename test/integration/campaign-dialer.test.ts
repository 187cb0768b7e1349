import { afterAll, expect, it } from 'vitest';
import { DialerWorker } from '../../src/modules/campaign/dialer.worker.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { closeReaders } from '../helpers/sse.js';
import {
  createCampaign,
  createList,
  dialled,
  endCall,
  noAnswer,
  op,
  progressiveAnswered,
  started,
  status,
  tick,
  tickAndRead,
  world,
  freshNumbers,
  ok,
} from './campaigns.fixtures.js';
import { advance } from './events.fixtures.js';

afterAll(() => closeReaders());

const numbers = (n: number, base = 919800100000) => freshNumbers(n, base);

/** Another node's dialer on the harness's database and clock (a second lease owner). */
const node = (h: Harness) => new DialerWorker({ db: h.db, clock: h.clock, log: h.ctx.log, dialer: h.services.dialer, tickMs: 1000, leaseMs: 15_000 });

/** A campaign's lease as stored; on PostgreSQL with the row version (xmin), which any write changes. */
const leaseOf = (h: Harness, w: { t: { accountId: number } }, campaignId: number) =>
  h.db.get<{ lease_owner: string; lease_until: number; version?: string }>(
    `SELECT lease_owner, lease_until${h.db.dialect === 'postgres' ? ', CAST(xmin AS TEXT) AS version' : ''} FROM campaigns WHERE account_id = $1 AND campaign_id = $2`,
    [w.t.accountId, campaignId],
  );

/** The campaign ids a worker's tick held in the world's account (other tests' accounts share the database and the ids). */
const heldBy =
  (w: { t: { accountId: number } }) =>
  (held: Array<{ accountId: number; campaignId: number }>): number[] =>
    held.filter((x) => x.accountId === w.t.accountId).map((x) => x.campaignId);

forEachDatabase(
  'campaign dialer: compliance at the moment of dialling, pacing, leases',
  (use) => {
    it('progressive: one call per available agent, each naming its reserved agent; the command carries the campaign’s settings', async () => {
      const h = use();
      const nums = numbers(5);
      const w = await world(h, { agents: 2, numbers: nums });
      const id = await started(h, w, { ringSecs: 30, amd: true, connectSecs: 3 });
      const first = await tickAndRead(h, w);
      expect(first).toHaveLength(2);
      expect(new Set(first.map((c) => c.agentId))).toEqual(new Set(w.agents.map((a) => a.agentId)));
      expect(first.map((c) => c.customer)).toEqual(nums.slice(0, 2));
      expect(first[0]).toMatchObject({ campaignId: String(id), did: w.did, groupId: w.group, ringSecs: 30, amd: true, connectSecs: 3, retryOf: null });
      expect(String(first[0]!.callId)).toMatch(/^obd-/);
      // The agents are held by their calls: nothing more until one is free again.
      expect(await tickAndRead(h, w)).toEqual([]);
      expect((await status(h, w, id)).lines).toBe(2);
      await noAnswer(h, w, String(first[0]!.callId));
      const next = await tickAndRead(h, w);
      expect(next).toHaveLength(1);
      expect(next[0]).toMatchObject({ customer: nums[2], agentId: first[0]!.agentId });
    });

    it('a number put on DNC a second before its turn is not dialled; a permanent DNC excludes it', async () => {
      const h = use();
      const nums = numbers(2);
      const w = await world(h, { agents: 1, numbers: nums });
      const id = await started(h, w);
      advance(h, 1);
      await ok(h, '/api/v2/Directory/setDnc', { ssid: w.t.ssid, contact: nums[0], dnc: -1 });
      advance(h, 1);
      const calls = await tickAndRead(h, w);
      expect(calls.map((c) => c.customer)).toEqual([nums[1]]);
      expect((await status(h, w, id)).contacts).toMatchObject({ excluded: 1 });
    });

    it('blacklisted for the campaign’s DID, or other.blacklist in the Directory: not dialled', async () => {
      const h = use();
      const nums = numbers(3);
      const w = await world(h, { agents: 3, numbers: nums });
      await ok(h, '/api/v2/Directory/Blacklist', { ssid: w.t.ssid, contact: nums[0], DID: [w.did] });
      await ok(h, '/api/v2/Directory/create', { ssid: w.t.ssid, contact: nums[1], other: { blacklist: true } });
      await started(h, w);
      expect((await tickAndRead(h, w)).map((c) => c.customer)).toEqual([nums[2]]);
    });

    it("calling hours in the contact's zone: a contact outside them is not dialled while the campaign's zone is inside", async () => {
      const h = use();
      const hour = new Date(h.clock.now()).getUTCHours();
      const hh = (x: number) => `${String(((x % 24) + 24) % 24).padStart(2, '0')}:00`;
      // Inside for an hour either side of now in UTC; twelve hours later in the contact's zone (UTC+12), outside.
      const hours = { start: hh(hour - 1), end: hh(hour + 2), weekDays: [1, 2, 3, 4, 5, 6, 7] };
      const nums = numbers(2);
      const w = await world(h, { agents: 2, numbers: [{ number: nums[0], timezone: 'Etc/GMT-12' }, { number: nums[1] }] });
      await started(h, w, { callingHours: hours, timezone: 'UTC' });
      expect((await tickAndRead(h, w)).map((c) => c.customer)).toEqual([nums[1]]);
    });

    it('a retry due one second later is not dialled before its time; maxAttempts ends it', async () => {
      const h = use();
      const nums = numbers(1);
      const w = await world(h, { agents: 1, numbers: nums });
      const id = await started(h, w, { maxAttempts: 2, retryDelays: { noAnswer: 120 } });
      const [c1] = await tickAndRead(h, w);
      await noAnswer(h, w, String(c1!.callId));
      advance(h, 119);
      expect(await tickAndRead(h, w)).toEqual([]);
      advance(h, 1);
      const [c2] = await tickAndRead(h, w);
      expect(c2).toMatchObject({ customer: nums[0], retryOf: c1!.callId });
      await noAnswer(h, w, String(c2!.callId), 'busy');
      advance(h, 1000);
      expect(await tickAndRead(h, w)).toEqual([]);
      // No contact can be dialled again: the campaign completed by itself.
      expect((await status(h, w, id)).state).toBe('completed');
    });

    it('one call at a time to a number: two lists holding it, and two campaigns of the account', async () => {
      const h = use();
      const [shared, other] = numbers(2);
      const w = await world(h, { agents: 3, numbers: [shared!] });
      const second = await createList(h, w.t, [shared!, other!]);
      await started(h, w, { clIds: [w.clId, second] });
      await started(h, w, { clIds: [second] });
      const calls = await tickAndRead(h, w);
      expect(calls.filter((c) => c.customer === shared)).toHaveLength(1);
      expect(calls.filter((c) => c.customer === other)).toHaveLength(1);
    });

    it('contacts added to a list after the campaign read it to its end are dialled at the next tick', async () => {
      const h = use();
      const nums = numbers(2);
      const w = await world(h, { agents: 3, numbers: [nums[0]!] });
      await started(h, w);
      expect((await tickAndRead(h, w)).map((c) => c.customer)).toEqual([nums[0]]);
      // Read to its end: the ticks after it do not read the list again until something is added.
      advance(h, 1);
      expect(await tickAndRead(h, w)).toEqual([]);
      await ok(h, '/api/v2/contactList/import', { ssid: w.t.ssid, clId: w.clId, records: [{ number: nums[1] }] });
      advance(h, 1);
      expect((await tickAndRead(h, w)).map((c) => c.customer)).toEqual([nums[1]]);
    });

    it('never more than maxLines in progress', async () => {
      const h = use();
      const w = await world(h, { agents: 4, numbers: numbers(6) });
      await started(h, w, { maxLines: 2, dialRatio: 2 });
      expect(await tickAndRead(h, w)).toHaveLength(2);
      expect(await tickAndRead(h, w)).toHaveLength(0);
    });

    it('paused and stopped campaigns dial nothing', async () => {
      const h = use();
      const w = await world(h, { agents: 1, numbers: numbers(2) });
      const id = await started(h, w);
      await op(h, w.t, 'pause', { campaignId: id });
      expect(await tickAndRead(h, w)).toEqual([]);
      await op(h, w.t, 'start', { campaignId: id });
      expect(await tickAndRead(h, w)).toHaveLength(1);
    });

    it('predictive starts as progressive (no abandon budget yet), dials ahead once people answered, falls back when the next abandon would pass the limit', async () => {
      const h = use();
      const w = await world(h, { agents: 1, numbers: numbers(12) });
      const id = await started(h, w, { mode: 'predictive', maxAbandonRate: 50, connectSecs: 2 });
      // No one has answered yet: one abandon would be 100 %. Progressive: one call for the one agent.
      const [c1] = await tickAndRead(h, w);
      expect(c1!.agentId).toBe(w.agents[0]!.agentId);
      await progressiveAnswered(h, w, c1!);
      await endCall(h, w, String(c1!.callId));
      await op(h, w.t, 'disposition', { callId: c1!.callId, disposition: 'sale' });
      // One person answered, none abandoned: budget (0.5·1 − 0)/0.5 = 1 abandon. Dialled ahead, no agent named.
      const ahead = await tickAndRead(h, w);
      expect(ahead.length).toBeGreaterThan(1);
      expect(ahead.every((c) => c.agentId === undefined)).toBe(true);
      // A person answers one of them and no agent takes it within connectSecs: the service counts it abandoned.
      const { ev, ingestOk } = await import('./events.fixtures.js');
      await ingestOk(h, w.t.ssid, [
        ev(h, 'call.dialing', { callId: ahead[0]!.callId, direction: 'outbound' }),
        ev(h, 'call.connected', { callId: ahead[0]!.callId, answeredBy: 'human' }),
      ]);
      for (const c of ahead.slice(1)) await noAnswer(h, w, String(c.callId));
      advance(h, 3);
      await tick(h);
      expect((await status(h, w, id)).window).toEqual({ humanAnswered: 2, abandoned: 1, abandonRate: 50 });
      await endCall(h, w, String(ahead[0]!.callId), 'abandoned');
      // 1 of 2 abandoned: one more would pass 50 %. Progressive again: one call, for the agent.
      const back = await tickAndRead(h, w);
      expect(back).toHaveLength(1);
      expect(back[0]!.agentId).toBe(w.agents[0]!.agentId);
    });

    it('lease: two nodes on one database dial each campaign from one node at a time; the other takes over once the lease runs out', async () => {
      const h = use();
      const w = await world(h, { agents: 2, numbers: numbers(4) });
      const id = await started(h, w);
      const nodeA = h.services.dialerWorker;
      const nodeB = node(h);
      const ours = heldBy(w);
      expect(ours(await nodeA.tick())).toContain(id);
      // The other node's claim (on PostgreSQL its only statement: no look first) leaves a held lease's row as it was: no write (xmin).
      const lease = () => leaseOf(h, w, id);
      const before = await lease();
      advance(h, 1);
      expect(ours(await nodeB.tick())).not.toContain(id);
      expect(await lease()).toEqual(before);
      expect(await dialled(h, w)).toHaveLength(2);
      // Node A dies (stops ticking, its lease is not renewed): within 30 s node B holds the campaign.
      advance(h, 15);
      expect(ours(await nodeB.tick())).toContain(id);
      expect(ours(await nodeA.tick())).not.toContain(id);
    });

    it('lease: the holder renews it once a third has passed, not every tick; while it ticks no other node takes the campaign', async () => {
      const h = use();
      const w = await world(h, { agents: 2, numbers: numbers(4) });
      const id = await started(h, w);
      const nodeA = node(h);
      const nodeB = node(h);
      const ours = heldBy(w);
      const lease = () => leaseOf(h, w, id);
      expect(ours(await nodeA.tick())).toContain(id);
      const taken = await lease();
      expect(taken).toMatchObject({ lease_owner: nodeA.owner, lease_until: h.clock.now() + 15_000 });
      // Five ticks of the holder (5 s of a 15 s lease): held each time, its row not written (xmin too).
      for (let s = 1; s <= 5; s++) {
        advance(h, 1);
        expect(ours(await nodeA.tick())).toContain(id);
        expect(await lease()).toEqual(taken);
      }
      // The sixth: under two thirds left, renewed to a whole lease from now.
      advance(h, 1);
      expect(ours(await nodeA.tick())).toContain(id);
      expect(await lease()).toMatchObject({ lease_owner: nodeA.owner, lease_until: h.clock.now() + 15_000 });
      // Forty seconds of both nodes ticking every second: A holds it throughout, B never.
      for (let s = 0; s < 40; s++) {
        advance(h, 1);
        expect(ours(await nodeB.tick())).not.toContain(id);
        expect(ours(await nodeA.tick())).toContain(id);
      }
    });

    it('lease: a node that stops gives its campaigns up at once; another holds them on its next tick', async () => {
      const h = use();
      const w = await world(h, { agents: 2, numbers: numbers(4) });
      const id = await started(h, w);
      const nodeA = node(h);
      const nodeB = node(h);
      expect((await nodeA.tick()).map((x) => x.campaignId)).toContain(id);
      await nodeA.stop();
      // No time passes: the lease was given up, not left to run out.
      expect((await nodeB.tick()).map((x) => x.campaignId)).toContain(id);
    });

    it('a restart mid-campaign does not dial an attempt twice: the dial was recorded before its command', async () => {
      const h = use();
      const nums = numbers(2);
      const w = await world(h, { agents: 1, numbers: nums });
      await started(h, w);
      const [c1] = await tickAndRead(h, w);
      // A new process (a fresh lease owner) after the old one's lease ran out.
      advance(h, 20);
      const restarted = new DialerWorker({ db: h.db, clock: h.clock, log: h.ctx.log, dialer: h.services.dialer });
      await restarted.tick();
      expect(await dialled(h, w)).toEqual([]);
      await noAnswer(h, w, String(c1!.callId));
      await restarted.tick();
      expect((await dialled(h, w)).map((c) => c.customer)).toEqual([nums[1]]);
    });

    it('createCampaign over a list dials nothing while a draft', async () => {
      const h = use();
      const w = await world(h, { agents: 1, numbers: numbers(1) });
      await createCampaign(h, w);
      expect(await tickAndRead(h, w)).toEqual([]);
    });
  },
  { config: { campaignDialer: false } },
);
