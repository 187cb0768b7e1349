import { localDay } from '../../../time/zone.js';
import { QUARTER } from '../intervals.js';

/** A part of a report's range inside one local day; `whole` when it is the whole day. */
export interface DayPiece {
  start: number;
  end: number;
  whole: boolean;
}

const dayOf = (t: number, tz: string) => localDay(t, tz).key;

/**
 * A range of whole quarter hours cut where the local date changes (a
 * quarter hour never straddles a local midnight: every offset is a whole
 * number of quarter hours). 15-minute, hour and day intervals never cross
 * such a cut, so each piece's rows are the range's rows of its intervals.
 * The first and last pieces are whole when the range starts and ends at
 * a change of date; DST days (23 or 25 hours) and days whose midnight does
 * not exist are pieces like any other.
 */
export function dayPieces(start: number, end: number, tz: string): DayPiece[] {
  const out: DayPiece[] = [];
  let from = start;
  let day = dayOf(start, tz);
  for (let b = start + QUARTER; b < end; b += QUARTER) {
    const d = dayOf(b, tz);
    if (d === day) continue;
    out.push({ start: from, end: b, whole: true });
    from = b;
    day = d;
  }
  if (from < end) out.push({ start: from, end, whole: true });
  if (out.length > 0) {
    out[0]!.whole &&= dayOf(start - QUARTER, tz) !== dayOf(start, tz);
    out[out.length - 1]!.whole &&= dayOf(end, tz) !== dayOf(end - QUARTER, tz);
  }
  return out;
}
