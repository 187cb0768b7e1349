import { describe, expect, it } from 'vitest';
import { AmiParser, chanVariables, encodeAction, header, type AmiMessage } from './ami-parser.js';

const CRLF = '\r\n';
const wire =
  [
    'Asterisk Call Manager/7.0.3',
    'Response: Success',
    'ActionID: cc-1',
    'Message: Authentication accepted',
    '',
    'Event: QueueCallerJoin',
    'Privilege: agent,all',
    'Timestamp: 1732460400.123456',
    'Channel: PJSIP/trunk-00000001',
    'CallerIDNum: 919811100042',
    'CallerIDName: Ravi Kumar',
    'Exten: 18005550100',
    'Uniqueid: 1732460400.1',
    'ChanVariable: CC_DID=18005550100',
    'ChanVariable(CC_CAMPAIGN): 7',
    'Queue: sales',
    'Position: 1',
    'Count: 1',
    '',
    'Response: Follows',
    'Privilege: Command',
    'ActionID: cc-2',
    'Name/username             Host                                    Dyn Forcerport Comedia    ACL Port     Status      Description',
    '',
    '5001/5001                 10.0.0.5                                 D  Auto (No)  No             5060     OK (1 ms)',
    '--END COMMAND--',
    '',
    'Event: FullyBooted',
    'Privilege: system,all',
    'Status: Fully Booted',
    '',
  ].join(CRLF) + CRLF;

function parseAll(parts: Buffer[]): { messages: AmiMessage[]; banner: string | null } {
  const p = new AmiParser();
  const messages = parts.flatMap((b) => p.feed(b));
  return { messages, banner: p.banner };
}

describe('AmiParser', () => {
  const bytes = Buffer.from(wire, 'utf8');
  const whole = parseAll([bytes]);

  it('reads the banner, Key: Value messages ended by a blank line, and a Response: Follows body up to --END COMMAND--', () => {
    expect(whole.banner).toBe('Asterisk Call Manager/7.0.3');
    expect(whole.messages).toHaveLength(4);
    const [login, join, follows, booted] = whole.messages as [AmiMessage, AmiMessage, AmiMessage, AmiMessage];
    expect(header(login, 'actionid')).toBe('cc-1');
    expect(header(join, 'CallerIDName')).toBe('Ravi Kumar');
    expect(header(join, 'Timestamp')).toBe('1732460400.123456');
    expect([...chanVariables(join)]).toEqual([
      ['CC_DID', '18005550100'],
      ['CC_CAMPAIGN', '7'],
    ]);
    expect(header(follows, 'ActionID')).toBe('cc-2');
    expect(follows.body).toHaveLength(3);
    expect(follows.body[1]).toBe('');
    expect(follows.body[2]).toContain('OK (1 ms)');
    expect(header(booted, 'Status')).toBe('Fully Booted');
  });

  it('gives the same messages for every split of the bytes into two reads, and byte by byte', () => {
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(parseAll([bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual(whole);
    }
    const single = [...bytes].map((b) => Buffer.from([b]));
    expect(parseAll(single)).toEqual(whole);
  });

  it('keeps a UTF-8 character split across reads whole', () => {
    const text = Buffer.from(`Event: QueueCallerJoin${CRLF}CallerIDName: José Müller${CRLF}${CRLF}`, 'utf8');
    const at = text.indexOf(Buffer.from('é')) + 1;
    const { messages } = parseAll([text.subarray(0, at), text.subarray(at)]);
    expect(header(messages[0]!, 'CallerIDName')).toBe('José Müller');
  });

  it('accepts bare LF line ends and a value with colons', () => {
    const { messages } = parseAll([Buffer.from('Event: Hangup\nChannel: PJSIP/5001-0000002a\nCause-txt: Normal: Clearing\n\n')]);
    expect(header(messages[0]!, 'Cause-txt')).toBe('Normal: Clearing');
  });

  it('encodes actions with CRLF and strips line breaks out of values', () => {
    expect(
      encodeAction([
        ['Action', 'Redirect'],
        ['Channel', 'PJSIP/trunk\r\nAction: Originate'],
      ]),
    ).toBe('Action: Redirect\r\nChannel: PJSIP/trunk Action: Originate\r\n\r\n');
  });
});
