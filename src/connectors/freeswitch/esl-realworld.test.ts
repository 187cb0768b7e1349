import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { realworld } from '../../../test/helpers/realworld.js';
import { EslDecoder, parseEventPlain, parseHeaderBlock, type EslMessage } from './esl-framing.js';
import { FreeswitchMapper } from './mapping.js';

/**
 * Real FreeSWITCH bytes (../shared/realworld/esl/): an outbound event socket
 * capture (NEventSocket's test fixture) and mod_callcenter's documented
 * `callcenter::info` examples. What to expect is read from the files here.
 */

const capture = fs.readFileSync(realworld('esl/neventsocket_Example1_outbound_socket_capture.txt'));
const text = capture.toString('latin1');

/** The capture as a reader of the file sees it: each frame has one `Content-Type:` line (the first, the reply to `connect`, carries the channel's data as headers). */
const contentTypes = text.split('\n').filter((l) => l.startsWith('Content-Type: '));
const eventNames = text
  .split('\n')
  .filter((l) => l.startsWith('Event-Name: '))
  .map((l) => l.slice('Event-Name: '.length));

function summary(messages: EslMessage[]): Array<[string, string]> {
  return messages.map((m) => {
    const type = m.headers.get('Content-Type') ?? '';
    const name =
      type === 'text/event-plain'
        ? (parseEventPlain(m.body).headers.get('Event-Name') ?? '')
        : (m.headers.get('Event-Name') ?? m.headers.get('Reply-Text') ?? '');
    return [type, name];
  });
}

describe('the ESL decoder on a real capture', () => {
  const whole = new EslDecoder();
  const messages = whole.push(capture);

  it('reads it frame for frame: each Content-Type line a frame, the connect reply first, ending exactly at the last byte', () => {
    expect(messages.map((m) => m.headers.get('Content-Type') ?? '')).toEqual(contentTypes.map((l) => l.slice('Content-Type: '.length)));
    expect(messages[0]!.headers.get('Event-Name')).toBe('CHANNEL_DATA');
    expect(whole.atBoundary).toBe(true);
    // Every Event-Name in the file, in order: the connect reply's (a header block), then each event body's.
    const names = messages.flatMap((m) =>
      m.headers.get('Content-Type') === 'text/event-plain'
        ? [parseEventPlain(m.body).headers.get('Event-Name')!]
        : m.headers.has('Event-Name')
          ? [m.headers.get('Event-Name')!]
          : [],
    );
    expect(names).toEqual(eventNames);
    // Values are URL-decoded in event bodies: the channel name as the first event encodes it.
    const encoded = /^Channel-Name: (.*)$/m.exec(text.slice(text.indexOf('Content-Type: text/event-plain')))![1]!;
    const firstEvent = messages.find((m) => m.headers.get('Content-Type') === 'text/event-plain')!;
    expect(encoded).toContain('%40');
    expect(parseEventPlain(firstEvent.body).headers.get('Channel-Name')).toBe(decodeURIComponent(encoded));
    // The disconnect notice's body (Content-Length bytes) is the file's last text.
    const notice = messages[messages.length - 1]!;
    expect(notice.headers.get('Content-Type')).toBe('text/disconnect-notice');
    expect(text.endsWith(notice.body)).toBe(true);
  });

  it('gives the same frames cut at every byte boundary (byte by byte), and cut in two anywhere', () => {
    const bytewise = new EslDecoder();
    const out: EslMessage[] = [];
    for (let i = 0; i < capture.length; i++) out.push(...bytewise.push(capture.subarray(i, i + 1)));
    expect(summary(out)).toEqual(summary(messages));
    expect(out.map((m) => m.body)).toEqual(messages.map((m) => m.body));
    expect(bytewise.atBoundary).toBe(true);
    // Two reads cut at every 499th byte (every boundary is covered by the byte-by-byte read above).
    for (let cut = 1; cut < capture.length; cut += 499) {
      const d = new EslDecoder();
      const two = [...d.push(capture.subarray(0, cut)), ...d.push(capture.subarray(cut))];
      expect(two.length).toBe(messages.length);
    }
  });
});

describe("mod_callcenter's documented callcenter::info examples", () => {
  const doc = fs.readFileSync(realworld('esl/freeswitch-docs_mod_callcenter_events_section.mdx.txt'), 'utf8');
  /** Each example: the header lines from `Event-Subclass:` to the blank line. */
  const examples = doc
    .split(/\n\s*\n/)
    .filter((b) => b.trimStart().startsWith('Event-Subclass:'))
    .map((b) => parseHeaderBlock(b, false));

  /** PRODUCT.md §10's mapping of mod_callcenter's actions. */
  const SECTION_10: Record<string, (h: Map<string, string>) => string[]> = {
    'agent-status-change': (h) =>
      h.get('CC-Agent-Status') === 'Available' ? ['agent.login'] : h.get('CC-Agent-Status') === 'On Break' ? ['agent.login', 'agent.break.start'] : [],
    'member-queue-start': () => ['call.queued'],
    'agent-offering': () => ['call.ringing'],
    'bridge-agent-fail': () => ['call.missed'],
    'bridge-agent-start': () => ['call.answered'],
    'member-queue-end': (h) => [`call.ended ${h.get('CC-Cause') === 'Cancel' ? 'abandoned' : 'completed'}`],
  };

  it('every example maps as §10 says, Cancel with CC-Cancel-Reason TIMEOUT as abandoned', async () => {
    expect(examples.length).toBeGreaterThan(0);
    expect(examples.some((h) => h.get('CC-Cause') === 'Cancel' && h.get('CC-Cancel-Reason') === 'TIMEOUT')).toBe(true);
    for (const h of examples) {
      // One mapper per example: the documented examples are separate calls (their member uuids differ); a Terminated end follows its answer.
      const mapper = new FreeswitchMapper(
        { groupId: (q) => (q === 'support@default' ? 7 : undefined), agentId: () => 12 },
        () => undefined,
        () => 1_800_000_000_000,
      );
      const action = h.get('CC-Action')!;
      if (h.get('CC-Cause') === 'Terminated') {
        await mapper.map({ headers: new Map([...h, ['CC-Action', 'bridge-agent-start'], ['CC-Agent', '1000@default']]), body: '' });
      }
      const got = (await mapper.map({ headers: h, body: '' })).map((e) => (e.type === 'call.ended' ? `${e.type} ${e.reason}` : e.type));
      expect([action, got]).toEqual([action, (SECTION_10[action] ?? (() => []))(h)]);
    }
  });
});
