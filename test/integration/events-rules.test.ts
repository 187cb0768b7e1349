import { expect, it } from 'vitest';
import { createAgent, createGroup } from '../helpers/admin.js';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { advance, ev, ingest, ingestOk, nowSec } from './events.fixtures.js';

type Row = Record<string, unknown>;

async function setup(h: Harness) {
  const t = await createTenant(h);
  const g = await createGroup(h, t);
  const a = (await createAgent(h, t, { group: g })).agentId;
  const b = (await createAgent(h, t, { group: g })).agentId;
  return { t, g, a, b };
}

async function agentRow(h: Harness, accountId: number, agentId: number) {
  return h.db.get<Row>('SELECT * FROM live_agents WHERE account_id = $1 AND agent_id = $2', [accountId, agentId]);
}
async function callRow(h: Harness, accountId: number, callId: string) {
  return h.db.get<Row>('SELECT * FROM live_calls WHERE account_id = $1 AND call_id = $2', [accountId, callId]);
}

/** One event that must be rejected with `code` (index 0) and change nothing. */
async function rejects(h: Harness, ssid: string, event: Row, code: number) {
  const out = await ingest(h, ssid, [event]);
  expect(out, JSON.stringify(event)).toMatchObject({ accepted: 0, errors: [{ index: 0, code }] });
}

