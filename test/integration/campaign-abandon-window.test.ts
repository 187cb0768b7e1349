import { afterAll, expect, it } from 'vitest';
import { tenant } from '../../src/db/tenant.js';
import { AbandonWindowRepository, type WindowFigures } from '../../src/modules/campaign/abandon-window.repository.js';
import { DialerRepository } from '../../src/modules/campaign/dialer.repository.js';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { closeReaders } from '../helpers/sse.js';
import { endCall, noAnswer, op, progressiveAnswered, started, status, tick, tickAndRead, world } from './campaigns.fixtures.js';
import { advance, ev, ingestOk } from './events.fixtures.js';

/*
 * The abandon window of §13 comes from counters per campaign and UTC hour
 * and day (migration 272), kept by the one writer of a dial's answer and
 * outcome (DialerRepository.changeDial). It must give exactly what a plain
 * count of the window's dials gives, from any window start: whole days,
 * whole hours, and the dials of the hour the start falls in.
 */

afterAll(() => closeReaders());

const HOUR = 3600;
const DAY = 86_400;

/** Window starts worth checking around the given dial times: each dial's second and the next, its hour's and day's edges. */
function startsAround(times: readonly number[]): number[] {
  const out = new Set<number>([0]);
  for (const t of times)
    for (const s of [t, t + 1, t - 1, t - (t % HOUR), t - (t % HOUR) + HOUR, t - (t % DAY), t - (t % DAY) + DAY, t - (t % DAY) + 1]) out.add(s);
  return [...out].sort((a, b) => a - b);
}

/** The counters' window equals the plain count from every start given (and they all in one read, as the tick reads them). */
async function expectExact(h: Harness, accountId: number, campaignIds: readonly number[], starts: readonly number[]): Promise<void> {
  const w = new AbandonWindowRepository(tenant(h.db, accountId));
  for (const since of starts) {
    const counted = await w.windowsOf(campaignIds.map((id) => ({ campaign_id: id, since })));
    for (const id of campaignIds) {
      const plain: WindowFigures = await w.fromDials(id, since);
      expect(counted.get(id), `campaign ${id} from ${since}`).toEqual(plain);
    }
  }
}

async function dialTimes(h: Harness, accountId: number, campaignId: number): Promise<number[]> {
  const rows = await tenant(h.db, accountId).all<{ dialled_at: number }>('SELECT dialled_at FROM campaign_calls WHERE account_id = $1 AND campaign_id = $2', [
    campaignId,
  ]);
  return rows.map((r) => Number(r.dialled_at));
}

/** A small deterministic generator (the same cases on every run and database). */
function rng(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    return s / 2_147_483_648;
  };
}

