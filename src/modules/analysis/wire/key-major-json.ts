/**
 * A bucketed answer written key by key as it is sent: `data` is key →
 * {buckets of every day}, so the bytes of one key are all that must exist
 * at once. A month of hours by agent is 26 MB of JSON; written whole before
 * sending (as joinFragments' pieces are) it is 26 MB of fresh memory per
 * ask, and what V8 and glibc give back of it later is what pushes a node
 * past its memory budget (PRODUCT.md §8, docs/benchmarks.md).
 */
import { JsonBytes } from './json-bytes.js';
import { BucketOut, byKey, type BucketFragment } from './hits-json.js';
import type { AnalysisQuery } from '../query/request.js';
import type { DataStream } from '../../../http/envelope.js';

/** One local day of a bucketed answer, as the key-major writer reads it. */
export interface KeyedDay {
  /** The keys it may write buckets for (a key may still write none: it is then left out). */
  keys(): Iterable<string>;
  /** Writes the key's buckets of this day, each after a comma, in label order. */
  writeKey(key: string, out: BucketOut): void;
}

/** A day already written (a kept or computed fragment). */
export function fragmentDay(f: BucketFragment): KeyedDay {
  return {
    keys: () => f.keys.keys(),
    writeKey(key, out) {
      const span = f.keys.get(key);
      if (span) out.span(f.bytes.subarray(span[0], span[1]));
    },
  };
}

/** Chunks are handed over once they hold this much (a key of a month of hours by agent: ~150 kB). */
const CHUNK = 64 * 1024;

/**
 * The buffers one answer's chunks are written in, used again once a chunk
 * has been sent (`release`, called by the sender when the socket or the
 * compressor is done with it): a month of hours by agent is then a few
 * buffers of 256 kB instead of 26 MB of fresh ones, which V8 frees only
 * when a collection finds their wrappers (until then they count in the
 * process's memory).
 */
export class ChunkPool {
  static readonly SIZE = 4 * CHUNK;
  private readonly free: Buffer[] = [];

  get(): Buffer {
    return this.free.pop() ?? Buffer.allocUnsafeSlow(ChunkPool.SIZE);
  }

  /** A sent chunk: its buffer is written again (one that grew past SIZE, or a constant, is left alone). */
  release(chunk: Buffer): void {
    if (chunk.byteOffset !== 0 || chunk.buffer.byteLength !== ChunkPool.SIZE || this.free.length >= 4) return;
    this.free.push(Buffer.from(chunk.buffer, 0, ChunkPool.SIZE));
  }
}

/**
 * `data` of the days (in time order): each key, in key order, with its
 * buckets of every day; a key none of the days writes a bucket for is left
 * out. Chunks of about CHUNK bytes or one key, written only as they are
 * pulled, in `pool`'s buffers; nothing at all when no key has a bucket (the
 * caller answers 1586).
 */
export function* keyMajorJson(q: AnalysisQuery, days: readonly KeyedDay[], pool = new ChunkPool()): Generator<Buffer, void, undefined> {
  const all = new Set<string>();
  for (const d of days) for (const k of d.keys()) all.add(k);
  const json = new JsonBytes(pool.get());
  const out = new BucketOut(q, json);
  let first = true;
  for (const key of [...all].sort(byKey)) {
    const mark = json.length;
    json
      .ascii(first ? '{' : ',')
      .string(key)
      .ascii(':');
    const open = json.length;
    for (const d of days) d.writeKey(key, out);
    if (json.length === open) {
      json.truncate(mark);
      continue;
    }
    // Every bucket is written after a comma: the key's first one opens its object instead.
    json.put(open, '{').ascii('}');
    first = false;
    if (json.length >= CHUNK) yield json.take(pool.get());
  }
  if (!first) yield json.ascii('}').bytes();
}

/**
 * Pulls chunks until more than `upTo` bytes have come: a smaller answer is
 * answered as its pieces (sent with its length), a larger one as the chunks
 * pulled so far followed by the rest, pulled as the socket takes them, each
 * given back to `pool` once sent. Null when there are none.
 */
export function piecesOrStream(chunks: Iterator<Buffer>, pool?: ChunkPool, upTo = 256 * 1024): Buffer[] | DataStream | null {
  const head: Buffer[] = [];
  let size = 0;
  while (size <= upTo) {
    const next = chunks.next();
    if (next.done) return head.length > 0 ? head : null;
    head.push(next.value);
    size += next.value.length;
  }
  return {
    chunks: {
      *[Symbol.iterator]() {
        // Handed over one by one: a sent chunk is not kept alive by this list.
        while (head.length > 0) yield head.shift()!;
        for (let next = chunks.next(); !next.done; next = chunks.next()) yield next.value;
      },
    },
    release: pool && ((chunk) => pool.release(chunk)),
  };
}
