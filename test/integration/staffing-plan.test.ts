import { parse } from 'csv-parse/sync';
import { expect, it } from 'vitest';
import { createAgent, createGroup, createRole } from '../helpers/admin.js';
import { createTenant, login } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { at, feed, report, utc } from './reports.fixtures.js';

type Ev = Record<string, unknown>;
type Row = Record<string, unknown>;
const TARGET = { serviceLevel: 80, seconds: 20 };

let callSeq = 0;
/** A call queued at q, rung and answered by `agent` at once, ended after `talk` seconds. */
const answered = (g: number, agent: number, q: number, talk: number): Ev[] => {
  const callId = `p${++callSeq}`;
  return [
    at(q, 'call.queued', { callId, groupId: g, caller: `1555${String(callSeq).padStart(6, '0')}` }),
    at(q, 'call.ringing', { callId, agentId: agent }),
    at(q, 'call.answered', { callId, agentId: agent }),
    at(q + talk, 'call.ended', { callId, reason: 'completed' }),
  ];
};
/** A call queued at q that hangs up after `wait` seconds. */
const abandoned = (g: number, q: number, wait = 30): Ev[] => {
  const callId = `p${++callSeq}`;
  return [
    at(q, 'call.queued', { callId, groupId: g, caller: `1556${String(callSeq).padStart(6, '0')}` }),
    at(q + wait, 'call.ended', { callId, reason: 'abandoned' }),
  ];
};
/** Events in time order (stable: a call's own events keep theirs). */
const byTime = (evs: Ev[]) => [...evs].sort((a, b) => (a.ts as number) - (b.ts as number));

async function plan(h: Harness, ssid: string, body: Row): Promise<Row[]> {
  const res = await h.post('/api/v2/staffing/plan', { ssid, target: TARGET, ...body });
  expect(res.body.status, JSON.stringify(res.body)).toBe('success');
  return res.body.data as Row[];
}

/*
 * A UTC account, group g (agents a1, a2) and group g2 (no agents, only abandoned calls). The plan is for Monday 2026-11-23 by
 * 30 minutes; the four weeks before are the Mondays 11-16, 11-09, 11-02 and 10-26. Every figure below is worked out by hand.
 *
 * 10:00–10:30 on those Mondays: 12, 10, 8 and 10 answered calls (talk 170, 180, 195, 180 s; queued 150 s apart, a1 and a2 in
 * turn) → forecastOffered 40 / 4 = 10, forecastAht (12·170 + 10·180 + 8·195 + 10·180) / 40 = 7200 / 40 = 180.
 * Erlang C for 10 calls of 180 s in 30 min, A = 1 Erlang, 80 % within 20 s: at 2 agents B = 0.2, C = 0.4 / 1.2 = 0.333,
 * SL = 1 − 0.333·e^(−20/180) = 70.2 % (short); at 3 agents B = 0.0625, C = 0.1875 / 2.0625 = 0.0909,
 * SL = 1 − 0.0909·e^(−40/180) = 92.7 %: 3 agents; shrinkage 30 → 3 / 0.7 = 4.29 → 5 scheduled.
 * 09:00–09:30: 11-16 one answered call (talk 100) and one abandoned → forecastOffered 2 / 4 = 0.5, forecastAht 100 → 1 agent.
 * 11:00–11:30: 11-09 two abandoned calls → forecastOffered 0.5, no answered call in the interval: the group's AHT over the
 * four weeks, which also holds a Tuesday call (11-17, talk 400): (7200 + 100 + 400) / 42 = 183.33 → 1 agent.
 * Every other interval: no history, forecast 0, agents 0, forecastAht the group's 183.33.
 * g2: 11-16 10:00 three abandoned calls → forecastOffered 0.75, forecastAht null (no answered call at all), agents null.
 *
 * The plan day, the clock at 10:30: a1 logged in 09:45–10:30, a2 10:00–10:15; three calls queued 10:05, 10:10, 10:20
 * (abandoned). 09:30–10:00: offered 0, loggedIn 900 / 1800 = 0.5; 10:00–10:30: offered 3, loggedIn (1800 + 900) / 1800 = 1.5,
 * gap 1.5 − 3 = −1.5. From 10:30 on nothing is over: offered, loggedIn and gap null.
 */
