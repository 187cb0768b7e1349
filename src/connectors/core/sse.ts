/** One Server-Sent Events message: its `event:` name (default `message`), `data:` lines joined, and `id:` when it had one. */
export interface SseMessage {
  event: string;
  data: string;
  id: string | null;
}

/**
 * An incremental parser of `text/event-stream` (the WHATWG rules the service
 * follows): lines end in LF, CRLF or CR; a blank line ends a message; `:` lines
 * are comments (the heartbeat); a chunk may end anywhere, even inside a line.
 */
export class SseParser {
  private buf = '';
  private event = '';
  private data: string[] = [];
  private id: string | null = null;

  feed(chunk: string): SseMessage[] {
    this.buf += chunk;
    const out: SseMessage[] = [];
    for (;;) {
      const m = /\r\n|\n|\r/.exec(this.buf);
      // A CR at the very end may be the first half of CRLF: wait for the next chunk.
      if (!m || (m[0] === '\r' && m.index === this.buf.length - 1)) break;
      const line = this.buf.slice(0, m.index);
      this.buf = this.buf.slice(m.index + m[0].length);
      this.line(line, out);
    }
    return out;
  }

  private line(line: string, out: SseMessage[]): void {
    if (line === '') {
      if (this.data.length > 0 || this.event) out.push({ event: this.event || 'message', data: this.data.join('\n'), id: this.id });
      this.event = '';
      this.data = [];
      this.id = null;
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    else if (field === 'id') this.id = value;
  }
}
