import { spawn } from 'node:child_process';
import { afterAll, afterEach, expect, it } from 'vitest';
import { FreeswitchConnector } from '../../src/connectors/freeswitch/connector.js';
import { createAgent, createDid, createGroup } from '../helpers/admin.js';
import { ccEvent, channelEvent, startFakeEsl, type FakeEslServer } from '../helpers/fake-esl.js';
import { createTenant } from '../helpers/factories.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { baseUrl, closeReaders, openSse } from '../helpers/sse.js';

/*
 * `callcenter connect freeswitch` end to end: a scripted FreeSWITCH event
 * socket (test/helpers/fake-esl.ts, the real framing byte for byte) → the
 * connector → the service over real HTTP; then what Agent/live, queue/count
 * and analysis/hits answer, with figures worked out by hand.
 */

afterAll(closeReaders);
const running: { conn: FreeswitchConnector; fake: FakeEslServer }[] = [];
afterEach(async () => {
  for (const { conn, fake } of running.splice(0)) {
    await conn.stop();
    await fake.close();
  }
});

const U1 = '0f6a1c2e-8d1b-4c55-9f0e-3a2b1c4d5e61';
const U2 = '1a2b3c4d-5e6f-4a1b-8c2d-3e4f5a6b7c82';
const U3 = '2b3c4d5e-6f7a-4b2c-9d3e-4f5a6b7c8d93';
const LEG = '9e8d7c6b-5a49-4837-a261-5f4e3d2c1b00';

