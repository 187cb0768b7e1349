import { fail } from '../../errors/catalogue.js';
import { isMilliseconds, secondsExpected } from '../../time/unix.js';
import { wallToUtc } from '../../time/zone.js';
import { parseDateEnd } from '../../time/date-end.js';
import { QUARTER, WEEK_DAYS, type BusinessHours, type IntervalName } from './intervals.js';

/** The longest range a report covers (about 13 months of quarter hours). */
const MAX_RANGE_SECS = 400 * 86400;

/** One end of a range as a Unix time: Unix seconds (number or text) or an analysis date format read in the zone (also staffing/plan's date). */
export function instant(v: number | string, tz: string, end: 'from' | 'to'): number {
  if (typeof v === 'number') {
    if (isMilliseconds(v)) throw fail(1001, secondsExpected(end, v));
    if (!Number.isFinite(v) || v < 0) throw fail(1001, `${end} must be Unix seconds or a date`);
    return v;
  }
  return wallToUtc(tz, parseDateEnd(v, tz, end));
}

/**
 * `from` / `to` (both inclusive) as the whole quarter hours that hold them:
 * [start of from's quarter hour, end of to's quarter hour). docs/reports.md.
 */
export function quarterRange(from: number | string, to: number | string, tz: string): { start: number; end: number } {
  const f = instant(from, tz, 'from');
  const t = instant(to, tz, 'to');
  if (t < f) throw fail(1001, 'to is before from');
  const start = Math.floor(f / QUARTER) * QUARTER;
  const end = Math.floor(t / QUARTER) * QUARTER + QUARTER;
  if (end - start > MAX_RANGE_SECS) throw fail(1001, 'the range is longer than 400 days');
  return { start, end };
}

/** Inclusive range of instants (report/abandoned selects calls by their queued time). */
export function instantRange(from: number | string, to: number | string, tz: string): { from: number; to: number } {
  const f = instant(from, tz, 'from');
  const t = instant(to, tz, 'to');
  if (t < f) throw fail(1001, 'to is before from');
  return { from: f, to: t };
}

const HHMM = /^(\d{2}):(\d{2})$/;

function minutes(text: string, name: string): number {
  const m = HHMM.exec(text);
  const v = m ? Number(m[1]) * 60 + Number(m[2]) : NaN;
  if (!m || Number(m[2]) > 59 || v > 1440) throw fail(1001, `businessHours.${name} must be HH:MM`);
  // Roll-ups are per quarter hour: an edge inside one could not be cut exactly.
  if (v % 15 !== 0) throw fail(1001, `businessHours.${name} must be on a quarter hour (:00, :15, :30 or :45)`);
  return v;
}

export function businessHours(raw: { start: string; end: string; weekDays?: string[] } | undefined): BusinessHours | null {
  if (!raw) return null;
  const startMin = minutes(raw.start, 'start');
  const endMin = minutes(raw.end, 'end');
  if (endMin <= startMin) throw fail(1001, 'businessHours.end must be after start');
  const days = raw.weekDays ?? ['MON', 'TUE', 'WED', 'THU', 'FRI'];
  const weekDays = new Set<number>();
  for (const d of days) {
    const i = (WEEK_DAYS as readonly string[]).indexOf(d.toUpperCase());
    if (i < 0) throw fail(1001, `businessHours.weekDays: unknown day ${JSON.stringify(d)} (MON … SUN)`);
    weekDays.add(i);
  }
  return { startMin, endMin, weekDays };
}

export function thresholds(raw: number[] | undefined): number[] {
  const list = raw ?? [20];
  if (list.length === 0 || list.length > 10) throw fail(1001, 'slThresholds takes 1 to 10 values');
  for (const t of list) if (!Number.isInteger(t) || t < 0 || t > 3600) throw fail(1001, 'slThresholds are whole seconds from 0 to 3600');
  return [...new Set(list)];
}

export function shortAbandonOf(raw: number | undefined): number {
  const s = raw ?? 5;
  if (!Number.isInteger(s) || s < 0 || s > 3600) throw fail(1001, 'shortAbandon is whole seconds from 0 to 3600');
  return s;
}

export type { IntervalName };
