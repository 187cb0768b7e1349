import { afterAll, expect, it } from 'vitest';
import { tenant } from '../../src/db/tenant.js';
import { callIds, recentDials } from '../../bench/pacing-replay.js';
import { sampleOf } from '../../src/modules/campaign/dial-sample.js';
import { ANSWER_SAMPLE, humanRateOf, learned } from '../../src/modules/campaign/dialer.js';
import { DialerRepository, type RecentDial } from '../../src/modules/campaign/dialer.repository.js';
import type { PacingInput } from '../../src/modules/campaign/pacing.js';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { closeReaders } from '../helpers/sse.js';
import { started, world } from './campaigns.fixtures.js';

/*
 * The predictive look-ahead learns from each predictive campaign's last
 * dials with a result, read for all the account's predictive campaigns in
 * one statement per 8 (DialerRepository.recentDialsOf, the plain path):
 * each campaign must get exactly its own last N, newest first, ties on the
 * second by call id. The tick reads them added up by the database
 * (DialerRepository.samplesOf: one statement on PostgreSQL, grouped by the
 * seconds to the answer and who answered): exactly what `sampleOf` adds up
 * of the plain path's rows.
 */

afterAll(() => closeReaders());

interface Seeded extends RecentDial {
  call_id: string;
}

/**
 * `count` dials of the campaign up to `end`, two to each second (ties),
 * their seconds interleaved with the other campaigns' (`slot`), the newest
 * three still ringing (no result: never learned from; dialled less than
 * ringSecs ago, so a tick leaves them alone), the next one answered and
 * still talking (a result); each campaign answered in its own proportion.
 * Every seventh person "answered" two seconds before the dial (a switch's
 * clock ahead: counted at 0 s, with those answered in the dial's second), and wrap-ups have
 * tenths of a second (a real column: summed in whole milliseconds).
 */
function dialsOf(campaignId: number, slot: number, count: number, end: number): Array<Seeded & { resolved: boolean }> {
  return Array.from({ length: count }, (_, j) => {
    const at = end - Math.floor((count - 1 - j) / 2) * 10 + slot;
    const ringing = j >= count - 3;
    const talking = j === count - 4;
    const human = j % (slot + 2) === 0 || talking;
    return {
      // The same length for every id: the same order in any collation.
      call_id: `obd-c${String(campaignId).padStart(8, '0')}-${String(j).padStart(4, '0')}`,
      dialled_at: at,
      connected_at: ringing ? null : human ? (j % 7 === 0 ? at - 2 : j % 4 === 0 ? at : at + 5 + slot) : null,
      answered_by: ringing ? null : human ? 'human' : null,
      agent_answered_at: !ringing && human ? at + 6 + slot : null,
      ended_at: ringing || talking ? null : human ? at + 60 + j : at + 20,
      wrap_secs: human && !ringing ? slot + 1 + (j % 4) * 0.1 : 0,
      resolved: !ringing,
    };
  });
}

async function insert(h: Harness, accountId: number, campaignId: number, rows: readonly Seeded[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 100) {
    const chunk = rows.slice(i, i + 100);
    const params: Array<string | number | null> = [];
    const values = chunk.map((r, k) => {
      params.push(r.call_id, r.dialled_at, r.connected_at, r.answered_by, r.agent_answered_at, r.ended_at, r.wrap_secs);
      const p = (n: number) => `$${3 + k * 7 + n}`;
      return `(CAST($1 AS BIGINT), ${p(0)}, CAST($2 AS BIGINT), ${1000 + i + k}, '919000000000', 1, 1, CAST(${p(1)} AS BIGINT), CAST(${p(2)} AS BIGINT), ${p(3)}, CAST(${p(4)} AS BIGINT), CAST(${p(5)} AS BIGINT), ${p(6)})`;
    });
    await h.db.run(
      `INSERT INTO campaign_calls (account_id, call_id, campaign_id, contact_id, number, attempt, predictive, dialled_at, connected_at, answered_by, agent_answered_at, ended_at, wrap_secs)
       VALUES ${values.join(', ')}`,
      [accountId, campaignId, ...params],
    );
  }
}

