import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { QUARTER, inBusinessHours, intervalOfGroup, intervalsOf, segmentsOf, type IntervalName } from './intervals.js';

const utc = (y: number, mo: number, d: number, hh = 0, mi = 0) => Date.UTC(y, mo - 1, d, hh, mi) / 1000;

describe('intervalsOf', () => {
  it('New York on 2026-11-01: a 25-hour day, the repeated 01:00 hour twice', () => {
    const start = utc(2026, 11, 1, 4);
    const { intervals } = intervalsOf(start, start + 90000, 'day', 'America/New_York');
    expect(intervals).toEqual([{ start, end: start + 90000 }]);
    const hours = intervalsOf(start, start + 90000, 'hour', 'America/New_York').intervals;
    expect(hours).toHaveLength(25);
    expect(hours[1]).toEqual({ start: start + 3600, end: start + 7200 });
    expect(hours[2]).toEqual({ start: start + 7200, end: start + 10800 });
  });

  it('Kolkata: hours start at half past the UTC hour; weeks on Monday; the first interval is cut to the range', () => {
    const { intervals } = intervalsOf(utc(2026, 11, 2, 0, 0), utc(2026, 11, 2, 2, 0), 'hour', 'Asia/Kolkata');
    expect(intervals.map((i) => [i.start, i.end])).toEqual([
      [utc(2026, 11, 2, 0, 0), utc(2026, 11, 2, 0, 30)],
      [utc(2026, 11, 2, 0, 30), utc(2026, 11, 2, 1, 30)],
      [utc(2026, 11, 2, 1, 30), utc(2026, 11, 2, 2, 0)],
    ]);
    // 2026-11-02 is a Monday: 00:00 IST is 2026-11-01 18:30 UTC.
    const weeks = intervalsOf(utc(2026, 10, 30), utc(2026, 11, 10), 'week', 'Asia/Kolkata').intervals;
    expect(weeks.map((w) => w.start)).toEqual([utc(2026, 10, 30), utc(2026, 11, 1, 18, 30), utc(2026, 11, 8, 18, 30)]);
  });
});

describe('inBusinessHours', () => {
  it('start included, end excluded, local weekday', () => {
    const bh = { startMin: 9 * 60, endMin: 18 * 60, weekDays: new Set([1]) };
    expect(inBusinessHours(bh, 'UTC', utc(2026, 11, 2, 9))).toBe(true);
    expect(inBusinessHours(bh, 'UTC', utc(2026, 11, 2, 17, 45))).toBe(true);
    expect(inBusinessHours(bh, 'UTC', utc(2026, 11, 2, 18))).toBe(false);
    expect(inBusinessHours(bh, 'UTC', utc(2026, 11, 2, 8, 45))).toBe(false);
    expect(inBusinessHours(bh, 'UTC', utc(2026, 11, 3, 9))).toBe(false);
    // 09:00 in Kolkata on Monday is 03:30 UTC.
    expect(inBusinessHours(bh, 'Asia/Kolkata', utc(2026, 11, 2, 3, 30))).toBe(true);
  });
});

describe('segmentsOf + intervalOfGroup', () => {
  it('the interval found by arithmetic in the database equals the one of the walk, for every quarter hour', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('UTC', 'America/New_York', 'Asia/Kolkata', 'Asia/Kathmandu', 'Australia/Lord_Howe', 'Europe/London'),
        fc.constantFrom<IntervalName>('15m', 'hour', 'day', 'week', 'month', 'total'),
        fc.integer({ min: 0, max: 400 }),
        fc.integer({ min: 1, max: 3000 }),
        (tz, interval, startDay, quarters) => {
          const start = utc(2026, 1, 1) + startDay * 86400 + (startDay % 7) * QUARTER;
          const end = start + quarters * QUARTER;
          const { bucketIndex } = intervalsOf(start, end, interval, tz);
          for (const seg of segmentsOf(start, end, interval, tz, bucketIndex)) {
            for (let b = seg.start; b < seg.end; b += QUARTER) {
              // What the SQL computes per row: bucket − ((bucket + shift) mod length), or the segment start.
              const k = seg.length === 0 ? seg.start : b - ((((b + seg.shift) % seg.length) + seg.length) % seg.length);
              expect(intervalOfGroup(seg, k, start, bucketIndex)).toBe(bucketIndex[(b - start) / QUARTER]);
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
