import { describe, expect, it } from 'vitest';
import type { SwitchState } from '../core/index.js';
import { AmiParser, type AmiMessage } from './ami-parser.js';
import { reconcile } from './reconcile.js';
import { AsteriskTranslator } from './translator.js';

const AGENTS: Record<string, number> = { '5001': 12, '5002': 13 };
const ext = (member: string) => /(\d{4})/.exec(member)?.[1] ?? '';

function translator() {
  return new AsteriskTranslator({
    group: async (q) => (q === 'sales' ? 55 : undefined),
    agent: async (m) => AGENTS[ext(m)],
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

  it('a ring not seen to end is closed as missed before the next; AgentConnect without AgentCalled reports the ring first', async () => {
    const t = translator();
    await run(t, join, called('5001', 101));
    expect(await run(t, called('5002', 120))).toEqual([
      ['call.missed', '1.1', 12],
      ['call.ringing', '1.1', 13],
    ]);
    const t2 = translator();
    await run(t2, join);
    expect(await run(t2, 'Event: AgentConnect\nTimestamp: 110\nUniqueid: 1.1\nDestUniqueid: 1.15002\nQueue: sales\nInterface: PJSIP/5002')).toEqual([
      ['call.ringing', '1.1', 13],
      ['call.answered', '1.1', 13],
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
    expect(await run(t, member('QueueMemberRemoved', 'sales'))).toEqual([]);
    expect(await run(t, member('QueueMemberRemoved', 'support'))).toEqual([['agent.logout', 12, 12]]);
    const status = (s: number) => `Event: QueueMemberStatus\nTimestamp: 201\nQueue: sales\nInterface: PJSIP/5001\nStatus: ${s}`;
    expect(await run(t, status(1), status(2), status(5))).toEqual([
      ['agent.sip', 12, 12],
      ['agent.sip', 12, 12],
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
      agent: async (m) => AGENTS[ext(m)],
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