/** What a single read of the campaign's last `n` would answer: resolved, newest first, ties by call id. */
function lastOf(rows: ReadonlyArray<Seeded & { resolved: boolean }>, n: number): RecentDial[] {
  return rows
    .filter((r) => r.resolved)
    .sort((a, b) => b.dialled_at - a.dialled_at || (a.call_id < b.call_id ? 1 : a.call_id > b.call_id ? -1 : 0))
    .slice(0, n)
    .map(asRecentDial);
}

/** A seeded row as the repository reads it back. */
function asRecentDial({ dialled_at, connected_at, answered_by, agent_answered_at, ended_at, wrap_secs }: Seeded): RecentDial {
  return { dialled_at, connected_at, answered_by, agent_answered_at, ended_at, wrap_secs };
}

forEachDatabase(
  'campaign dialer: the predictive campaigns’ recent dials, read for the account at once',
  (use) => {
    it('ten campaigns (two statements): each gets exactly its own last N, newest first, ties by call id; another account’s dials of the same ids are not read', async () => {
      const h = use();
      const w = await world(h, { agents: 1 });
      const ids: number[] = [];
      const seeded = new Map<number, ReturnType<typeof dialsOf>>();
      const end = Math.floor(h.clock.now() / 1000) - 10;
      for (let slot = 0; slot < 10; slot++) {
        const id = await started(h, w, { mode: 'predictive', maxLines: 10 + slot });
        ids.push(id);
        // Slot 9 has fewer results (4) than N: all of them.
        const rows = dialsOf(id, slot, slot === 9 ? 7 : 12 + slot, end);
        seeded.set(id, rows);
        await insert(h, w.t.accountId, id, rows);
      }
      // Another tenant's dials under the same campaign ids, newer than all of these.
      const other = await createTenant(h);
      for (const id of ids.slice(0, 3)) await insert(h, other.accountId, id, dialsOf(id, 0, 12, end + 5));

      const repo = new DialerRepository(tenant(h.db, w.t.accountId));
      const got = await repo.recentDialsOf(ids, 5);
      expect([...got.keys()].sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
      for (const id of ids) expect(got.get(id), `campaign ${id}`).toEqual(lastOf(seeded.get(id)!, 5));
      expect(got.get(ids[9]!)).toHaveLength(4);
      // Ties on the second: slot 0's second and third newest (dials 7 and 6) share one, the higher call id first.
      const [, seventh, sixth] = got.get(ids[0]!)!;
      expect(seventh!.dialled_at).toBe(sixth!.dialled_at);
      expect([seventh!.answered_by, sixth!.answered_by]).toEqual([null, 'human']);
      // A campaign without dials gets none; the order of the ids asked does not matter.
      const empty = await started(h, w, { mode: 'predictive' });
      const again = await repo.recentDialsOf([empty, ...[...ids].reverse()], 5);
      expect(again.get(empty)).toEqual([]);
      for (const id of ids) expect(again.get(id)).toEqual(got.get(id));

      // Added up by the database: what sampleOf makes of the same rows.
      const samples = await repo.samplesOf([empty, ...ids], 5);
      expect(samples.get(empty)).toEqual(sampleOf([]));
      for (const id of ids) expect(samples.get(id), `campaign ${id}`).toEqual(sampleOf(lastOf(seeded.get(id)!, 5)));
      const all = await repo.samplesOf(ids, 100);
      const plain = await repo.recentDialsOf(ids, 100);
      for (const id of ids) expect(all.get(id), `campaign ${id}, all its dials`).toEqual(sampleOf(plain.get(id)!));
      // The groups: fewer than the dials, a clock ahead counted at 0 s with those answered at once, fractions of wrap-up summed.
      const first = all.get(ids[0]!)!;
      expect(first.dials).toBe(9);
      expect(first.outcomes.length).toBeLessThan(first.dials);
      expect(first.outcomes.find((o) => o.secs === 0 && o.human)?.n).toBe(3);
      expect(first.wrapN).toBe(5);
      expect(first.wrapMs).toBeGreaterThan(5000);
    });

    it('bench/pacing-replay.ts picks the same recent dials in the same order as the service: ties on the second by call id, descending', async () => {
      const h = use();
      const w = await world(h, { agents: 1 });
      const id = await started(h, w, { mode: 'predictive' });
      const end = Math.floor(h.clock.now() / 1000) - 100;
      // Five dials a second over six seconds, placed in the replay's order with its call ids; every fourth without a result yet.
      const next = callIds(7);
      const rows: Array<Seeded & { resolved: boolean }> = Array.from({ length: 30 }, (_, j) => {
        const at = end - 5 + Math.floor(j / 5);
        const resolved = j % 4 !== 3;
        return {
          call_id: next(),
          dialled_at: at,
          connected_at: resolved && j % 2 === 0 ? at + 1 + (j % 7) : null,
          answered_by: resolved && j % 2 === 0 ? 'human' : null,
          agent_answered_at: null,
          ended_at: resolved ? at + 20 + j : null,
          wrap_secs: 0,
          resolved,
        };
      });
      await insert(h, w.t.accountId, id, rows);
      const byId = new Map(rows.map((r) => [r.call_id, { dialledAt: r.dialled_at, connectedAt: r.connected_at, endedAt: r.ended_at, row: r }]));
      const order = rows.map((r) => r.call_id);
      const repo = new DialerRepository(tenant(h.db, w.t.accountId));
      // 12: the last ones taken from the middle of a second.
      for (const n of [12, 30]) {
        const picked = recentDials(order, byId, n).map((k) => asRecentDial(k.row));
        expect(picked, `n ${n}`).toEqual((await repo.recentDialsOf([id], n)).get(id));
        expect(picked).toEqual(lastOf(rows, n));
      }
      // Not the order they were placed in (the replay's pick before): that would differ here.
      const placed = [...rows]
        .reverse()
        .filter((r) => r.resolved)
        .slice(0, 12)
        .map(asRecentDial);
      expect(recentDials(order, byId, 12).map((k) => asRecentDial(k.row))).not.toEqual(placed);
    });

    it('a tick: each predictive campaign’s pacing learns from its own last 200 (one campaign has 230), not another’s', async () => {
      const h = use();
      const w = await world(h, { agents: 1 });
      const end = Math.floor(h.clock.now() / 1000) - 10;
      const byMaxLines = new Map<number, RecentDial[]>();
      const ids: number[] = [];
      for (let slot = 0; slot < 9; slot++) {
        const id = await started(h, w, { mode: 'predictive', maxLines: 20 + slot });
        ids.push(id);
        const rows = dialsOf(id, slot, slot === 4 ? 230 : 20 + 3 * slot, end);
        await insert(h, w.t.accountId, id, rows);
        byMaxLines.set(20 + slot, lastOf(rows, ANSWER_SAMPLE));
      }
      expect(byMaxLines.get(24)).toHaveLength(ANSWER_SAMPLE);
      const inputs: PacingInput[] = [];
      // The pacing decision replaced by one that records what it was given and dials nothing.
      await h.services.dialer.tickAccount(w.t.accountId, ids, null, undefined, (input) => {
        inputs.push(input);
        return { dials: 0, as: 'predictive', fallback: false, budget: 0 };
      });
      expect(inputs.map((i) => i.maxLines).sort((a, b) => a - b)).toEqual([...byMaxLines.keys()]);
      for (const input of inputs) {
        const recent = byMaxLines.get(input.maxLines)!;
        const { outcomes, talkSecs, wrapSecs } = learned(sampleOf(recent));
        expect(input.humanRate, `maxLines ${input.maxLines}`).toBe(humanRateOf(sampleOf(recent)));
        expect(input.outlook).toMatchObject({ outcomes, talkSecs, wrapSecs });
      }
    });
  },
  { config: { campaignDialer: false } },
);
