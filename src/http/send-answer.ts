import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Answer, isDataStream } from './answer.js';
import { csvPieces } from './csv.js';
import { successEnvelope } from './envelope.js';
import { sendCompressedPieces, sendStreamed } from './streamed-answer.js';

/** Checks a success answer as the client reads it (tests: the operation's response schema); throws when it breaks it. */
export type AnswerCheck = (sent: unknown) => void;

const JSON_TYPE = 'application/json; charset=utf-8';
const CSV_TYPE = 'text/csv; charset=utf-8';

/** Answers larger than this are sent as their pieces, not joined into one buffer first (why: analysis/wire/hits-json.ts, joinFragments). */
const JOIN_UP_TO = 256 * 1024;
const DATA_PREFIX = Buffer.from('{"status":"success","code":200,"data":');
const CLOSE = Buffer.from('}');

/**
 * Shared views encoded once (Answer.sharedView): a view cached for a second is
 * sent to every request of that second; encoding its tens of kilobytes again
 * for each was most of queue/count's cost under load (bench/hot-lookups.ts).
 * Keyed by the frozen object, so the bytes go when the view does.
 */
const encodedViews = new WeakMap<object, Buffer>();

/**
 * What the route handler returns: a ready payload (an envelope object, its
 * text or its bytes), which Fastify sends as the handler's value; or the
 * reply itself, already sending (a stream, pieces written by hand, CSV).
 * Why not always `reply.send()`: an async handler that returns the reply
 * makes Fastify wait for the response's end through `Reply.then` (an
 * end-of-stream listener set on every response, which profiles of the live
 * views showed); the ready answers — the hot lookups and the shared live
 * views — are returned instead, as they were before this file existed.
 * Measured against the reply-returning build (bench/ingest-live.ts --only
 * views --rounds 4 --baseline, 2026-11-29, CPU a request, medians):
 * SQLite Agent/live 56.5 against 62.7 µs, queue/count 66.5 against 70.8 µs;
 * PostgreSQL Agent/live 0.92 of it, queue/count unchanged (0.97–1.17 a round).
 */
export type Sendable = FastifyReply | object | string | Buffer;

/**
 * The one way out of every operation (operation.ts): a handler's plain
 * object becomes `{status: "success", code: 200, ...fields}` as JSON; an
 * Answer is sent by its kind — the envelope as text, `data` as encoded
 * pieces (joined when small, else written one after another, compressed
 * when the client accepts it) or as a stream (as the socket takes it, each
 * chunk released once written), a shared view's bytes, CSV as pieces of text.
 * With `check` (tests), every JSON answer is checked as sent: a streamed one
 * through a copy of each chunk taken as it leaves, so the tests run the
 * production send path, release of pooled chunks included.
 */
export function sendAnswer(request: FastifyRequest, reply: FastifyReply, result: object, check: AnswerCheck | null): Sendable {
  if (!(result instanceof Answer)) {
    const envelope = successEnvelope(result);
    check?.(envelope);
    return envelope;
  }
  const body = result.body;
  switch (body.kind) {
    case 'envelope-text':
      check?.(JSON.parse(body.text));
      reply.type(JSON_TYPE);
      return body.text;
    case 'shared-view': {
      let bytes = encodedViews.get(body.fields);
      if (!bytes) {
        bytes = Buffer.from(JSON.stringify(successEnvelope(body.fields)));
        encodedViews.set(body.fields, bytes);
      }
      check?.(JSON.parse(bytes.toString('utf8')));
      reply.type(JSON_TYPE);
      return bytes;
    }
    case 'csv':
      // Fastify pipes the text to the socket (or the compressor) as it is taken: a large report is never one string.
      return reply.type(CSV_TYPE).send(Readable.from(csvPieces(body.header, body.rows)));
    case 'data':
      if (isDataStream(body.data)) {
        const chunks = check ? checkedAsSent(body.data.chunks, check) : body.data.chunks;
        const release = body.data.release;
        // The envelope's own bytes are not the stream's to take back.
        sendStreamed(request, reply, { chunks: enveloped(chunks), release: release && ((c) => c !== DATA_PREFIX && c !== CLOSE && release(c)) });
        return reply;
      }
      return sendPieces(request, reply, [DATA_PREFIX, ...body.data, CLOSE], check);
  }
}

function* enveloped(data: Iterable<Buffer>): Generator<Buffer, void, undefined> {
  yield DATA_PREFIX;
  yield* data;
  yield CLOSE;
}

/** The chunks as they are pulled, each copied before it is written (its buffer goes back to the pool after); the whole checked after the last. */
function* checkedAsSent(chunks: Iterable<Buffer>, check: AnswerCheck): Generator<Buffer, void, undefined> {
  const copies: Buffer[] = [];
  for (const chunk of chunks) {
    copies.push(Buffer.from(chunk));
    yield chunk;
  }
  const whole = Buffer.concat([DATA_PREFIX, ...copies, CLOSE]);
  // Thrown here, it ends the answer before its last bytes (streamed-answer.ts closes the connection): the client sees a broken answer.
  check(JSON.parse(whole.toString('utf8')));
}

function sendPieces(request: FastifyRequest, reply: FastifyReply, all: Buffer[], check: AnswerCheck | null): Sendable {
  let size = 0;
  for (const p of all) size += p.length;
  check?.(JSON.parse(Buffer.concat(all, size).toString('utf8')));
  if (size <= JOIN_UP_TO) {
    reply.type(JSON_TYPE);
    return Buffer.concat(all, size);
  }
  if (sendCompressedPieces(request, reply, all)) return reply;
  writeCorked(reply, all, size);
  return reply;
}

/**
 * Writes a large ready answer as its pieces, corked: one gathered write, no
 * copy into one buffer. Headers already set on the reply (CORS) go with it;
 * onResponse hooks (metrics, logs) run as for any answer, onSend hooks do
 * not: a client that accepts compression gets them through
 * sendCompressedPieces instead.
 */
function writeCorked(reply: FastifyReply, pieces: Buffer[], size: number): void {
  reply.hijack();
  const res = reply.raw;
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) res.setHeader(name, value);
  res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': size });
  try {
    res.cork();
    for (const p of pieces) res.write(p);
    res.uncork();
    res.end();
  } catch (err) {
    // Past hijack() Fastify no longer answers for us: close the connection rather than leave the client waiting.
    res.destroy(err as Error);
  }
}
