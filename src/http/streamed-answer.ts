import { pipeline, type Writable } from 'node:stream';
import zlib from 'node:zlib';
import { negotiate } from '@fastify/accept-negotiator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { StreamedAnswer } from './envelope.js';

/** What the compression plugin offers (compression.ts), in its order of preference. */
const ENCODINGS = ['br', 'gzip'];

/** The encoding the client accepts, as @fastify/compress picks it (`*` and x-gzip count as gzip); null for none. */
function encodingOf(request: FastifyRequest): string | null {
  const accept = request.headers['accept-encoding'];
  if (typeof accept !== 'string' || request.headers['x-no-compression'] !== undefined) return null;
  const chosen = negotiate(accept.toLowerCase().replace(/\*|x-gzip/g, 'gzip'), ENCODINGS);
  return chosen && chosen !== 'identity' ? chosen : null;
}

/**
 * Bytes written (corked) before waiting for the socket: more than the
 * stream's own 16 kB mark, so that an answer of many small views is sent in
 * a few gathered writes rather than a write and a 'drain' every 16 kB.
 */
const BATCH = 256 * 1024;

/** Resolves once `dest` wants more ('drain') or is gone ('close'): a client that went away never drains. */
function writable(dest: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      dest.off('drain', done);
      dest.off('close', done);
      resolve();
    };
    dest.on('drain', done);
    dest.on('close', done);
  });
}

/**
 * Sends a streamed answer (envelope.ts, StreamedAnswer) chunk by chunk as
 * the socket — or the compressor, when the client accepts br or gzip, with
 * the plugin's settings — takes them: each chunk is pulled (written) only
 * when the last one was taken, and given back (`release`) once its write
 * has completed, so its buffer can hold a later chunk. Chunked transfer
 * encoding: the length is not known up front. Headers already set on the
 * reply (CORS) go with it; onResponse hooks (metrics, logs) run as for any
 * answer.
 */
export function sendStreamed(request: FastifyRequest, reply: FastifyReply, answer: StreamedAnswer): void {
  reply.hijack();
  const res = reply.raw;
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) res.setHeader(name, value);
  const encoding = encodingOf(request);
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    vary: 'accept-encoding',
    ...(encoding ? { 'content-encoding': encoding } : {}),
  });
  let dest: Writable = res;
  if (encoding) {
    const compressor = encoding === 'br' ? zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } }) : zlib.createGzip();
    pipeline(compressor, res, (err) => err && res.destroy());
    dest = compressor;
  }
  void (async () => {
    // Corked: small chunks (a report's kept rows, sent as views) go out together, BATCH bytes a gathered write.
    dest.cork();
    // Waited for only after a write said so (a 'drain' then follows), and BATCH bytes since the last wait.
    let full = false;
    let sent = 0;
    for (const chunk of answer.chunks) {
      if (dest.destroyed || res.destroyed) return;
      full = !dest.write(chunk, (err) => !err && answer.release?.(chunk)) || full;
      sent += chunk.length;
      if (full && sent >= BATCH) {
        dest.uncork();
        await writable(dest);
        dest.cork();
        full = false;
        sent = 0;
      }
    }
    dest.uncork();
    dest.end();
  })().catch((err: Error) => {
    request.log.error({ err }, 'streamed answer failed after its headers were sent');
    // Past hijack() Fastify no longer answers for us: close the connection rather than leave the client waiting.
    dest.destroy(err);
    res.destroy(err);
  });
}
