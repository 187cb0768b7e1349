import { ownedBytes } from '../../../cache/owned-bytes.js';
import type { BucketDayCache } from './bucket-day-cache.js';
import { dayOfLabel, type DaySegment } from './day-segments.js';
import type { BucketFragment, Grid } from '../wire/hits-json.js';

/** What a bucketed answer over local days needs to be put together from kept days. */
export interface DayAnswerPlan {
  /** Everything a day's answer depends on besides the day and its data (account, path, breakdown, fields, filters, zone…). */
  /** The cache key of a day (query/plan.ts's keptKeys). */
  keyOf: (day: number) => string;
  segments: DaySegment[];
  /** Change marks per UTC day, read before any roll-up row (a day never marked has none). */
  versions: Map<number, number>;
  /** Counter vectors of [from, to), the local days firstDay…lastDay, per key and bucket label. */
  compute(from: number, to: number, firstDay: number, lastDay: number): Promise<Grid>;
  write(grid: Grid): BucketFragment;
}

function tokenOf(s: DaySegment, versions: Map<number, number>): string {
  const parts: number[] = [];
  for (let d = s.utcDays[0]; d <= s.utcDays[1]; d++) parts.push(versions.get(d) ?? 0);
  return parts.join('.');
}

/** A grid's buckets per local day (labels start `YYYY-MM-DD`). */
function splitByDay(grid: Grid): Map<number, Grid> {
  const days = new Map<number, Grid>();
  const dayOf = new Map<string, number>();
  for (const [key, row] of grid) {
    for (const [label, v] of row) {
      let day = dayOf.get(label);
      if (day === undefined) dayOf.set(label, (day = dayOfLabel(label)));
      let g = days.get(day);
      if (!g) days.set(day, (g = new Map()));
      let r = g.get(key);
      if (!r) g.set(key, (r = new Map()));
      r.set(label, v);
    }
  }
  return days;
}

/**
 * The answer's buckets, one fragment per segment in time order: whole days
 * from the cache when their token still holds, the rest computed — each run
 * of consecutive days in one roll-up read — and whole days kept for next time,
 * as many as fit the budget beside the answer's days already kept.
 * The token was read before the rows, so a day changed meanwhile is kept
 * under its older token and simply computed again by the next request.
 */
export async function fragmentsByDay(cache: BucketDayCache, plan: DayAnswerPlan): Promise<BucketFragment[]> {
  const { segments } = plan;
  const tokens = segments.map((s) => tokenOf(s, plan.versions));
  const keyOf = (s: DaySegment) => plan.keyOf(s.day);
  const out = segments.map((s, i) => (s.whole ? cache.get(keyOf(s), tokens[i]!) : undefined));
  // The budget this answer's own days hold: a day is kept only while they all fit. Kept
  // regardless, the days of an answer larger than the budget (a month of hours by agent:
  // 31 × 0.85 MB against 16 MB) would evict each other in turn and none be found next time.
  let claimed = 0;
  out.forEach((f, i) => f && (claimed += cache.charge(keyOf(segments[i]!), f)));
  const keep = (k: number, written: BucketFragment) => {
    const s = segments[k]!;
    out[k] = written;
    if (!s.whole) return;
    // The same charge once copied: ownedBytes keeps the length.
    const key = keyOf(s);
    const charge = cache.charge(key, written);
    if (claimed + charge > cache.maxBytes) return;
    claimed += charge;
    out[k] = { bytes: ownedBytes(written.bytes), keys: written.keys };
    cache.set(key, tokens[k]!, out[k]);
  };
  for (let i = 0; i < segments.length;) {
    if (out[i]) {
      i++;
      continue;
    }
    // A run of days not kept, whole and partial ones, in one read.
    let j = i;
    while (j + 1 < segments.length && !out[j + 1]) j++;
    const byDay = splitByDay(await plan.compute(segments[i]!.from, segments[j]!.to, segments[i]!.day, segments[j]!.day));
    for (let k = i; k <= j; k++) keep(k, plan.write(byDay.get(segments[k]!.day) ?? new Map()));
    i = j + 1;
  }
  return out as BucketFragment[];
}
