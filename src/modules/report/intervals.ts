import { offsetSeconds } from '../../time/zone.js';

export type IntervalName = '15m' | 'hour' | 'day' | 'week' | 'month' | 'total';
export const QUARTER = 900;

export interface Interval {
  start: number;
  end: number;
}

export interface BusinessHours {
  /** Minutes after local midnight: start included, end excluded. */
  startMin: number;
  endMin: number;
  /** 0 = Sunday … 6 = Saturday. */
  weekDays: Set<number>;
}

/** The local wall clock (seconds, as if UTC) of a Unix time. */
const wallOf = (tz: string, utc: number) => utc + offsetSeconds(tz, utc);

/** Which interval a quarter hour starting at `utc` falls in, as a key that changes exactly where a new interval starts. */
function keyOf(tz: string, utc: number, interval: IntervalName): number | string {
  if (interval === 'total') return 0;
  if (interval === '15m') return utc;
  const off = offsetSeconds(tz, utc);
  const wall = utc + off;
  // The offset too: when clocks go back, the repeated local hour is another interval.
  if (interval === 'hour') return `${Math.floor(wall / 3600)}|${off}`;
  const day = Math.floor(wall / 86400);
  if (interval === 'day') return day;
  // 1970-01-01 was a Thursday: day + 3 counts from a Monday.
  if (interval === 'week') return Math.floor((day + 3) / 7);
  const d = new Date(day * 86400_000);
  return d.getUTCFullYear() * 12 + d.getUTCMonth();
}

/**
 * The intervals of [rangeStart, rangeEnd) (whole quarter hours) in the zone,
 * in order, the first and last cut to the range. Every zone's offset is a
 * whole number of quarter hours, so each local interval edge is a quarter-hour
 * edge in UTC: walking the quarter hours finds them all, DST days (23 or 25
 * hours; a repeated local hour is two rows) and half-hour zones included.
 * `bucketIndex[i]` is the interval of the i-th quarter hour of the range.
 */
export function intervalsOf(rangeStart: number, rangeEnd: number, interval: IntervalName, tz: string): { intervals: Interval[]; bucketIndex: Int32Array } {
  const n = Math.max(0, Math.round((rangeEnd - rangeStart) / QUARTER));
  const bucketIndex = new Int32Array(n);
  const intervals: Interval[] = [];
  let last: number | string | null = null;
  for (let i = 0; i < n; i++) {
    const b = rangeStart + i * QUARTER;
    const k = keyOf(tz, b, interval);
    if (k !== last) {
      if (intervals.length > 0) intervals[intervals.length - 1]!.end = b;
      intervals.push({ start: b, end: rangeEnd });
      last = k;
    }
    bucketIndex[i] = intervals.length - 1;
  }
  return { intervals, bucketIndex };
}

/** True when the quarter hour starting at `utc` lies inside the business hours (local time, start included, end excluded). */
export function inBusinessHours(bh: BusinessHours, tz: string, utc: number): boolean {
  const wall = wallOf(tz, utc);
  const day = Math.floor(wall / 86400);
  const weekDay = (((day + 4) % 7) + 7) % 7;
  if (!bh.weekDays.has(weekDay)) return false;
  const min = Math.floor((wall - day * 86400) / 60);
  return min >= bh.startMin && min < bh.endMin;
}

export const WEEK_DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] as const;

/**
 * A stretch of the range in which the intervals follow from a bucket by
 * arithmetic: the zone's offset is constant, and an interval's first quarter
 * hour is `bucket − ((bucket + shift) mod length)` (length 0: the whole
 * segment is one group, for months and total). The database sums the
 * quarter hours per key and that first quarter hour; clamped to the
 * segment's start it names the interval in `bucketIndex`.
 */
export interface Segment {
  start: number;
  end: number;
  shift: number;
  length: number;
}

const LENGTH: Record<IntervalName, number> = { '15m': QUARTER, hour: 3600, day: 86400, week: 7 * 86400, month: 0, total: 0 };

export function segmentsOf(rangeStart: number, rangeEnd: number, interval: IntervalName, tz: string, bucketIndex: Int32Array): Segment[] {
  const out: Segment[] = [];
  const length = LENGTH[interval];
  let cur: Segment | null = null;
  for (let i = 0; i < bucketIndex.length; i++) {
    const b = rangeStart + i * QUARTER;
    const off = interval === 'total' ? 0 : offsetSeconds(tz, b);
    // Weeks start on Monday: 1970-01-01 was a Thursday, three days after one.
    const shift = off + (interval === 'week' ? 3 * 86400 : 0);
    // A month or total is one group per segment: a new interval starts a new segment.
    const newGroup = length === 0 && i > 0 && bucketIndex[i] !== bucketIndex[i - 1];
    if (!cur || cur.shift !== shift || newGroup) {
      if (cur) cur.end = b;
      cur = { start: b, end: rangeEnd, shift, length };
      out.push(cur);
    }
  }
  return out;
}

/** The interval a database group (segment, first quarter hour `k`) belongs to. */
export function intervalOfGroup(seg: Segment, k: number, rangeStart: number, bucketIndex: Int32Array): number {
  return bucketIndex[(Math.max(k, seg.start) - rangeStart) / QUARTER]!;
}
