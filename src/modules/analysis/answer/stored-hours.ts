/**
 * The hours of whole local days from stored hour grids (migration 130,
 * hour-grid-codec.ts): a node that has just started answers a month of hours
 * from 31 stored values per dimension instead of summing ~280,000 roll-up
 * rows. A stored day is used only under the day's current change mark; the
 * others are summed from the hourly roll-up, one read per run of days, and
 * stored for the next node or the next start.
 */
import type { DaySegment } from '../day-cache/day-segments.js';
import type { AnalysisRepository, ValueFilter } from '../query/analysis.repository.js';
import type { HourGridRepository } from '../query/hour-grids.repository.js';
import type { HitsPlan } from '../query/plan.js';
import { NCOLS, type Dim } from '../rollup/counters.js';
import { FragmentWriter, type BucketFragment } from '../wire/hits-json.js';
import { offsetSeconds } from '../../../time/zone.js';
import { DAY, HOUR, labelOf } from './grid-reads.js';
import { addCell, CELL_INTS, CELL_SLOTS, decodeHourCells, encodeHourCells, NO_CELLS, type HourCellList } from './hour-grid-codec.js';

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

/** Where one dimension's stored days are read, summed and written (a plan has one; the job builds its own). */
export interface HourGridSource {
  repo: AnalysisRepository;
  hourGrids: HourGridRepository;
  dim: Dim;
  ghost: number;
  /**
   * The current UTC day: it and later days are summed but never stored. Its
   * mark changes with every stored call, so a stored value would be stale at
   * once, and a west-of-UTC zone's yesterday, which reaches into it, would
   * write ~300 kB on every ask after an ingest.
   */
  today: number;
}

const sourceOf = (p: HitsPlan): HourGridSource => ({
  repo: p.repo,
  hourGrids: p.hourGrids,
  dim: p.query.breakDown,
  ghost: p.ghost,
  today: Math.floor(p.now / DAY),
});

/**
 * The cells of the UTC days firstDay…lastDay: stored ones under their day's
 * current mark (`versions`, read before anything else of those days), the
 * others summed from the hourly roll-up, one read per run of days, and
 * stored. `summed`: how many days were summed.
 */
async function cellsOfDays(
  src: HourGridSource,
  firstDay: number,
  lastDay: number,
  versions: Map<number, number>,
): Promise<{ days: Map<number, HourCellList>; summed: number }> {
  const out = new Map<number, HourCellList>();
  for (const g of await src.hourGrids.read(src.dim, src.ghost, firstDay, lastDay)) {
    const cells = g.token === (versions.get(g.utcDay) ?? 0) ? decodeHourCells(g) : null;
    if (cells) out.set(g.utcDay, cells);
  }
  let summed = 0;
  for (let a = firstDay; a <= lastDay; a++) {
    if (out.has(a)) continue;
    let b = a;
    while (b + 1 <= lastDay && !out.has(b + 1)) b++;
    const rows = await src.repo.rollupSums(
      { table: 'analysis_hourly', dim: src.dim, from: a * 24, to: b * 24 + 23, keys: EVERY, directions: EVERY, byBucket: true },
      `gh${src.ghost}`,
    );
    const days = encodeHourCells(rows);
    const fresh = [];
    for (let d = a; d <= b; d++) {
      const cells = days.get(d) ?? NO_CELLS;
      out.set(d, decodeHourCells(cells)!);
      if (d < src.today) fresh.push({ utcDay: d, token: versions.get(d) ?? 0, ...cells });
    }
    // Stored under the marks read before the rows: a day changed meanwhile is stale at once, and summed again next time.
    if (fresh.length > 0) await src.hourGrids.write(src.dim, src.ghost, fresh);
    summed += b - a + 1;
    a = b;
  }
  return { days: out, summed };
}

/**
 * Brings the stored days firstDay…lastDay of one dimension up to date (the
 * job in hour-grid-job.ts): those missing or stale are summed and stored.
 * Answers how many were.
 */
export async function refreshStoredHours(src: HourGridSource, firstDay: number, lastDay: number): Promise<number> {
  return (await cellsOfDays(src, firstDay, lastDay, await src.repo.versions(firstDay, lastDay))).summed;
}

/**
 * The hour buckets of whole local days (consecutive, hour-aligned), one
 * fragment per day, written straight from the stored cells, key by key: no
 * grid of 144,000 vectors for a month by agent, which cost as much as the
 * writing. Same bytes as bucketFragment of a grid of the same hours read
 * from the roll-up (two UTC hours with one local label, on the night clocks
 * go back, are summed).
 */
export async function storedHourFragments(p: HitsPlan, segments: DaySegment[], versions: Map<number, number>): Promise<BucketFragment[]> {
  const q = p.query;
  const { days } = await cellsOfDays(sourceOf(p), Math.floor(segments[0]!.from / DAY), Math.floor((segments[segments.length - 1]!.to - 1) / DAY), versions);
  const keep = keyFilter(p.filters[q.breakDown]);
  const v = new Array<number>(NCOLS + 1).fill(0);
  return segments.map((s) => {
    // The UTC days the local day touches (one in UTC, two elsewhere), each with its hours' labels (null: outside the day).
    const parts: { cells: HourCellList; labels: (string | null)[]; index: Map<string, number> | null }[] = [];
    let count = 0;
    for (let d = Math.floor(s.from / DAY); d <= Math.floor((s.to - 1) / DAY); d++) {
      const cells = days.get(d)!;
      const labels = Array.from({ length: 24 }, (_, h) => {
        const at = d * DAY + h * HOUR;
        return at < s.from || at >= s.to ? null : labelOf(q, at + offsetSeconds(p.tz, at));
      });
      parts.push({ cells, labels, index: null });
      count += cells.n;
    }
    if (parts.length > 1) for (const part of parts) part.index = new Map(part.cells.keys.map((k, i) => [k, i]));
    const w = new FragmentWriter(q, count);
    const seen = new Set<string>();
    for (const first of parts) {
      for (let fk = 0; fk < first.cells.keys.length; fk++) {
        const key = first.cells.keys[fk]!;
        if (seen.has(key) || !keep(key)) continue;
        seen.add(key);
        w.startKey(key);
        let current: string | null = null;
        for (const part of parts) {
          const k = part === first ? fk : part.index!.get(key);
          if (k === undefined) continue;
          const { cells, labels } = part;
          for (let i = cells.starts[k]!; i < cells.starts[k + 1]!; i++) {
            const label = labels[cells.cell[i * CELL_INTS + 1]!]!;
            if (label === null) continue;
            if (label !== current) {
              if (current !== null) w.bucket(current, v);
              for (const slot of CELL_SLOTS) v[slot] = 0;
              current = label;
            }
            addCell(cells, i, v);
          }
        }
        if (current !== null) w.bucket(current, v);
      }
    }
    return w.done();
  });
}
