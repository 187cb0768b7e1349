import { expect, it } from 'vitest';
import { createAgent, createGroup } from '../helpers/admin.js';
import { createTenant, type Session } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { ingest, ingestOk, nowSec } from './events.fixtures.js';
import { MOVE_STATES_EVERY } from '../../src/modules/events/agent-states.js';

/*
 * History is judged against the state at its own time: a past day ingested
 * after the fact (agents live since, or its agent events sent before its
 * calls) is accepted, moves no live state, and counts as if sent live.
 */

type Tenant = Session & { accountId: number };

/** A working day, `d` the day's 00:00 (Unix seconds): two agents, three calls, a break. */
function day(d: number, a1: number, a2: number) {
  const at = (hh: number, mm: number, ss = 0) => d + hh * 3600 + mm * 60 + ss;
  const agentEvents = [
    { eventId: 'p-login1', type: 'agent.login', agentId: a1, loginType: 'SIP', ts: at(9, 0) },
    { eventId: 'p-login2', type: 'agent.login', agentId: a2, loginType: 'SIP', ts: at(9, 0, 1) },
    { eventId: 'p-brk1', type: 'agent.break.start', agentId: a1, reason: 'lunch', ts: at(10, 0) },
    { eventId: 'p-brk2', type: 'agent.break.end', agentId: a1, ts: at(10, 30) },
    { eventId: 'p-out1', type: 'agent.logout', agentId: a1, ts: at(17, 0) },
    { eventId: 'p-out2', type: 'agent.logout', agentId: a2, ts: at(17, 0, 1) },
  ];
  const callEvents = [
    // c1: a1 lets it ring 15 s, a2 answers after 4 s, 30 s on hold, ends at 09:15.
    { eventId: 'p-c1q', type: 'call.queued', callId: 'c1', groupId: 71, did: '9100', caller: '919800000001', ts: at(9, 10) },
    { eventId: 'p-c1r1', type: 'call.ringing', callId: 'c1', agentId: a1, ts: at(9, 10) },
    { eventId: 'p-c1m1', type: 'call.missed', callId: 'c1', agentId: a1, ts: at(9, 10, 15) },
    { eventId: 'p-c1r2', type: 'call.ringing', callId: 'c1', agentId: a2, ts: at(9, 10, 16) },
    { eventId: 'p-c1a', type: 'call.answered', callId: 'c1', agentId: a2, ts: at(9, 10, 20) },
    { eventId: 'p-c1h', type: 'call.hold', callId: 'c1', ts: at(9, 12) },
    { eventId: 'p-c1u', type: 'call.unhold', callId: 'c1', ts: at(9, 12, 30) },
    { eventId: 'p-c1e', type: 'call.ended', callId: 'c1', reason: 'completed', ts: at(9, 15) },
    // c2: a1 answers after 5 s, 2 s of talk (a ghost call).
    { eventId: 'p-c2q', type: 'call.queued', callId: 'c2', groupId: 71, did: '9100', caller: '919800000002', ts: at(10, 40) },
    { eventId: 'p-c2r', type: 'call.ringing', callId: 'c2', agentId: a1, ts: at(10, 40, 5) },
    { eventId: 'p-c2a', type: 'call.answered', callId: 'c2', agentId: a1, ts: at(10, 40, 10) },
    { eventId: 'p-c2e', type: 'call.ended', callId: 'c2', reason: 'completed', ts: at(10, 40, 12) },
    // c3: rings a2 for 18 s, the caller hangs up.
    { eventId: 'p-c3q', type: 'call.queued', callId: 'c3', groupId: 71, did: '9100', caller: '919800000003', ts: at(11, 0) },
    { eventId: 'p-c3r', type: 'call.ringing', callId: 'c3', agentId: a2, ts: at(11, 0, 2) },
    { eventId: 'p-c3e', type: 'call.ended', callId: 'c3', reason: 'abandoned', ts: at(11, 0, 20) },
  ];
  const all = [...agentEvents, ...callEvents].sort((x, y) => x.ts - y.ts);
  return { agentEvents, callEvents, all };
}

const FIELDS = 'TC,AC,MC,UC,CA,PM,CM,GH_UC,avgRingTime,avgHoldTime';
const EXPECTED = {
  a1: { TC: 2, AC: 1, MC: 1, UC: 2, CA: 1, PM: 1, CM: 0, GH_UC: 1, avgRingTime: 10, avgHoldTime: 0 },
  a2: { TC: 2, AC: 1, MC: 1, UC: 2, CA: 1, PM: 0, CM: 1, GH_UC: 0, avgRingTime: 11, avgHoldTime: 30 },
};

async function setup(h: Harness): Promise<{ t: Tenant; a1: number; a2: number }> {
  const t = await createTenant(h);
  await createGroup(h, t, { groupId: 71 });
  const a1 = (await createAgent(h, t, { group: 71 })).agentId;
  const a2 = (await createAgent(h, t, { group: 71 })).agentId;
  return { t, a1, a2 };
}

