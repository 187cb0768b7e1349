import { afterAll, expect, it } from 'vitest';
import { tenant } from '../../src/db/tenant.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { closeReaders } from '../helpers/sse.js';
import { noAnswer, started, status, tickAndRead, world, type World, freshNumbers, ok } from './campaigns.fixtures.js';
import { advance } from './events.fixtures.js';

afterAll(() => closeReaders());

const numbers = (n: number, base = 919800300000) => freshNumbers(n, base);

/** A list callback through the vendor wire. */
const reschedule = (h: Harness, w: World, number: string, at: number) =>
  ok(h, '/api/v2/AddContactApi/addContact', { ssid: w.t.ssid, clId: w.clId, action: 1, record: { number }, campaignReschedule: at });

/** The campaign's list callbacks still to honour (what the dialer's due read can find). */
async function pending(h: Harness, w: World): Promise<number> {
  const row = await tenant(h.db, w.t.accountId).getValues('SELECT COUNT(*) FROM campaign_contacts WHERE account_id = $1 AND callback_at IS NOT NULL');
  return Number(row![0]);
}

forEachDatabase('campaign list callbacks (campaignReschedule)', (use) => {
  it('a callback is dialled first once due, however many callbacks no contact can take are older; a spent one is not read again', async () => {
    const h = use();
    // 101 callbacks the campaign can never honour (their numbers on a permanent DNC): more than the dialer's old due read took.
    const stale = numbers(101);
    const [a, b, c] = numbers(3, 919800400000);
    const w = await world(h, { agents: 1, numbers: [...stale, a!, b!, c!] });
    const now = Math.floor(h.clock.now() / 1000);
    for (const [i, n] of stale.entries()) {
      await reschedule(h, w, n, now - 10_000 + i);
      await ok(h, '/api/v2/Directory/setDnc', { ssid: w.t.ssid, contact: n, dnc: -1 });
    }
    const id = await started(h, w);
    // The stale callbacks go first and are excluded, a batch a tick; then the first contact in list order.
    let first: Array<Record<string, unknown>> = [];
    for (let i = 0; i < 20 && first.length === 0; i++) first = await tickAndRead(h, w);
    expect(first.map((x) => x.customer)).toEqual([a]);
    expect((await status(h, w, id)).contacts).toMatchObject({ excluded: 101 });
    expect(await pending(h, w)).toBe(0);
    await noAnswer(h, w, String(first[0]!.callId));
    // A callback for the last contact in list order, due now: dialled before b, once.
    advance(h, 1);
    await reschedule(h, w, c!, Math.floor(h.clock.now() / 1000) - 1);
    expect((await tickAndRead(h, w)).map((x) => x.customer)).toEqual([c]);
    expect(await pending(h, w)).toBe(0);
    const [call] = w.seen.size > 0 ? [...w.seen].slice(-1) : [];
    await noAnswer(h, w, call!);
    advance(h, 1);
    expect((await tickAndRead(h, w)).map((x) => x.customer)).toEqual([b]);
  }, 120_000);

  it('two running campaigns on one list each honour a callback once: each dials its contact first, not in list order', async () => {
    const h = use();
    const [a, b, c] = numbers(3, 919800500000);
    // One agent: one call at a time across both campaigns, each ended before the next tick.
    const w = await world(h, { agents: 1, numbers: [a!, b!, c!] });
    const x = await started(h, w);
    await reschedule(h, w, c!, Math.floor(h.clock.now() / 1000) - 1);
    // The first campaign honours it at once; the second starts only after that dial (a dial that spent the list's callback would leave it none).
    const [first] = await tickAndRead(h, w);
    expect(first).toMatchObject({ campaignId: String(x), customer: c });
    await noAnswer(h, w, String(first!.callId));
    advance(h, 1);
    const y = await started(h, w);
    const order = new Map<number, string[]>([
      [x, [c!]],
      [y, []],
    ]);
    for (let i = 0; i < 20 && [...order.values()].some((l) => l.length < 3); i++) {
      for (const call of await tickAndRead(h, w)) {
        order.get(Number(call.campaignId))!.push(String(call.customer));
        await noAnswer(h, w, String(call.callId));
      }
      advance(h, 1);
    }
    // Had the first campaign's dial spent the callback, the second would dial c last, in list order.
    expect(order.get(x)).toEqual([c, a, b]);
    expect(order.get(y)).toEqual([c, a, b]);
    expect(await pending(h, w)).toBe(0);
  }, 120_000);
});
