import net from 'node:net';
import { FAIL_OPEN, headerLine, routeRequest, setVariable, type AgiHeaders, type RouteRequest } from './agi-request.js';

/** Answers the variables for one request; throws (or is too slow) when the service cannot decide. */
export type Decide = (req: RouteRequest) => Promise<Array<[string, string]>>;

export interface AgiServerOptions {
  decide: Decide;
  /** How long route/decide may take before the call fails open (ms). */
  timeoutMs: number;
  /** One line per problem (stderr in the command). */
  log: (line: string) => void;
}

/** A session idle this long is closed. */
const IDLE_MS = 10_000;

/** Lines of one socket, however TCP splits them (`\n` or `\r\n`). */
class LineReader {
  private buf = '';
  private readonly waiting: Array<(line: string | null) => void> = [];
  private readonly lines: string[] = [];
  private closed = false;

  push(chunk: string): void {
    this.buf += chunk;
    let nl: number;
    while ((nl = this.buf.indexOf('\n')) >= 0) {
      const line = this.buf.slice(0, nl).replace(/\r$/, '');
      this.buf = this.buf.slice(nl + 1);
      const w = this.waiting.shift();
      if (w) w(line);
      else this.lines.push(line);
    }
  }

  close(): void {
    this.closed = true;
    for (const w of this.waiting.splice(0)) w(null);
  }

  /** The next line, or null once the peer has gone. */
  next(): Promise<string | null> {
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.closed) return Promise.resolve(null);
    return new Promise((resolve) => this.waiting.push(resolve));
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/**
 * One FastAGI session: the `agi_*` headers up to the blank line, the
 * decision (or fail open), then each `SET VARIABLE` sent only after the
 * previous one was answered (`200 result=1`), then the socket is closed,
 * which ends the AGI and lets the dialplan go on.
 */
async function session(socket: net.Socket, reader: LineReader, opts: AgiServerOptions): Promise<void> {
  const headers: AgiHeaders = new Map();
  for (;;) {
    const line = await reader.next();
    if (line === null) return;
    if (line === '') break;
    const h = headerLine(line);
    if (h) headers.set(h[0], h[1]);
  }
  const req = routeRequest(headers);
  let vars: Array<[string, string]>;
  if (req.script !== 'route') {
    opts.log(`agi: unknown script ${JSON.stringify(req.script)} (expected agi://host:port/route): failing open`);
    vars = FAIL_OPEN;
  } else {
    try {
      vars = await withTimeout(opts.decide(req), opts.timeoutMs);
    } catch (err) {
      opts.log(
        `agi: route/decide failed for caller ${req.caller ?? '(none)'} on ${req.did ?? '(no DID)'}: ${(err as Error).message}; failing open (CC_ERROR=1)`,
      );
      vars = FAIL_OPEN;
    }
  }
  for (const [name, value] of vars) {
    if (socket.destroyed) return;
    socket.write(setVariable(name, value));
    // Asterisk may interleave `HANGUP` when the caller hangs up; the answer is the next line starting with a code.
    let answer: string | null;
    do answer = await reader.next();
    while (answer !== null && !/^\d{3}/.test(answer));
    if (answer === null) return;
    if (!answer.startsWith('200')) {
      opts.log(`agi: SET VARIABLE ${name} answered ${JSON.stringify(answer)}`);
      if (answer.startsWith('511')) return; // the channel is gone
    }
  }
}

/** The FastAGI server: one session per connection Asterisk opens. */
export function createAgiServer(opts: AgiServerOptions): net.Server {
  return net.createServer((socket) => {
    socket.setNoDelay(true);
    socket.setEncoding('utf8');
    // A peer that stops talking (never sends the blank line, never answers) is dropped, not kept forever.
    socket.setTimeout(IDLE_MS, () => socket.destroy());
    const reader = new LineReader();
    socket.on('data', (chunk: string) => reader.push(chunk));
    socket.on('end', () => reader.close());
    socket.on('close', () => reader.close());
    socket.on('error', () => reader.close());
    session(socket, reader, opts)
      .catch((err: unknown) => opts.log(`agi: session failed: ${(err as Error).message}`))
      .finally(() => socket.end());
  });
}
