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
import { CHUNK, type ChunkPool } from '../../../http/chunk-pool.js';

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

/**
 * `data` of the days (in time order): each key, in key order, with its
 * buckets of every day; a key none of the days writes a bucket for is left
 * out. Chunks of about CHUNK bytes (64 kB) or one key (of a month of hours by
 * agent: ~150 kB), written only as they are
 * pulled, in `pool`'s buffers; nothing at all when no key has a bucket (the
 * caller answers 1586).
 */
export function* keyMajorJson(q: AnalysisQuery, days: readonly KeyedDay[], pool: ChunkPool): Generator<Buffer, void, undefined> {
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
