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
import { keptKeys, type HitsPlan } from '../query/plan.js';
import { NCOLS, type Dim } from '../rollup/counters.js';
import type { KeyedDay } from '../wire/key-major-json.js';
import { TokenedCache } from '../../../cache/tokened-cache.js';
import { offsetSeconds } from '../../../time/zone.js';
import { DAY, HOUR, labelOf } from './grid-reads.js';
import {
  addCell,
  CELL_INTS,
  cellListBytes,
  decodeHourCells,
  encodeHourCells,
  NO_CELLS,
  putCell,
  type HourCellList,
  type HourCells,
} from './hour-grid-codec.js';

const EVERY: ValueFilter = { include: null, exclude: [] };

/**
 * Days' cells kept per node, read out (decodeHourCells), under the day's
 * change mark: a month of hours by agent is ~9 MB of cells against 26 MB
 * of the JSON they are written as, so a month of every breakdown fits where
 * the JSON of one did not (PRODUCT.md §8's memory). Days before today only,
 * as stored.
 */
export class HourCellsCache extends TokenedCache<HourCellList> {
  constructor(maxBytes: number) {
    super(maxBytes, cellListBytes);
  }
}

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
  /** Days' cells kept in memory (the answers' source; the job keeps none). */
  kept?: { cache: HourCellsCache; key: (utcDay: number) => string };
}

const sourceOf = (p: HitsPlan, cache: HourCellsCache): HourGridSource => ({
  repo: p.repo,
  hourGrids: p.hourGrids,
  dim: p.query.breakDown,
  ghost: p.ghost,
  today: Math.floor(p.now / DAY),
  kept: { cache, key: keptKeys(p, 'hour-cells') },
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
 * The cells of the UTC days firstDay…lastDay: kept ones, then stored ones,
 * under their day's current mark (`versions`, read before anything else of
 * those days), the others summed and stored (sumAndStore). Days before
 * today are kept for the next ask.
 */
async function cellsOfDays(src: HourGridSource, firstDay: number, lastDay: number, versions: Map<number, number>): Promise<Map<number, HourCellList>> {
  const out = new Map<number, HourCellList>();
  const token = (d: number) => String(versions.get(d) ?? 0);
  const kept = src.kept;
  if (kept) {
    for (let d = firstDay; d <= Math.min(lastDay, src.today - 1); d++) {
      const cells = kept.cache.get(kept.key(d), token(d));
      if (cells) out.set(d, cells);
    }
  }
  const found = (cells: HourCellList, d: number) => {
    out.set(d, cells);
    if (kept && d < src.today) kept.cache.set(kept.key(d), token(d), cells);
  };
  await eachMissingRun(
    firstDay,
    lastDay,
    (d) => out.has(d),
    async (a, b) => {
      for (const g of await src.hourGrids.read(src.dim, src.ghost, a, b)) {
        const cells = g.token === (versions.get(g.utcDay) ?? 0) ? decodeHourCells(g) : null;
        if (cells) found(cells, g.utcDay);
      }
    },
  );
  await eachMissingRun(
    firstDay,
    lastDay,
    (d) => out.has(d),
    async (a, b) => {
      const days = await sumAndStore(src, a, b, versions);
      for (let d = a; d <= b; d++) found(decodeHourCells(days.get(d) ?? NO_CELLS)!, d);
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
 * KeyedDay per day, written key by key straight from the cells as the
 * answer is sent (wire/key-major-json.ts): no grid of 144,000 vectors for a
 * month by agent, nor the month's JSON at once. Same bytes as bucketFragment
 * of a grid of the same hours read from the roll-up (two UTC hours with one
 * local label, on the night clocks go back, are summed).
 */
export async function storedHourDays(p: HitsPlan, cache: HourCellsCache, segments: DaySegment[], versions: Map<number, number>): Promise<KeyedDay[]> {
  const q = p.query;
  const src = sourceOf(p, cache);
  const days = await cellsOfDays(src, Math.floor(segments[0]!.from / DAY), Math.floor((segments[segments.length - 1]!.to - 1) / DAY), versions);
  const keep = keyFilter(p.filters[q.breakDown]);
  // One vector for every bucket written: it is written at once (BucketOut).
  const v = new Array<number>(NCOLS + 1).fill(0);
  return segments.map((s) => {
    // The UTC days the local day touches (one in UTC, two elsewhere), each with its hours' labels (null: outside the day).
    const parts: { cells: HourCellList; labels: (string | null)[] }[] = [];
    for (let d = Math.floor(s.from / DAY); d <= Math.floor((s.to - 1) / DAY); d++) {
      const labels = Array.from({ length: 24 }, (_, h) => {
        const at = d * DAY + h * HOUR;
        return at < s.from || at >= s.to ? null : labelOf(q, at + offsetSeconds(p.tz, at));
      });
      parts.push({ cells: days.get(d)!, labels });
    }
    return {
      *keys() {
        for (const part of parts) for (const key of part.cells.keys) if (keep(key)) yield key;
      },
      writeKey(key, out) {
        let current: string | null = null;
        for (const { cells, labels } of parts) {
          const k = cells.index.get(key);
          if (k === undefined) continue;
          for (let i = cells.starts[k]!; i < cells.starts[k + 1]!; i++) {
            const label = labels[cells.cell[i * CELL_INTS + 1]!]!;
            if (label === null) continue;
            if (label === current) addCell(cells, i, v);
            else {
              if (current !== null) out.bucket(current, v);
              putCell(cells, i, v);
              current = label;
            }
          }
        }
        if (current !== null) out.bucket(current, v);
      },
    };
  });
}
