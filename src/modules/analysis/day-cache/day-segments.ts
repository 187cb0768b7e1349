import { localDayNumber } from '../../../time/zone.js';

const SLOT = 900;
const DAY = 86400;

/** One local day of a range, as the roll-ups see it. */
export interface DaySegment {
  /** Local day (days since 1970-01-01 of the local date). */
  day: number;
  /** The part of the range in this day, UTC seconds [from, to). */
  from: number;
  to: number;
  /** The range holds the whole local day. */
  whole: boolean;
  /** The UTC days (inclusive) the local day touches: whose change marks decide if a kept answer of it still holds. */
  utcDays: [number, number];
}

/**
 * Splits [from, to) into local days, by the same rule the roll-ups use to
 * place a call (the local day of its 15-minute slot, `localDay`), so a day's
 * bounds and UTC days agree with the rows and counters ingest wrote, in
 * every zone, on DST days too. Slots an hour either side of the range are
 * looked at, so a day that merely touches an end is seen to continue.
 * Null when the local date goes backwards inside the range (a zone that
 * turns its clock back across midnight): a day would come in two pieces.
 */
export function daySegments(tz: string, from: number, to: number): DaySegment[] | null {
  const groups: { day: number; first: number; last: number }[] = [];
  const end = Math.ceil((to + 3600) / SLOT);
  for (let s = Math.floor((from - 3600) / SLOT); s < end; s++) {
    const day = localDayNumber(tz, s * SLOT);
    const g = groups[groups.length - 1];
    if (g && g.day === day) g.last = s;
    else if (g && g.day > day) return null;
    else groups.push({ day, first: s, last: s });
  }
  const segments: DaySegment[] = [];
  for (const g of groups) {
    const start = g.first * SLOT;
    const stop = (g.last + 1) * SLOT;
    const segFrom = Math.max(from, start);
    const segTo = Math.min(to, stop);
    if (segFrom >= segTo) continue;
    segments.push({
      day: g.day,
      from: segFrom,
      to: segTo,
      whole: segFrom === start && segTo === stop,
      utcDays: [Math.floor(start / DAY), Math.floor((stop - 1) / DAY)],
    });
  }
  return segments;
}

/** The local day of a bucket label (`YYYY-MM-DD…`). */
export function dayOfLabel(label: string): number {
  return Date.UTC(Number(label.slice(0, 4)), Number(label.slice(5, 7)) - 1, Number(label.slice(8, 10))) / 86_400_000;
}
