/**
 * One AMI message: its headers in order (a key may repeat: `ChanVariable`,
 * `Variable`, `Output`), and for a `Response: Follows` the raw output lines.
 */
export interface AmiMessage {
  headers: Array<[string, string]>;
  /** `Response: Follows` output (Asterisk ≤ 13's `Command`), lines without their terminator. */
  body: string[];
}

/** The first value of `key` (keys compare case-insensitively, as Asterisk does). */
export function header(m: AmiMessage, key: string): string | undefined {
  const k = key.toLowerCase();
  for (const [name, value] of m.headers) if (name.toLowerCase() === k) return value;
  return undefined;
}

/**
 * Channel variables an event carries (manager.conf `channelvars`):
 * `ChanVariable: NAME=value` (Asterisk 12+) or `ChanVariable(NAME): value`.
 * Prefixed copies (`DestChanVariable`) belong to the other channel and are left out.
 */
export function chanVariables(m: AmiMessage): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, value] of m.headers) {
    const k = /^ChanVariable(?:\(([^)]*)\))?$/i.exec(name);
    if (!k) continue;
    const eq = value.indexOf('=');
    if (k[1] !== undefined && (eq < 0 || value.slice(0, eq) !== k[1])) out.set(k[1], value);
    else if (eq > 0) out.set(value.slice(0, eq), value.slice(eq + 1));
  }
  return out;
}

const END_COMMAND = '--END COMMAND--';

/**
 * The AMI framing (docs: "AMI v2 specification"): after a one-line banner
 * (`Asterisk Call Manager/x.y.z`), messages of `Key: Value` lines ended by
 * CRLF, a blank line ending each message. A `Response: Follows` message
 * carries raw output lines up to `--END COMMAND--`, which may hold blank
 * lines. Input comes in TCP chunks that end anywhere — inside a line, between
 * CR and LF, inside a UTF-8 character: bytes are kept until a line is whole.
 */
export class AmiParser {
  private pending: Buffer = Buffer.alloc(0);
  private headers: Array<[string, string]> = [];
  private body: string[] = [];
  private follows = false;
  private bannerSeen = false;
  /** The banner line, once read. */
  banner: string | null = null;

  feed(chunk: Buffer): AmiMessage[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const out: AmiMessage[] = [];
    let start = 0;
    for (;;) {
      const lf = this.pending.indexOf(0x0a, start);
      if (lf < 0) break;
      const end = lf > start && this.pending[lf - 1] === 0x0d ? lf - 1 : lf;
      this.line(this.pending.toString('utf8', start, end), out);
      start = lf + 1;
    }
    this.pending = start === 0 ? this.pending : this.pending.subarray(start);
    return out;
  }

  private line(line: string, out: AmiMessage[]): void {
    if (!this.bannerSeen) {
      this.bannerSeen = true;
      if (/^Asterisk Call Manager\//i.test(line)) {
        this.banner = line;
        return;
      }
    }
    if (this.follows) {
      // Output ends with --END COMMAND--, alone or glued to the last output line.
      if (line.endsWith(END_COMMAND)) {
        const rest = line.slice(0, -END_COMMAND.length);
        if (rest) this.body.push(rest);
        this.follows = false;
        return;
      }
      const kv = /^([A-Za-z0-9_()-]+): (.*)$/.exec(line);
      // Before any output, headers (Privilege, ActionID) may still come.
      if (this.body.length === 0 && kv && /^(Privilege|ActionID|Message)$/i.test(kv[1]!)) this.headers.push([kv[1]!, kv[2]!]);
      else this.body.push(line);
      return;
    }
    if (line === '') {
      if (this.headers.length > 0) out.push({ headers: this.headers, body: this.body });
      this.headers = [];
      this.body = [];
      return;
    }
    const colon = line.indexOf(':');
    const key = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    this.headers.push([key, value]);
    if (key.toLowerCase() === 'response' && value.toLowerCase() === 'follows') this.follows = true;
  }
}

/** An action as AMI wants it on the wire: `Key: Value` CRLF lines, a blank line at the end. */
export function encodeAction(fields: Array<[string, string]>): string {
  // A CR or LF in a value would end the line (or the message) early: an injection, so it is cut out.
  return fields.map(([k, v]) => `${k}: ${v.replace(/[\r\n]+/g, ' ')}\r\n`).join('') + '\r\n';
}
