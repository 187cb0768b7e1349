import { IX, NCOLS } from '../rollup/counters.js';
import { countersWriter, type CountersWriter } from './counters-writer.js';
import { JsonBytes, writeAscii } from './json-bytes.js';
import type { AnalysisQuery } from '../query/request.js';
import { AnswerPieces } from '../../../http/answer-pieces.js';

/** Counter vectors per breakdown key and bucket label ('' when not bucketed); slot NCOLS holds the ghost count. */
export type Grid = Map<string, Map<string, number[]>>;

/**
 * The buckets of a bucketed answer (multi: true, disPlay date | hour | month)
 * as bytes, per key: `,"label":{…},"label":{…}` — each bucket after a comma,
 * the first one's dropped when joined. A day's fragment is written once and
 * joined into many answers (bucket-day-cache.ts); an answer is its fragments' spans
 * sent one after another, in time order, without copying them (joinFragments).
 */
export interface BucketFragment {
  bytes: Buffer;
  /** Byte span [start, end) of each key's buckets. */
  keys: Map<string, [number, number]>;
}

/** The counter vector of (key, bucket), created empty on first use. */
export function cell(grid: Grid, key: string, bucket: string): number[] {
  let row = grid.get(key);
  if (!row) grid.set(key, (row = new Map()));
  let v = row.get(bucket);
  // Plain arrays: a month of hours by agent is 144,000 cells, and a typed array costs several times more to allocate.
  if (!v) row.set(bucket, (v = new Array<number>(NCOLS + 1).fill(0)));
  return v;
}

