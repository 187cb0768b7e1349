import { offsetSeconds, wallToUtc } from '../../time/zone.js';
import { QUARTER } from '../report/intervals.js';
import type { QueueVolume } from '../report/report.service.js';

export type PlanInterval = '15m' | '30m' | 'hour';
export const PLAN_SECONDS: Record<PlanInterval, number> = { '15m': 900, '30m': 1800, hour: 3600 };
const DAY = 86400;

/** The UTC span [start, end) of the local day whose midnight is the wall-clock second `wallMidnight`: 23, 24 or 25 hours. */
export function daySpan(tz: string, wallMidnight: number): { start: number; end: number } {
  return { start: wallToUtc(tz, wallMidnight), end: wallToUtc(tz, wallMidnight + DAY) };
}

/** The wall-clock midnight (seconds as if UTC) of the local day holding the Unix time `utc`. */
export function wallMidnightOf(tz: string, utc: number): number {
  return Math.floor((utc + offsetSeconds(tz, utc)) / DAY) * DAY;
}

/** The same weekday `k` weeks before. */
export const weeksBefore = (wallMidnight: number, k: number) => wallMidnight - k * 7 * DAY;

export interface DayInterval {
  start: number;
  end: number;
  /**
   * Minutes after local midnight of the wall-clock interval it is (09:30 → 570): the same interval on every day,
   * whatever the offset. On the day clocks go back the repeated hour's intervals share their label; on the day they go
   * forward the skipped hour has none.
   */
  label: number;
  /** Its first quarter hour (index in the day) and how many. */
  first: number;
  quarters: number;
}

/**
 * The plan intervals of one local day: its UTC quarter hours (every zone's
 * offset is a whole number of quarter hours) grouped by wall-clock interval
 * and offset, in order.
 */
export function dayIntervals(tz: string, span: { start: number; end: number }, wallMidnight: number, seconds: number): DayInterval[] {
  const out: DayInterval[] = [];
  let lastKey = '';
  for (let b = span.start, i = 0; b < span.end; b += QUARTER, i++) {
    const off = offsetSeconds(tz, b);
    const label = (Math.floor((b + off - wallMidnight) / seconds) * seconds) / 60;
    const key = `${label}|${off}`;
    const cur = out[out.length - 1];
    if (cur && key === lastKey) {
      cur.end += QUARTER;
      cur.quarters++;
    } else {
      out.push({ start: b, end: b + QUARTER, label, first: i, quarters: 1 });
      lastKey = key;
    }
  }
  return out;
}

interface Tally {
  /** Occurrences of the interval on the history days. */
  n: number;
  offered: number;
  answered: number;
  /** talk + hold + wrap-up of the answered calls, seconds. */
  handle: number;
}

/** One group's history: per wall-clock interval, its calls summed over the weeks' occurrences. */
export class History {
  private readonly byLabel = new Map<number, Tally>();

  /** Adds one history day: its intervals and the quarter hours' figures, by quarter index. */
  addDay(intervals: readonly DayInterval[], quarters: readonly QueueVolume[]): void {
    for (const iv of intervals) {
      let t = this.byLabel.get(iv.label);
      if (!t) this.byLabel.set(iv.label, (t = { n: 0, offered: 0, answered: 0, handle: 0 }));
      t.n++;
      for (let i = iv.first; i < iv.first + iv.quarters; i++) {
        const q = quarters[i];
        if (!q) continue;
        t.offered += q.offered;
        t.answered += q.answered;
        t.handle += q.handle;
      }
    }
  }

  /** Mean offered per occurrence (0 when none), and the handle time and answered calls behind the interval's AHT. */
  of(label: number): { offered: number; answered: number; handle: number } {
    const t = this.byLabel.get(label);
    return t && t.n > 0 ? { offered: t.offered / t.n, answered: t.answered, handle: t.handle } : { offered: 0, answered: 0, handle: 0 };
  }
}