forEachDatabase('events/ingest rules', (use) => {
  it('agent events: each transition and each rejection', async () => {
    const h = use();
    const { t, a } = await setup(h);
    // Logged out: everything but login and sip is 1043.
    for (const type of ['agent.logout', 'agent.break.start', 'agent.break.end', 'agent.wrapup.start', 'agent.wrapup.end']) {
      await rejects(h, t.ssid, ev(h, type, { agentId: a }), 1043);
    }
    await ingestOk(h, t.ssid, [ev(h, 'agent.sip', { agentId: a, sipStatus: 'registered' })]);
    expect(await agentRow(h, t.accountId, a)).toMatchObject({ sip_status: 'registered', logged_in: 0 });
    await ingestOk(h, t.ssid, [ev(h, 'agent.login', { agentId: a, loginType: 'Mobile' })]);
    expect(await agentRow(h, t.accountId, a)).toMatchObject({ logged_in: 1, login_type: 'Mobile' });
    await rejects(h, t.ssid, ev(h, 'agent.login', { agentId: a }), 1524);
    await rejects(h, t.ssid, ev(h, 'agent.break.end', { agentId: a }), 1524);
    await rejects(h, t.ssid, ev(h, 'agent.wrapup.end', { agentId: a }), 1524);
    await ingestOk(h, t.ssid, [ev(h, 'agent.break.start', { agentId: a, reason: 'Tea' })]);
    expect(await agentRow(h, t.accountId, a)).toMatchObject({ break_reason: 'Tea' });
    await rejects(h, t.ssid, ev(h, 'agent.break.start', { agentId: a }), 1524);
    await ingestOk(h, t.ssid, [ev(h, 'agent.break.end', { agentId: a }), ev(h, 'agent.wrapup.start', { agentId: a })]);
    expect(await agentRow(h, t.accountId, a)).toMatchObject({ break_reason: null });
    await rejects(h, t.ssid, ev(h, 'agent.wrapup.start', { agentId: a }), 1524);
    await ingestOk(h, t.ssid, [ev(h, 'agent.wrapup.end', { agentId: a }), ev(h, 'agent.logout', { agentId: a })]);
    expect(await agentRow(h, t.accountId, a)).toMatchObject({ logged_in: 0, wrapup_at: null, login_type: null });
    // Unknown and foreign agents are 1509.
    await rejects(h, t.ssid, ev(h, 'agent.login', { agentId: 987654321 }), 1509);
    const other = await createTenant(h);
    const foreign = (await createAgent(h, other)).agentId;
    await rejects(h, t.ssid, ev(h, 'agent.login', { agentId: foreign }), 1509);
    // A deleted agent is unknown.
    const gone = (await createAgent(h, t)).agentId;
    await h.post('/api/v2/Agent/delete', { ssid: t.ssid, agentId: gone });
    await rejects(h, t.ssid, ev(h, 'agent.login', { agentId: gone }), 1509);
  });

  it('call events: each transition and each rejection', async () => {
    const h = use();
    const { t, g, a, b } = await setup(h);
    await rejects(h, t.ssid, ev(h, 'call.answered', { callId: 'q1', agentId: a }), 1012);
    await rejects(h, t.ssid, ev(h, 'call.queued', { callId: 'q1', groupId: 424242 }), 1006);
    await ingestOk(h, t.ssid, [ev(h, 'call.queued', { callId: 'q1', groupId: g, direction: 'outbound', campaignId: 'cmp', retryOf: 'q0' })]);
    expect(await callRow(h, t.accountId, 'q1')).toMatchObject({ state: 'queued', direction: 'outbound', campaign_id: 'cmp', retry_of: 'q0' });
    await rejects(h, t.ssid, ev(h, 'call.queued', { callId: 'q1' }), 1524);
    await rejects(h, t.ssid, ev(h, 'call.ringing', { callId: 'q1', agentId: a }), 1043);
    await ingestOk(h, t.ssid, [ev(h, 'agent.login', { agentId: a }), ev(h, 'agent.login', { agentId: b }), ev(h, 'agent.break.start', { agentId: b })]);
    await rejects(h, t.ssid, ev(h, 'call.ringing', { callId: 'q1', agentId: b }), 1524);
    await rejects(h, t.ssid, ev(h, 'call.missed', { callId: 'q1' }), 1524);
    await rejects(h, t.ssid, ev(h, 'call.answered', { callId: 'q1', agentId: a }), 1524);
    await ingestOk(h, t.ssid, [ev(h, 'call.ringing', { callId: 'q1', agentId: a })]);
    expect(await callRow(h, t.accountId, 'q1')).toMatchObject({ state: 'ringing', ring_agent: a });
    expect(await agentRow(h, t.accountId, a)).toMatchObject({ ring_call: 'q1' });
    await rejects(h, t.ssid, ev(h, 'call.ringing', { callId: 'q1', agentId: a }), 1524);
    await rejects(h, t.ssid, ev(h, 'agent.logout', { agentId: a }), 1524);
    await rejects(h, t.ssid, ev(h, 'call.answered', { callId: 'q1', agentId: b }), 1524);
    await rejects(h, t.ssid, ev(h, 'call.missed', { callId: 'q1', agentId: b }), 1524);
    await ingestOk(h, t.ssid, [ev(h, 'call.queued', { callId: 'q2' })]);
    await rejects(h, t.ssid, ev(h, 'call.ringing', { callId: 'q2', agentId: a }), 1524);
    await rejects(h, t.ssid, ev(h, 'call.hold', { callId: 'q1' }), 1524);
    await rejects(h, t.ssid, ev(h, 'call.ended', { callId: 'q2', reason: 'completed' }), 1524);
    await ingestOk(h, t.ssid, [ev(h, 'call.answered', { callId: 'q1', agentId: a })]);
    expect(await callRow(h, t.accountId, 'q1')).toMatchObject({ state: 'connected', agent_id: a, ring_agent: null });
    expect(await agentRow(h, t.accountId, a)).toMatchObject({ call_id: 'q1', ring_call: null, calls: 1 });
    await rejects(h, t.ssid, ev(h, 'call.unhold', { callId: 'q1' }), 1524);
    await rejects(h, t.ssid, ev(h, 'agent.break.start', { agentId: a }), 1524);
    await rejects(h, t.ssid, ev(h, 'agent.wrapup.start', { agentId: a }), 1524);
    await ingestOk(h, t.ssid, [ev(h, 'call.hold', { callId: 'q1' })]);
    await rejects(h, t.ssid, ev(h, 'call.hold', { callId: 'q1' }), 1524);
    expect(await callRow(h, t.accountId, 'q1')).toMatchObject({ on_hold: 1 });
    advance(h, 7);
    // Ended while on hold: the hold runs until the end.
    await ingestOk(h, t.ssid, [ev(h, 'call.ended', { callId: 'q1', reason: 'failed' })]);
    expect(await callRow(h, t.accountId, 'q1')).toBeUndefined();
    const done = await h.db.get<Row>('SELECT outcome, hold_secs FROM calls WHERE account_id = $1 AND call_id = $2', [t.accountId, 'q1']);
    expect(done!.outcome).toBe('failed');
    expect(Math.round(Number(done!.hold_secs))).toBe(7);
    expect(await agentRow(h, t.accountId, a)).toMatchObject({ call_id: null });
    for (const type of ['call.ringing', 'call.answered', 'call.hold', 'call.ended']) await rejects(h, t.ssid, ev(h, type, { callId: 'q1', agentId: a }), 1012);
    await rejects(h, t.ssid, ev(h, 'call.queued', { callId: 'q1' }), 1524);
    // Never answered and ended without a reason: abandoned; an open offer is closed at the end.
    await ingestOk(h, t.ssid, [ev(h, 'call.ringing', { callId: 'q2', agentId: a })]);
    advance(h, 4);
    await ingestOk(h, t.ssid, [ev(h, 'call.ended', { callId: 'q2' })]);
    const q2 = await h.db.get<Row>('SELECT outcome, wait_secs FROM calls WHERE account_id = $1 AND call_id = $2', [t.accountId, 'q2']);
    expect(q2!.outcome).toBe('abandoned');
    const hit = await h.db.get<Row>('SELECT ring_secs, answered FROM call_hits WHERE account_id = $1 AND call_id = $2', [t.accountId, 'q2']);
    expect([Math.round(Number(hit!.ring_secs)), Number(hit!.answered)]).toEqual([4, 0]);
    expect(await agentRow(h, t.accountId, a)).toMatchObject({ ring_call: null });
    // Offering to an agent in wrap-up, offering a connected call, answering by an unknown agent.
    await ingestOk(h, t.ssid, [ev(h, 'agent.wrapup.start', { agentId: a }), ev(h, 'agent.break.end', { agentId: b }), ev(h, 'call.queued', { callId: 'q3' })]);
    await rejects(h, t.ssid, ev(h, 'call.ringing', { callId: 'q3', agentId: a }), 1524);
    await rejects(h, t.ssid, ev(h, 'call.answered', { callId: 'q3', agentId: 987654321 }), 1509);
    await ingestOk(h, t.ssid, [
      ev(h, 'call.ringing', { callId: 'q3', agentId: b }),
      ev(h, 'call.answered', { callId: 'q3', agentId: b }),
      ev(h, 'agent.wrapup.end', { agentId: a }),
    ]);
    await rejects(h, t.ssid, ev(h, 'call.ringing', { callId: 'q3', agentId: a }), 1524);
  });

  it('malformed events are rejected one by one (1000 / 1001)', async () => {
    const h = use();
    const { t, a } = await setup(h);
    const ts = nowSec(h);
    const out = await ingest(h, t.ssid, [
      'not an object',
      { type: 'agent.login', ts, agentId: a },
      { eventId: 'm1', type: 'agent.dance', ts },
      { eventId: 'm2', type: 'agent.login', ts: 'yesterday', agentId: a },
      { eventId: 'm3', type: 'agent.login', ts },
      { eventId: 'm4', type: 'call.queued', ts },
      { eventId: 'm5', type: 'agent.sip', ts, agentId: a },
      { eventId: 'm6', type: 'agent.login', ts, agentId: a, loginType: 'Pigeon' },
      { eventId: 'm7', type: 'call.queued', ts, callId: 'z', direction: 'sideways' },
      { eventId: 'm8', type: 'call.ended', ts, callId: 'z', reason: 'bored' },
      { eventId: 'm9', type: 'agent.login', ts, agentId: 'abc' },
      { eventId: 'm10', type: 'agent.login', ts, agentId: a },
    ]);
    expect(out.accepted).toBe(1);
    expect(out.errors.map((e) => [e.index, e.code])).toEqual([
      [0, 1000],
      [1, 1000],
      [2, 1001],
      [3, 1001],
      [4, 1000],
      [5, 1000],
      [6, 1000],
      [7, 1000],
      [8, 1000],
      [9, 1000],
      [10, 1000],
    ]);
    expect(out.errors[5]!.message).toMatch(/callId/);
  });

  it('ts is Unix seconds: a millisecond time (over 10^11) is rejected with 1001 saying seconds are expected', async () => {
    const h = use();
    const { t, a } = await setup(h);
    const ms = h.clock.now();
    const out = await ingest(h, t.ssid, [
      { eventId: 'ms1', type: 'agent.login', ts: ms, agentId: a },
      { eventId: 'ms2', type: 'agent.login', ts: ms + 0.5, agentId: a },
      { eventId: 'ms3', type: 'agent.login', ts: 100_000_000_001, agentId: a },
    ]);
    expect(out).toEqual({
      accepted: 0,
      duplicates: 0,
      errors: [
        { index: 0, code: 1001, message: `Invalid data type or value: ts ${ms} can only be milliseconds: Unix seconds are expected` },
        { index: 1, code: 1001, message: `Invalid data type or value: ts ${ms + 0.5} can only be milliseconds: Unix seconds are expected` },
        { index: 2, code: 1001, message: 'Invalid data type or value: ts 100000000001 can only be milliseconds: Unix seconds are expected' },
      ],
    });
    expect(await agentRow(h, t.accountId, a)).toBeUndefined();
    // The same event in seconds (fractional allowed) is accepted.
    expect(await ingest(h, t.ssid, [{ eventId: 'ms1', type: 'agent.login', ts: ms / 1000, agentId: a }])).toEqual({ accepted: 1, duplicates: 0, errors: [] });
  });

  it('is idempotent on eventId (replays and in-batch repeats are duplicates); rejected ids may be retried', async () => {
    const h = use();
    const { t, a } = await setup(h);
    const login = ev(h, 'agent.login', { agentId: a });
    const brk = ev(h, 'agent.break.start', { agentId: a, reason: 'x' });
    expect(await ingest(h, t.ssid, [login, login, brk])).toEqual({ accepted: 2, duplicates: 1, errors: [] });
    const seq = await h.db.get<Row>('SELECT seq FROM event_seq WHERE account_id = $1', [t.accountId]);
    expect(await ingest(h, t.ssid, [login, brk])).toEqual({ accepted: 0, duplicates: 2, errors: [] });
    expect(await h.db.get<Row>('SELECT seq FROM event_seq WHERE account_id = $1', [t.accountId])).toEqual(seq);
    expect(await agentRow(h, t.accountId, a)).toMatchObject({ logged_in: 1, break_reason: 'x' });
    // The same eventId in another account is that account's own event.
    const other = await setup(h);
    expect((await ingest(h, other.t.ssid, [{ ...login, agentId: other.a }])).accepted).toBe(1);
    // A rejected event is not remembered: once the state allows it, the same id is accepted.
    const early = ev(h, 'call.ringing', { callId: 'r1', agentId: a });
    expect((await ingest(h, t.ssid, [early])).errors[0]!.code).toBe(1012);
    await ingestOk(h, t.ssid, [ev(h, 'agent.break.end', { agentId: a }), ev(h, 'call.queued', { callId: 'r1' })]);
    expect(await ingest(h, t.ssid, [early])).toEqual({ accepted: 1, duplicates: 0, errors: [] });
  });

  it('applies in arrival order; a ts earlier than the last applied one counts as that time', async () => {
    const h = use();
    const { t, a } = await setup(h);
    const t0 = nowSec(h);
    await ingestOk(h, t.ssid, [
      { eventId: 'o1', type: 'agent.login', agentId: a, ts: t0 },
      { eventId: 'o2', type: 'call.queued', callId: 'o', ts: t0 + 10 },
      { eventId: 'o3', type: 'call.ringing', callId: 'o', agentId: a, ts: t0 + 12 },
      { eventId: 'o4', type: 'call.answered', callId: 'o', agentId: a, ts: t0 + 5 },
      { eventId: 'o5', type: 'call.ended', callId: 'o', ts: t0 + 40 },
    ]);
    const call = await h.db.get<Row>('SELECT answered_at, talk_secs, wait_secs FROM calls WHERE account_id = $1 AND call_id = $2', [t.accountId, 'o']);
    expect(Number(call!.answered_at)).toBeCloseTo(t0 + 12, 3);
    expect(Number(call!.talk_secs)).toBeCloseTo(28, 3);
    expect(Number(call!.wait_secs)).toBeCloseTo(2, 3);
  });

  it('serialises concurrent batches of one account: one gap-free sequence, every event applied once', async () => {
    const h = use();
    const t = await createTenant(h);
    const agents = [];
    for (let i = 0; i < 4; i++) agents.push((await createAgent(h, t)).agentId);
    const batches = agents.map((agentId) => [
      ev(h, 'agent.login', { agentId }),
      ...Array.from({ length: 50 }, (_, i) => ev(h, 'agent.sip', { agentId, sipStatus: `s${i}` })),
    ]);
    const results = await Promise.all(batches.map((b) => ingest(h, t.ssid, b)));
    expect(results.map((r) => r.accepted)).toEqual([51, 51, 51, 51]);
    const seqs = await h.db.all<{ seq: number }>('SELECT seq FROM event_ids WHERE account_id = $1 ORDER BY seq', [t.accountId]);
    expect(seqs.map((r) => Number(r.seq))).toEqual(Array.from({ length: 204 }, (_, i) => i + 1));
    expect(Number((await h.db.get<{ seq: number }>('SELECT seq FROM event_seq WHERE account_id = $1', [t.accountId]))!.seq)).toBe(204);
    for (const agentId of agents) expect(await agentRow(h, t.accountId, agentId)).toMatchObject({ logged_in: 1, sip_status: 's49' });
  });

  it('takes at most 1000 events (1000), accepts switch tokens, and refuses agents (1015)', async () => {
    const h = use();
    const { t, a } = await setup(h);
    const big = Array.from({ length: 1001 }, () => ev(h, 'agent.sip', { agentId: a, sipStatus: 'online' }));
    expect((await h.post('/api/v2/events/ingest', { ssid: t.ssid, events: big })).body.code).toBe(1000);
    expect((await h.post('/api/v2/events/ingest', { ssid: t.ssid, events: 'x' })).body.code).toBe(1000);
    expect((await h.post('/api/v2/events/ingest', { ssid: t.ssid })).body.code).toBe(1000);
    const ok = await ingest(h, t.ssid, big.slice(0, 1000));
    expect(ok.accepted).toBe(1000);
    const sw = await h.post<{ token: string; userId: string }>('/api/v2/auth/token', { ssid: t.ssid, kind: 'switch' });
    const viaSwitch = await h.post('/api/v2/events/ingest', { userId: sw.body.userId, token: sw.body.token, events: [ev(h, 'agent.login', { agentId: a })] });
    expect((viaSwitch.body.data as Row).accepted).toBe(1);
    const ag = await createAgent(h, t);
    const s = await h.post<{ ssid: string }>('/api/v2/auth/login', { username: ag.email, password: ag.password });
    expect((await h.post('/api/v2/events/ingest', { ssid: s.body.ssid, events: [] })).body.code).toBe(1015);
  });
});
