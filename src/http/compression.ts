import type { Transform } from 'node:stream';
import zlib from 'node:zlib';
import { negotiate } from '@fastify/accept-negotiator';
import compress from '@fastify/compress';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * Answers of at least this many bytes are compressed when the client asks
 * (Accept-Encoding). Below it the compressed form saves less than the
 * headers weigh, and the hot lookups (Directory/getDnc: ~60 bytes) pay only a
 * size check.
 */
export const COMPRESS_THRESHOLD = 1024;

/**
 * gzip and Brotli for every answer (static files of the wallboard and the API
 * docs, JSON answers, /metrics), with @fastify/compress, Fastify's own
 * plugin: content negotiation (q-values, `*`, identity), `Vary:
 * accept-encoding`, streaming for large bodies. Brotli is preferred when the
 * client accepts both; the plugin's default Brotli quality (4) compresses
 * about as fast as gzip. The event stream (`text/event-stream`, written on
 * the raw socket) is never compressed: a proxy or browser buffering a
 * compressed stream would hold messages back. Must be registered before the
 * routes (it hooks each route as it is added).
 */
export async function installCompression(app: FastifyInstance): Promise<void> {
  // Request bodies are read as they always were (a Content-Encoding header is ignored, PRODUCT.md §3's
  // 1047 for what is not JSON): the plugin's request decompression would answer 415 / 400 instead.
  await app.register(compress, { global: true, globalDecompression: false, threshold: COMPRESS_THRESHOLD, encodings: ENCODINGS });
}

/** The encodings offered, in order of preference (the plugin's and the streamed answers'). */
const ENCODINGS: Array<'br' | 'gzip'> = ['br', 'gzip'];

/**
 * The encoding a large answer written by us (http/streamed-answer.ts) is
 * compressed with, picked as the plugin picks it, with its negotiator
 * (`@fastify/accept-negotiator`: q-values, identity; `*` and x-gzip count as
 * gzip; `x-no-compression` declines); null for none.
 */
export function acceptedEncoding(request: FastifyRequest): string | null {
  const accept = request.headers['accept-encoding'];
  if (typeof accept !== 'string' || request.headers['x-no-compression'] !== undefined) return null;
  return negotiate(accept.toLowerCase().replace(/\*|x-gzip/g, 'gzip'), ENCODINGS) ?? null;
}

/** A compressing stream for `encoding`, with the plugin's settings (Brotli quality 4, gzip's defaults). */
export function compressor(encoding: string): Transform {
  return encoding === 'br' ? zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } }) : zlib.createGzip();
}