async function history(h: Harness) {
  const D = utc(2026, 11, 23);
  // First: a session opened before a jump of the clock would have expired.
  h.clock.set((D + 10.5 * 3600) * 1000);
  const t = await createTenant(h);
  const g = await createGroup(h, t);
  const g2 = await createGroup(h, t);
  const a1 = (await createAgent(h, t, { group: g })).agentId;
  const a2 = (await createAgent(h, t, { group: g })).agentId;
  const weeks: Array<[number, number]> = [
    [12, 170],
    [10, 180],
    [8, 195],
    [10, 180],
  ];
  const evs: Ev[] = [];
  weeks.forEach(([calls, talk], k) => {
    const day = D - (k + 1) * 7 * 86400;
    evs.push(at(day + 8 * 3600, 'agent.login', { agentId: a1 }), at(day + 8 * 3600, 'agent.login', { agentId: a2 }));
    for (let i = 0; i < calls; i++) evs.push(...answered(g, i % 2 === 0 ? a1 : a2, day + 10 * 3600 + i * 150, talk));
    if (k === 0) evs.push(...answered(g, a1, day + 9 * 3600 + 60, 100), ...abandoned(g, day + 9 * 3600 + 600));
    if (k === 0) for (const m of [0, 5, 10]) evs.push(...abandoned(g2, day + 10 * 3600 + m * 60));
    if (k === 1) evs.push(...abandoned(g, day + 11 * 3600 + 300), ...abandoned(g, day + 11 * 3600 + 900));
    evs.push(at(day + 12 * 3600, 'agent.logout', { agentId: a1 }), at(day + 12 * 3600, 'agent.logout', { agentId: a2 }));
  });
  // A Tuesday: not in any Monday's forecast, but in the group's AHT over the weeks.
  const tue = D - 6 * 86400;
  evs.push(at(tue + 8 * 3600, 'agent.login', { agentId: a1 }), ...answered(g, a1, tue + 9 * 3600, 400), at(tue + 12 * 3600, 'agent.logout', { agentId: a1 }));
  // The plan day itself.
  evs.push(at(D + 9.75 * 3600, 'agent.login', { agentId: a1 }), at(D + 10 * 3600, 'agent.login', { agentId: a2 }));
  evs.push(...abandoned(g, D + 10 * 3600 + 300), ...abandoned(g, D + 10 * 3600 + 600), ...abandoned(g, D + 10 * 3600 + 1200, 20));
  evs.push(at(D + 10.25 * 3600, 'agent.logout', { agentId: a2 }), at(D + 10.5 * 3600, 'agent.logout', { agentId: a1 }));
  await feed(h, t.ssid, byTime(evs));
  return { t, g, g2, a1, D };
}

const at30 = (rows: Row[], g: number, start: number) => rows.find((r) => r.groupId === g && r.start === start);

