import { describe, expect, it } from 'vitest';
import type { SwitchMember } from './callcenter-config.js';
import { isChannelUuid, reconcile, stuckReserved, type ReconcileInput } from './reconcile.js';

const U1 = '11111111-1111-4111-8111-111111111111';
const U2 = '22222222-2222-4222-8222-222222222222';
const U3 = '33333333-3333-4333-8333-333333333333';
const member = (sessionUuid: string, state: string, servingAgent = ''): SwitchMember => ({
  queue: 'support@default',
  uuid: `m-${sessionUuid.slice(0, 4)}`,
  sessionUuid,
  cidNumber: '4930123',
  state,
  servingAgent,
  joinedEpoch: 1_795_000_000,
});

function input(over: Partial<ReconcileInput>): ReconcileInput {
  return {
    snapshot: { agents: [], members: [], deadChannels: new Set() },
    state: { lstSync: 40, calls: [], agents: [] },
    agentIds: new Map([
      ['5001@default', 11],
      ['5002@default', 12],
    ]),
    groupIds: new Map([['support@default', 7]]),
    sipAgentIds: new Set([11, 12, 13]),
    ownsCall: isChannelUuid,
    now: 1_795_000_100,
    ...over,
  };
}

describe('reconciliation with callcenter_config', () => {
  it('ends a call whose member is gone (completed when connected), and one whose channel is dead', () => {
    const out = reconcile(
      input({
        snapshot: { agents: [], members: [member(U2, 'Answered', '5002@default')], deadChannels: new Set([U2]) },
        state: {
          lstSync: 40,
          calls: [
            { callId: U1, state: 'connected', groupId: 7, agentId: 11, ringingAgentId: null },
            { callId: U2, state: 'queued', groupId: 7, agentId: null, ringingAgentId: null },
            { callId: 'ctc-9', state: 'connected', groupId: null, agentId: 12, ringingAgentId: null },
          ],
          agents: [],
        },
      }),
    );
    expect(out).toEqual([
      {
        event: { eventId: `fs:reconcile:40:${U1}:ended`, type: 'call.ended', ts: 1_795_000_100, callId: U1, reason: 'completed' },
        why: 'member no longer in any queue',
      },
      {
        event: { eventId: `fs:reconcile:40:${U2}:ended`, type: 'call.ended', ts: 1_795_000_100, callId: U2 },
        why: 'member listed by mod_callcenter but its channel is gone',
      },
    ]);
  });

  it('ends an offer the switch no longer makes, corrects agent statuses, logs out agents the switch does not list', () => {
    const out = reconcile(
      input({
        snapshot: {
          agents: [
            { name: '5001@default', status: 'Logged Out', state: 'Waiting' },
            { name: '5002@default', status: 'On Break', state: 'Idle' },
          ],
          members: [member(U1, 'Waiting')],
          deadChannels: new Set(),
        },
        state: {
          lstSync: 41,
          calls: [{ callId: U1, state: 'ringing', groupId: 7, agentId: null, ringingAgentId: 11 }],
          agents: [
            { agentId: 11, loggedIn: true, breakReason: null },
            { agentId: 12, loggedIn: true, breakReason: null },
            { agentId: 13, loggedIn: true, breakReason: null },
          ],
        },
      }),
    );
    expect(out.map((c) => [c.event.type, c.event.agentId, c.event.reason ?? null, c.why])).toEqual([
      ['call.missed', 11, null, 'offer no longer on the switch'],
      ['agent.logout', 11, null, 'agent 5001@default is Logged Out on the switch'],
      ['agent.break.start', 12, 'break', 'agent 5002@default is On Break on the switch'],
      ['agent.logout', 13, null, 'agent not in callcenter_config agent list'],
    ]);
  });

  it('queues a member the service does not know, answered when an agent serves it; logs in its agent first', () => {
    const out = reconcile(
      input({
        snapshot: {
          agents: [{ name: '5002@default', status: 'Available', state: 'In a queue call' }],
          members: [member(U3, 'Answered', '5002@default')],
          deadChannels: new Set(),
        },
      }),
    );
    expect(out.map((c) => c.event)).toEqual([
      { eventId: 'fs:reconcile:40:5002@default:agent.login', type: 'agent.login', ts: 1_795_000_100, agentId: 12, loginType: 'SIP' },
      { eventId: `fs:reconcile:40:${U3}:queued`, type: 'call.queued', ts: 1_795_000_000, callId: U3, groupId: 7, direction: 'inbound', caller: '4930123' },
      { eventId: `fs:reconcile:40:${U3}:ringing:12`, type: 'call.ringing', ts: 1_795_000_100, callId: U3, agentId: 12 },
      { eventId: `fs:reconcile:40:${U3}:answered:12`, type: 'call.answered', ts: 1_795_000_100, callId: U3, agentId: 12 },
    ]);
  });

  it('does not log out an agent on a live call', () => {
    const out = reconcile(
      input({
        snapshot: {
          agents: [{ name: '5001@default', status: 'Logged Out', state: 'In a queue call' }],
          members: [member(U1, 'Answered', '5001@default')],
          deadChannels: new Set(),
        },
        state: {
          lstSync: 42,
          calls: [{ callId: U1, state: 'connected', groupId: 7, agentId: 11, ringingAgentId: null }],
          agents: [{ agentId: 11, loggedIn: true, breakReason: null }],
        },
      }),
    );
    expect(out).toEqual([]);
  });

  it('an agent Reserved with nothing offered at two passes in a row is stuck', () => {
    const agents = [
      { name: '5001@default', status: 'Available', state: 'Reserved' },
      { name: '5002@default', status: 'Available', state: 'Reserved' },
    ];
    const first = stuckReserved(agents, [member(U1, 'Trying', '5002@default')], new Set());
    expect(first.stuck).toEqual([]);
    expect([...first.reserved]).toEqual(['5001@default']);
    expect(stuckReserved(agents, [], first.reserved).stuck).toEqual(['5001@default']);
  });
});
