import type { DaySegment } from './day-segments.js';

/** One local day's counter vectors per breakdown key (no buckets: the caller labels them). */
export type DayGrid = Map<string, number[]>;

/**
 * Counter vectors of whole local days, kept per node, for the answers that
 * cut days (a range ending now, or starting at any second): the whole days
 * inside such a range are summed from here, only its two partial days are
 * read. Same rule as DayCache: an entry holds under the change marks of the
 * UTC days it covers (its token), read before any roll-up row; least
 * recently used entries go first once the byte budget is spent.
 */
export class GridCache {
  private readonly entries = new Map<string, { token: string; grid: DayGrid; size: number }>();
  private used = 0;

  constructor(readonly maxBytes: number) {}

  get(key: string, token: string): DayGrid | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key);
    if (e.token !== token) {
      this.used -= e.size;
      return undefined;
    }
    this.entries.set(key, e);
    return e.grid;
  }

  set(key: string, token: string, grid: DayGrid): void {
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.used -= old.size;
    }
    // A vector of ~16 numbers (8 bytes each) and its map entry per key, plus the entry itself.
    const size = grid.size * 256 + key.length * 2 + 256;
    if (size > this.maxBytes) return;
    for (const [k, e] of this.entries) {
      if (this.used + size <= this.maxBytes) break;
      this.entries.delete(k);
      this.used -= e.size;
    }
    this.entries.set(key, { token, grid, size });
    this.used += size;
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
  key: string,
  days: DaySegment[],
  versions: Map<number, number>,
  compute: (firstDay: number, lastDay: number) => Promise<Map<number, DayGrid>>,
): Promise<DayGrid[]> {
  const tokens = days.map((s) => dayToken(s, versions));
  const out = days.map((s, i) => cache?.get(`${key}|${s.day}`, tokens[i]!));
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
      cache?.set(`${key}|${days[k]!.day}`, tokens[k]!, grid);
      out[k] = grid;
    }
    i = j + 1;
  }
  return out as DayGrid[];
}
