import { describe, expect, it } from 'vitest';
import {
  type AgentLive,
  type CallLive,
  agentMessage,
  agentMessageValues,
  callMessage,
  callMessageValues,
  messageFromValues,
  newAgent,
  queuedCall,
} from './live.types.js';

/** What the stream sends of a change group stored as values: the same JSON as the plain messages. */
function throughLog(event: string, values: unknown[]): string {
  return JSON.stringify(messageFromValues(event, JSON.parse(JSON.stringify(values)) as unknown));
}

describe('change log messages as values', () => {
  const agents: Array<[string, AgentLive]> = [
    ['offline', newAgent(7)],
    ['available', { ...newAgent(8), loggedIn: true, loginType: 'Web', sipStatus: 'online', availSince: 1763812345.25, seq: 41 }],
    ['break', { ...newAgent(9), loggedIn: true, loginType: 'SIP', breakReason: 'Lunch', breakAt: 1763812000, seq: 3 }],
    ['wrapup', { ...newAgent(10), loggedIn: true, wrapupAt: 1763812100.5, seq: 4 }],
    ['ringing', { ...newAgent(11), loggedIn: true, ringCall: 'c-9', ringAt: 1763812200, seq: 5 }],
    ['oncall', { ...newAgent(12), loggedIn: true, callId: 'c-10', callAt: 1763812300, ringCall: 'c-11', ringAt: 1763812301, seq: 6 }],
  ];
  it.each(agents)('an agent %s reads back as agentMessage, key order included', (_state, a) => {
    expect(throughLog('agent', agentMessageValues(a))).toBe(JSON.stringify(agentMessage(a)));
  });

  const base = queuedCall('c-981', 1763812340, 1240, { groupId: 55, did: '18005550100', caller: '919876543210' });
  const calls: Array<[string, CallLive]> = [
    ['queued', base],
    ['ringing', { ...base, state: 'ringing', ringAgent: 12, ringAt: 1763812341.5 }],
    ['connected on hold', { ...base, state: 'connected', agentId: 12, answeredAt: 1763812345, onHold: true, campaignId: 'camp-1', direction: 'outbound' }],
    ['without group, did or caller', { ...base, groupId: null, did: null, caller: null }],
  ];
  it.each(calls)('a call %s reads back as callMessage, live and ended', (_state, c) => {
    expect(throughLog('call', callMessageValues(c))).toBe(JSON.stringify(callMessage(c)));
    const ended = { endedAt: 1763812400.75, outcome: 'answered' };
    expect(throughLog('call', callMessageValues(c, ended))).toBe(JSON.stringify(callMessage(c, ended)));
  });

  it('passes groups stored as objects (older rows, commands) and other events through as they are', () => {
    const old = { agentId: 1, state: 'available' };
    expect(messageFromValues('agent', old)).toBe(old);
    const takeover = { callId: 'c-990', from: 9, to: 3, caller: '919812345678', ts: 1763812350, seq: 1241 };
    expect(messageFromValues('call.takeover', takeover)).toBe(takeover);
    expect(messageFromValues('call.originate', [1, 2])).toEqual([1, 2]);
  });
});
