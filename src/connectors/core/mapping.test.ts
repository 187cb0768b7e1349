import { describe, expect, it } from 'vitest';
import { SwitchMapper, destExtension, memberExtension, queueName } from './mapping.js';
import { switchEventId, switchTime } from './event-ids.js';
import { OptionError, apiConnection, hostPort, parseIdMap } from './options.js';

describe('member and destination names', () => {
  it.each([
    ['PJSIP/5001', '5001'],
    ['SIP/5001', '5001'],
    ['Local/5001@from-queue/n', '5001'],
    ['5001@default', '5001'],
    ['5001', '5001'],
    ['PJSIP/5001-0000002a', '5001'],
    ['Local/5001@from-queue-00000012;1', '5001'],
  ])('%s is extension %s', (member, ext) => expect(memberExtension(member)).toBe(ext));

  it.each([
    ['sip:5001@pbx.example.com', '5001'],
    ['sip:5001@10.0.0.5:5060', '5001'],
    ['5001@pbx', '5001'],
    ['5001', '5001'],
  ])('dest_value %s names extension %s', (dest, ext) => expect(destExtension(dest)).toBe(ext));

  it('a FreeSWITCH queue is matched by the part before @', () => expect(queueName('support@default')).toBe('support'));
});

describe('SwitchMapper', () => {
  const config = {
    groups: [
      { groupId: 55, name: 'sales' },
      { groupId: 56, name: 'support' },
    ],
    agents: [
      { agentId: 12, name: 'A', dest_type: 'SIP', dest_value: 'sip:5001@pbx', phone: '911' },
      { agentId: 13, name: 'B', dest_type: 'MOBILE', dest_value: '919800000001', phone: '919800000001' },
    ],
    dids: ['18005550100'],
  };

  it('maps by name and SIP destination; explicit maps win; unknown names are logged once each', () => {
    const lines: string[] = [];
    const m = new SwitchMapper({ queueMap: new Map([['vip', 56]]), agentMap: new Map([['7000', 13]]), log: (l) => lines.push(l) });
    m.load(config);
    expect(m.group('sales')).toBe(55);
    expect(m.group('support@default')).toBe(56);
    expect(m.group('vip')).toBe(56);
    expect(m.agent('PJSIP/5001')).toBe(12);
    expect(m.agent('Local/5001@ctx/n')).toBe(12);
    expect(m.agent('SIP/7000')).toBe(13);
    // A MOBILE agent's phone is not an extension.
    expect(m.agent('PJSIP/919800000001')).toBeUndefined();
    expect(m.group('nosuch')).toBeUndefined();
    expect(m.group('nosuch')).toBeUndefined();
    expect(m.agent('PJSIP/9999')).toBeUndefined();
    expect(m.agent('SIP/9999')).toBeUndefined();
    expect(lines).toHaveLength(3);
    expect(lines[0]).toContain('"PJSIP/919800000001"');
    expect(lines[1]).toContain('"nosuch"');
    expect(lines[2]).toContain('"PJSIP/9999"');
    expect(m.extensionOf(12)).toBe('5001');
    expect(m.extensionOf(13)).toBe('7000');
    expect(m.phoneOf(13)).toEqual({ phone: '919800000001', mobile: true });
  });

  it('a member named as an agent is; its several names tried: extension, then name, then the explicit map (PRODUCT.md §16)', () => {
    const lines: string[] = [];
    // The map also names 5001 and Sathish: the switch's own names are matched first.
    const m = new SwitchMapper({
      agentMap: new Map([
        ['Agent 1', 13],
        ['5001', 13],
        ['Sathish', 13],
      ]),
      log: (l) => lines.push(l),
    });
    m.load({ ...config, agents: [...config.agents, { agentId: 14, name: 'Sathish', dest_type: 'SIP', dest_value: 'sip:1001@pbx', phone: '' }] });
    // queue_log's agent field (Issabel): the member's name, any case.
    expect(m.agent('Sathish')).toBe(14);
    expect(m.agent('SATHISH')).toBe(14);
    expect(m.agent('SIP/1001')).toBe(14);
    // AMI: Interface first, then MemberName.
    expect(m.agent('Local/id-9@agentcallback', 'sathish')).toBe(14);
    expect(m.agent('PJSIP/5001', 'Sathish')).toBe(12);
    // --agent-map by a member name no agent has.
    expect(m.agent('Agent 1')).toBe(13);
    expect(m.agent('Local/id-9@agentcallback', 'Agent 1')).toBe(13);
    expect(m.knowsMember('nobody', 'Agent/77')).toBe(false);
    expect(m.agent('nobody', 'Agent/77')).toBeUndefined();
    expect(m.agent('nobody', 'Agent/77')).toBeUndefined();
    expect(lines).toEqual([
      'unknown member "nobody" / "Agent/77": no agent with SIP destination 77 or of that name, and no --agent-map entry; its events are skipped',
    ]);
  });
});

describe('event ids and times', () => {
  it('are derived from the switch ids, stable, at most 128 characters', () => {
    expect(switchEventId('ast', '1732460400.42', 'AgentCalled', 'PJSIP/5001', '1732460401.5')).toBe('ast:1732460400.42:AgentCalled:PJSIP/5001:1732460401.5');
    const long = switchEventId('ast', 'x'.repeat(200), 'e');
    expect(long.length).toBeLessThanOrEqual(128);
    expect(switchEventId('ast', 'x'.repeat(200), 'e')).toBe(long);
    expect(switchEventId('ast', 'x'.repeat(200), 'f')).not.toBe(long);
  });

  it('switch time: the Timestamp header, else the arrival time', () => {
    expect(switchTime('1732460400.123456', 5)).toBe(1732460400.123456);
    expect(switchTime(undefined, 5)).toBe(5);
    expect(switchTime('junk', 5)).toBe(5);
  });
});

describe('options', () => {
  it('flags win over the environment; each missing piece is named', () => {
    const env = { CALLCENTER_API_URL: 'http://env:1', CALLCENTER_USER_ID: 'switch-1', CALLCENTER_TOKEN: 't' };
    expect(apiConnection({}, env)).toEqual({ api: 'http://env:1', userId: 'switch-1', token: 't' });
    expect(apiConnection({ api: 'http://flag:2' }, env).api).toBe('http://flag:2');
    expect(() => apiConnection({}, {})).toThrow(/--api/);
    expect(() => apiConnection({ api: 'http://x' }, {})).toThrow(/--user-id/);
    expect(() => apiConnection({ api: 'http://x', 'user-id': 'u' }, {})).toThrow(/--token/);
  });

  it('maps and host:port', () => {
    expect([...parseIdMap('queue-map', 'sales=55,support=56')]).toEqual([
      ['sales', 55],
      ['support', 56],
    ]);
    expect(() => parseIdMap('agent-map', '5001')).toThrow(OptionError);
    expect(hostPort('ami', 'pbx:5039', 5038)).toEqual({ host: 'pbx', port: 5039 });
    expect(hostPort('ami', 'pbx', 5038)).toEqual({ host: 'pbx', port: 5038 });
    expect(hostPort('ami', '[::1]:5038', 5038)).toEqual({ host: '::1', port: 5038 });
  });
});
