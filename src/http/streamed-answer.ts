import { pipeline, type Writable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { acceptedEncoding, compressor } from './compression.js';
import type { DataStream } from './answer.js';

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
 * Sends a streamed answer (answer.ts, DataStream: the whole envelope's chunks) chunk by chunk as
 * the socket — or the compressor, when the client accepts br or gzip, with
 * the plugin's settings — takes them: each chunk is pulled (written) only
 * when the last one was taken, and given back (`release`) once its write
 * has completed, so its buffer can hold a later chunk. Chunked transfer
 * encoding: the length is not known up front. Headers already set on the
 * reply (CORS) go with it; onResponse hooks (metrics, logs) run as for any
 * answer.
 */
export function sendStreamed(request: FastifyRequest, reply: FastifyReply, answer: DataStream, encoding = acceptedEncoding(request)): void {
  reply.hijack();
  const res = reply.raw;
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) res.setHeader(name, value);
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    vary: 'accept-encoding',
    ...(encoding ? { 'content-encoding': encoding } : {}),
  });
  let dest: Writable = res;
  if (encoding) {
    const z = compressor(encoding);
    pipeline(z, res, (err) => err && res.destroy());
    dest = z;
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

/**
 * For answers written as pieces (send-answer.ts writeCorked, which bypasses the
 * onSend hooks): when the client accepts a compression, sends the pieces
 * compressed, as a streamed answer, and answers true; else false and the
 * caller writes them as they are (with their length).
 */
export function sendCompressedPieces(request: FastifyRequest, reply: FastifyReply, pieces: Buffer[]): boolean {
  const encoding = acceptedEncoding(request);
  if (!encoding) return false;
  sendStreamed(request, reply, { chunks: pieces }, encoding);
  return true;
}
