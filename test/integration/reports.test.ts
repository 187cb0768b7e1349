import { parse } from 'csv-parse/sync';
import { expect, it } from 'vitest';
import { createAgent, createGroup } from '../helpers/admin.js';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { at, feed, report, utc } from './reports.fixtures.js';

/*
 * A scripted Monday (2026-11-02, UTC) whose every figure is worked out by hand below; docs/reports.md walks through the same day.
 *
 * a1 logs in at 23:00 the day before. c1 09:00:00 queued + rings a1, answered 09:00:15 (wait 15), hold 09:01:00–09:01:20,
 * ends 09:03:15 (talk 180 − 20 = 160), a1 wraps up 09:03:15–09:03:45 (30 s, no callId: a1's last answered call, c1).
 * c2 09:10:00 rings a1, missed 09:10:10, rings a2, answered 09:10:35 (wait 35), ends 09:12:35 (talk 120), a2 wraps up
 * naming c2 09:12:35–09:12:55 (20 s). c3 09:20:00 abandons at 09:20:03 (3 s: short). c4 (caller 15550104) 09:30:00 abandons at
 * 09:30:40 (40 s). a1 on break "lunch" 09:45–10:15. c5, an outbound call to 15550104 without a group, 09:50:00 rings a2, answered
 * 09:50:05, ends 09:51:05. Both log out at 10:30.
 */
async function scriptedDay(h: Harness) {
  const t = await createTenant(h);
  const g = await createGroup(h, t);
  const a1 = (await createAgent(h, t, { group: g })).agentId;
  const a2 = (await createAgent(h, t, { group: g })).agentId;
  const D = utc(2026, 11, 2);
  const T = (hh: number, mi: number, ss = 0) => D + hh * 3600 + mi * 60 + ss;
  await feed(h, t.ssid, [
    at(D - 3600, 'agent.login', { agentId: a1 }),
    at(T(9, 0), 'agent.login', { agentId: a2 }),
    at(T(9, 0), 'call.queued', { callId: 'c1', groupId: g, caller: '15550101', did: '15551000' }),
    at(T(9, 0), 'call.ringing', { callId: 'c1', agentId: a1 }),
    at(T(9, 0, 15), 'call.answered', { callId: 'c1', agentId: a1 }),
    at(T(9, 1), 'call.hold', { callId: 'c1' }),
    at(T(9, 1, 20), 'call.unhold', { callId: 'c1' }),
    at(T(9, 3, 15), 'call.ended', { callId: 'c1', reason: 'completed' }),
    at(T(9, 3, 15), 'agent.wrapup.start', { agentId: a1 }),
    at(T(9, 3, 45), 'agent.wrapup.end', { agentId: a1 }),
    at(T(9, 10), 'call.queued', { callId: 'c2', groupId: g, caller: '15550102', did: '15551000' }),
    at(T(9, 10), 'call.ringing', { callId: 'c2', agentId: a1 }),
    at(T(9, 10, 10), 'call.missed', { callId: 'c2', agentId: a1 }),
    at(T(9, 10, 10), 'call.ringing', { callId: 'c2', agentId: a2 }),
    at(T(9, 10, 35), 'call.answered', { callId: 'c2', agentId: a2 }),
    at(T(9, 12, 35), 'call.ended', { callId: 'c2', reason: 'completed' }),
    at(T(9, 12, 35), 'agent.wrapup.start', { agentId: a2, callId: 'c2' }),
    at(T(9, 12, 55), 'agent.wrapup.end', { agentId: a2 }),
    at(T(9, 20), 'call.queued', { callId: 'c3', groupId: g, caller: '15550103', did: '15551000' }),
    at(T(9, 20, 3), 'call.ended', { callId: 'c3', reason: 'abandoned' }),
    at(T(9, 30), 'call.queued', { callId: 'c4', groupId: g, caller: '15550104', did: '15551000' }),
    at(T(9, 30, 40), 'call.ended', { callId: 'c4', reason: 'abandoned' }),
    at(T(9, 45), 'agent.break.start', { agentId: a1, reason: 'lunch' }),
    at(T(9, 50), 'call.queued', { callId: 'c5', direction: 'outbound', caller: '15550104' }),
    at(T(9, 50), 'call.ringing', { callId: 'c5', agentId: a2 }),
    at(T(9, 50, 5), 'call.answered', { callId: 'c5', agentId: a2 }),
    at(T(9, 51, 5), 'call.ended', { callId: 'c5', reason: 'completed' }),
    at(T(10, 15), 'agent.break.end', { agentId: a1 }),
    at(T(10, 30), 'agent.logout', { agentId: a1 }),
    at(T(10, 30), 'agent.logout', { agentId: a2 }),
  ]);
  return { t, g, a1, a2, D, T };
}

