import { afterAll, afterEach, expect, it } from 'vitest';
import { forEachDatabase } from '../helpers/harness.js';
import { baseUrl, closeReaders, openSse } from '../helpers/sse.js';
import {
  U1,
  U2,
  U3,
  LEG,
  AGENT_HEADER,
  MEMBER_HEADER,
  agentRow,
  agentState,
  cc,
  count,
  hits,
  live,
  memberRow,
  queued,
  scene,
  stopAll,
  table,
  waitFor,
} from './connect-freeswitch.fixtures.js';

/*
 * `callcenter connect freeswitch`, the reconciliation with callcenter_config:
 * after a disconnect, during a pass, and with several switches on one account.
 */

afterAll(closeReaders);
afterEach(stopAll);

forEachDatabase('callcenter connect freeswitch: reconciliation with callcenter_config', (use) => {
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
    await waitFor(() => s.conn.runtime.health.switchState === 'disconnected' || s.fake.connections >= 2, 'the drop');
    await s.fake.subscribed(2);
    await waitFor(() => s.conn.reconciled >= 2, 'the reconciliation after the reconnect');
    expect(s.conn.runtime.health.report()).toMatchObject({
      switch: 'freeswitch',
      switchState: 'connected',
      lastError: { message: 'event socket: event socket closed' },
    });
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
    // A takeover of the other switch's call is that switch's to run: this connector skips it.
    await s.h.post('/api/v2/events/ingest', {
      ssid: s.ssid,
      events: [other('call.ringing', { callId: U2, agentId: s.a2 }), other('call.answered', { callId: U2, agentId: s.a2 })],
    });
    await s.post('/api/v2/queue/callTakeover', { callId: U2, agentid: s.a1 });
    await waitFor(() => s.lines.some((l) => l === `freeswitch: call.takeover ${U2}: not a call of this switch, skipped`), 'the skip');
    expect(s.fake.commands.filter((c) => c.startsWith('api uuid_transfer'))).toEqual([]);
  });
});