export function byKey(a: string, b: string): number {
  // Numeric ids (agents, groups) in numeric order, the rest (DIDs, campaigns) as strings.
  if (/^\d+$/.test(a) && /^\d+$/.test(b)) return Number(a) - Number(b);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Writes one counters object (`{"TC":1,…}`) for the requested fields. */
function counterWriter(q: AnalysisQuery, out: JsonBytes): (v: number[]) => void {
  const { write, maxBytes } = countersWriter(q.fields);
  return (v) => {
    out.advance(write(out.reserve(maxBytes), out.length, v));
  };
}

/** Room for an answer of `cells` buckets (about 14 bytes a counter), so it seldom grows and a small one stays small. */
function sized(q: AnalysisQuery, grid: Grid): JsonBytes {
  let cells = 0;
  for (const row of grid.values()) cells += row.size;
  return new JsonBytes(256 + cells * (24 + 14 * q.fields.length));
}

/** Buckets that count: a hit, or an answered retry of a call offered there. */
function counted(row: Map<string, number[]>): [string, number[]][] {
  return [...row].filter(([, v]) => v[IX.tc]! > 0 || v[IX.fr_can]! > 0);
}

/**
 * Writes buckets into a JsonBytes: each after a comma (`,"label":{…}`), one
 * that does not count skipped. The vector is written at once, so the caller
 * may reuse it.
 */
export class BucketOut {
  private readonly counters: CountersWriter;

  constructor(
    q: AnalysisQuery,
    readonly out: JsonBytes,
  ) {
    this.counters = countersWriter(q.fields);
  }

  bucket(label: string, v: number[]): void {
    if (!(v[IX.tc]! > 0 || v[IX.fr_can]! > 0)) return;
    const buf = this.out.reserve(label.length + 4 + this.counters.maxBytes);
    let pos = this.out.length;
    // Bucket labels are digits, dashes, a space and a colon: nothing to escape.
    buf[pos++] = 44; // ,
    buf[pos++] = 34; // "
    pos = writeAscii(buf, pos, label);
    buf[pos++] = 34;
    buf[pos++] = 58; // :
    this.out.advance(this.counters.write(buf, pos, v));
  }

  /** Buckets already written (a kept day's span of one key). */
  span(bytes: Uint8Array): void {
    this.out.copy(bytes);
  }
}

/**
 * Writes one fragment bucket by bucket: `key` starts a key, `bucket` adds
 * one (in label order; one that does not count is skipped), `done` gives
 * the fragment. A key without a counted bucket is left out.
 */
export class FragmentWriter {
  private readonly out: JsonBytes;
  private readonly buckets: BucketOut;
  private readonly keys = new Map<string, [number, number]>();
  private key: string | null = null;
  private start = 0;

  /** `cells`: about how many buckets will be written (room is reserved for them). */
  constructor(q: AnalysisQuery, cells: number) {
    this.out = new JsonBytes(256 + cells * (24 + 14 * q.fields.length));
    this.buckets = new BucketOut(q, this.out);
  }

  startKey(key: string): void {
    this.endKey();
    this.key = key;
    this.start = this.out.length;
  }

  bucket(label: string, v: number[]): void {
    this.buckets.bucket(label, v);
  }

  done(): BucketFragment {
    this.endKey();
    return { bytes: this.out.bytes(), keys: this.keys };
  }

  private endKey(): void {
    if (this.key !== null && this.out.length > this.start) this.keys.set(this.key, [this.start, this.out.length]);
    this.key = null;
  }
}

/** The grid's buckets as a fragment (keys without a counted bucket are left out). */
export function bucketFragment(q: AnalysisQuery, grid: Grid): BucketFragment {
  let cells = 0;
  for (const row of grid.values()) cells += row.size;
  const w = new FragmentWriter(q, cells);
  for (const [key, row] of grid) {
    w.startKey(key);
    for (const [label, v] of [...row].sort(([a], [b]) => (a < b ? -1 : 1))) w.bucket(label, v);
  }
  return w.done();
}

const CLOSE = Buffer.from('}');

/**
 * `data` from fragments in time order, as pieces to send one after another:
 * key → {its buckets of every fragment}. Large spans are views of the
 * fragments, not copies: on this machine the first write to 25 MB of fresh
 * memory alone takes ~100 ms (page faults), longer than sending it. Null
 * when no key has a bucket (the caller answers 1586).
 */
export function joinFragments(fragments: readonly BucketFragment[]): Buffer[] | null {
  const all = new Set<string>();
  for (const f of fragments) for (const k of f.keys.keys()) all.add(k);
  if (all.size === 0) return null;
  const out = new AnswerPieces();
  let firstKey = true;
  for (const key of [...all].sort(byKey)) {
    out.add(Buffer.from(`${firstKey ? '{' : ','}${JSON.stringify(key)}:{`));
    firstKey = false;
    let first = true;
    for (const f of fragments) {
      const span = f.keys.get(key);
      if (!span) continue;
      // Every bucket is written after a comma: the key's first one is sent without it.
      out.add(f.bytes.subarray(first ? span[0] + 1 : span[0], span[1]));
      first = false;
    }
    out.add(CLOSE);
  }
  out.add(CLOSE);
  out.cut();
  return out.list;
}

/**
 * The `data` of an analysis/hits answer as JSON bytes, written straight from
 * the counter vectors: a month of hours by agent is 144,000 buckets, and
 * building an object per bucket only to stringify it cost more than reading
 * the roll-ups. Shape: multi true → key → bucket → counters (`{total: …}`
 * for disPlay total); otherwise key → counters over the range. Buckets with
 * no hit and no answered retry are left out; null when nothing is left
 * (the caller answers 1586). Pieces to send one after another (see joinFragments).
 */
export function hitsDataJson(q: AnalysisQuery, grid: Grid): Buffer[] | null {
  if (q.multi && q.display !== 'total') return joinFragments([bucketFragment(q, grid)]);
  const out = sized(q, grid);
  const counters = counterWriter(q, out);
  for (const key of [...grid.keys()].sort(byKey)) {
    const buckets = counted(grid.get(key)!);
    if (buckets.length === 0) continue;
    out
      .ascii(out.length === 0 ? '{' : ',')
      .string(key)
      .ascii(':');
    if (q.multi) {
      out.ascii('{"total":');
      counters(buckets[0]![1]);
      out.ascii('}');
    } else counters(buckets[0]![1]);
  }
  return out.length === 0 ? null : [out.ascii('}').bytes()];
}
