import { describe, expect, it } from 'vitest';
import { decisionVariables, headerLine, routeRequest, setVariable } from './agi-request.js';

const headers = (lines: string[]) => new Map(lines.map((l) => headerLine(l)!).filter(Boolean));

describe('FastAGI request', () => {
  it('reads the script, caller, DID (dnid, else extension; unknown is absent) and the group argument', () => {
    expect(routeRequest(headers(['agi_network_script: route', 'agi_callerid: 919800000001', 'agi_dnid: 9100', 'agi_extension: s', 'agi_arg_1: 55']))).toEqual({
      script: 'route',
      caller: '919800000001',
      did: '9100',
      groupId: 55,
    });
    expect(
      routeRequest(headers(['agi_network_script: /route', 'agi_callerid: unknown', 'agi_dnid: unknown', 'agi_extension: 9100', 'agi_arg_1: sales'])),
    ).toEqual({
      script: 'route',
      caller: undefined,
      did: '9100',
      groupId: undefined,
    });
    expect(headerLine('HANGUP')).toBeUndefined();
  });

  it('quotes values, and sets CC_STICKY_EXTEN only with a sticky agent', () => {
    expect(setVariable('CC_X', 'a "b" \\c')).toBe('SET VARIABLE CC_X "a \\"b\\" \\\\c"\n');
    expect(decisionVariables({ blocked: true, reason: 'contact', dnc: -1 }, '5001')).toEqual([
      ['CC_BLOCKED', '1'],
      ['CC_BLOCK_REASON', 'contact'],
      ['CC_DNC', '-1'],
      ['CC_STICKY_AGENT', ''],
      ['CC_STICKY_EXTEN', ''],
      ['CC_ERROR', '0'],
    ]);
  });
});