forEachDatabase('staffing/plan', (use) => {
  it('a day by 30 minutes from four weeks of Mondays: forecast, AHT, agents, and what came and who was there', async () => {
    const h = use();
    const { t, g, g2, a1, D } = await history(h);
    const rows = await plan(h, t.ssid, { date: '11-23-2026', interval: '30m', shrinkage: 30 });
    // Every group of the account, 48 half hours each, ordered by group then start.
    expect(rows.filter((r) => r.groupId === g)).toHaveLength(48);
    expect(rows.filter((r) => r.groupId === g2)).toHaveLength(48);
    const key = (r: Row): [number, number] => [r.groupId as number, r.start as number];
    rows.slice(1).forEach((r, i) => {
      const [pg, ps] = key(rows[i]!);
      const [cg, cs] = key(r);
      expect(cg > pg || (cg === pg && cs > ps)).toBe(true);
    });
    const H = (hh: number) => D + hh * 3600;
    expect(at30(rows, g, H(10))).toEqual({
      groupId: g,
      start: H(10),
      end: H(10.5),
      forecastOffered: 10,
      forecastAht: 180,
      agents: 3,
      scheduled: 5,
      offered: 3,
      loggedIn: 1.5,
      gap: -1.5,
    });
    expect(at30(rows, g, H(9))).toEqual({
      groupId: g,
      start: H(9),
      end: H(9.5),
      forecastOffered: 0.5,
      forecastAht: 100,
      agents: 1,
      scheduled: 2,
      offered: 0,
      loggedIn: 0,
      gap: -1,
    });
    expect(at30(rows, g, H(9.5))).toMatchObject({ forecastOffered: 0, forecastAht: 183.33, agents: 0, scheduled: 0, offered: 0, loggedIn: 0.5, gap: 0.5 });
    // Not over yet (10:30 is now): no actual figures.
    expect(at30(rows, g, H(11))).toEqual({
      groupId: g,
      start: H(11),
      end: H(11.5),
      forecastOffered: 0.5,
      forecastAht: 183.33,
      agents: 1,
      scheduled: 2,
      offered: null,
      loggedIn: null,
      gap: null,
    });
    // An interval without history: forecast 0, agents 0, the group's AHT.
    expect(at30(rows, g, H(14))).toMatchObject({ forecastOffered: 0, forecastAht: 183.33, agents: 0, scheduled: 0, offered: null });
    // g2 never had an answered call: no AHT, so no agents where calls are forecast; 0 where none are.
    expect(at30(rows, g2, H(10))).toMatchObject({
      forecastOffered: 0.75,
      forecastAht: null,
      agents: null,
      scheduled: null,
      offered: 0,
      loggedIn: 0,
      gap: null,
    });
    expect(at30(rows, g2, H(11))).toMatchObject({ forecastOffered: 0, forecastAht: null, agents: 0, scheduled: 0 });
    // A late call in the weeks (the Tuesday, talk 1,000 s): the group's AHT follows at once, (7,700 + 1,000) / 43 = 202.33.
    await feed(h, t.ssid, answered(g, a1, D - 6 * 86400 + 10 * 3600, 1000));
    const again = await plan(h, t.ssid, { date: '11-23-2026', interval: '30m', shrinkage: 30 });
    expect(at30(again, g, H(14))).toMatchObject({ forecastAht: 202.33 });
    expect(at30(again, g, H(10))).toMatchObject({ forecastAht: 180 });
    // The same figures through staffing/erlang.
    const e = await h.post('/api/v2/staffing/erlang', { ssid: t.ssid, offered: 10, intervalMinutes: 30, aht: 180, target: TARGET, shrinkage: 30 });
    expect(e.body.data).toMatchObject({ agents: 3, scheduled: 5 });

    // One group (a group without agents: no one logged in), by hour and 15 minutes; two weeks of history.
    const one = await plan(h, t.ssid, { date: D + 3600, groupId: g2, interval: 'hour' });
    expect(one).toHaveLength(24);
    expect(one.find((r) => r.start === H(10))).toMatchObject({ forecastOffered: 0.75, agents: null, offered: null, loggedIn: null });
    expect(one.find((r) => r.start === H(9))).toMatchObject({ forecastOffered: 0, agents: 0, offered: 0, loggedIn: 0, gap: 0 });
    const quarters = await plan(h, t.ssid, { date: '11/23/2026', groupId: g, interval: '15m', weeks: 2 });
    expect(quarters).toHaveLength(96);
    // 10:00–10:15 of 11-16 and 11-09: calls queued at 0, 150, …, 750 s → 6 each; (6·170 + 6·180) / 12 = 175.
    expect(quarters.find((r) => r.start === H(10))).toMatchObject({ forecastOffered: 6, forecastAht: 175, offered: 2, loggedIn: 2 });
    // 10:15–10:30: 11-16 calls 6 … 11 (6), 11-09 calls 6 … 9 (4) → 5; a2 gone at 10:15, a1 alone.
    expect(quarters.find((r) => r.start === H(10.25))).toMatchObject({ forecastOffered: 5, offered: 1, loggedIn: 1 });
    // The same data as the reports: offered is report/queue's by 15 minutes, loggedIn report/agent's login time ÷ 900.
    const queue15 = await report<Row>(h, 'queue', { ssid: t.ssid, from: D, to: D + 86399, groupId: g, interval: '15m' });
    const agent15 = await report<Row>(h, 'agent', { ssid: t.ssid, from: D, to: D + 86399, groupId: g, interval: '15m' });
    const over = quarters.filter((r) => r.offered !== null);
    expect(over).toHaveLength(42); // 00:00 … 10:30
    for (const r of over) {
      expect(r.offered).toBe(queue15.find((q) => q.start === r.start)!.offered);
      const login = agent15.filter((a) => a.start === r.start).reduce((n, a) => n + (a.loginTime as number), 0);
      expect(r.loggedIn).toBe(Math.round((login / 900) * 100) / 100);
    }
  });

  it('a time zone with a clock change inside the weeks: the same local interval across it; 23- and 25-hour days', async () => {
    const h = use();
    h.clock.set(utc(2026, 11, 5) * 1000);
    const t = await createTenant(h, { timezone: 'America/New_York' });
    const g = await createGroup(h, t);
    const a = (await createAgent(h, t, { group: g })).agentId;
    // 09:00–10:00 New York on Monday 11-02 (EST: 14:00 UTC) and Monday 10-26 (EDT: 13:00 UTC); clocks went back on Sunday 11-01.
    const evs: Ev[] = [];
    const day = (y: number, mo: number, d: number, utcHour: number, calls: number, talk: number) => {
      const s = utc(y, mo, d, utcHour);
      evs.push(at(s - 600, 'agent.login', { agentId: a }));
      for (let i = 0; i < calls; i++) evs.push(...answered(g, a, s + i * 600, talk));
      evs.push(at(s + 3600, 'agent.logout', { agentId: a }));
    };
    day(2026, 11, 2, 14, 2, 120);
    day(2026, 10, 26, 13, 4, 300);
    // Sunday 10-25 01:00–02:00 EDT (05:00 UTC): the hour repeated on 11-01.
    day(2026, 10, 25, 5, 3, 60);
    await feed(h, t.ssid, byTime(evs));

    const rows = await plan(h, t.ssid, { date: '11-09-2026', interval: 'hour', weeks: 2 });
    expect(rows).toHaveLength(24);
    // 11-09 is EST: local 09:00 is 14:00 UTC. (2 + 4) / 2 = 3 calls, (2·120 + 4·300) / 6 = 240 s; nothing leaks into 08:00 or 10:00.
    const nine = utc(2026, 11, 9, 14);
    expect(rows.find((r) => r.start === nine)).toMatchObject({ end: nine + 3600, forecastOffered: 3, forecastAht: 240, offered: null });
    expect(rows.find((r) => r.start === nine - 3600)).toMatchObject({ forecastOffered: 0 });
    expect(rows.find((r) => r.start === nine + 3600)).toMatchObject({ forecastOffered: 0 });
    // Erlang C: 3 calls of 240 s in an hour, A = 0.2: 1 agent (C = 0.2, SL = 1 − 0.2·e^(−0.8·20/240) = 81.3 %).
    expect(rows.find((r) => r.start === nine)).toMatchObject({ agents: 1 });

    // Sunday 11-01 has 25 hours, its 01:00 twice (EDT, then EST): both take 10-25's 01:00 (one week: 3 calls).
    const back = await plan(h, t.ssid, { date: '11-01-2026', interval: 'hour', weeks: 1 });
    expect(back).toHaveLength(25);
    expect(back.filter((r) => r.forecastOffered === 3).map((r) => r.start)).toEqual([utc(2026, 11, 1, 5), utc(2026, 11, 1, 6)]);
    expect(back[0]!.start).toBe(utc(2026, 11, 1, 4));
    // A plan from a 25-hour day: 11-01's 01:00 happened twice, with 2 calls (EDT) and 4 (EST): Sunday 11-08's 01:00 (06:00 UTC)
    // takes their mean, 3.
    const s1 = utc(2026, 11, 1, 5);
    await feed(
      h,
      t.ssid,
      byTime([
        at(s1 - 600, 'agent.login', { agentId: a }),
        ...[0, 1].flatMap((i) => answered(g, a, s1 + i * 600, 60)),
        ...[0, 1, 2, 3].flatMap((i) => answered(g, a, s1 + 3600 + i * 600, 60)),
        at(s1 + 7200, 'agent.logout', { agentId: a }),
      ]),
    );
    const next = await plan(h, t.ssid, { date: '11-08-2026', interval: 'hour', weeks: 1 });
    expect(next.find((r) => r.start === utc(2026, 11, 8, 6))).toMatchObject({ forecastOffered: 3, forecastAht: 60 });
    // Sunday 2027-03-14 has 23 hours (02:00 skipped); by 15 minutes 92.
    expect(await plan(h, t.ssid, { date: '03-14-2027', interval: 'hour' })).toHaveLength(23);
    expect(await plan(h, t.ssid, { date: '03-14-2027', interval: '15m', groupId: g })).toHaveLength(92);
  });

  it('as CSV: the JSON rows, nulls as empty fields', async () => {
    const h = use();
    const { t, g } = await history(h);
    const body = { ssid: t.ssid, date: '11-23-2026', groupId: g, interval: '30m', target: TARGET };
    const json = await plan(h, t.ssid, body);
    const res = await h.app.inject({ method: 'POST', url: '/api/v2/staffing/plan', payload: { ...body, format: 'csv' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    const records = parse(res.body, { columns: true }) as Array<Record<string, string>>;
    expect(Object.keys(records[0]!)).toEqual([
      'groupId',
      'start',
      'end',
      'forecastOffered',
      'forecastAht',
      'agents',
      'scheduled',
      'offered',
      'loggedIn',
      'gap',
    ]);
    expect(records).toEqual(json.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === null ? '' : String(v)]))));
  });

  it('refuses a bad date (1001), interval or weeks (1000), an unknown group (1006); needs analysis.view (1015)', async () => {
    const h = use();
    const t = await createTenant(h);
    const code = async (body: Row, ssid = t.ssid) =>
      (await h.post('/api/v2/staffing/plan', { ssid, target: TARGET, interval: '30m', date: '11-23-2026', ...body })).body.code;
    expect(await code({ date: '13-45-2026' })).toBe(1001);
    expect(await code({ date: 'tomorrow' })).toBe(1001);
    expect(await code({ date: Date.UTC(2026, 10, 23) })).toBe(1001); // milliseconds
    expect(await code({ interval: '5m' })).toBe(1000);
    expect(await code({ interval: 'day' })).toBe(1000);
    expect(await code({ weeks: 0 })).toBe(1000);
    expect(await code({ weeks: 53 })).toBe(1000);
    expect(await code({ target: { serviceLevel: 100, seconds: 20 } })).toBe(1000);
    expect(await code({ groupId: 987654 })).toBe(1006);
    expect(await code({})).toBe(200);
    const viewer = await createAgent(h, t, { role: await createRole(h, t, { permissions: ['analysis.view'] }) });
    const other = await createAgent(h, t, { role: await createRole(h, t, { permissions: ['agent.view'] }) });
    expect(await code({}, (await login(h, viewer.email, viewer.password)).ssid)).toBe(200);
    expect(await code({}, (await login(h, other.email, other.password)).ssid)).toBe(1015);
  });
});