async function counters(h: Harness, t: Tenant, a1: number, a2: number, d: number) {
  const res = await h.post('/api/v2/analysis/hits', {
    ssid: t.ssid,
    fields: FIELDS,
    filter: [{ key: 'date', condi: 'range', val: `${d},${d + 86_399}` }],
  });
  const data = res.body.data as Record<string, unknown>;
  return { a1: data[a1], a2: data[a2] };
}

async function liveAgent(h: Harness, t: Tenant, agentId: number) {
  return h.db.get<{ logged_in: number; login_at: number; calls: number; break_reason: string | null }>(
    'SELECT logged_in, login_at, calls, break_reason FROM live_agents WHERE account_id = $1 AND agent_id = $2',
    [t.accountId, agentId],
  );
}

forEachDatabase('events/ingest: past events judged against the state at their own time', (use) => {
  const yesterday = (h: Harness) => Math.floor(nowSec(h) / 86_400) * 86_400 - 86_400;

  it('the day sent live (in batches, in time order) gives the figures worked out by hand', async () => {
    const h = use();
    const { t, a1, a2 } = await setup(h);
    const d = yesterday(h);
    const { all } = day(d, a1, a2);
    for (let i = 0; i < all.length; i += 4) await ingestOk(h, t.ssid, all.slice(i, i + 4));
    expect(await counters(h, t, a1, a2, d)).toEqual(EXPECTED);
  });

  it('the same day ingested after the agents worked today: accepted, same counters, live state untouched', async () => {
    const h = use();
    const { t, a1, a2 } = await setup(h);
    const now = Math.floor(nowSec(h));
    // Today both agents are logged in, a1 on break.
    await ingestOk(h, t.ssid, [
      { eventId: 'today-1', type: 'agent.login', agentId: a1, loginType: 'Web', ts: now - 600 },
      { eventId: 'today-2', type: 'agent.login', agentId: a2, loginType: 'Web', ts: now - 600 },
      { eventId: 'today-3', type: 'agent.break.start', agentId: a1, reason: 'meeting', ts: now - 60 },
    ]);
    const d = yesterday(h);
    const { all } = day(d, a1, a2);
    expect(await ingest(h, t.ssid, all)).toEqual({ accepted: all.length, duplicates: 0, errors: [] });
    expect(await counters(h, t, a1, a2, d)).toEqual(EXPECTED);
    // Yesterday's logouts did not log anyone out now; yesterday's calls are not today's.
    expect(await liveAgent(h, t, a1)).toMatchObject({ logged_in: 1, break_reason: 'meeting', calls: 0 });
    expect(Number((await liveAgent(h, t, a2))!.login_at)).toBe(now - 600);
    // Re-imported: all duplicates.
    expect(await ingest(h, t.ssid, all)).toEqual({ accepted: 0, duplicates: all.length, errors: [] });
  });

  it("the day's agent events first, its calls later: the calls are judged by the logins of their time (no 1043)", async () => {
    const h = use();
    const { t, a1, a2 } = await setup(h);
    const d = yesterday(h);
    const { agentEvents, callEvents } = day(d, a1, a2);
    await ingestOk(h, t.ssid, agentEvents);
    // Both agents are logged out now; the calls of 09:10–11:00 find them logged in then.
    for (let i = 0; i < callEvents.length; i += 5) await ingestOk(h, t.ssid, callEvents.slice(i, i + 5));
    expect(await counters(h, t, a1, a2, d)).toEqual(EXPECTED);
    expect(await liveAgent(h, t, a1)).toMatchObject({ logged_in: 0 });
  });

  it('one batch with today first, then yesterday: yesterday is judged at its own time', async () => {
    const h = use();
    const { t, a1, a2 } = await setup(h);
    const now = Math.floor(nowSec(h));
    const d = yesterday(h);
    const { all } = day(d, a1, a2);
    const today = [
      { eventId: 'mix-1', type: 'agent.login', agentId: a1, ts: now - 60 },
      { eventId: 'mix-2', type: 'agent.login', agentId: a2, ts: now - 60 },
    ];
    expect(await ingest(h, t.ssid, [...today, ...all])).toEqual({ accepted: today.length + all.length, duplicates: 0, errors: [] });
    expect(await counters(h, t, a1, a2, d)).toEqual(EXPECTED);
    expect(await liveAgent(h, t, a1)).toMatchObject({ logged_in: 1, break_reason: null });
  });

  it('a past event that was invalid at its own time is still refused', async () => {
    const h = use();
    const { t, a1, a2 } = await setup(h);
    const d = yesterday(h);
    const { agentEvents } = day(d, a1, a2);
    await ingestOk(h, t.ssid, agentEvents);
    const at = (hh: number, mm: number, ss = 0) => d + hh * 3600 + mm * 60 + ss;
    const out = await ingest(h, t.ssid, [
      // 08:00: nobody was logged in yet.
      { eventId: 'x1', type: 'call.queued', callId: 'x1', ts: at(8, 0) },
      { eventId: 'x2', type: 'call.ringing', callId: 'x1', agentId: a1, ts: at(8, 0, 1) },
      // 10:10: a1 was on a lunch break.
      { eventId: 'x3', type: 'call.queued', callId: 'x3', ts: at(10, 10) },
      { eventId: 'x4', type: 'call.ringing', callId: 'x3', agentId: a1, ts: at(10, 10, 1) },
      // 12:00: a2 was already logged in; a1 was not on break.
      { eventId: 'x5', type: 'agent.login', agentId: a2, ts: at(12, 0) },
      { eventId: 'x6', type: 'agent.break.end', agentId: a1, ts: at(12, 0) },
      // 12:05: a2 rings for x7, so cannot ring for x8 nor log out.
      { eventId: 'x7', type: 'call.queued', callId: 'x7', ts: at(12, 5) },
      { eventId: 'x8', type: 'call.ringing', callId: 'x7', agentId: a2, ts: at(12, 5) },
      { eventId: 'x9', type: 'call.queued', callId: 'x9', ts: at(12, 5, 1) },
      { eventId: 'x10', type: 'call.ringing', callId: 'x9', agentId: a2, ts: at(12, 5, 2) },
      { eventId: 'x11', type: 'agent.logout', agentId: a2, ts: at(12, 5, 3) },
      // 18:00: both were logged out.
      { eventId: 'x12', type: 'agent.break.start', agentId: a2, ts: at(18, 0) },
    ]);
    expect(out.errors.map((e) => [e.index, e.code])).toEqual([
      [1, 1043],
      [3, 1524],
      [4, 1524],
      [5, 1524],
      [9, 1524],
      [10, 1524],
      [11, 1043],
    ]);
    expect(out.accepted).toBe(5);
    // The accepted past ring ends with its call and counts as one unanswered hit of a2.
    await ingestOk(h, t.ssid, [{ eventId: 'x13', type: 'call.ended', callId: 'x7', reason: 'abandoned', ts: at(12, 5, 9) }]);
    const res = await h.post('/api/v2/analysis/hits', {
      ssid: t.ssid,
      fields: 'TC,MC,avgRingTime',
      filter: [{ key: 'date', condi: 'range', val: `${d},${d + 86_399}` }],
    });
    expect(res.body.data).toEqual({ [a2]: { TC: 1, MC: 1, avgRingTime: 9 } });
  });

  it('states moved from the recent table to the agent-clustered one (every 10,000 events) and states still recent judge past events alike', async () => {
    const h = use();
    const { t, a1, a2 } = await setup(h);
    const d = yesterday(h);
    const { agentEvents, callEvents } = day(d, a1, a2);
    const logouts = agentEvents.filter((e) => e.type === 'agent.logout');
    await ingestOk(
      h,
      t.ssid,
      agentEvents.filter((e) => e.type !== 'agent.logout'),
    );
    // A third agent logs in and out today until the account's sequence passes a multiple of MOVE_STATES_EVERY.
    const a3 = (await createAgent(h, t, { group: 71 })).agentId;
    const now = Math.floor(nowSec(h));
    const filler = Array.from({ length: MOVE_STATES_EVERY }, (_, i) => ({
      eventId: `fill-${i}`,
      type: i % 2 === 0 ? 'agent.login' : 'agent.logout',
      agentId: a3,
      ts: now - MOVE_STATES_EVERY + i,
    }));
    for (let i = 0; i < filler.length; i += 500) await ingestOk(h, t.ssid, filler.slice(i, i + 500));
    const inTable = async (table: string) =>
      Number((await h.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE account_id = $1 AND agent_id IN ($2, $3)`, [t.accountId, a1, a2]))!.n);
    expect(await inTable('agent_state_recent')).toBe(0);
    expect(await inTable('agent_state_log')).toBe(4);
    // The logouts stay recent: the history of a1 and a2 is in both tables now.
    await ingestOk(h, t.ssid, logouts);
    expect(await inTable('agent_state_recent')).toBe(2);
    for (let i = 0; i < callEvents.length; i += 5) await ingestOk(h, t.ssid, callEvents.slice(i, i + 5));
    expect(await counters(h, t, a1, a2, d)).toEqual(EXPECTED);
    const at = (hh: number, mm: number, ss = 0) => d + hh * 3600 + mm * 60 + ss;
    const out = await ingest(h, t.ssid, [
      // 10:10: a1 on its lunch break (a moved state); 18:00: a2 logged out (a recent state).
      { eventId: 'y1', type: 'call.queued', callId: 'y1', ts: at(10, 10) },
      { eventId: 'y2', type: 'call.ringing', callId: 'y1', agentId: a1, ts: at(10, 10, 1) },
      { eventId: 'y3', type: 'call.queued', callId: 'y3', ts: at(18, 0) },
      { eventId: 'y4', type: 'call.ringing', callId: 'y3', agentId: a2, ts: at(18, 0, 1) },
    ]);
    expect(out.errors.map((e) => [e.index, e.code])).toEqual([
      [1, 1524],
      [3, 1043],
    ]);
  });
});
