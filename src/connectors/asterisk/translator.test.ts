import { describe, expect, it } from 'vitest';
import type { SwitchState } from '../core/index.js';
import { AmiParser, type AmiMessage } from './ami-parser.js';
import { reconcile } from './reconcile.js';
import { AsteriskTranslator } from './translator.js';

const AGENTS: Record<string, number> = { '5001': 12, '5002': 13 };
const ext = (member: string) => /(\d{4})/.exec(member)?.[1] ?? '';
/** The first of a member's names that names a known extension (as SwitchMapper tries them). */
const agentOf = (names: Array<string | undefined>) => names.map((n) => AGENTS[ext(n ?? '')]).find((id) => id !== undefined);

function translator() {
  return new AsteriskTranslator({
    group: async (q) => (q === 'sales' ? 55 : undefined),
    agent: async (...m) => agentOf(m),
    didVar: null,
    now: () => 1_800_000_000_000,
  });
}

/** AMI text → messages (the real framing, blank line between messages). */
function msgs(...blocks: string[]): AmiMessage[] {
  return new AmiParser().feed(Buffer.from(blocks.map((b) => `${b.trim().split('\n').join('\r\n')}\r\n\r\n`).join('')));
}

async function run(t: AsteriskTranslator, ...blocks: string[]) {
  const out = [];
  for (const m of msgs(...blocks)) out.push(...(await t.translate(m)));
  return out.map((e) => [e.type, e.callId ?? e.agentId, e.agentId ?? e.reason ?? null]);
}

const join =
  'Event: QueueCallerJoin\nTimestamp: 100.0\nChannel: PJSIP/trunk-1\nUniqueid: 1.1\nLinkedid: 1.1\nCallerIDNum: 919800000001\nExten: 18005550100\nQueue: sales';
const called = (e: string, ts: number) => `Event: AgentCalled\nTimestamp: ${ts}\nUniqueid: 1.1\nDestUniqueid: 1.1${e}\nQueue: sales\nInterface: PJSIP/${e}`;

