import { describe, expect, it } from 'vitest';
import type { EslEvent } from './esl-framing.js';
import { beforeAt, FreeswitchMapper, statusEvents, type NameResolver } from './mapping.js';

const names: NameResolver = {
  groupId: (q) => ({ 'support@default': 7 })[q],
  agentId: (a) => Promise.resolve({ '5001@default': 11, '5002@default': 12 }[a]),
};
const T = 1_795_000_000_000_000;

function cc(offsetMs: number, action: string, fields: Record<string, string>): EslEvent {
  return {
    headers: new Map(
      Object.entries({
        'Event-Name': 'CUSTOM',
        'Event-Subclass': 'callcenter::info',
        'Event-Date-Timestamp': String(T + offsetMs * 1000),
        'CC-Action': action,
        ...fields,
      }),
    ),
    body: '',
  };
}
const member = { 'CC-Queue': 'support@default', 'CC-Member-UUID': 'm-1', 'CC-Member-Session-UUID': 's-1' };

describe('mod_callcenter → telephony events', () => {
  it('maps an answered call after a failed offer, with ids from the switch ids and times', async () => {
    const m = new FreeswitchMapper(names);
    const input = [
      cc(0, 'member-queue-start', { ...member, 'CC-Member-CID-Number': '4930123', 'Caller-Destination-Number': '18005550100' }),
      cc(1000, 'agent-offering', { ...member, 'CC-Agent': '5001@default' }),
      cc(11_000, 'bridge-agent-fail', { ...member, 'CC-Agent': '5001@default', 'CC-Hangup-Cause': 'NO_ANSWER' }),
      cc(12_000, 'agent-offering', { ...member, 'CC-Agent': '5002@default' }),
      cc(15_500, 'bridge-agent-start', { ...member, 'CC-Agent': '5002@default', 'CC-Agent-UUID': 'a-2' }),
      {
        headers: new Map([
          ['Event-Name', 'CHANNEL_HOLD'],
          ['Unique-ID', 'a-2'],
          ['Event-Date-Timestamp', String(T + 20_000_000)],
        ]),
        body: '',
      },
      cc(75_500, 'member-queue-end', { ...member, 'CC-Cause': 'Terminated' }),
    ];
    const out = [];
    for (const e of input) out.push(...(await m.map(e)));
    expect(out).toEqual([
      {
        eventId: `fs:s-1:member-queue-start:${T}`,
        type: 'call.queued',
        ts: 1_795_000_000,
        callId: 's-1',
        groupId: 7,
        direction: 'inbound',
        did: '18005550100',
        caller: '4930123',
      },
      { eventId: `fs:s-1:agent-offering:5001:${T + 1_000_000}`, type: 'call.ringing', ts: 1_795_000_001, callId: 's-1', agentId: 11 },
      { eventId: `fs:s-1:bridge-agent-fail:5001:${T + 11_000_000}`, type: 'call.missed', ts: 1_795_000_011, callId: 's-1', agentId: 11 },
      { eventId: `fs:s-1:agent-offering:5002:${T + 12_000_000}`, type: 'call.ringing', ts: 1_795_000_012, callId: 's-1', agentId: 12 },
      { eventId: `fs:s-1:bridge-agent-start:5002:${T + 15_500_000}`, type: 'call.answered', ts: 1_795_000_015.5, callId: 's-1', agentId: 12 },
      { eventId: `fs:s-1:hold:a-2:${T + 20_000_000}`, type: 'call.hold', ts: 1_795_000_020, callId: 's-1' },
      { eventId: `fs:s-1:member-queue-end:Terminated:NONE:${T + 75_500_000}`, type: 'call.ended', ts: 1_795_000_075.5, callId: 's-1', reason: 'completed' },
    ]);
  });

  it('maps Cancel to abandoned whatever the cancel reason, and skips unknown queues and agents', async () => {
    const m = new FreeswitchMapper(names);
    await m.map(cc(0, 'member-queue-start', member));
    expect(await m.map(cc(30_000, 'member-queue-end', { ...member, 'CC-Cause': 'Cancel', 'CC-Cancel-Reason': 'TIMEOUT' }))).toEqual([
      { eventId: `fs:s-1:member-queue-end:Cancel:TIMEOUT:${T + 30_000_000}`, type: 'call.ended', ts: 1_795_000_030, callId: 's-1', reason: 'abandoned' },
    ]);
    expect(await m.map(cc(0, 'member-queue-start', { ...member, 'CC-Queue': 'sales@default' }))).toEqual([]);
    expect(await m.map(cc(0, 'agent-offering', { ...member, 'CC-Agent': '5999@default' }))).toEqual([]);
  });

  it('a hold of a channel that is no queue call is ignored', async () => {
    const m = new FreeswitchMapper(names);
    expect(
      await m.map({
        headers: new Map([
          ['Event-Name', 'CHANNEL_HOLD'],
          ['Unique-ID', 'x'],
        ]),
        body: '',
      }),
    ).toEqual([]);
  });

  it('agent statuses: login, break with reason `break`, back, logout', async () => {
    const m = new FreeswitchMapper(names);
    const status = (ms: number, s: string) => m.map(cc(ms, 'agent-status-change', { 'CC-Agent': '5001@default', 'CC-Agent-Status': s }));
    expect((await status(0, 'Available')).map((e) => [e.type, e.loginType])).toEqual([['agent.login', 'SIP']]);
    expect(await status(1000, 'On Break')).toEqual([
      { eventId: `fs:5001@default:agent.break.start:${T + 1_000_000}`, type: 'agent.break.start', ts: 1_795_000_001, agentId: 11, reason: 'break' },
    ]);
    expect((await status(2000, 'Available')).map((e) => e.type)).toEqual(['agent.break.end']);
    expect((await status(3000, 'Logged Out')).map((e) => e.type)).toEqual(['agent.logout']);
    expect((await status(4000, 'On Break')).map((e) => e.type)).toEqual(['agent.login', 'agent.break.start']);
  });

  it('status transitions and names', () => {
    expect(statusEvents('break', 'out')).toEqual(['agent.logout']);
    expect(statusEvents('available', 'available')).toEqual([]);
    expect(beforeAt('support@default')).toBe('support');
    expect(beforeAt('5001')).toBe('5001');
  });
});
