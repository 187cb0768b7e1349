import { describe, expect, it } from 'vitest';
import { apiFrame, ccEvent, channelEvent, disconnectFrame, eventFrame, replyFrame } from '../../../test/helpers/fake-esl.js';
import { EslDecoder, parseEventPlain, urlDecode, type EslMessage } from './esl-framing.js';

const T = 1_795_000_000_123_456;

/** A session as the switch writes it: auth request, replies, an api answer, events, the goodbye. */
const STREAM = [
  'Content-Type: auth/request\n\n',
  replyFrame('+OK accepted'),
  replyFrame('+OK event listener enabled plain'),
  apiFrame('name|instance_id|status\n5001@default|single_box|Available\n+OK\n'),
  ccEvent(T, 'member-queue-start', {
    'CC-Queue': 'support@default',
    'CC-Member-UUID': 'm-1',
    'CC-Member-Session-UUID': 's-1',
    'CC-Member-CID-Name': 'Zoë Müller',
    'CC-Member-CID-Number': '+49 30 1234',
    'Caller-Destination-Number': '18005550100',
  }),
  channelEvent(T + 5, 'CHANNEL_HOLD', 's-1', { cc_member_session_uuid: 's-1' }),
  eventFrame(
    [
      ['Event-Name', 'BACKGROUND_JOB'],
      ['Job-UUID', 'j-1'],
    ],
    '+OK Job done\n',
  ),
  disconnectFrame(),
].join('');

function decodeAll(chunks: Buffer[]): EslMessage[] {
  const d = new EslDecoder();
  return chunks.flatMap((c) => d.push(c));
}

function summary(messages: EslMessage[]): unknown[] {
  return messages.map((m) => ({ type: m.headers.get('Content-Type'), reply: m.headers.get('Reply-Text'), body: m.body }));
}

describe('ESL framing', () => {
  const bytes = Buffer.from(STREAM, 'utf8');
  const whole = decodeAll([bytes]);

  it('decodes a whole session read at once', () => {
    expect(whole.map((m) => m.headers.get('Content-Type'))).toEqual([
      'auth/request',
      'command/reply',
      'command/reply',
      'api/response',
      'text/event-plain',
      'text/event-plain',
      'text/event-plain',
      'text/disconnect-notice',
    ]);
    expect(whole[3]!.body).toBe('name|instance_id|status\n5001@default|single_box|Available\n+OK\n');
  });

  it('gives the same messages whatever position the stream is split at (multi-byte characters included)', () => {
    for (let at = 1; at < bytes.length; at++) {
      const got = decodeAll([bytes.subarray(0, at), bytes.subarray(at)]);
      expect(summary(got), `split at byte ${at}`).toEqual(summary(whole));
    }
  });

  it('gives the same messages read one byte at a time, and split at two positions', () => {
    const singles = [...bytes].map((b) => Buffer.from([b]));
    expect(summary(decodeAll(singles))).toEqual(summary(whole));
    for (let a = 1; a < bytes.length; a += 37) {
      for (let b = a + 1; b < bytes.length; b += 53) {
        expect(summary(decodeAll([bytes.subarray(0, a), bytes.subarray(a, b), bytes.subarray(b)])), `split at ${a}, ${b}`).toEqual(summary(whole));
      }
    }
  });

  it('URL-decodes the header values of an event body', () => {
    const ev = parseEventPlain(whole[4]!.body);
    expect(ev.headers.get('Event-Subclass')).toBe('callcenter::info');
    expect(ev.headers.get('CC-Queue')).toBe('support@default');
    expect(ev.headers.get('CC-Member-CID-Name')).toBe('Zoë Müller');
    expect(ev.headers.get('CC-Member-CID-Number')).toBe('+49 30 1234');
    expect(ev.headers.get('Event-Date-Timestamp')).toBe(String(T));
    expect(ev.headers.get('Event-Date-GMT')).toMatch(/GMT$/);
  });

  it('reads the inner body of an event that has one', () => {
    const ev = parseEventPlain(whole[6]!.body);
    expect(ev.headers.get('Job-UUID')).toBe('j-1');
    expect(ev.body).toBe('+OK Job done\n');
  });

  it('keeps a malformed escape as written', () => {
    expect(urlDecode('100%25 sure')).toBe('100% sure');
    expect(urlDecode('50%ZZ%41')).toBe('50%ZZA');
  });
});