describe('AsteriskTranslator', () => {
  it('a ringing agent leg hanging up does not end the waiting call; the caller hanging up does', async () => {
    const t = translator();
    expect(await run(t, join, called('5001', 101))).toEqual([
      ['call.queued', '1.1', null],
      ['call.ringing', '1.1', 12],
    ]);
    expect(await run(t, 'Event: Hangup\nTimestamp: 105\nUniqueid: 1.15001\nLinkedid: 1.1\nChannel: PJSIP/5001-0001')).toEqual([]);
    expect(await run(t, 'Event: Hangup\nTimestamp: 106\nUniqueid: 1.1\nLinkedid: 1.1\nChannel: PJSIP/trunk-1')).toEqual([['call.ended', '1.1', null]]);
  });

  it('ringall: members rung together; the one the service holds ends as missed when another answers; AgentConnect without AgentCalled reports the ring first', async () => {
    const t = translator();
    await run(t, join, called('5001', 101));
    // 5002 rings too (ringall): the service keeps one offer per call, 5001's.
    expect(await run(t, called('5002', 101))).toEqual([]);
    // No AgentRingNoAnswer comes for 5001: its offer ends as missed at 5002's answer.
    expect(await run(t, 'Event: AgentConnect\nTimestamp: 104\nUniqueid: 1.1\nDestUniqueid: 1.15002\nQueue: sales\nInterface: PJSIP/5002\nHoldTime: 4')).toEqual(
      [
        ['call.missed', '1.1', 12],
        ['call.ringing', '1.1', 13],
        ['call.answered', '1.1', 13],
      ],
    );
    const t2 = translator();
    await run(t2, join);
    expect(await run(t2, 'Event: AgentConnect\nTimestamp: 110\nUniqueid: 1.1\nDestUniqueid: 1.15002\nQueue: sales\nInterface: PJSIP/5002')).toEqual([
      ['call.ringing', '1.1', 13],
      ['call.answered', '1.1', 13],
    ]);
  });

  it("ringall timing out: each member's missed offer is reported, the held one first, then the next still ringing", async () => {
    const t = translator();
    await run(t, join, called('5001', 101), called('5002', 101));
    const rna = (e: string) => `Event: AgentRingNoAnswer\nTimestamp: 116\nUniqueid: 1.1\nQueue: sales\nInterface: PJSIP/${e}\nRingTime: 15000`;
    expect(await run(t, rna('5001'))).toEqual([
      ['call.missed', '1.1', 12],
      ['call.ringing', '1.1', 13],
    ]);
    expect(await run(t, rna('5002'))).toEqual([['call.missed', '1.1', 13]]);
  });

  it('every queue visit is a call: a timeout (QueueCallerAbandon) then a join on the same channel is a new call retrying it; an exit without abandon ends at the dialplan going on', async () => {
    const t = translator();
    const ev = async (...b: string[]) => {
      const out = [];
      for (const m of msgs(...b)) out.push(...(await t.translate(m)));
      return out.map((e) => [e.type, e.callId, e.ts, e.retryOf ?? e.reason ?? e.agentId ?? null]);
    };
    const j = (ts: number, q = 'sales') => join.replace('Timestamp: 100.0', `Timestamp: ${ts}`).replace('Queue: sales', `Queue: ${q}`);
    const abandon = (ts: number) => `Event: QueueCallerAbandon\nTimestamp: ${ts}\nUniqueid: 1.1\nQueue: sales\nHoldTime: 20`;
    const leave = (ts: number) => `Event: QueueCallerLeave\nTimestamp: ${ts}\nChannel: PJSIP/trunk-1\nUniqueid: 1.1\nQueue: sales`;
    const newexten = (ts: number) => `Event: Newexten\nTimestamp: ${ts}\nChannel: PJSIP/trunk-1\nUniqueid: 1.1\nApplication: Playback`;
    expect(await ev(j(100), called('5001', 101), abandon(120), leave(120), j(121))).toEqual([
      ['call.queued', '1.1', 100, null],
      ['call.ringing', '1.1', 101, 12],
      ['call.ended', '1.1', 120, 'abandoned'],
      ['call.queued', '1.1-v2', 121, '1.1'],
    ]);
    // A replay of the same join (after a reconnect) is no new visit.
    expect(await ev(j(121))).toEqual([]);
    // An exit key: QueueCallerLeave, no abandon; the dialplan goes on.
    expect(await ev(leave(130), newexten(130.5))).toEqual([['call.ended', '1.1-v2', 130, null]]);
    // A loop back with no exit event seen: the open visit ends at the new join.
    expect(await ev(j(140), leave(150), j(151))).toEqual([
      ['call.queued', '1.1-v3', 140, '1.1-v2'],
      ['call.ended', '1.1-v3', 150, null],
      ['call.queued', '1.1-v4', 151, '1.1-v3'],
    ]);
    // QueueCallerLeave before AgentConnect is an answer, not an exit.
    expect(await ev(called('5001', 152), leave(155), 'Event: AgentConnect\nTimestamp: 155\nUniqueid: 1.1\nQueue: sales\nInterface: PJSIP/5001')).toEqual([
      ['call.ringing', '1.1-v4', 152, 12],
      ['call.answered', '1.1-v4', 155, 12],
    ]);
  });

  it('Asterisk 11: Join, Leave, AgentCalled with AgentCalled/AgentName, AgentConnect with Member and Holdtime, QueueMemberPaused', async () => {
    const t = translator();
    // Field names as Asterisk 11's app_queue writes them (no Interface, no Exten on Join).
    expect(
      await run(
        t,
        'Event: Join\nPrivilege: call,all\nChannel: SIP/trunk-00000001\nCallerIDNum: 919800000001\nQueue: sales\nPosition: 1\nCount: 1\nUniqueid: 1.1',
        'Event: AgentCalled\nPrivilege: agent,all\nQueue: sales\nAgentCalled: SIP/5001\nAgentName: Alice\nChannelCalling: SIP/trunk-00000001\nDestinationChannel: SIP/5001-00000002\nUniqueid: 1.1',
        'Event: Leave\nPrivilege: call,all\nChannel: SIP/trunk-00000001\nQueue: sales\nCount: 0\nPosition: 1\nUniqueid: 1.1',
        'Event: AgentConnect\nPrivilege: agent,all\nQueue: sales\nUniqueid: 1.1\nChannel: SIP/5001-00000002\nMember: SIP/5001\nMemberName: Alice\nHoldtime: 7\nBridgedChannel: 1.2\nRingtime: 3',
        'Event: AgentComplete\nPrivilege: agent,all\nQueue: sales\nUniqueid: 1.1\nChannel: SIP/5001-00000002\nMember: SIP/5001\nMemberName: Alice\nHoldTime: 7\nTalkTime: 30\nReason: agent',
        'Event: QueueMemberAdded\nPrivilege: agent,all\nQueue: sales\nLocation: SIP/5002\nMemberName: Bob\nMembership: dynamic\nPaused: 0',
        'Event: QueueMemberPaused\nPrivilege: agent,all\nQueue: sales\nLocation: SIP/5002\nMemberName: Bob\nPaused: 1\nReason: lunch',
      ),
    ).toEqual([
      ['call.queued', '1.1', null],
      ['call.ringing', '1.1', 12],
      ['call.answered', '1.1', 12],
      ['call.ended', '1.1', 'completed'],
      ['agent.login', 13, 13],
      ['agent.break.start', 13, 13],
    ]);
  });

  it('members: login on the first queue, break while paused in any queue (no reason: break), logout on leaving the last; SIP status on change only', async () => {
    const t = translator();
    const member = (ev: string, q: string, paused = 0, reason = '') =>
      `Event: ${ev}\nTimestamp: 200\nQueue: ${q}\nInterface: PJSIP/5001\nPaused: ${paused}\nPausedReason: ${reason}`;
    expect(await run(t, member('QueueMemberAdded', 'sales'), member('QueueMemberAdded', 'support'))).toEqual([['agent.login', 12, 12]]);
    expect(await run(t, member('QueueMemberPause', 'sales', 1), member('QueueMemberPause', 'support', 1, 'Lunch'))).toEqual([['agent.break.start', 12, 12]]);
    expect(await run(t, member('QueueMemberPause', 'sales', 0))).toEqual([]);
    expect(await run(t, member('QueueMemberPause', 'support', 0))).toEqual([['agent.break.end', 12, 12]]);
    const status = (s: number) => `Event: QueueMemberStatus\nTimestamp: 201\nQueue: sales\nInterface: PJSIP/5001\nStatus: ${s}\nPaused: 0`;
    expect(await run(t, status(1), status(2), status(5))).toEqual([
      ['agent.sip', 12, 12],
      ['agent.sip', 12, 12],
    ]);
    expect(await run(t, member('QueueMemberRemoved', 'sales'))).toEqual([]);
    expect(await run(t, member('QueueMemberRemoved', 'support'))).toEqual([['agent.logout', 12, 12]]);
  });

  it('a static member (no QueueMemberAdded) is learned from QueueMemberStatus, paused or not; by MemberName when its interface is no extension', async () => {
    const t = translator();
    // Asterisk 11 with agents behind Local channels (panoramisk's fixture): Location is no extension, MemberName is Agent/<number>.
    const status = (paused: number) =>
      `Event: QueueMemberStatus\nQueue: sales\nLocation: Local/id-12@agentcallback\nMemberName: Agent/5002\nStateInterface: SIP/xyz\nStatus: 2\nPaused: ${paused}`;
    expect(await run(t, status(1))).toEqual([
      ['agent.login', 13, 13],
      ['agent.sip', 13, 13],
      ['agent.break.start', 13, 13],
    ]);
    expect(await run(t, status(1))).toEqual([]);
    expect(await run(t, 'Event: QueueMemberPaused\nQueue: sales\nLocation: Local/id-12@agentcallback\nMemberName: Agent/5002\nPaused: 0')).toEqual([
      ['agent.break.end', 13, 13],
    ]);
  });
});

