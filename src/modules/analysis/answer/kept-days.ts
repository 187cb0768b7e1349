import type { BucketDayCache } from '../day-cache/bucket-day-cache.js';
import type { DataStream } from '../../../http/answer.js';
import { fragmentsByDay } from '../day-cache/bucket-day-answers.js';
import { daySegments } from '../day-cache/day-segments.js';
import type { GridCache } from '../day-cache/day-grids.js';
import { keptKeys, type HitsPlan } from '../query/plan.js';
import { bucketFragment, joinFragments, type Grid } from '../wire/hits-json.js';
import { fragmentDay, keyMajorJson, type KeyedDay } from '../wire/key-major-json.js';
import { piecesOrStream, type ChunkPool } from '../../../http/chunk-pool.js';
import { fromSplit } from './cut-days.js';
import { DAY, HOUR, fromRollup } from './grid-reads.js';
import { MAX_KEPT_RANGE_DAYS } from './path.js';
import { answersFromStoredHours, storedHourDays, type HourCellsCache } from './stored-hours.js';

/**
 * Date and hour buckets over a date range, put together per local day from
 * the answers of whole days kept in memory (bucket-day-cache.ts) and the rest
 * computed (hour buckets of a range that cuts days: its partial days by
 * fromSplit). Hours of the whole days, when the stored hour grids answer
 * them, come from kept hour cells instead and are written as the answer is
 * sent (wire/key-major-json.ts). Undefined when the query is not of that
 * kind (or the cache is off), null when nothing matches.
 */
export async function fromKeptDays(
  caches: { days: BucketDayCache; grids: GridCache | null; cells: HourCellsCache; chunks: ChunkPool },
  p: HitsPlan,
  path: 'daily' | 'hourly' | 'split',
): Promise<Buffer[] | DataStream | null | undefined> {
  const { days, grids, cells, chunks } = caches;
  const q = p.query;
  const r = q.range;
  if (days.maxBytes === 0 || !r || !q.multi || (q.display !== 'date' && q.display !== 'hour')) return undefined;
  // A range that cuts days by date goes to the days path (composable): kept grids, not kept answers.
  if (path === 'split' && q.display !== 'hour') return undefined;
  if (r.to - r.from > MAX_KEPT_RANGE_DAYS * DAY) return undefined;
  let segments = daySegments(p.tz, r.from, r.to);
  if (!segments || segments.length === 0) return undefined;
  if (path === 'daily') {
    // Daily rows are whole local days by construction: the range's days, each whole.
    const first = r.wallFrom / DAY;
    const last = r.wallTo / DAY - 1;
    segments = segments.filter((s) => s.day >= first && s.day <= last).map((s) => ({ ...s, whole: true }));
    if (segments.length === 0) return undefined;
  } else if (path === 'hourly' && segments.some((s) => s.from % HOUR !== 0 || s.to % HOUR !== 0)) return undefined;
  if (!segments.some((s) => s.whole)) return undefined;
  const versions = await p.repo.versions(segments[0]!.utcDays[0], segments[segments.length - 1]!.utcDays[1]);
  const compute = async (from: number, to: number, firstDay: number, lastDay: number) => {
    const grid: Grid = new Map();
    // Bucketed (p.bucketed): kept days serve multi answers by date or hour only. A run that
    // starts or ends inside an hour (the partial days of a split range): hours, 5-minute slots, raw edges.
    if (path === 'split' && (from % HOUR !== 0 || to % HOUR !== 0)) await fromSplit(grids, p, grid, { from, to });
    else await fromRollup(p, path === 'daily' ? 'daily' : 'hourly', grid, { from, to, wallFrom: firstDay * DAY, wallTo: (lastDay + 1) * DAY });
    return grid;
  };
  if (path !== 'daily' && answersFromStoredHours(p)) {
    // Whole days of hours (hour-aligned in the zones these paths serve) from the kept or stored hour
    // cells, the partial days at the ends computed; written key by key as the answer is sent.
    const stored = await storedHourDays(
      p,
      cells,
      segments.filter((s) => s.whole),
      versions,
    );
    const parts: KeyedDay[] = [];
    for (const s of segments) parts.push(s.whole ? stored.shift()! : fragmentDay(bucketFragment(q, await compute(s.from, s.to, s.day, s.day))));
    return piecesOrStream(keyMajorJson(q, parts, chunks), chunks);
  }
  const fragments = await fragmentsByDay(days, {
    // Hour buckets of a whole day are the same whichever way the range ends: kept once for both paths.
    keyOf: keptKeys(p, 'day-answer', path === 'daily' ? 'daily' : 'hourly'),
    segments,
    versions,
    compute,
    write: (grid) => bucketFragment(q, grid),
  });
  return joinFragments(fragments);
}
