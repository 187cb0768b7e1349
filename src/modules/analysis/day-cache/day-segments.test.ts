import { describe, expect, it } from 'vitest';
import { dayOfLabel, daySegments } from './day-segments.js';

const DAY = 86400;
/** 2026-01-10 00:00:00 UTC, local day 20463. */
const D = 1768003200;

describe('daySegments', () => {
  it('splits whole UTC days, each touching its own UTC day only', () => {
    const s = daySegments('UTC', D, D + 3 * DAY)!;
    expect(s.map((x) => [x.day, x.from, x.to, x.whole, x.utcDays])).toEqual([
      [D / DAY, D, D + DAY, true, [D / DAY, D / DAY]],
      [D / DAY + 1, D + DAY, D + 2 * DAY, true, [D / DAY + 1, D / DAY + 1]],
      [D / DAY + 2, D + 2 * DAY, D + 3 * DAY, true, [D / DAY + 2, D / DAY + 2]],
    ]);
  });

  it('marks the cut days at both ends of a range that is not whole days', () => {
    const s = daySegments('UTC', D + 5 * 3600, D + DAY + 18 * 3600)!;
    expect(s.map((x) => [x.day, x.from, x.to, x.whole])).toEqual([
      [D / DAY, D + 5 * 3600, D + DAY, false],
      [D / DAY + 1, D + DAY, D + DAY + 18 * 3600, false],
    ]);
  });

  it('follows local days in a half-hour zone (Asia/Kolkata, +05:30): a local day spans two UTC days', () => {
    const from = D - 5.5 * 3600; // 2026-01-10 00:00 local
    const s = daySegments('Asia/Kolkata', from, from + 2 * DAY)!;
    expect(s.map((x) => [x.day, x.from, x.to, x.whole, x.utcDays])).toEqual([
      [D / DAY, from, from + DAY, true, [D / DAY - 1, D / DAY]],
      [D / DAY + 1, from + DAY, from + 2 * DAY, true, [D / DAY, D / DAY + 1]],
    ]);
  });

  it('gives the DST days their 23 and 25 hours (America/New_York, 2026-03-08 and 2026-11-01)', () => {
    const spring = Date.UTC(2026, 2, 8, 5) / 1000; // local midnight, EST
    const s = daySegments('America/New_York', spring, spring + 23 * 3600)!;
    expect(s).toHaveLength(1);
    expect(s[0]!.whole).toBe(true);
    expect(s[0]!.day).toBe(Date.UTC(2026, 2, 8) / 1000 / DAY);
    const autumn = Date.UTC(2026, 10, 1, 4) / 1000; // local midnight, EDT
    const a = daySegments('America/New_York', autumn, autumn + 25 * 3600)!;
    expect(a.map((x) => x.whole)).toEqual([true]);
  });

  it('reads the local day of a bucket label', () => {
    expect(dayOfLabel('2026-01-10')).toBe(D / DAY);
    expect(dayOfLabel('2026-01-11 23:00')).toBe(D / DAY + 1);
  });
});
