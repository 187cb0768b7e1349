import { describe, expect, it } from 'vitest';
import { SseParser } from './sse.js';

describe('SseParser', () => {
  const text =
    'retry: 2000\n\nevent: ready\ndata: {"lstSync":3}\n\n: hb 1\n\nevent: call\ndata: {"a":1}\n\nid: 4\nevent: call.takeover\ndata: {"callId":"k1"}\n\n';

  it('reads messages whole, skipping comments, with the id of a group on its last message', () => {
    const msgs = new SseParser().feed(text);
    expect(msgs).toEqual([
      { event: 'ready', data: '{"lstSync":3}', id: null },
      { event: 'call', data: '{"a":1}', id: null },
      { event: 'call.takeover', data: '{"callId":"k1"}', id: '4' },
    ]);
  });

  it('gives the same messages however the text is split, CRLF included', () => {
    const crlf = text.replace(/\n/g, '\r\n');
    const whole = new SseParser().feed(crlf);
    for (let cut = 1; cut < crlf.length; cut++) {
      const p = new SseParser();
      expect([...p.feed(crlf.slice(0, cut)), ...p.feed(crlf.slice(cut))]).toEqual(whole);
    }
  });
});
