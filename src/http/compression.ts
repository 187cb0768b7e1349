import { Readable } from 'node:stream';
import compress from '@fastify/compress';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

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
  await app.register(compress, { global: true, globalDecompression: false, threshold: COMPRESS_THRESHOLD, encodings: ['br', 'gzip'] });
}

const ACCEPTS_COMPRESSION = /\b(?:br|gzip|x-gzip)\b|\*/i;

/**
 * For answers written as pieces (operation.ts sendPieces, which bypass the
 * onSend hooks): when the client accepts a compression, sends the pieces
 * through the plugin's compressing stream and answers true; else false and
 * the caller writes them as they are.
 */
export function sendCompressedPieces(request: FastifyRequest, reply: FastifyReply, pieces: Buffer[]): boolean {
  const accept = request.headers['accept-encoding'];
  if (typeof accept !== 'string' || !ACCEPTS_COMPRESSION.test(accept) || typeof reply.compress !== 'function') return false;
  reply.type('application/json; charset=utf-8');
  reply.compress(Readable.from(pieces, { objectMode: false }));
  return true;
}
