/**
 * Whole UTC hours of whole local days from stored hour grids (migration 130,
 * hour-grid-codec.ts): a node that has just started answers a month of hours
 * from 31 stored values per dimension instead of summing ~280,000 roll-up
 * rows. A stored day is used only under the day's current change mark; the
 * others are summed from the hourly roll-up, one read per run of days, and
 * stored for the next node or the next start.
 */
import type { ValueFilter } from '../query/analysis.repository.js';
import type { HitsPlan } from '../query/plan.js';
import type { Grid } from '../wire/hits-json.js';
import { offsetSeconds } from '../../../time/zone.js';
import { DAY, HOUR, labelOf } from './grid-reads.js';
import { addHourCells, encodeHourCells, NO_CELLS, type HourCells } from './hour-grid-codec.js';

const EVERY: ValueFilter = { include: null, exclude: [] };

/** Stored grids hold every key of every direction: they answer requests filtered on the breakdown's own keys at most. */
export function answersFromStoredHours(p: HitsPlan): boolean {
  return Object.keys(p.filters).every((d) => d === p.query.breakDown);
}

function keyFilter(f: ValueFilter | undefined): (key: string) => boolean {
  if (!f) return () => true;
  const include = f.include && new Set(f.include);
  const exclude = new Set(f.exclude);
  return (key) => (!include || include.has(key)) && !exclude.has(key);
}

/**
 * Adds the UTC hours of [from, to) (whole hours) to `grid`. `versions`: the
 * change marks of the UTC days it touches when the caller has read them
 * already (before anything else of those days), else read here first.
 */
export async function fromStoredHours(p: HitsPlan, grid: Grid, from: number, to: number, versions?: Map<number, number>): Promise<void> {
  const q = p.query;
  const firstDay = Math.floor(from / DAY);
  const lastDay = Math.floor((to - 1) / DAY);
  versions ??= await p.repo.versions(firstDay, lastDay);
  const keep = keyFilter(p.filters[q.breakDown]);
  const labelsOfDay = (utcDay: number) => (hourOfDay: number) => {
    const at = utcDay * DAY + hourOfDay * HOUR;
    if (at < from || at >= to) return null;
    return p.bucketed ? labelOf(q, at + offsetSeconds(p.tz, at)) : '';
  };
  const add = (utcDay: number, cells: HourCells) => addHourCells(cells, grid, keep, labelsOfDay(utcDay));
  const stored = new Map((await p.hourGrids.read(q.breakDown, p.ghost, firstDay, lastDay)).map((g) => [g.utcDay, g]));
  const missing: number[] = [];
  for (let d = firstDay; d <= lastDay; d++) {
    const g = stored.get(d);
    if (g && g.token === (versions.get(d) ?? 0)) add(d, g);
    else missing.push(d);
  }
  for (let i = 0; i < missing.length;) {
    let j = i;
    while (j + 1 < missing.length && missing[j + 1] === missing[j]! + 1) j++;
    const [a, b] = [missing[i]!, missing[j]!];
    const rows = await p.repo.rollupSums(
      { table: 'analysis_hourly', dim: q.breakDown, from: a * 24, to: b * 24 + 23, keys: EVERY, directions: EVERY, byBucket: true },
      `gh${p.ghost}`,
    );
    const days = encodeHourCells(rows);
    const fresh = [];
    for (let d = a; d <= b; d++) {
      const cells = days.get(d) ?? NO_CELLS;
      add(d, cells);
      fresh.push({ utcDay: d, token: versions.get(d) ?? 0, ...cells });
    }
    // Stored under the marks read before the rows: a day changed meanwhile is stale at once, and summed again next time.
    await p.hourGrids.write(q.breakDown, p.ghost, fresh);
    i = j + 1;
  }
}