describe('--did-var', () => {
  it('reads the DID from the ChanVariable header instead of the dialled Exten; unknown numbers are left out', async () => {
    const t = new AsteriskTranslator({ group: async () => 55, agent: async () => 12, didVar: 'CC_DID', now: () => 0 });
    const [m] = msgs(
      'Event: QueueCallerJoin\nTimestamp: 100.5\nUniqueid: 2.2\nCallerIDNum: <unknown>\nExten: s\nChanVariable: CC_DID=18005550199\nQueue: sales',
    );
    expect(await t.translate(m!)).toEqual([
      { eventId: 'ast:2.2:QueueCallerJoin:100.5', type: 'call.queued', ts: 100.5, callId: '2.2', groupId: 55, direction: 'inbound', did: '18005550199' },
    ]);
  });
});

describe('reconcile', () => {
  it('ends calls the switch no longer has, logs members in (paused: on break) and out, queues waiting calls the service lacks', async () => {
    const t = translator();
    const service: SwitchState = {
      lstSync: 9,
      calls: [
        { callId: 'gone-answered', state: 'connected', groupId: 55, agentId: 13, ringingAgentId: null },
        { callId: 'gone-waiting', state: 'queued', groupId: 55, agentId: null, ringingAgentId: null },
        { callId: 'still', state: 'connected', groupId: 55, agentId: 12, ringingAgentId: null },
      ],
      agents: [
        { agentId: 12, loggedIn: true, breakReason: null },
        { agentId: 13, loggedIn: true, breakReason: null },
      ],
    };
    const events = await reconcile({
      queueStatus: msgs(
        'Event: QueueMember\nQueue: sales\nLocation: PJSIP/5001\nPaused: 1\nPausedReason: Training',
        'Event: QueueEntry\nQueue: sales\nChannel: PJSIP/trunk-9\nUniqueid: 9.9\nCallerIDNum: 919800000009\nWait: 12',
      ),
      channels: msgs(
        'Event: CoreShowChannel\nChannel: PJSIP/trunk-7\nUniqueid: still\nLinkedid: still',
        'Event: CoreShowChannel\nChannel: PJSIP/trunk-9\nUniqueid: 9.9\nLinkedid: 9.9',
      ),
      service,
      translator: t,
      group: async (q) => (q === 'sales' ? 55 : undefined),
      agent: async (...m) => agentOf(m),
      now: 1000,
    });
    expect(events.map((e) => [e.type, e.callId ?? e.agentId, e.reason ?? null, e.ts])).toEqual([
      ['call.ended', 'gone-answered', 'completed', 1000],
      ['call.ended', 'gone-waiting', null, 1000],
      ['agent.logout', 13, null, 1000],
      ['agent.break.start', 12, 'Training', 1000],
      ['call.queued', '9.9', null, 988],
    ]);
    expect(events[4]).toMatchObject({ caller: '919800000009', groupId: 55 });
    expect(events[4]!.did).toBeUndefined();
    expect(t.calls.get('still')).toMatchObject({ channel: 'PJSIP/trunk-7', answered: true, agentId: 12 });
    expect(t.calls.get('9.9')).toMatchObject({ channel: 'PJSIP/trunk-9', answered: false });
  });
});
