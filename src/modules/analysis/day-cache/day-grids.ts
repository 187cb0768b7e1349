import { TokenedCache } from '../../../cache/tokened-cache.js';
import type { DaySegment } from './day-segments.js';

/** One local day's counter vectors per breakdown key (no buckets: the caller labels them). */
export type DayGrid = Map<string, number[]>;

/**
 * Counter vectors of whole local days, kept per node, for the answers that
 * cut days (a range ending now, or starting at any second): the whole days
 * inside such a range are summed from here, only its two partial days are
 * read. Same rule as BucketDayCache: an entry holds under the change marks of the
 * UTC days it covers (its token), read before any roll-up row; least
 * recently used entries go first once the byte budget is spent.
 */
export class GridCache extends TokenedCache<DayGrid> {
  constructor(maxBytes: number) {
    // A vector of ~16 numbers (8 bytes each) and its map entry per key.
    super(maxBytes, (grid) => grid.size * 256);
  }
}

/** The token of a local day: the change marks of the UTC days it touches. */
export function dayToken(s: DaySegment, versions: Map<number, number>): string {
  const parts: number[] = [];
  for (let d = s.utcDays[0]; d <= s.utcDays[1]; d++) parts.push(versions.get(d) ?? 0);
  return parts.join('.');
}

/**
 * The grids of the whole days `days` (consecutive, in order): kept ones when
 * their token still holds, each run of the others read in one go
 * (`compute(firstDay, lastDay)`: grids per local day) and kept. A day changed
 * between the marks and the rows is kept under its older token, so the next
 * request computes it again.
 */
export async function gridsByDay(
  cache: GridCache | null,
  keyOf: (day: number) => string,
  days: DaySegment[],
  versions: Map<number, number>,
  compute: (firstDay: number, lastDay: number) => Promise<Map<number, DayGrid>>,
): Promise<DayGrid[]> {
  const tokens = days.map((s) => dayToken(s, versions));
  const out = days.map((s, i) => cache?.get(keyOf(s.day), tokens[i]!));
  for (let i = 0; i < days.length;) {
    if (out[i]) {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < days.length && !out[j + 1]) j++;
    const computed = await compute(days[i]!.day, days[j]!.day);
    for (let k = i; k <= j; k++) {
      const grid = computed.get(days[k]!.day) ?? new Map<string, number[]>();
      cache?.set(keyOf(days[k]!.day), tokens[k]!, grid);
      out[k] = grid;
    }
    i = j + 1;
  }
  return out as DayGrid[];
}
