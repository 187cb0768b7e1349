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
import { addCell, CELL_INTS, CELL_SLOTS, decodeHourCells, encodeHourCells, NO_CELLS, type HourCellList, type HourCells } from './hour-grid-codec.js';

const EVERY: ValueFilter = { include: null, exclude: [] };

/**
 * Stored grids hold every key of every direction: they answer requests with
 * no filter but keys of the breakdown left out. Named keys read only their
 * own roll-up rows (a month of one agent: ~744), not every key's grid.
 */
export function answersFromStoredHours(p: HitsPlan): boolean {
  return Object.keys(p.filters).every((d) => d === p.query.breakDown) && !p.filters[p.query.breakDown]?.include;
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

/** Calls `fn(a, b)` for each run a…b of consecutive days in first…last that `has` does not hold. */
async function eachMissingRun(first: number, last: number, has: (day: number) => boolean, fn: (a: number, b: number) => Promise<void>): Promise<void> {
  for (let a = first; a <= last; a++) {
    if (has(a)) continue;
    let b = a;
    while (b + 1 <= last && !has(b + 1)) b++;
    await fn(a, b);
    a = b;
  }
}

/**
 * Sums the UTC days a…b from the hourly roll-up (one read) and stores those
 * before today, under the marks read before the rows: a day changed
 * meanwhile is stale at once, and summed again next time.
 */
async function sumAndStore(src: HourGridSource, a: number, b: number, versions: Map<number, number>): Promise<Map<number, HourCells>> {
  const rows = await src.repo.rollupSums(
    { table: 'analysis_hourly', dim: src.dim, from: a * 24, to: b * 24 + 23, keys: EVERY, directions: EVERY, byBucket: true },
    `gh${src.ghost}`,
  );
  const days = encodeHourCells(rows);
  const fresh = [];
  for (let d = a; d <= Math.min(b, src.today - 1); d++) fresh.push({ utcDay: d, token: versions.get(d) ?? 0, ...(days.get(d) ?? NO_CELLS) });
  if (fresh.length > 0) await src.hourGrids.write(src.dim, src.ghost, fresh);
  return days;
}

/**
 * The cells of the UTC days firstDay…lastDay: stored ones under their day's
 * current mark (`versions`, read before anything else of those days), the
 * others summed and stored (sumAndStore).
 */
async function cellsOfDays(src: HourGridSource, firstDay: number, lastDay: number, versions: Map<number, number>): Promise<Map<number, HourCellList>> {
  const out = new Map<number, HourCellList>();
  for (const g of await src.hourGrids.read(src.dim, src.ghost, firstDay, lastDay)) {
    const cells = g.token === (versions.get(g.utcDay) ?? 0) ? decodeHourCells(g) : null;
    if (cells) out.set(g.utcDay, cells);
  }
  await eachMissingRun(
    firstDay,
    lastDay,
    (d) => out.has(d),
    async (a, b) => {
      const days = await sumAndStore(src, a, b, versions);
      for (let d = a; d <= b; d++) out.set(d, decodeHourCells(days.get(d) ?? NO_CELLS)!);
    },
  );
  return out;
}

/**
 * Brings the stored days firstDay…lastDay of one dimension up to date (the
 * job in hour-grid-job.ts): those missing or stale, by their tokens alone,
 * are summed and stored. `versions`: the days' marks, read first. Answers
 * how many days were summed.
 */
export async function refreshStoredHours(src: HourGridSource, firstDay: number, lastDay: number, versions: Map<number, number>): Promise<number> {
  const tokens = await src.hourGrids.tokens(src.dim, src.ghost, firstDay, lastDay);
  let summed = 0;
  await eachMissingRun(
    firstDay,
    lastDay,
    (d) => tokens.has(d) && tokens.get(d) === (versions.get(d) ?? 0),
    async (a, b) => {
      await sumAndStore(src, a, b, versions);
      summed += b - a + 1;
    },
  );
  return summed;
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
  const days = await cellsOfDays(sourceOf(p), Math.floor(segments[0]!.from / DAY), Math.floor((segments[segments.length - 1]!.to - 1) / DAY), versions);
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
      // Only the cells of this local day: the buffer is sized to them, so it is kept without a copy (cache/owned-bytes.ts ownedBytes).
      for (let i = 0; i < cells.n; i++) if (labels[cells.cell[i * CELL_INTS + 1]!] !== null) count++;
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
