import type { Socket } from 'node:net';
import { Agent, buildConnector, fetch } from 'undici';
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

/**
 * The one HTTP client of webhooks: undici (the library behind Node's own
 * fetch) with a keep-alive Agent, redirects never followed, a timeout over
 * the whole exchange. Unless private targets are allowed, the name is
 * resolved through the guarded lookup and the address the socket actually
 * connected to is checked again (covers IP literals and DNS rebinding).
 */
export class WebhookHttp {
  private readonly agent: Agent;

  constructor(
    allowPrivate: boolean,
    private readonly timeoutMs: number,
  ) {
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
    this.agent = new Agent({ connect, keepAliveTimeout: 30_000, connections: 32 });
  }

  async request(method: 'GET' | 'POST', url: string, headers: Record<string, string>, body?: string): Promise<HttpOutcome> {
    const started = performance.now();
    const done = (o: Omit<HttpOutcome, 'durationMs'>): HttpOutcome => ({ ...o, durationMs: Math.round(performance.now() - started) });
    const signal = AbortSignal.timeout(this.timeoutMs);
    try {
      const res = await fetch(url, { method, headers, body, redirect: 'manual', signal, dispatcher: this.agent });
      const response = await readCapped(res.body as { getReader(): ReadableStreamDefaultReader<Uint8Array> } | null);
      return done({ httpStatus: res.status, error: null, response, retryAfter: res.headers.get('retry-after') });
    } catch (err) {
      const timedOut = signal.aborted;
      return done({ httpStatus: null, error: timedOut ? `timeout after ${this.timeoutMs} ms` : describe(err), response: null, retryAfter: null });
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/** Reads at most MAX_ANSWER_BYTES of a body and drops the rest. */
async function readCapped(body: { getReader(): ReadableStreamDefaultReader<Uint8Array> } | null): Promise<string | null> {
  if (!body) return null;
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < MAX_ANSWER_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
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
