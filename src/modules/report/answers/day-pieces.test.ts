import { describe, expect, it } from 'vitest';
import { ReportDayCache } from './report-day-cache.js';
import { dayPieces } from './day-pieces.js';

const utc = (y: number, mo: number, d: number, hh = 0, mi = 0) => Date.UTC(y, mo - 1, d, hh, mi) / 1000;

describe('dayPieces', () => {
  it('UTC: whole days, and the parts at both ends when the range starts or ends inside a day', () => {
    const D = utc(2026, 11, 2);
    expect(dayPieces(D, D + 2 * 86400, 'UTC')).toEqual([
      { start: D, end: D + 86400, whole: true },
      { start: D + 86400, end: D + 2 * 86400, whole: true },
    ]);
    expect(dayPieces(D + 900, D + 86400 + 1800, 'UTC')).toEqual([
      { start: D + 900, end: D + 86400, whole: false },
      { start: D + 86400, end: D + 86400 + 1800, whole: false },
    ]);
  });

  it('Kolkata (+05:30) cuts at 18:30 UTC; New York on 2026-11-01 has a 25-hour piece', () => {
    const k = dayPieces(utc(2026, 11, 1, 18, 30), utc(2026, 11, 3, 18, 30), 'Asia/Kolkata');
    expect(k.map((p) => [p.start, p.end, p.whole])).toEqual([
      [utc(2026, 11, 1, 18, 30), utc(2026, 11, 2, 18, 30), true],
      [utc(2026, 11, 2, 18, 30), utc(2026, 11, 3, 18, 30), true],
    ]);
    const ny = dayPieces(utc(2026, 10, 31, 4), utc(2026, 11, 2, 5), 'America/New_York');
    expect(ny.map((p) => p.end - p.start)).toEqual([86400, 90000]);
    expect(ny.every((p) => p.whole)).toBe(true);
  });
});

describe('ReportDayCache', () => {
  it('answers an entry only under its token; the least recently used goes first once the budget is spent', () => {
    const cache = new ReportDayCache<{ size: number; n: number }>(3000);
    cache.set('a', 't1', { size: 1000, n: 1 });
    cache.set('b', 't1', { size: 1000, n: 2 });
    expect(cache.get('a', 't2')).toBeUndefined(); // another token: dropped
    expect(cache.get('a', 't1')).toBeUndefined();
    cache.set('a', 't1', { size: 1000, n: 1 });
    expect(cache.get('b', 't1')?.n).toBe(2); // b is now the most recent
    cache.set('c', 't1', { size: 1000, n: 3 }); // a goes
    expect(cache.get('a', 't1')).toBeUndefined();
    expect(cache.get('b', 't1')?.n).toBe(2);
    expect(cache.get('c', 't1')?.n).toBe(3);
    cache.set('huge', 't1', { size: 5000, n: 4 }); // larger than the budget: not kept
    expect(cache.get('huge', 't1')).toBeUndefined();
    expect(cache.bytes).toBeLessThanOrEqual(3000);
  });
});
