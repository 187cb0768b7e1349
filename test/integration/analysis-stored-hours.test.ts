import { beforeAll, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { ManualClock } from '../../src/clock.js';
import { tryLock, unlock } from '../../src/db/locks.js';
import { HOUR_GRID_LOCK, HourGridJob } from '../../src/modules/analysis/hour-grid-job.js';
import { encodeHourCells } from '../../src/modules/analysis/answer/hour-grid-codec.js';
import type { CallRecord } from '../../src/modules/calls/call-record.js';
import type { Database } from '../../src/db/types.js';
import { createTenant, type Session } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { D, call, callHistory, store } from './analysis.fixtures.js';

type App = Awaited<ReturnType<typeof buildApp>>['app'];
type Answer = { code: number; data: Record<string, Record<string, Record<string, number>>> };

/**
 * A node's first ask of many hours (a month of hours by agent, or a range
 * ending now) sums whole UTC days of the hourly roll-up once and stores them
 * (analysis_hour_grids, answer/stored-hours.ts); a node started later reads
 * them. A stored day is used only under the day's current change mark, so a
 * late event on any node shows in the next node's answer.
 */
forEachDatabase('analysis/hits: stored hour grids', (use) => {
  let h: Harness;
  let s: Session & { accountId: number };
  let uncached: { app: App; db: Database };
  const started: { app: App; db: Database }[] = [];

  const DAY = 86400;
  const hours = <T extends object>(body: T) => ({ breakDown: 'agentId', disPlay: 'hour', multi: true, fields: 'TC,AC,CA,PM,CM,FR_CAN_FR_PM_N', ...body });
  // Whole days (the hourly path) and a range cut mid-hour at both ends (more than a day of whole hours in between).
  const wholeDays = hours({ filter: [{ key: 'date', condi: 'range', val: '01-10-2026 00:00:00,01-13-2026 23:59:59' }] });
  const cutRange = hours({ filter: [{ key: 'date', condi: 'range', val: `${D + 5 * 3600 + 1800},${D + 3 * DAY + 4 * 3600 + 900}` }] });
  const ask = async (app: App, body: object) =>
    (await app.inject({ method: 'POST', url: '/api/v2/analysis/hits', payload: { ssid: s.ssid, ...body } })).json() as Answer;
  /** A node just started on the same database: nothing kept in its memory. */
  const startNode = async () => {
    const db = h.testDb.connect();
    const node = { app: (await buildApp({ config: { ...h.ctx.config, webhookDelivery: false }, db, clock: h.clock })).app, db };
    started.push(node);
    return node.app;
  };
  const stored = async () =>
    (
      await h.db.all<{ utc_day: number; token: number }>('SELECT utc_day, token FROM analysis_hour_grids WHERE account_id = $1 AND dim = $2 ORDER BY utc_day', [
        s.accountId,
        'agent',
      ])
    ).map((r) => ({ day: Number(r.utc_day), token: Number(r.token) }));
  const marks = async () =>
    (await h.db.all<{ utc_day: number; version: number }>('SELECT utc_day, version FROM analysis_versions WHERE account_id = $1', [s.accountId])).reduce(
      (m, r) => m.set(Number(r.utc_day), Number(r.version)),
      new Map<number, number>(),
    );

  beforeAll(async () => {
    h = use();
    s = await createTenant(h);
    const db = h.testDb.connect();
    uncached = { app: (await buildApp({ config: { ...h.ctx.config, webhookDelivery: false, analysisCacheBytes: 0 }, db, clock: h.clock })).app, db };
    const records: CallRecord[] = [];
    for (let day = 0; day < 4; day++)
      for (let hour = 0; hour < 24; hour += 3)
        records.push(
          call(s.accountId, `c-${day}-${hour}`, D + day * DAY + hour * 3600 + 600, {
            direction: hour % 2 === 0 ? 'inbound' : 'outbound',
            offers: [
              { agent: 101 + ((day + hour) % 3), ring: 4 },
              { agent: 104, ring: 2, answered: hour % 6 === 0 },
            ],
          }),
        );
    await store(h, ...records);
    return async () => {
      for (const n of [uncached, ...started]) {
        await n.app.close();
        await n.db.close();
      }
    };
  });

  it("stores each UTC day on a node's first ask, under the day's change mark, and answers as a node keeping nothing", async () => {
    const first = await ask(await startNode(), wholeDays);
    expect(first.code).toBe(200);
    expect(first).toEqual(await ask(uncached.app, wholeDays));
    const m = await marks();
    expect(await stored()).toEqual([0, 1, 2, 3].map((d) => ({ day: D / DAY + d, token: m.get(D / DAY + d) })));
    expect(await ask(await startNode(), wholeDays)).toEqual(first);
    expect(await ask(await startNode(), cutRange)).toEqual(await ask(uncached.app, cutRange));
  });

  it('sums the current UTC day but does not store it (its mark changes with every call)', async () => {
    await h.db.run('DELETE FROM analysis_hour_grids WHERE account_id = $1', [s.accountId]);
    const db = h.testDb.connect();
    // A node whose clock is at noon of the range's last day.
    const clock = new ManualClock((D + 3 * DAY + 12 * 3600) * 1000);
    const node = { app: (await buildApp({ config: { ...h.ctx.config, webhookDelivery: false }, db, clock })).app, db };
    started.push(node);
    expect(await ask(node.app, wholeDays)).toEqual(await ask(uncached.app, wholeDays));
    expect((await stored()).map((r) => r.day)).toEqual([0, 1, 2].map((d) => D / DAY + d));
  });

  it('answers a node started later from the stored days (a stored value is what it serves)', async () => {
    await ask(await startNode(), wholeDays);
    const day = D / DAY + 1;
    const [row] = await h.db.all<{ grid: Buffer; keys: string }>(
      'SELECT grid, keys FROM analysis_hour_grids WHERE account_id = $1 AND dim = $2 AND utc_day = $3',
      [s.accountId, 'agent', day],
    );
    try {
      // Same mark, other contents: one agent, one hour, 7 offered and answered (packed counters: tc, ac, ca, pm, cm, fr_*, ghost).
      const forged = encodeHourCells([['199', day * 24 + 9, '7,7,7,0,0,0,0,0,0,0', 0, 0]]).get(day)!;
      await h.db.run('UPDATE analysis_hour_grids SET keys = $1, grid = $2 WHERE account_id = $3 AND dim = $4 AND utc_day = $5', [
        JSON.stringify(forged.keys),
        forged.grid,
        s.accountId,
        'agent',
        day,
      ]);
      const answer = await ask(await startNode(), wholeDays);
      expect(answer.data['199']).toEqual({ '2026-01-11 09:00': { TC: 7, AC: 7, CA: 7, PM: 0, CM: 0, FR_CAN_FR_PM_N: 0 } });
      expect(Object.keys(answer.data['101']!).some((label) => label.startsWith('2026-01-11'))).toBe(false);
    } finally {
      await h.db.run('UPDATE analysis_hour_grids SET keys = $1, grid = $2 WHERE account_id = $3 AND dim = $4 AND utc_day = $5', [
        row!.keys,
        row!.grid,
        s.accountId,
        'agent',
        day,
      ]);
    }
    expect(await ask(await startNode(), wholeDays)).toEqual(await ask(uncached.app, wholeDays));
  });

  it('sums a day again when its stored value cannot be read (another format, cells out of order)', async () => {
    await ask(await startNode(), wholeDays);
    const day = D / DAY + 3;
    // Two cells of one key with their order swapped: the right length and format, out of order.
    const two = encodeHourCells([
      ['101', day * 24 + 9, '1,1,1,0,0,0,0,0,0,0', 0, 0],
      ['101', day * 24 + 10, '1,1,1,0,0,0,0,0,0,0', 0, 0],
    ]).get(day)!;
    const swapped = Buffer.from(two.grid);
    two.grid.copy(swapped, 8, 56, 104);
    two.grid.copy(swapped, 56, 8, 56);
    for (const [keys, grid] of [
      ['[]', Buffer.from('not a grid')],
      [JSON.stringify(two.keys), swapped],
    ] as const) {
      await h.db.run('UPDATE analysis_hour_grids SET keys = $1, grid = $2 WHERE account_id = $3 AND dim = $4 AND utc_day = $5', [
        keys,
        grid,
        s.accountId,
        'agent',
        day,
      ]);
      expect(await ask(await startNode(), wholeDays)).toEqual(await ask(uncached.app, wholeDays));
      const [row] = await h.db.all<{ grid: Buffer }>('SELECT grid FROM analysis_hour_grids WHERE account_id = $1 AND dim = $2 AND utc_day = $3', [
        s.accountId,
        'agent',
        day,
      ]);
      expect(Buffer.from(row!.grid).equals(grid)).toBe(false);
    }
  });

  it('does not use a day changed since it was stored (a late event), and stores it again', async () => {
    await ask(await startNode(), wholeDays);
    const day = D / DAY + 2;
    const before = (await stored()).find((r) => r.day === day)!;
    const old = call(s.accountId, 'c-2-3', D + 2 * DAY + 3 * 3600 + 600, {
      direction: 'outbound',
      offers: [
        { agent: 101 + (5 % 3), ring: 4 },
        { agent: 104, ring: 2, answered: false },
      ],
    });
    const next = {
      ...old,
      hits: old.hits.map((x) => ({ ...x, answered: x.agentId === 104 })),
      answeredBy: 104,
      answeredAt: old.hits[1]!.ringAt + 2,
      outcome: 'completed' as const,
    };
    await h.db.transaction((tx) => callHistory(tx).replace(tx, old.accountId, old, next));
    expect((await marks()).get(day)).not.toBe(before.token);
    const answer = await ask(await startNode(), wholeDays);
    expect(answer.data['104']!['2026-01-12 03:00']).toMatchObject({ TC: 1, AC: 1, CA: 1 });
    expect(answer).toEqual(await ask(uncached.app, wholeDays));
    expect((await stored()).find((r) => r.day === day)!.token).toBe((await marks()).get(day));
  });

  it("applies the breakdown's own key filter to stored days, and leaves a direction filter to the roll-up", async () => {
    await ask(await startNode(), wholeDays);
    for (const filter of [
      { key: 'agentId', condi: 'in', val: '101,104' },
      { key: 'agentId', condi: 'ne', val: '104' },
      { key: 'direction', condi: 'in', val: 'outbound' },
    ]) {
      const body = { ...wholeDays, filter: [...wholeDays.filter, filter] };
      const answer = await ask(await startNode(), body);
      expect(answer.code).toBe(200);
      expect(answer).toEqual(await ask(uncached.app, body));
    }
  });

  it('answers the same in a zone whose local days cut UTC days', async () => {
    const ny = await createTenant(h, { timezone: 'America/New_York' });
    const records = [0, 1, 2].map((d) => call(ny.accountId, `ny-${d}`, D + d * DAY + 3 * 3600, { offers: [{ agent: 301, ring: 3, answered: true }] }));
    await store(h, ...records);
    const body = { ...wholeDays, ssid: ny.ssid };
    const first = await ask(await startNode(), body);
    expect(Object.keys(first.data['301']!)).toEqual(['2026-01-10 22:00', '2026-01-11 22:00']);
    expect(await ask(await startNode(), body)).toEqual(first);
    expect(first).toEqual(await ask(uncached.app, body));
  });

  it('sums the two UTC hours of one local hour on the night clocks go back', async () => {
    const ny = await createTenant(h, { timezone: 'America/New_York' });
    const night = Date.UTC(2026, 10, 1) / 1000; // 2026-11-01: 01:00–02:00 local happens twice (05:00 and 06:00 UTC)
    await store(
      h,
      call(ny.accountId, 'edt', night + 5 * 3600 + 1800, { offers: [{ agent: 401, ring: 3, answered: true }] }),
      call(ny.accountId, 'est', night + 6 * 3600 + 1800, { offers: [{ agent: 401, ring: 2 }] }),
      call(ny.accountId, 'later', night + 9 * 3600, { offers: [{ agent: 401, ring: 2 }] }),
    );
    const body = hours({ ssid: ny.ssid, filter: [{ key: 'date', condi: 'range', val: '10-31-2026 00:00:00,11-02-2026 23:59:59' }] });
    const first = await ask(await startNode(), body);
    expect(first.data['401']).toEqual({
      '2026-11-01 01:00': { TC: 2, AC: 1, CA: 1, PM: 0, CM: 1, FR_CAN_FR_PM_N: 0 },
      '2026-11-01 04:00': { TC: 1, AC: 0, CA: 0, PM: 0, CM: 1, FR_CAN_FR_PM_N: 0 },
    });
    expect(await ask(await startNode(), body)).toEqual(first);
    expect(first).toEqual(await ask(uncached.app, body));
  });

  it('the job keeps the last 35 days of every account stored: only missing or changed days are summed, one node at a time', async () => {
    const job = new HourGridJob({
      db: h.db,
      clock: new ManualClock(D * 1000 + 5 * DAY * 1000),
      accounts: h.services.accounts,
      log: { error: () => undefined },
    });
    await h.db.run('DELETE FROM analysis_hour_grids');
    const first = await job.runOnce();
    expect(first).toMatchObject({ ran: true, summed: (first as { accounts: number }).accounts * 4 * 35 });
    const m = await marks();
    expect((await stored()).filter((r) => r.day >= D / DAY && r.day < D / DAY + 5)).toEqual(
      [0, 1, 2, 3, 4].map((d) => ({ day: D / DAY + d, token: m.get(D / DAY + d) ?? 0 })),
    );
    expect(await job.runOnce()).toMatchObject({ ran: true, summed: 0 });
    // A late event on one day: that day, in each of the four breakdowns, is summed again.
    const old = call(s.accountId, 'c-1-6', D + DAY + 6 * 3600 + 600, {
      direction: 'inbound',
      offers: [
        { agent: 101 + (7 % 3), ring: 4 },
        { agent: 104, ring: 2, answered: true },
      ],
    });
    await h.db.transaction((tx) => callHistory(tx).replace(tx, old.accountId, old, { ...old, holdSecs: 40 }));
    expect(await job.runOnce()).toMatchObject({ ran: true, summed: 4 });
    expect(await ask(await startNode(), wholeDays)).toEqual(await ask(uncached.app, wholeDays));
    const owner = (await tryLock(h.db, HOUR_GRID_LOCK, 60_000))!;
    try {
      expect(await job.runOnce()).toEqual({ ran: false, reason: 'locked' });
    } finally {
      await unlock(h.db, HOUR_GRID_LOCK, owner);
    }
  });

  it('the job skips an account whose ghost threshold is above the roll-ups (answered from the raw calls) and goes on with the others', async () => {
    const slow = await createTenant(h);
    await store(h, call(slow.accountId, 'slow-1', D + 3600, { offers: [{ agent: 501, ring: 3, answered: true }] }));
    const upd = await h.post('/api/v2/account/updateSettings', { ssid: slow.ssid, ghostThresholdSecs: 30 });
    expect(upd.body.data).toMatchObject({ ghostThresholdSecs: 30 });
    await h.db.run('DELETE FROM analysis_hour_grids');
    const errors: object[] = [];
    const job = new HourGridJob({
      db: h.db,
      clock: new ManualClock(D * 1000 + 5 * DAY * 1000),
      accounts: h.services.accounts,
      log: { error: (o) => errors.push(o) },
    });
    const run = await job.runOnce();
    expect(errors).toEqual([]);
    expect(run).toMatchObject({ ran: true, summed: ((run as { accounts: number }).accounts - 1) * 4 * 35 });
    expect(await h.db.all('SELECT utc_day FROM analysis_hour_grids WHERE account_id = $1', [slow.accountId])).toEqual([]);
    expect((await stored()).length).toBeGreaterThan(0);
  });
});