async function waitFor(cond: () => boolean, what: string, timeoutMs = 8000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const table = (header: string, rows: string[]) => `${[header, ...rows].join('\n')}\n+OK\n`;
const AGENT_HEADER =
  'name|instance_id|uuid|type|contact|status|state|max_no_answer|wrap_up_time|reject_delay_time|busy_delay_time|no_answer_delay_time|last_bridge_start|last_bridge_end|last_offered_call|last_status_change|no_answer_count|calls_answered|talk_time|ready_time|external_calls_count';
const agentRow = (ext: string, status: string, state: string) =>
  `${ext}@default|single_box||callback|[leg_timeout=10]user/${ext}@default|${status}|${state}|3|10|10|60|0|0|0|0|0|0|0|0|0|0`;
const MEMBER_HEADER =
  'queue|instance_id|uuid|session_uuid|cid_number|cid_name|system_epoch|joined_epoch|rejoined_epoch|bridge_epoch|abandoned_epoch|base_score|skill_score|serving_agent|serving_system|state';
const memberRow = (session: string, joined: number, state: string, agent = '') =>
  `support@default|single_box|m-${session.slice(0, 8)}|${session}|4930123456|Caller|${joined}|${joined}|0|0|0|0|0|${agent}|${agent ? 'single_box' : ''}|${state}`;

interface Scene {
  h: Harness;
  conn: FreeswitchConnector;
  fake: FakeEslServer;
  ssid: string;
  did: string;
  g: number;
  a1: number;
  a2: number;
  sup: number;
  lines: string[];
  /** Unix seconds where the scenario starts (the harness clock's time). */
  t0: number;
  /** Sends mod_callcenter events (at t0 + s), in 97-byte pieces, and waits until the service has them. */
  play(...frames: string[]): Promise<void>;
  /** Moves the harness clock to t0 + s. */
  at(s: number): void;
  post<T = Record<string, unknown>>(path: string, body?: Record<string, unknown>): Promise<T>;
}

async function scene(h: Harness, opts: { agents?: string[]; reconcileSecs?: number; multiSwitch?: boolean } = {}): Promise<Scene> {
  const t = await createTenant(h);
  const g = await createGroup(h, t, { name: 'support' });
  const sip = (ext: string, name: string) => createAgent(h, t, { group: g, dest_type: 'SIP', dest_value: `sip:${ext}@pbx.example.com`, name });
  const [a1, a2, sup] = [await sip('5001', 'Asha'), await sip('5002', 'Ben'), await sip('5003', 'Chen')];
  const did = await createDid(h, t);
  const token = await h.post<{ userId: string; token: string }>('/api/v2/auth/token', { ssid: t.ssid, kind: 'switch' });
  const fake = await startFakeEsl('ClueCon');
  fake.api.set(
    'callcenter_config agent list',
    table(AGENT_HEADER, opts.agents ?? [agentRow('5001', 'Available', 'Waiting'), agentRow('5002', 'Available', 'Waiting')]),
  );
  fake.api.set('callcenter_config queue list', table('name|strategy|moh_sound', ['support@default|longest-idle-agent|local_stream://moh']));
  fake.api.set('callcenter_config queue list members support@default', table(MEMBER_HEADER, []));
  const lines: string[] = [];
  const t0 = Math.floor(h.clock.now() / 1000);
  h.clock.advance(t0 * 1000 - h.clock.now());
  const conn = new FreeswitchConnector({
    conn: { api: await baseUrl(h), userId: token.body.userId, token: token.body.token },
    queueMap: new Map(),
    agentMap: new Map(),
    statusPort: null,
    switchName: 'freeswitch',
    log: (l) => lines.push(l),
    batchDelayMs: 5,
    streamBackoffMs: 20,
    now: () => h.clock.now(),
    esl: { host: '127.0.0.1', port: fake.port },
    eslPassword: 'ClueCon',
    takeoverContext: 'default',
    originateContext: 'default',
    reconcileSecs: opts.reconcileSecs ?? 3600,
    fixReserved: true,
    multiSwitch: opts.multiSwitch ?? false,
    ctcPollMs: 20,
    eslBackoff: { initialMs: 10, maxMs: 50 },
  });
  running.push({ conn, fake });
  await conn.start();
  await conn.runtime.stream!.connected;
  await waitFor(() => conn.reconciled >= 1, 'the first reconciliation');
  const s: Scene = {
    h,
    conn,
    fake,
    ssid: t.ssid,
    did,
    g,
    a1: a1.agentId,
    a2: a2.agentId,
    sup: sup.agentId,
    lines,
    t0,
    async play(...frames) {
      const bytes = Buffer.from(frames.join(''));
      const before = conn.received;
      for (let i = 0; i < bytes.length; i += 97) await fake.send(bytes.subarray(i, i + 97));
      await waitFor(() => conn.received >= before + frames.length, `${frames.length} events`);
      await conn.settle();
    },
    at(sec) {
      h.clock.advance((t0 + sec) * 1000 - h.clock.now());
    },
    async post(path, body = {}) {
      const res = await h.post(path, { ssid: t.ssid, ...body });
      expect(res.body.status, JSON.stringify(res.body)).toBe('success');
      return res.body as never;
    },
  };
  return s;
}

const us = (s: Scene, sec: number) => (s.t0 + sec) * 1_000_000;
const member = (session: string) => ({ 'CC-Queue': 'support@default', 'CC-Member-UUID': `m-${session.slice(0, 8)}`, 'CC-Member-Session-UUID': session });
const queued = (s: Scene, sec: number, session: string) =>
  ccEvent(us(s, sec), 'member-queue-start', {
    ...member(session),
    'CC-Member-CID-Name': 'Zoë Caller',
    'CC-Member-CID-Number': '+49 30 123456',
    'Caller-Destination-Number': s.did,
    'Caller-Caller-ID-Number': '+49 30 123456',
  });
const cc = (s: Scene, sec: number, action: string, session: string, fields: Record<string, string> = {}) =>
  ccEvent(us(s, sec), action, { ...member(session), ...fields });
const status = (s: Scene, sec: number, ext: string, st: string) =>
  ccEvent(us(s, sec), 'agent-status-change', { 'CC-Agent': `${ext}@default`, 'CC-Agent-Status': st });

/** MM-DD-YYYY (UTC) of Unix seconds. */
function day(secs: number): string {
  const d = new Date(secs * 1000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())}-${d.getUTCFullYear()}`;
}
async function hits(s: Scene, breakDown: string, fields: string): Promise<Record<string, Record<string, number | null>>> {
  const res = await s.h.post<{ data: Record<string, Record<string, number | null>> }>('/api/v2/analysis/hits', {
    ssid: s.ssid,
    breakDown,
    disPlay: 'total',
    fields,
    filter: [{ key: 'date', condi: 'range', val: `${day(s.t0 - 86_400)} 00:00:00,${day(s.t0 + 86_400)} 23:59:59` }],
  });
  expect(res.body.status, JSON.stringify(res.body)).toBe('success');
  return res.body.data;
}
type LiveAgent = { I: string; liC: { callId?: string; onHold?: boolean }; br: { reason?: string }; ex?: { state: string } };
async function live(s: Scene): Promise<{ pr: LiveAgent[]; lA: number; oBA: number; oCA: number }> {
  const body = await s.post<{ message: { pr: LiveAgent[]; lA: number; oBA: number; oCA: number } }>('/api/v2/Agent/live', { groupid: s.g, A: 1 });
  return body.message;
}
const agentState = async (s: Scene, agentId: number) => (await live(s)).pr.find((p) => p.I === String(agentId))!;
type Count = {
  data: { calls: { callId: string; state: string; agentId: number | null; onHold: boolean; did: string; caller: string }[]; grp: Record<string, number>[] };
};
const count = (s: Scene) => s.post<Count>('/api/v2/queue/count', {});

forEachDatabase('callcenter connect freeswitch: mod_callcenter through the event socket', (use) => {
  it('an answered call after a failed offer, with hold: live state, queue/count and analysis/hits', async () => {
    const s = await scene(use());
    expect(s.fake.commands.slice(0, 2)).toEqual(['auth ClueCon', 'event plain CUSTOM callcenter::info CHANNEL_HOLD CHANNEL_UNHOLD']);
    // The first reconciliation logged in the two agents the switch reports Available.
    expect((await live(s)).lA).toBe(2);

    await s.play(
      queued(s, 0, U1),
      cc(s, 2, 'agent-offering', U1, { 'CC-Agent': '5001@default', 'CC-Agent-System': 'single_box' }),
      cc(s, 12, 'bridge-agent-fail', U1, { 'CC-Agent': '5001@default', 'CC-Hangup-Cause': 'NO_ANSWER' }),
      cc(s, 14, 'agent-offering', U1, { 'CC-Agent': '5002@default' }),
      cc(s, 18, 'bridge-agent-start', U1, { 'CC-Agent': '5002@default', 'CC-Agent-UUID': LEG }),
      // The agent's phone puts the customer on hold: the hold event is the agent leg's.
      channelEvent(us(s, 30), 'CHANNEL_HOLD', LEG, { cc_member_session_uuid: U1 }),
    );
    s.at(31);
    const during = await count(s);
    expect(during.data.calls).toEqual([
      expect.objectContaining({ callId: U1, state: 'connected', agentId: s.a2, onHold: true, did: s.did, caller: '4930123456' }),
    ]);
    expect((await agentState(s, s.a2)).liC).toMatchObject({ callId: U1, onHold: true });

    await s.play(
      channelEvent(us(s, 45), 'CHANNEL_UNHOLD', LEG, { cc_member_session_uuid: U1 }),
      cc(s, 78, 'member-queue-end', U1, { 'CC-Cause': 'Terminated' }),
    );
    s.at(80);
    const after = await count(s);
    expect(after.data.calls).toEqual([]);
    // Queued within the 300 s window: one call, answered, not dropped, nothing live.
    expect(after.data.grp).toEqual([{ key: s.g, add: 1, drop: 0, con: 1, pen: 0, process: 0, ass: 0 }]);
    // 5001: one hit, rang 2 → 12 = 10 s, missed, the call answered elsewhere (PM).
    // 5002: one hit, rang 14 → 18 = 4 s, answered; held 30 → 45 = 15 s.
    expect(await hits(s, 'agentId', 'TC,AC,MC,UC,CA,PM,CM,avgRingTime,avgHoldTime')).toEqual({
      [s.a1]: { TC: 1, AC: 0, MC: 1, UC: 1, CA: 0, PM: 1, CM: 0, avgRingTime: 10, avgHoldTime: null },
      [s.a2]: { TC: 1, AC: 1, MC: 0, UC: 1, CA: 1, PM: 0, CM: 0, avgRingTime: 4, avgHoldTime: 15 },
    });
    expect(s.conn.runtime.health.rejected).toBe(0);
  });

  it('abandoned calls (Cancel: BREAK_OUT while ringing, TIMEOUT unoffered); an unknown queue is logged once', async () => {
    const s = await scene(use());
    await s.play(
      queued(s, 0, U1),
      queued(s, 1, U2),
      cc(s, 3, 'agent-offering', U1, { 'CC-Agent': '5001@default' }),
      cc(s, 9, 'member-queue-end', U1, { 'CC-Cause': 'Cancel', 'CC-Cancel-Reason': 'BREAK_OUT' }),
      cc(s, 61, 'member-queue-end', U2, { 'CC-Cause': 'Cancel', 'CC-Cancel-Reason': 'TIMEOUT' }),
      ccEvent(us(s, 62), 'member-queue-start', { 'CC-Queue': 'sales@default', 'CC-Member-Session-UUID': U3 }),
      ccEvent(us(s, 63), 'member-queue-start', { 'CC-Queue': 'sales@default', 'CC-Member-Session-UUID': U3 }),
    );
    s.at(70);
    const c = await count(s);
    expect(c.data.calls).toEqual([]);
    expect(c.data.grp).toEqual([{ key: s.g, add: 2, drop: 2, con: 0, pen: 0, process: 0, ass: 0 }]);
    // Only U1 was offered: one hit, rang 3 → 9 = 6 s, never answered (CM). U2 had no offer: no key counts it.
    expect(await hits(s, 'groupId', 'TC,AC,MC,UC,CA,CM,avgRingTime')).toEqual({ [s.g]: { TC: 1, AC: 0, MC: 1, UC: 1, CA: 0, CM: 1, avgRingTime: 6 } });
    // 5001 is free again after the caller broke out.
    expect((await agentState(s, s.a1)).ex!.state).toBe('available');
    expect(s.lines.filter((l) => l.includes('unknown queue "sales"'))).toHaveLength(1);
    expect(s.lines.some((l) => l.includes(`call ${U1} left support@default: Cancel BREAK_OUT`))).toBe(true);
    expect(s.lines.some((l) => l.includes(`call ${U2} left support@default: Cancel TIMEOUT`))).toBe(true);
  });

  it('a break (On Break without a reason is `break`) and back; reconciliation runs every --reconcile-s', async () => {
    const s = await scene(use(), { reconcileSecs: 0.1 });
    await s.play(status(s, 0, '5001', 'On Break'));
    s.at(5);
    let l = await live(s);
    expect({ lA: l.lA, oBA: l.oBA }).toEqual({ lA: 2, oBA: 1 });
    expect((await agentState(s, s.a1)).br).toMatchObject({ reason: 'break' });
    // The switch's agent list still says Available (it is only read): keep it in step as FreeSWITCH would.
    s.fake.api.set('callcenter_config agent list', table(AGENT_HEADER, [agentRow('5001', 'On Break', 'Idle'), agentRow('5002', 'Available', 'Waiting')]));
    const passes = s.conn.reconciled;
    await waitFor(() => s.conn.reconciled >= passes + 2, 'two periodic passes');
    await s.play(status(s, 60, '5001', 'Available'));
    s.at(61);
    l = await live(s);
    expect({ lA: l.lA, oBA: l.oBA }).toEqual({ lA: 2, oBA: 0 });
    expect((await agentState(s, s.a1)).br).toEqual({});
    expect(s.conn.runtime.health.rejected).toBe(0);
  });

  it('a takeover: the stream command becomes uuid_transfer of the caller channel to the supervisor', async () => {
    const s = await scene(use(), {
      agents: [agentRow('5001', 'Available', 'Waiting'), agentRow('5002', 'Available', 'Waiting'), agentRow('5003', 'Available', 'Waiting')],
    });
    await s.play(
      queued(s, 0, U1),
      cc(s, 1, 'agent-offering', U1, { 'CC-Agent': '5001@default' }),
      cc(s, 4, 'bridge-agent-start', U1, { 'CC-Agent': '5001@default', 'CC-Agent-UUID': LEG }),
    );
    s.at(10);
    const taken = await s.post<{ data: { callId: string; from: number; to: number } }>('/api/v2/queue/callTakeover', { callId: U1, agentid: s.sup });
    expect(taken.data).toEqual({ callId: U1, from: s.a1, to: s.sup });
    await s.fake.received('api uuid_transfer');
    expect(s.fake.commands.filter((c) => c.startsWith('api uuid_transfer'))).toEqual([`api uuid_transfer ${U1} 5003 XML default`]);
    await waitFor(() => s.conn.runtime.health.commandsExecuted === 1, 'the command counted');
    expect((await agentState(s, s.sup)).liC).toMatchObject({ callId: U1 });
    expect((await agentState(s, s.a1)).ex!.state).toBe('wrapup');
  });

  it('a disconnect, then reconciliation: a vanished member and a ghost member end, an agent the switch logged out is logged out', async () => {
    const s = await scene(use(), {
      agents: [agentRow('5001', 'Available', 'Waiting'), agentRow('5002', 'Available', 'Waiting'), agentRow('5003', 'Available', 'Waiting')],
    });
    await s.play(
      queued(s, 0, U1),
      cc(s, 1, 'agent-offering', U1, { 'CC-Agent': '5002@default' }),
      cc(s, 3, 'bridge-agent-start', U1, { 'CC-Agent': '5002@default', 'CC-Agent-UUID': LEG }),
      queued(s, 2, U2),
      queued(s, 4, U3),
      cc(s, 5, 'agent-offering', U3, { 'CC-Agent': '5001@default' }),
      cc(s, 6, 'bridge-agent-start', U3, { 'CC-Agent': '5001@default' }),
    );
    s.at(10);
    expect((await count(s)).data.calls.map((c) => c.callId).sort()).toEqual([U1, U2, U3].sort());
    const sse = await openSse(`${await baseUrl(s.h)}/api/v2/stream?ssid=${s.ssid}`);
    await sse.next((m) => m.event === 'ready');

    // The socket drops; meanwhile U2 hangs up (its member-queue-end is lost), U3's channel dies but
    // mod_callcenter still lists it as Answered, and 5003 logs out.
    s.fake.api.set(
      'callcenter_config queue list members support@default',
      table(MEMBER_HEADER, [memberRow(U1, s.t0, 'Answered', '5002@default'), memberRow(U3, s.t0 + 4, 'Answered', '5001@default')]),
    );
    s.fake.api.set(`uuid_exists ${U1}`, 'true\n');
    s.fake.api.set(`uuid_exists ${U3}`, 'false\n');
    s.fake.api.set(
      'callcenter_config agent list',
      table(AGENT_HEADER, [
        agentRow('5001', 'Available', 'In a queue call'),
        agentRow('5002', 'Available', 'In a queue call'),
        agentRow('5003', 'Logged Out', 'Waiting'),
      ]),
    );
    s.fake.disconnect();
    await s.fake.subscribed(2);
    await waitFor(() => s.conn.reconciled >= 2, 'the reconciliation after the reconnect');
    await s.conn.settle();

    // The corrections are on the stream like any change.
    const u2 = await sse.next((m) => m.event === 'call' && m.data.callId === U2 && m.data.state === 'ended');
    expect(u2.data.outcome).toBe('abandoned');
    const u3 = await sse.next((m) => m.event === 'call' && m.data.callId === U3 && m.data.state === 'ended');
    expect(u3.data.outcome).toBe('completed');
    expect(s.lines).toEqual(
      expect.arrayContaining([
        `freeswitch: reconcile: call.ended call ${U2}: member no longer in any queue`,
        `freeswitch: reconcile: call.ended call ${U3}: member listed by mod_callcenter but its channel is gone`,
        `freeswitch: reconcile: agent.logout agent ${s.sup}: agent 5003@default is Logged Out on the switch`,
      ]),
    );

    const c = await count(s);
    expect(c.data.calls.map((x) => [x.callId, x.state, x.agentId])).toEqual([[U1, 'connected', s.a2]]);
    // Three calls queued within the window: U2 dropped, U1 and U3 answered; U1 still connected.
    expect(c.data.grp).toEqual([{ key: s.g, add: 3, drop: 1, con: 2, pen: 0, process: 0, ass: 1 }]);
    const l = await live(s);
    expect({ lA: l.lA, oCA: l.oCA }).toEqual({ lA: 2, oCA: 1 });
    expect((await agentState(s, s.a1)).liC).toEqual({});
    // Finished calls: U3 (5001 rang 5 → 6 = 1 s, answered; talk 6 → 10 = 4 s, above the 3 s ghost threshold)
    // and U2 (no offer, so in no key).
    expect(await hits(s, 'agentId', 'TC,AC,UC,CA,GH_UC,avgRingTime')).toEqual({ [s.a1]: { TC: 1, AC: 1, UC: 1, CA: 1, GH_UC: 0, avgRingTime: 1 } });

    // A second pass finds nothing more to correct.
    const before = s.conn.runtime.health.eventsForwarded;
    await s.conn.reconcile();
    await s.conn.settle();
    expect(s.conn.runtime.health.eventsForwarded).toBe(before);
    expect(s.conn.runtime.health.rejected).toBe(0);
  });

  it('click-to-call: originate rings the agent with the call id, reports the call under it, ends it when the channel is gone', async () => {
    const s = await scene(use());
    const callId = 'ctc-7f3a';
    const cmd = `originate {cc_call_id=${callId},origination_caller_id_number=${s.did}}user/5001 4930555000 XML default`;
    s.fake.api.set(cmd, `+OK ${LEG}\n`);
    s.fake.api.set(`uuid_exists ${LEG}`, 'true\n');
    await s.conn.ctc.originate({ callId, agentId: s.a1, agentNumber: '', customer: '4930555000', did: s.did, campaignId: null, ts: s.t0, seq: 1 });
    expect(s.fake.commands).toContain(`api ${cmd}`);
    await s.conn.settle();
    expect((await count(s)).data.calls).toEqual([expect.objectContaining({ callId, state: 'connected', agentId: s.a1, did: s.did, caller: '4930555000' })]);
    // A takeover of a click-to-call moves the customer: the B-leg of the agent's channel.
    await s.post('/api/v2/queue/callTakeover', { callId, agentid: s.a2 });
    await s.fake.received('api uuid_transfer');
    expect(s.fake.commands.filter((c) => c.startsWith('api uuid_transfer'))).toEqual([`api uuid_transfer ${LEG} -bleg 5002 XML default`]);
    s.fake.api.set(`uuid_exists ${LEG}`, 'false\n');
    await waitFor(() => s.fake.commands.filter((c) => c === `api uuid_exists ${LEG}`).length >= 2, 'the poll');
    await waitFor(() => s.conn.ctc.owns(callId) === false, 'the end');
    await s.conn.settle();
    expect((await count(s)).data.calls).toEqual([]);
    // A failed attempt: missed and failed, the command reported as failed.
    s.fake.api.set('originate {cc_call_id=ctc-8}user/5002 4930555001 XML default', '-ERR NO_ANSWER\n');
    await expect(
      s.conn.ctc.originate({ callId: 'ctc-8', agentId: s.a2, agentNumber: '', customer: '4930555001', did: null, campaignId: null, ts: s.t0, seq: 2 }),
    ).rejects.toThrow(/originate: -ERR NO_ANSWER/);
    await s.conn.settle();
    expect(s.conn.ctc.owns('ctc-8')).toBe(false);
    expect(s.lines.filter((l) => l.startsWith('rejected'))).toEqual([]);
    expect(s.conn.runtime.health.rejected).toBe(0);
  });

  it('a call that starts while a pass reads the switch is left to the next pass, not ended', async () => {
    const s = await scene(use());
    // The member list is answered empty, but the caller joins the queue just before: the service has the call
    // when the pass reads its state, the list read a moment earlier does not.
    s.fake.before.set('api callcenter_config queue list members support@default', queued(s, 1, U1));
    s.at(2);
    await s.conn.reconcile();
    await s.conn.settle();
    expect((await count(s)).data.calls.map((c) => c.callId)).toEqual([U1]);
    // The next pass sees the member in the list and leaves the call alone too.
    s.fake.api.set('callcenter_config queue list members support@default', table(MEMBER_HEADER, [memberRow(U1, s.t0 + 1, 'Waiting')]));
    await s.conn.reconcile();
    await s.conn.settle();
    expect((await count(s)).data.calls.map((c) => c.callId)).toEqual([U1]);
    expect(s.lines.filter((l) => l.includes('reconcile:'))).toEqual([
      'freeswitch: reconcile: agent.login agent ' + s.a1 + ': agent 5001@default is Available on the switch',
      'freeswitch: reconcile: agent.login agent ' + s.a2 + ': agent 5002@default is Available on the switch',
    ]);
  });

  it('--multi-switch: reconciliation leaves the calls and agents of other switches of the account alone', async () => {
    const s = await scene(use(), { multiSwitch: true, agents: [agentRow('5001', 'Available', 'Waiting')] });
    // 5002 works on another FreeSWITCH: logged in there, with a call this connector never saw.
    const other = (type: string, extra: Record<string, unknown>) => ({ eventId: `other-${type}`, type, ts: s.t0, ...extra });
    const res = await s.h.post<{ data: { accepted: number } }>('/api/v2/events/ingest', {
      ssid: s.ssid,
      events: [other('agent.login', { agentId: s.a2, loginType: 'SIP' }), other('call.queued', { callId: U2, groupId: s.g })],
    });
    expect(res.body.data.accepted).toBe(2);
    await s.play(queued(s, 1, U1));
    s.at(5);
    await s.conn.reconcile();
    await s.conn.settle();
    // U1 (seen here, gone from this switch's queue) ends; U2 and 5002 belong to the other switch.
    expect((await count(s)).data.calls.map((c) => c.callId)).toEqual([U2]);
    expect((await live(s)).lA).toBe(2);
  });

  it('the `callcenter connect freeswitch` process: usage on a missing option (exit 2); runs, reconciles, stops on SIGTERM (exit 0)', async () => {
    const h = use();
    const t = await createTenant(h);
    const token = await h.post<{ userId: string; token: string }>('/api/v2/auth/token', { ssid: t.ssid, kind: 'switch' });
    const fake = await startFakeEsl('ClueCon');
    fake.api.set('callcenter_config agent list', table(AGENT_HEADER, []));
    fake.api.set('callcenter_config queue list', table('name|strategy', []));
    const run = (args: string[], env: Record<string, string>) => {
      const child = spawn(process.execPath, ['bin/callcenter.js', 'connect', 'freeswitch', ...args], { env: { ...process.env, ...env } });
      let output = '';
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
      const exit = new Promise<number | null>((r) => child.on('close', r));
      return { child, exit, output: () => output };
    };
    try {
      const bad = run(['--esl', `127.0.0.1:${fake.port}`], {});
      expect(await bad.exit).toBe(2);
      expect(bad.output()).toContain('usage: callcenter connect freeswitch');
      const env = {
        CALLCENTER_API_URL: await baseUrl(h),
        CALLCENTER_USER_ID: token.body.userId,
        CALLCENTER_TOKEN: token.body.token,
        CALLCENTER_ESL_PASSWORD: 'ClueCon',
      };
      const good = run(['--esl', `127.0.0.1:${fake.port}`], env);
      await fake.received('api callcenter_config queue list', 1);
      good.child.kill('SIGTERM');
      expect(await good.exit).toBe(0);
      expect(good.output()).toContain(`freeswitch: connected to 127.0.0.1:${fake.port}`);
      expect(good.output()).not.toContain('ClueCon');
    } finally {
      await fake.close();
    }
  }, 60_000);
});