forEachDatabase('campaign dialer: the abandon window from its counters equals the plain count', (use) => {
  it('through the events and the dialer: answered, abandoned at connectSecs, abandoned by the switch, machine, a late answer, a call the dialer ends', async () => {
    const h = use();
    const numbers = Array.from({ length: 40 }, (_, i) => String(919_800_300_000 + Math.floor(Math.random() * 50_000) * 10 + i));
    const w = await world(h, { agents: 1, numbers });
    const id = await started(h, w, { mode: 'predictive', maxAbandonRate: 50, connectSecs: 2, ringSecs: 30 });
    const check = async () => {
      await expectExact(h, w.t.accountId, [id], startsAround(await dialTimes(h, w.t.accountId, id)));
      const s = await status(h, w, id);
      const since = h.services.dialer.windowStart((await h.services.dialer.campaign(w.t.accountId, id))!, Math.floor(h.clock.now() / 1000));
      const plain = await new AbandonWindowRepository(tenant(h.db, w.t.accountId)).fromDials(id, since);
      expect(s.window).toMatchObject(plain);
    };
    // Progressive first (nobody answered yet): the agent takes it, a person answers.
    const [c1] = await tickAndRead(h, w);
    await progressiveAnswered(h, w, c1!);
    await check();
    await endCall(h, w, String(c1!.callId));
    await op(h, w.t, 'disposition', { callId: c1!.callId, disposition: 'sale' });
    await check();
    const ahead = await tickAndRead(h, w);
    expect(ahead.length).toBeGreaterThan(1);
    // A person answers, nobody takes it: the dialer's own abandon at connectSecs, then the switch's end.
    await ingestOk(h, w.t.ssid, [
      ev(h, 'call.dialing', { callId: ahead[0]!.callId, direction: 'outbound' }),
      ev(h, 'call.connected', { callId: ahead[0]!.callId, answeredBy: 'human' }),
    ]);
    await check();
    advance(h, 3);
    await tick(h);
    await check();
    await endCall(h, w, String(ahead[0]!.callId), 'abandoned');
    await check();
    // The switch's abandon of a call nobody identified (counts as a person), a machine, then a late correction:
    // a call ended unanswered whose `call.connected` (a person) comes after its end.
    await noAnswer(h, w, String(ahead[1]!.callId), 'abandoned');
    await check();
    for (const c of ahead.slice(2)) await noAnswer(h, w, String(c.callId));
    let [m0] = await tickAndRead(h, w);
    for (let i = 0; i < 5 && m0 === undefined; i++) {
      advance(h, 1);
      [m0] = await tickAndRead(h, w);
    }
    expect(m0).toBeDefined();
    await ingestOk(h, w.t.ssid, [
      ev(h, 'call.dialing', { callId: m0!.callId, direction: 'outbound' }),
      ev(h, 'call.connected', { callId: m0!.callId, answeredBy: 'machine' }),
      ev(h, 'call.ended', { callId: m0!.callId, reason: 'machine' }),
    ]);
    await check();
    const more = [m0!];
    for (let i = 0; i < 5 && more.length < 2; i++) {
      advance(h, 1);
      more.push(...(await tickAndRead(h, w)));
    }
    expect(more.length).toBeGreaterThanOrEqual(2);
    await noAnswer(h, w, String(more[1]!.callId));
    await ingestOk(h, w.t.ssid, [ev(h, 'call.connected', { callId: more[1]!.callId, answeredBy: 'human' })]);
    await check();
    // The calls the switch never reported on: the dialer ends them as failed after ringSecs and its grace.
    await tickAndRead(h, w);
    advance(h, 30 + 301);
    await tick(h);
    await check();
    const t = tenant(h.db, w.t.accountId);
    const failed = await t.all<{ n: number }>("SELECT COUNT(*) AS n FROM campaign_calls WHERE account_id = $1 AND campaign_id = $2 AND outcome = 'failed'", [
      id,
    ]);
    expect(Number(failed[0]!.n)).toBeGreaterThanOrEqual(1);
    const plain = await new AbandonWindowRepository(t).fromDials(id, 0);
    expect(plain.humanAnswered).toBeGreaterThanOrEqual(4);
    expect(plain.abandoned).toBeGreaterThanOrEqual(2);
  });

  it('counters no window can read (ended over 31 days ago) are pruned by a dialer node once an hour; the window stays exact', async () => {
    const h = use();
    const numbers = Array.from({ length: 4 }, (_, i) => String(919_800_500_000 + Math.floor(Math.random() * 50_000) * 10 + i));
    const w = await world(h, { agents: 1, numbers });
    const id = await started(h, w, { mode: 'predictive', maxAbandonRate: 50 });
    const counters = async () =>
      Number(
        (await h.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM campaign_window_counts WHERE account_id = $1 AND campaign_id = $2', [w.t.accountId, id]))!.n,
      );
    const [c1] = await tickAndRead(h, w);
    await progressiveAnswered(h, w, c1!);
    await endCall(h, w, String(c1!.callId));
    // One person answered: an hour's and a day's counter.
    expect(await counters()).toBe(2);
    await tick(h);
    expect(await counters()).toBe(2);
    // 30 days on (the window's length): still within the kept 31 days.
    advance(h, 30 * DAY);
    await tick(h);
    expect(await counters()).toBe(2);
    // Two more days on, past an hour since the last prune: both counters end over 31 days ago and go.
    advance(h, 2 * DAY);
    await tick(h);
    expect(await counters()).toBe(0);
    const now = Math.floor(h.clock.now() / 1000);
    await expectExact(h, w.t.accountId, [id], [now - 30 * DAY, now - DAY, now]);
  });

  it('random changes of dials over three days, across hour and day edges, each in a transaction (one rolled back): exact from every start', async () => {
    const h = use();
    const { accountId } = await createTenant(h);
    const t = tenant(h.db, accountId);
    const random = rng(20_261_129);
    const base = 1_795_000_000 - (1_795_000_000 % DAY) - 7; // seven seconds before a UTC midnight
    const campaigns = [901, 902];
    const calls: Array<{ id: string; campaign: number; at: number }> = [];
    for (let i = 0; i < 240; i++) {
      // Clustered around hour and day edges, and spread over three days.
      const at =
        i % 3 === 0
          ? base + Math.floor(random() * 3 * DAY)
          : base + Math.floor(random() * 3) * DAY + Math.floor(random() * 4) * HOUR + Math.floor(random() * 15);
      calls.push({ id: `obd-window-${i}`, campaign: campaigns[i % 2]!, at });
    }
    // A seeded history with answers and outcomes written directly (as a benchmark seeds it), then counted.
    for (const [k, c] of calls.entries()) {
      const seeded = k % 4 === 0;
      const answeredBy = seeded ? (['human', 'machine', null][k % 3] ?? null) : null;
      const outcome = seeded ? (['abandoned', 'completed', 'no_answer', null][(k >> 2) % 4] ?? null) : null;
      await t.run(
        `INSERT INTO campaign_calls (account_id, call_id, campaign_id, contact_id, number, attempt, predictive, dialled_at, answered_by, outcome, ended_at)
         VALUES ($1, $2, $3, $4, '919000000000', 1, 1, $5, $6, $7, $8)`,
        [c.id, c.campaign, k, c.at, answeredBy, outcome, outcome === null ? null : c.at + 30],
      );
    }
    await h.db.transaction(async (tx) => {
      for (const id of campaigns) await new AbandonWindowRepository(tenant(tx, accountId)).recount(id);
    });
    const starts = startsAround(calls.map((c) => c.at));
    await expectExact(h, accountId, campaigns, starts);
    // Changes through the dialer's repository, as the events and the dialer make them.
    for (let i = 0; i < 400; i++) {
      const c = calls[Math.floor(random() * calls.length)]!;
      const r = random();
      await h.db.transaction(async (tx) => {
        const repo = new DialerRepository(tenant(tx, accountId));
        if (r < 0.3) await repo.callProgress(c.id, { connectedAt: c.at + 5, answeredBy: random() < 0.7 ? 'human' : 'machine' });
        else if (r < 0.5) await repo.markAbandoned(c.id);
        else if (r < 0.8) await repo.endCall(c.id, c.at + 40, ['abandoned', 'answered', 'no_answer', 'machine', 'failed'][Math.floor(random() * 5)]!);
        else await repo.callProgress(c.id, { agentAnsweredAt: c.at + 6, agentId: 7 });
      });
    }
    // A change whose transaction fails leaves the counters as they were, with the dial.
    const victim = calls.find((c) => c.campaign === 901)!;
    await expect(
      h.db.transaction(async (tx) => {
        const repo = new DialerRepository(tenant(tx, accountId));
        await repo.callProgress(victim.id, { answeredBy: 'human' });
        await repo.markAbandoned(victim.id);
        throw new Error('the node dies');
      }),
    ).rejects.toThrow('the node dies');
    await expectExact(h, accountId, campaigns, starts);
    const all = await new AbandonWindowRepository(t).fromDials(901, 0);
    expect(all.humanAnswered).toBeGreaterThan(20);
    expect(all.abandoned).toBeGreaterThan(10);
  });
});
