/**
 * Which way one request is answered (range planning): the roll-up, the
 * cube or the raw calls (choosePath), and for a range that cuts days, its
 * local days when it can be put together from whole days and two partial
 * ones (composable). Decided from the plan and one read of the roll-up zone.
 */
import { daySegments, type DaySegment } from '../day-cache/day-segments.js';
import type { HitsPlan } from '../query/plan.js';
import { GHOST_MAX } from '../rollup/counters.js';
import { wholeHourOffset } from '../../../time/zone.js';
import { DAY, HOUR, cubeCells } from './grid-reads.js';

export type AnalysisPath = 'daily' | 'hourly' | 'cube' | 'split' | 'raw' | 'days';

/** Longer ranges are counted without kept days: cutting them into local days costs more than it saves. */
export const MAX_KEPT_RANGE_DAYS = 400;

export async function choosePath(p: HitsPlan): Promise<Exclude<AnalysisPath, 'days'>> {
  const { query: q, tz, bucketed } = p;
  if (p.ghost > GHOST_MAX) return 'raw';
  const otherFilters = Object.keys(q.filters).some((d) => d !== q.breakDown && d !== 'direction');
  const directionFilter = q.filters.direction !== undefined;
  const r = q.range;
  const hourBuckets = bucketed && q.display === 'hour';
  const dayAligned = !r || (r.wallFrom % DAY === 0 && r.wallTo % DAY === 0);
  const dailyUsable = !hourBuckets && dayAligned && (await p.repo.rollupZone()) === tz;
  // The daily per-dimension rows have no direction: a direction filter goes to the cube.
  if (dailyUsable && !otherFilters && !directionFilter) return 'daily';
  if (dailyUsable && cubeCells(q) !== null) return 'cube';
  if (otherFilters) return 'raw';
  const hourAligned = !r || (r.from % HOUR === 0 && r.to % HOUR === 0);
  // A UTC hour is one local hour only where the zone's offset is whole hours.
  const wholeHours = r ? wholeHourOffset(tz, r.from) && wholeHourOffset(tz, r.to - 1) : tz === 'UTC';
  // Totals need no local labels: any zone works when the range is whole UTC hours.
  if (hourAligned && (wholeHours || !bucketed)) return 'hourly';
  const wholeHoursInside = r !== null && Math.ceil(r.from / HOUR) < Math.floor(r.to / HOUR);
  if (wholeHoursInside && (wholeHours || !bucketed)) return 'split';
  return 'raw';
}

/**
 * The local days of the range when it is answered as whole days (kept
 * grids or the daily roll-up) plus its two partial days (fromSplit): the
 * roll-ups answer it (no filter but the breakdown's own, none on
 * direction, the daily roll-up keyed in the account's zone), it holds at
 * least one whole local day, and a bucketed answer is by date or month.
 * Null otherwise.
 */
export async function composable(p: HitsPlan): Promise<DaySegment[] | null> {
  const { query: q, tz } = p;
  const r = q.range;
  if (!r || p.ghost > GHOST_MAX || (p.bucketed && q.display === 'hour')) return null;
  if (Object.keys(q.filters).some((d) => d !== q.breakDown)) return null;
  if (r.to - r.from > MAX_KEPT_RANGE_DAYS * DAY || r.to - r.from < DAY) return null;
  const segments = daySegments(tz, r.from, r.to);
  if (!segments || !segments.some((s) => s.whole)) return null;
  if ((await p.repo.rollupZone()) !== tz) return null;
  return segments;
}
