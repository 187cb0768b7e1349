import { afterAll, expect, it } from 'vitest';
import { amiEvent } from '../helpers/ami-server.js';
import { forEachDatabase, type Harness } from '../helpers/harness.js';
import { closeReaders } from '../helpers/sse.js';
import { nowSec } from './events.fixtures.js';
import { agentLive, caller, hits, memberEvent, queueCalls, startSwitch, waitFor, type Row } from './asterisk.fixtures.js';

afterAll(closeReaders);

const state = (live: Map<number, Row>, id: number) => (live.get(id)!.ex as Row).state;

async function history(h: Harness, accountId: number, callId: string) {
  return h.db.get<Row>(
    'SELECT outcome, answered_by, talk_secs, hold_secs, direction, group_id, did, caller FROM calls WHERE account_id = $1 AND call_id = $2',
    [accountId, callId],
  );
}

forEachDatabase('connect asterisk: AMI transcripts end to end', (use) => {
  it('a call answered after one ring-no-answer', async () => {
    const h = use();
    const sw = await startSwitch(h);
    try {
      const { a1, a2 } = sw.ids;
      // The first reconciliation logged in the two members QueueStatus reported (5001, 5002), at T.
      const T = nowSec(h);
      let live = await agentLive(h, sw.t.ssid);
      expect([state(live, a1), state(live, a2), state(live, sw.ids.a3)]).toEqual(['available', 'available', 'offline']);
      const c = caller('1732460400.1', '+91 98111 00042', sw.did);
      await sw.fake.send(c.join(T) + c.called(T + 1, '5001') + c.noAnswer(T + 11, '5001', 10000) + c.called(T + 12, '5002'));
      await sw.sync();
      expect(await queueCalls(h, sw.t.ssid)).toMatchObject([
        { callId: '1732460400.1', state: 'ringing', ringingAgentId: a2, caller: '919811100042', did: sw.did, groupId: sw.g },
      ]);
      h.clock.advance(16_000);
      await sw.fake.send(c.connect(T + 16, '5002', 16, 4000));
      await sw.sync();
      expect(await queueCalls(h, sw.t.ssid)).toMatchObject([{ callId: '1732460400.1', state: 'connected', agentId: a2, wait: 16 }]);
      h.clock.advance(60_000);
      await sw.fake.send(c.complete(T + 76, '5002', 16, 60));
      await sw.sync();
      expect(await queueCalls(h, sw.t.ssid)).toEqual([]);
      live = await agentLive(h, sw.t.ssid);
      // a2: logged in 76 s, talked 60 s (T+16 → T+76), one call, available again.
      expect(live.get(a2)).toMatchObject({ tt: 60, tC: 1, l: { type: 'SIP', duration: ['00', '01', '16'] }, ex: { state: 'available' } });
      // a1 missed 10 s of ringing; a2 answered after 4 s.
      expect(await hits(h, sw.t.ssid, 'TC,AC,MC,UC,CA,PM,CM,avgRingTime')).toEqual({
        [a1]: { TC: 1, AC: 0, MC: 1, UC: 1, CA: 0, PM: 1, CM: 0, avgRingTime: 10 },
        [a2]: { TC: 1, AC: 1, MC: 0, UC: 1, CA: 1, PM: 0, CM: 0, avgRingTime: 4 },
      });
      expect(await history(h, sw.t.accountId, '1732460400.1')).toMatchObject({
        outcome: 'completed',
        direction: 'inbound',
        did: sw.did,
        caller: '919811100042',
      });
      expect(sw.rt.health.report()).toMatchObject({ switchState: 'connected', rejected: 0, skipped: 0 });
    } finally {
      await sw.stop();
    }
  });

  it('an abandon while ringing', async () => {
    const h = use();
    const sw = await startSwitch(h);
    try {
      const T = nowSec(h);
      const c = caller('1732460500.7', '919800000007', sw.did);
      await sw.fake.send(c.join(T) + c.called(T + 1, '5001'));
      h.clock.advance(8_000);
      await sw.fake.send(c.abandon(T + 8, 8) + c.hangup(T + 8));
      await sw.sync();
      expect(await queueCalls(h, sw.t.ssid)).toEqual([]);
      expect(state(await agentLive(h, sw.t.ssid), sw.ids.a1)).toBe('available');
      // One hit, rung 7 s (T+1 → T+8), never answered: the call is missed by all (CM).
      expect(await hits(h, sw.t.ssid, 'TC,AC,MC,UC,CA,PM,CM,avgRingTime')).toEqual({
        [sw.ids.a1]: { TC: 1, AC: 0, MC: 1, UC: 1, CA: 0, PM: 0, CM: 1, avgRingTime: 7 },
      });
      expect(await history(h, sw.t.accountId, '1732460500.7')).toMatchObject({ outcome: 'abandoned' });
    } finally {
      await sw.stop();
    }
  });

  it('hold and unhold, on either leg, count once', async () => {
    const h = use();
    const sw = await startSwitch(h);
    try {
      const T = nowSec(h);
      const c = caller('1732460600.3', '919800000003', sw.did);
      const agentLeg = c.agentLeg('5001');
      await sw.fake.send(c.join(T) + c.called(T + 1, '5001') + c.connect(T + 5, '5001', 5, 4000));
      // The agent presses hold (their leg), Asterisk reports the caller's leg too.
      await sw.fake.send(c.hold(T + 20, agentLeg, true) + c.hold(T + 20, c.leg, true));
      await sw.sync();
      expect(await queueCalls(h, sw.t.ssid)).toMatchObject([{ callId: '1732460600.3', state: 'connected', onHold: true }]);
      await sw.fake.send(c.hold(T + 50, c.leg, false) + c.hold(T + 50, agentLeg, false));
      await sw.sync();
      expect(await queueCalls(h, sw.t.ssid)).toMatchObject([{ onHold: false }]);
      await sw.fake.send(c.complete(T + 80, '5001', 5, 75));
      await sw.sync();
      // Held 30 s (T+20 → T+50) of 75 s talk.
      expect(await history(h, sw.t.accountId, '1732460600.3')).toMatchObject({ outcome: 'completed' });
      const row = (await history(h, sw.t.accountId, '1732460600.3'))!;
      expect([Number(row.hold_secs), Number(row.talk_secs)]).toEqual([30, 75]);
      expect(await hits(h, sw.t.ssid, 'TC,AC,avgHoldTime')).toEqual({ [sw.ids.a1]: { TC: 1, AC: 1, avgHoldTime: 30 } });
      expect(sw.rt.health.rejected).toBe(0);
    } finally {
      await sw.stop();
    }
  });

  it('a pause with a reason, and back', async () => {
    const h = use();
    const sw = await startSwitch(h);
    try {
      const T = nowSec(h);
      await sw.fake.send(memberEvent('QueueMemberPause', T + 1, '5001', true, 'Lunch'));
      await sw.sync();
      let live = await agentLive(h, sw.t.ssid);
      expect(state(live, sw.ids.a1)).toBe('break');
      expect(JSON.stringify(live.get(sw.ids.a1)!.br)).toContain('Lunch');
      await sw.fake.send(memberEvent('QueueMemberPause', T + 31, '5001', false));
      await sw.sync();
      live = await agentLive(h, sw.t.ssid);
      expect(state(live, sw.ids.a1)).toBe('available');
      // A call queued now can ring the agent again.
      const c = caller('1732460700.9', '919800000009', sw.did);
      await sw.fake.send(c.join(T + 32) + c.called(T + 33, '5001'));
      await sw.sync();
      expect(await queueCalls(h, sw.t.ssid)).toMatchObject([{ state: 'ringing', ringingAgentId: sw.ids.a1 }]);
    } finally {
      await sw.stop();
    }
  });

  it('a member added and removed; an unknown member is logged once and skipped', async () => {
    const h = use();
    const sw = await startSwitch(h);
    try {
      const T = nowSec(h);
      await sw.fake.send(memberEvent('QueueMemberAdded', T + 1, '5003', false) + memberEvent('QueueMemberAdded', T + 1, '7777', false));
      await sw.sync();
      expect(state(await agentLive(h, sw.t.ssid), sw.ids.a3)).toBe('available');
      await sw.fake.send(memberEvent('QueueMemberRemoved', T + 61, '5003', false) + memberEvent('QueueMemberRemoved', T + 61, '7777', false));
      await sw.sync();
      expect(state(await agentLive(h, sw.t.ssid), sw.ids.a3)).toBe('offline');
      expect(sw.lines.filter((l) => l.includes('7777'))).toEqual([
        'unknown member "PJSIP/7777" / "Agent 7777": no agent with SIP destination 7777 or of that name, and no --agent-map entry; its events are skipped',
      ]);
    } finally {
      await sw.stop();
    }
  });

  it('a takeover from the board is executed as AMI Redirect of the caller to the supervisor', async () => {
    const h = use();
    const sw = await startSwitch(h, { members: ['5001', '5009'] });
    try {
      const T = nowSec(h);
      const c = caller('1732460800.4', '919800000004', sw.did);
      await sw.fake.send(c.join(T) + c.called(T + 1, '5001') + c.connect(T + 3, '5001', 3, 2000));
      await sw.sync();
      const res = await h.post('/api/v2/queue/callTakeover', { ssid: sw.t.ssid, callId: '1732460800.4', agentid: sw.ids.sup });
      expect(res.body.status, JSON.stringify(res.body)).toBe('success');
      await waitFor(() => sw.fake.actions.some((a) => a.Action === 'Redirect'), 'the Redirect');
      const redirect = sw.fake.actions.find((a) => a.Action === 'Redirect')!;
      expect(redirect).toMatchObject({ Channel: c.channel, Exten: '5009', Context: 'from-internal', Priority: '1' });
      // The queue reports the old agent's leg completing (the caller left the queue's bridge): the call goes on with the supervisor.
      await sw.fake.send(c.complete(T + 40, '5001', 3, 37));
      await sw.sync();
      expect(await queueCalls(h, sw.t.ssid)).toMatchObject([{ callId: '1732460800.4', state: 'connected', agentId: sw.ids.sup }]);
      // The caller hangs up at T+100: the call completes, answered by the supervisor.
      await sw.fake.send(c.hangup(T + 100));
      await sw.sync();
      expect(await queueCalls(h, sw.t.ssid)).toEqual([]);
      const row = (await history(h, sw.t.accountId, '1732460800.4'))!;
      expect([row.outcome, Number(row.answered_by)]).toEqual(['completed', sw.ids.sup]);
      expect(sw.rt.health.commandsExecuted).toBe(1);
    } finally {
      await sw.stop();
    }
  });

  it('a disconnect in the middle of a call, then a reconnect reconciled with QueueStatus', async () => {
    const h = use();
    const sw = await startSwitch(h);
    try {
      const { a1, a2 } = sw.ids;
      const T = nowSec(h);
      const x = caller('1732460900.1', '919800000011', sw.did);
      const y = caller('1732460900.2', '919800000012', sw.did);
      await sw.fake.send(x.join(T) + x.called(T + 1, '5001') + x.connect(T + 4, '5001', 4, 3000) + y.join(T + 5));
      await sw.sync();
      expect((await queueCalls(h, sw.t.ssid)).map((c) => [c.callId, c.state])).toEqual([
        ['1732460900.1', 'connected'],
        ['1732460900.2', 'queued'],
      ]);
      // The switch restarts; meanwhile X ends, Y still waits, Z arrives, 5002 leaves the queue.
      sw.fake.status = {
        members: [{ queue: 'sales', location: 'PJSIP/5001' }],
        entries: [
          { queue: 'sales', channel: y.channel, uniqueid: '1732460900.2', callerIdNum: '919800000012', wait: 40, position: 1 },
          { queue: 'sales', channel: 'PJSIP/trunk-17324609003', uniqueid: '1732460900.3', callerIdNum: '919800000013', wait: 10, position: 2 },
        ],
        channels: [
          { channel: y.channel, uniqueid: '1732460900.2', linkedid: '1732460900.2' },
          { channel: 'PJSIP/trunk-17324609003', uniqueid: '1732460900.3', linkedid: '1732460900.3' },
        ],
      };
      sw.fake.drop();
      await waitFor(() => sw.rt.health.switchState === 'disconnected', 'the disconnect');
      h.clock.advance(45_000);
      await waitFor(() => sw.connector.reconciled >= 2, 'the reconciliation after the reconnect');
      expect(sw.fake.logins).toBe(2);
      const calls = await queueCalls(h, sw.t.ssid);
      // X ended (completed: it was answered); Y still queued; Z queued at reconnect time − Wait (T+45−10), DID unknown (queue/count shows "").
      expect(calls.map((c) => [c.callId, c.state])).toEqual([
        ['1732460900.2', 'queued'],
        ['1732460900.3', 'queued'],
      ]);
      expect(calls[1]).toMatchObject({ caller: '919800000013', did: '', groupId: sw.g, queuedAt: T + 35 });
      const live = await agentLive(h, sw.t.ssid);
      expect([state(live, a1), state(live, a2)]).toEqual(['available', 'offline']);
      const row = (await history(h, sw.t.accountId, '1732460900.1'))!;
      // Talk from T+4 to the reconciliation at T+45.
      expect([row.outcome, Number(row.answered_by), Math.round(Number(row.talk_secs))]).toEqual(['completed', a1, 41]);
      // After the reconnect, events map as before: Z rings 5001 and is answered.
      await sw.fake.send(
        amiEvent('AgentCalled', 'agent,all', T + 46, { Uniqueid: '1732460900.3', Queue: 'sales', Interface: 'PJSIP/5001', MemberName: 'Agent 5001' }),
      );
      await sw.sync();
      expect((await queueCalls(h, sw.t.ssid)).find((c) => c.callId === '1732460900.3')).toMatchObject({ state: 'ringing', ringingAgentId: a1 });
      expect(await hits(h, sw.t.ssid, 'TC,AC,UC,CA')).toEqual({ [a1]: { TC: 1, AC: 1, UC: 1, CA: 1 } });
    } finally {
      await sw.stop();
    }
  });
});
