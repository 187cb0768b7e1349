/**
 * The FreeSWITCH event socket's wire format: a message is a header block
 * (`Name: value` lines ending in a blank line), then `Content-Length` bytes
 * of body when that header is present. `text/event-plain` bodies are
 * themselves a header block with URL-encoded values (and, for a few events,
 * a second `Content-Length` body of their own).
 */

export interface EslMessage {
  headers: Map<string, string>;
  body: string;
}

/** An event decoded from a `text/event-plain` body: its headers and any inner body. */
export interface EslEvent {
  headers: Map<string, string>;
  body: string;
}

const BLANK = Buffer.from('\n\n');

/** Parses `Name: value` lines; `decode` URL-decodes the values (event bodies). */
export function parseHeaderBlock(text: string, decode: boolean): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of text.split('\n')) {
    const clean = line.endsWith('\r') ? line.slice(0, -1) : line;
    const colon = clean.indexOf(':');
    if (colon <= 0) continue;
    const name = clean.slice(0, colon);
    // Trailing blanks are no part of a value (FreeSWITCH writes none; copied examples carry them): an encoded one (%20) stays.
    let value = clean
      .slice(colon + 1)
      .replace(/^ /, '')
      .trimEnd();
    if (decode) value = urlDecode(value);
    headers.set(name, value);
  }
  return headers;
}

/** FreeSWITCH's switch_url_encode escapes with %XX; a malformed escape is kept as written. */
export function urlDecode(value: string): string {
  if (!value.includes('%') && !value.includes('+')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value.replace(/%([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
}

/** Decodes a `text/event-plain` body into its headers and inner body. */
export function parseEventPlain(body: string): EslEvent {
  const end = body.indexOf('\n\n');
  const head = end < 0 ? body : body.slice(0, end);
  const headers = parseHeaderBlock(head, true);
  let inner = '';
  const length = Number(headers.get('Content-Length') ?? '0');
  if (end >= 0 && length > 0)
    inner = Buffer.from(body.slice(end + 2))
      .subarray(0, length)
      .toString('utf8');
  return { headers, body: inner };
}

/**
 * Incremental decoder: feed it whatever the socket delivers (a message split
 * across reads, several messages in one read) and it yields whole messages.
 * Bodies are counted in bytes, so a multi-byte character cut by a read is safe.
 */
export class EslDecoder {
  private buffer: Buffer = Buffer.alloc(0);

  /** Nothing held that makes no whole message yet: the bytes so far ended exactly at a message's last byte. */
  get atBoundary(): boolean {
    return this.buffer.length === 0 && this.pending === null;
  }
  private pending: Map<string, string> | null = null;
  private needed = 0;

  push(chunk: Buffer): EslMessage[] {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const out: EslMessage[] = [];
    for (;;) {
      if (this.pending) {
        if (this.buffer.length < this.needed) break;
        const body = this.buffer.subarray(0, this.needed).toString('utf8');
        this.buffer = this.buffer.subarray(this.needed);
        out.push({ headers: this.pending, body });
        this.pending = null;
        continue;
      }
      // Blank lines between messages are tolerated (some servers send an extra one).
      let skip = 0;
      while (skip < this.buffer.length && (this.buffer[skip] === 0x0a || this.buffer[skip] === 0x0d)) skip++;
      if (skip > 0) this.buffer = this.buffer.subarray(skip);
      const end = this.buffer.indexOf(BLANK);
      if (end < 0) break;
      const headers = parseHeaderBlock(this.buffer.subarray(0, end).toString('utf8'), false);
      this.buffer = this.buffer.subarray(end + 2);
      const length = Number(headers.get('Content-Length') ?? '0');
      if (Number.isSafeInteger(length) && length > 0) {
        this.pending = headers;
        this.needed = length;
      } else {
        out.push({ headers, body: '' });
      }
    }
    return out;
  }
}
