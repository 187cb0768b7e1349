import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import type { Agent, buildConnector } from 'undici';
import { guardedLookup, isForbiddenAddress } from './address-guard.js';

/** At most this much of any answer is read and kept (PRODUCT.md §9). */
export const MAX_ANSWER_BYTES = 1024;

export interface HttpOutcome {
  /** null: no answer (network error, timeout, refused address). */
  httpStatus: number | null;
  durationMs: number;
  error: string | null;
  /** The first 1 kB of the answer's body. */
  response: string | null;
  retryAfter: string | null;
}

export interface WebhookHttpOptions {
  /** Private and loopback targets are allowed (WEBHOOK_ALLOW_PRIVATE; tests). */
  allowPrivate: boolean;
  /** One timeout for the whole exchange. */
  timeoutMs: number;
}

/**
 * The one HTTP client of webhooks: undici (the library behind Node's own
 * fetch), its `request` on a keep-alive Agent — fetch's WHATWG streams and
 * signals cost more CPU per delivery for nothing we use. undici's request
 * never follows redirects (a 3xx is just an answer); one timeout covers the
 * whole exchange. Unless private targets are allowed, the name is
 * resolved through the guarded lookup and the address the socket actually
 * connected to is checked again (covers IP literals and DNS rebinding).
 */
export class WebhookHttp {
  /** Made at the first delivery: a node whose accounts have no webhook never loads undici (about 4 MB of heap). */
  private agent: Promise<Agent> | null = null;

  private readonly allowPrivate: boolean;
  private readonly timeoutMs: number;

  constructor({ allowPrivate, timeoutMs }: WebhookHttpOptions) {
    this.allowPrivate = allowPrivate;
    this.timeoutMs = timeoutMs;
  }

  private async makeAgent(): Promise<Agent> {
    const { Agent, buildConnector } = await import('undici');
    const allowPrivate = this.allowPrivate;
    const base = buildConnector(allowPrivate ? {} : { lookup: guardedLookup as never });
    const connect: buildConnector.connector = (opts, callback) => {
      base(opts, (err, socket) => {
        if (err || !socket) return callback(err ?? new Error('connect failed'), null);
        const remote = (socket as Socket).remoteAddress;
        if (!allowPrivate && (remote === undefined || isForbiddenAddress(remote))) {
          socket.destroy();
          return callback(new Error(`refused: connected address ${remote ?? '?'} is not public`), null);
        }
        callback(null, socket);
      });
    };
    return new Agent({ connect, keepAliveTimeout: 30_000, connections: 64 });
  }

  async request(method: 'GET' | 'POST', url: string, headers: Record<string, string>, body?: string): Promise<HttpOutcome> {
    const started = performance.now();
    const done = (o: Omit<HttpOutcome, 'durationMs'>): HttpOutcome => ({ ...o, durationMs: Math.round(performance.now() - started) });
    const signal = AbortSignal.timeout(this.timeoutMs);
    try {
      const agent = await (this.agent ??= this.makeAgent());
      const res = await agent.request({ origin: new URL(url).origin, path: pathOf(url), method, headers, body, signal });
      const response = await readCapped(res.body);
      const retryAfter = res.headers['retry-after'];
      return done({ httpStatus: res.statusCode, error: null, response, retryAfter: typeof retryAfter === 'string' ? retryAfter : null });
    } catch (err) {
      const timedOut = signal.aborted;
      return done({ httpStatus: null, error: timedOut ? `timeout after ${this.timeoutMs} ms` : describe(err), response: null, retryAfter: null });
    }
  }

  async close(): Promise<void> {
    const agent = this.agent;
    this.agent = null;
    if (agent) await (await agent).close();
  }
}

function pathOf(url: string): string {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
}

/** Reads at most MAX_ANSWER_BYTES of a body and drops the rest (the connection is closed when more was coming). */
async function readCapped(body: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= MAX_ANSWER_BYTES) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES).toString('utf8');
}

/** A short, secret-free description of a network failure (fetch wraps the cause). */
function describe(err: unknown): string {
  const cause = (err as { cause?: unknown }).cause;
  const e = (cause ?? err) as { code?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? `${e.code}: ` : '';
  return `${code}${typeof e.message === 'string' ? e.message : String(e)}`.slice(0, 300);
}