const DAY_QUEUE = {
  offered: 4,
  answered: 2,
  abandoned: 1,
  shortAbandoned: 1,
  // Base for the rates: offered − short abandons = 3.
  abandonRate: 33.33,
  asa: 25, // (15 + 35) / 2
  maxWait: 40,
  avgAbandonWait: 40,
  aht: 175, // (160 + 120 talk + 20 hold + 30 + 20 wrap) / 2
  avgTalk: 140,
  avgHold: 10,
  avgWrap: 25,
  takenOver: 0,
  retries: 0,
};

forEachDatabase('report/queue, report/agent, report/abandoned', (use) => {
  it('a scripted day: every queue figure by hand, stored and unstored thresholds alike', async () => {
    const h = use();
    const { t, g, D } = await scriptedDay(h);
    const rows = await report(h, 'queue', { ssid: t.ssid, from: D, to: D + 86399, groupId: g, interval: 'total', slThresholds: [20, 35] });
    expect(rows).toEqual([
      { groupId: g, start: D, end: D + 86400, ...DAY_QUEUE, answeredWithin: { '20': 1, '35': 2 }, serviceLevel: { '20': 33.33, '35': 66.67 } },
    ]);
    // shortAbandon 7 is not kept by the roll-up: read from the calls, same answer (c3 waited 3 s, c4 40 s).
    const exact = await report(h, 'queue', { ssid: t.ssid, from: D, to: D + 86399, groupId: g, interval: 'total', shortAbandon: 7 });
    expect(exact[0]).toMatchObject({ shortAbandoned: 1, abandoned: 1, avgAbandonWait: 40, serviceLevel: { '20': 33.33 } });
    // shortAbandon 0: nothing is short, base 4.
    const none = await report(h, 'queue', { ssid: t.ssid, from: D, to: D + 86399, groupId: g, interval: 'total', shortAbandon: 0 });
    expect(none[0]).toMatchObject({ shortAbandoned: 0, abandoned: 2, abandonRate: 50, avgAbandonWait: 21.5, serviceLevel: { '20': 25 } });
    // By hour: 24 rows; 09:00 holds the day, the others are empty with zeros and null averages.
    const hours = await report<Record<string, unknown>>(h, 'queue', { ssid: t.ssid, from: '11-02-2026', to: '11-02-2026', interval: 'hour' });
    expect(hours.filter((r) => r.groupId === g)).toHaveLength(24);
    const nine = hours.find((r) => r.groupId === g && r.start === D + 9 * 3600)!;
    expect(nine).toMatchObject({ offered: 4, asa: 25, serviceLevel: { '20': 33.33 } });
    expect(hours.find((r) => r.groupId === g && r.start === D + 10 * 3600)).toEqual({
      groupId: g,
      start: D + 36000,
      end: D + 39600,
      offered: 0,
      answered: 0,
      abandoned: 0,
      shortAbandoned: 0,
      answeredWithin: { '20': 0 },
      serviceLevel: { '20': null },
      abandonRate: null,
      asa: null,
      maxWait: null,
      avgAbandonWait: null,
      aht: null,
      avgTalk: null,
      avgHold: null,
      avgWrap: null,
      takenOver: 0,
      retries: 0,
    });
    // Business hours 09:15–18:00 Mon–Fri keep c3 and c4 only.
    const bh = await report(h, 'queue', {
      ssid: t.ssid,
      from: D,
      to: D + 86399,
      groupId: g,
      interval: 'total',
      businessHours: { start: '09:15', end: '18:00', weekDays: ['MON'] },
    });
    expect(bh[0]).toMatchObject({ offered: 2, answered: 0, abandoned: 1, shortAbandoned: 1, abandonRate: 100 });
    // Sunday only: nothing.
    const sun = await report(h, 'queue', {
      ssid: t.ssid,
      from: D,
      to: D + 86399,
      groupId: g,
      interval: 'total',
      businessHours: { start: '00:00', end: '24:00', weekDays: ['SUN'] },
    });
    expect(sun[0]).toMatchObject({ offered: 0 });
  });

  it('a scripted day: agent time split at interval edges, the login spanning midnight counted in both days', async () => {
    const h = use();
    const { t, a1, a2, D } = await scriptedDay(h);
    const days = await report<Record<string, unknown>>(h, 'agent', { ssid: t.ssid, from: D - 86400, to: D + 86399, interval: 'day' });
    const row = (a: number, start: number) => days.find((r) => r.agentId === a && r.start === start);
    expect(row(a1, D - 86400)).toMatchObject({ loginTime: 3600, availableTime: 3600, offered: 0, aht: null, occupancy: 0 });
    // a1 on the day: logged in 00:00–10:30 = 37800; ringing 15 + 10, talk 160, hold 20, wrap 30, break 1800.
    expect(row(a1, D)).toEqual({
      agentId: a1,
      start: D,
      end: D + 86400,
      loginTime: 37800,
      availableTime: 37800 - 25 - 160 - 20 - 30 - 1800,
      talkTime: 160,
      holdTime: 20,
      wrapTime: 30,
      breakTime: 1800,
      breaks: { lunch: 1800 },
      offered: 2,
      answered: 1,
      missed: 1,
      aht: 210,
      occupancy: 0.58, // 210 / (37800 − 1800) × 100
    });
    // a2: 09:00–10:30 = 5400; ringing 25 + 5, talk 120 + 60, wrap 20.
    expect(row(a2, D)).toMatchObject({
      loginTime: 5400,
      availableTime: 5400 - 30 - 180 - 20,
      talkTime: 180,
      holdTime: 0,
      wrapTime: 20,
      breakTime: 0,
      breaks: { lunch: 0 },
      offered: 2,
      answered: 2,
      missed: 0,
      aht: 100,
      occupancy: 3.7, // 200 / 5400 × 100
    });
    // The break 09:45–10:15 splits at 10:00.
    const hours = await report<Record<string, unknown>>(h, 'agent', { ssid: t.ssid, from: D + 9 * 3600, to: D + 11 * 3600 - 1, agentId: a1, interval: 'hour' });
    expect(hours.map((r) => [r.start, r.loginTime, r.breakTime])).toEqual([
      [D + 9 * 3600, 3600, 900],
      [D + 10 * 3600, 1800, 900],
    ]);
    // groupId selects the agents mapped to it; unknown ids are 1006 / 1509.
    expect((await h.post('/api/v2/report/agent', { ssid: t.ssid, from: D, to: D + 1, agentId: 999999, interval: 'total' })).body.code).toBe(1509);
    expect((await h.post('/api/v2/report/agent', { ssid: t.ssid, from: D, to: D + 1, groupId: 999999, interval: 'total' })).body.code).toBe(1006);
    expect((await h.post('/api/v2/report/queue', { ssid: t.ssid, from: D, to: D + 1, groupId: 999999, interval: 'total' })).body.code).toBe(1006);
  });

  it('the callback worklist: abandons that were not short, newest first, with the first later call of the number; cursor pages', async () => {
    const h = use();
    const { t, g, D, T } = await scriptedDay(h);
    const page = await h.post('/api/v2/report/abandoned', { ssid: t.ssid, from: D, to: D + 86399 });
    expect(page.body.data).toEqual([
      {
        callId: 'c4',
        caller: '15550104',
        groupId: g,
        did: '15551000',
        queuedAt: T(9, 30),
        waited: 40,
        calledBack: { callId: 'c5', at: T(9, 50), answered: true },
      },
    ]);
    expect(page.body.nextCursor).toBeNull();
    // A window of 0.25 h from c4's end (09:30:40) ends 09:45:40: c5 (09:50) is outside.
    const short = await h.post('/api/v2/report/abandoned', { ssid: t.ssid, from: D, to: D + 86399, callbackWithinHours: 0.25 });
    expect((short.body.data as Array<{ calledBack: unknown }>)[0]!.calledBack).toBeNull();
    // shortAbandon 0 lists c3 too, newest first; one per page.
    const p1 = await h.post('/api/v2/report/abandoned', { ssid: t.ssid, from: D, to: D + 86399, shortAbandon: 0, limit: 1 });
    expect((p1.body.data as Array<{ callId: string }>).map((r) => r.callId)).toEqual(['c4']);
    const p2 = await h.post('/api/v2/report/abandoned', { ssid: t.ssid, from: D, to: D + 86399, shortAbandon: 0, limit: 1, cursor: p1.body.nextCursor });
    expect((p2.body.data as Array<{ callId: string }>).map((r) => r.callId)).toEqual(['c3']);
    expect(p2.body.nextCursor).toBeNull();
    expect((await h.post('/api/v2/report/abandoned', { ssid: t.ssid, from: D, to: D + 1, cursor: 'nonsense' })).body.code).toBe(1001);
  });

  it('CSV parses back (csv-parse, RFC 4180) to the same figures', async () => {
    const h = use();
    const { t, g, D } = await scriptedDay(h);
    for (const [name, body] of [
      ['queue', { groupId: g, interval: 'hour', slThresholds: [20, 35] }],
      ['agent', { interval: 'day' }],
      ['abandoned', { shortAbandon: 0 }],
    ] as const) {
      const json = await h.post(`/api/v2/report/${name}`, { ssid: t.ssid, from: D, to: D + 86399, ...body });
      const res = await h.app.inject({
        method: 'POST',
        url: `/api/v2/report/${name}`,
        payload: { ssid: t.ssid, from: D, to: D + 86399, ...body, format: 'csv' },
      });
      expect(res.headers['content-type']).toMatch(/^text\/csv/);
      const records = parse(res.body, { columns: true }) as Array<Record<string, string>>;
      const rows = json.body.data as Array<Record<string, unknown>>;
      expect(records).toHaveLength(rows.length);
      const flat = (o: Record<string, unknown>, p = ''): Array<[string, unknown]> =>
        Object.entries(o).flatMap(([k, v]) => (v !== null && typeof v === 'object' ? flat(v as Record<string, unknown>, `${p}${k}.`) : [[`${p}${k}`, v]]));
      rows.forEach((json, i) => {
        // A null calledBack has its three columns, empty.
        const row = { ...json, ...(name === 'abandoned' && json.calledBack === null ? { calledBack: { callId: null, at: null, answered: null } } : {}) };
        const back = Object.fromEntries(
          flat(row).map(([k]) => {
            const text = records[i]![k];
            expect(text, k).not.toBeUndefined();
            return [k, text === '' ? null : text];
          }),
        );
        for (const [k, v] of flat(row)) expect(back[k], k).toBe(v === null ? null : String(v));
      });
    }
  });

  it('report/abandoned as CSV holds every page of the range (2,500 abandons, 1,000 a page): each call once, newest first, as the JSON pages list them', async () => {
    const h = use();
    const t = await createTenant(h);
    const g = await createGroup(h, t);
    const D = utc(2026, 11, 3);
    const events = [];
    for (let i = 0; i < 2500; i++) {
      const q = D + 3600 + i * 10;
      events.push(at(q, 'call.queued', { callId: `ab${i}`, groupId: g, caller: `1555${String(i).padStart(6, '0')}` }));
      events.push(at(q + 8, 'call.ended', { callId: `ab${i}`, reason: 'abandoned' }));
    }
    await feed(h, t.ssid, events);
    const pages: string[] = [];
    for (let cursor: unknown = undefined; ;) {
      const page = await h.post('/api/v2/report/abandoned', { ssid: t.ssid, from: D, to: D + 86399, limit: 1000, ...(cursor ? { cursor } : {}) });
      pages.push(...(page.body.data as Array<{ callId: string }>).map((r) => r.callId));
      cursor = page.body.nextCursor;
      if (cursor === null) break;
    }
    expect(pages).toHaveLength(2500);
    const res = await h.app.inject({ method: 'POST', url: '/api/v2/report/abandoned', payload: { ssid: t.ssid, from: D, to: D + 86399, format: 'csv' } });
    const records = parse(res.body, { columns: true }) as Array<Record<string, string>>;
    expect(records.map((r) => r.callId)).toEqual(pages);
    expect(records[0]).toMatchObject({ callId: 'ab2499', waited: '8', 'calledBack.callId': '', 'calledBack.at': '' });
    // An error of the request is an envelope, before any CSV.
    const bad = await h.post('/api/v2/report/abandoned', { ssid: t.ssid, from: D, to: D + 1, groupId: 999999, format: 'csv' });
    expect(bad.body.code).toBe(1006);
  });

  it('late events change the report at once: a call ending the next day, a wrap-up after the call', async () => {
    const h = use();
    const t = await createTenant(h);
    const g = await createGroup(h, t);
    const a = (await createAgent(h, t, { group: g })).agentId;
    const D = utc(2026, 11, 2);
    const q = async () => (await report(h, 'queue', { ssid: t.ssid, from: D - 86400, to: D - 1, groupId: g, interval: 'total' }))[0]!;
    await feed(h, t.ssid, [
      at(D - 900, 'agent.login', { agentId: a }),
      at(D - 600, 'call.queued', { callId: 'L1', groupId: g }),
      at(D - 600, 'call.ringing', { callId: 'L1', agentId: a }),
      at(D - 590, 'call.answered', { callId: 'L1', agentId: a }),
    ]);
    expect(await q()).toMatchObject({ offered: 0 });
    // The call ends after midnight: it counts in the day it was queued.
    await feed(h, t.ssid, [at(D + 10, 'call.ended', { callId: 'L1', reason: 'completed' }), at(D + 10, 'agent.wrapup.start', { agentId: a })]);
    expect(await q()).toMatchObject({ offered: 1, answered: 1, asa: 10, avgTalk: 600, avgWrap: 0, aht: 600 });
    await feed(h, t.ssid, [at(D + 70, 'agent.wrapup.end', { agentId: a })]);
    expect(await q()).toMatchObject({ avgWrap: 60, aht: 660 });
  });

  it('report/agent of a group without agents: no rows, by 15 minutes and by day, JSON and CSV (PostgreSQL once answered 500)', async () => {
    const h = use();
    const t = await createTenant(h);
    const g = await createGroup(h, t);
    for (const interval of ['15m', 'day'])
      expect(await report(h, 'agent', { ssid: t.ssid, from: '11-02-2026', to: '11-02-2026', groupId: g, interval })).toEqual([]);
    const csv = await h.app.inject({
      method: 'POST',
      url: '/api/v2/report/agent',
      payload: { ssid: t.ssid, from: '11-02-2026', to: '11-02-2026', groupId: g, interval: 'hour', format: 'csv' },
    });
    expect(csv.statusCode).toBe(200);
    expect(csv.body.trim().split('\r\n')).toHaveLength(1);
  });
});
