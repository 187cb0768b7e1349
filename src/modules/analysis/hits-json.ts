import { counterSlot, counterValue, IX, NCOLS } from './counters.js';
import { JsonBytes } from './json-bytes.js';
import type { AnalysisQuery } from './analysis.request.js';

/** Counter vectors per breakdown key and bucket label ('' when not bucketed); slot NCOLS holds the ghost count. */
export type Grid = Map<string, Map<string, number[]>>;

/** The counter vector of (key, bucket), created empty on first use. */
export function cell(grid: Grid, key: string, bucket: string): number[] {
  let row = grid.get(key);
  if (!row) grid.set(key, (row = new Map()));
  let v = row.get(bucket);
  // Plain arrays: a month of hours by agent is 144,000 cells, and a typed array costs several times more to allocate.
  if (!v) row.set(bucket, (v = new Array<number>(NCOLS + 1).fill(0)));
  return v;
}

function byKey(a: string, b: string): number {
  // Numeric ids (agents, groups) in numeric order, the rest (DIDs, campaigns) as strings.
  if (/^\d+$/.test(a) && /^\d+$/.test(b)) return Number(a) - Number(b);
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The `data` of an analysis/hits answer as JSON bytes, written straight from
 * the counter vectors: a month of hours by agent is 144,000 buckets, and
 * building an object per bucket only to stringify it cost more than reading
 * the roll-ups. Shape: multi true → key → bucket → counters (`{total: …}`
 * for disPlay total); otherwise key → counters over the range. Buckets with
 * no hit and no answered retry are left out; null when nothing is left
 * (the caller answers 1586).
 */
export function hitsDataJson(q: AnalysisQuery, grid: Grid): Buffer | null {
  const codes = q.fields.map((f) => f.code);
  const slots = codes.map(counterSlot);
  const prefixes = q.fields.map((f, i) => Buffer.from(`${i === 0 ? '{' : ','}${JSON.stringify(f.name)}:`));
  let cells = 0;
  for (const row of grid.values()) cells += row.size;
  // Sized to the answer (about 14 bytes a counter) so it seldom grows, and a small answer stays small.
  const out = new JsonBytes(256 + cells * (24 + 14 * codes.length));
  const counters = (v: number[]): void => {
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i]!;
      out.raw(prefixes[i]!).number(slot >= 0 ? v[slot]! : counterValue(v, codes[i]!, v[NCOLS]!));
    }
    out.ascii('}');
  };
  const bucketed = q.multi && q.display !== 'total';
  for (const key of [...grid.keys()].sort(byKey)) {
    const buckets = [...grid.get(key)!].filter(([, v]) => v[IX.tc]! > 0 || v[IX.fr_can]! > 0);
    if (buckets.length === 0) continue;
    out.ascii(out.length === 0 ? '{' : ',').string(key).ascii(':');
    if (bucketed) {
      buckets.sort(([a], [b]) => (a < b ? -1 : 1));
      // Bucket labels are digits, dashes, a space and a colon: nothing to escape.
      buckets.forEach(([label, v], i) => {
        out.ascii(i === 0 ? '{"' : ',"').ascii(label).ascii('":');
        counters(v);
      });
      out.ascii('}');
    } else if (q.multi) {
      out.ascii('{"total":');
      counters(buckets[0]![1]);
      out.ascii('}');
    } else counters(buckets[0]![1]);
  }
  return out.length === 0 ? null : out.ascii('}').bytes();
}
