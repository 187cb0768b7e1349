import { describe, expect, it } from 'vitest';
import { localDay, localDayNumber, offsetSeconds, wallToUtc } from './zone.js';

describe('time zones', () => {
  it('gives the local day and its midnight, across a DST change and in a half-hour zone', () => {
    // 2026-03-08 is 23 hours long in New York: midnight is 05:00 UTC, the next one 04:00 UTC.
    expect(localDay(Date.UTC(2026, 2, 8, 12) / 1000, 'America/New_York')).toEqual({ key: '2026-03-08', start: Date.UTC(2026, 2, 8, 5) / 1000 });
    expect(localDay(Date.UTC(2026, 2, 9, 3, 59) / 1000, 'America/New_York')).toEqual({ key: '2026-03-08', start: Date.UTC(2026, 2, 8, 5) / 1000 });
    expect(localDay(Date.UTC(2026, 2, 9, 4) / 1000, 'America/New_York')).toEqual({ key: '2026-03-09', start: Date.UTC(2026, 2, 9, 4) / 1000 });
    // Kolkata is UTC+5:30: its midnight is 18:30 UTC the day before.
    expect(localDay(Date.UTC(2026, 5, 1, 18, 30) / 1000, 'Asia/Kolkata')).toEqual({ key: '2026-06-02', start: Date.UTC(2026, 5, 1, 18, 30) / 1000 });
    expect(localDay(Date.UTC(2026, 5, 1, 18, 29) / 1000, 'Asia/Kolkata').key).toBe('2026-06-01');
  });

  it('agrees with the day number and offsets the analysis buckets use', () => {
    for (const tz of ['UTC', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe']) {
      for (let t = Date.UTC(2026, 0, 1) / 1000; t < Date.UTC(2027, 0, 1) / 1000; t += 7 * 3600 + 900) {
        const day = localDay(t, tz);
        expect(localDayNumber(tz, t)).toBe(Math.floor(Date.parse(`${day.key}T00:00:00Z`) / 86_400_000));
        expect(wallToUtc(tz, t + offsetSeconds(tz, t))).toBe(t);
      }
    }
  });

  it('counts an unknown zone as UTC', () => {
    expect(localDay(Date.UTC(2026, 5, 1, 23) / 1000, 'Nowhere/Atlantis')).toEqual({ key: '2026-06-01', start: Date.UTC(2026, 5, 1) / 1000 });
    expect(offsetSeconds('Nowhere/Atlantis', 0)).toBe(0);
  });
});
