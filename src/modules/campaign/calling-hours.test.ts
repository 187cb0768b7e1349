import { describe, expect, it } from 'vitest';
import { insideCallingHours, zoneFor } from './calling-hours.js';

const DAY = { start: '09:00', end: '21:00', weekDays: [1, 2, 3, 4, 5, 6, 7] };
// 2026-11-27 is a Friday.
const at = (iso: string) => Date.parse(iso) / 1000;

describe('insideCallingHours', () => {
  it('counts the local wall clock of the zone, end exclusive', () => {
    expect(insideCallingHours(at('2026-11-27T09:00:00Z'), 'UTC', DAY)).toBe(true);
    expect(insideCallingHours(at('2026-11-27T08:59:59Z'), 'UTC', DAY)).toBe(false);
    expect(insideCallingHours(at('2026-11-27T21:00:00Z'), 'UTC', DAY)).toBe(false);
    // 15:00 UTC is 20:30 in Kolkata (inside) and 10:00 in New York (inside); 16:00 UTC is 21:30 in Kolkata (outside).
    expect(insideCallingHours(at('2026-11-27T15:00:00Z'), 'Asia/Kolkata', DAY)).toBe(true);
    expect(insideCallingHours(at('2026-11-27T16:00:00Z'), 'Asia/Kolkata', DAY)).toBe(false);
    expect(insideCallingHours(at('2026-11-27T13:30:00Z'), 'America/New_York', DAY)).toBe(false);
    expect(insideCallingHours(at('2026-11-27T14:00:00Z'), 'America/New_York', DAY)).toBe(true);
  });

  it('keeps to the week days (ISO: 1 Monday … 7 Sunday)', () => {
    const weekdays = { ...DAY, weekDays: [1, 2, 3, 4, 5] };
    expect(insideCallingHours(at('2026-11-27T12:00:00Z'), 'UTC', weekdays)).toBe(true); // Friday
    expect(insideCallingHours(at('2026-11-28T12:00:00Z'), 'UTC', weekdays)).toBe(false); // Saturday
    expect(insideCallingHours(at('2026-11-30T12:00:00Z'), 'UTC', weekdays)).toBe(true); // Monday
  });

  it('a window past midnight belongs to the day it starts on', () => {
    const night = { start: '22:00', end: '02:00', weekDays: [5] }; // Friday night only
    expect(insideCallingHours(at('2026-11-27T23:00:00Z'), 'UTC', night)).toBe(true);
    expect(insideCallingHours(at('2026-11-28T01:00:00Z'), 'UTC', night)).toBe(true);
    expect(insideCallingHours(at('2026-11-28T23:00:00Z'), 'UTC', night)).toBe(false);
    expect(insideCallingHours(at('2026-11-27T01:00:00Z'), 'UTC', night)).toBe(false);
  });

  it("the contact's zone wins, then the campaign's, then the account's", () => {
    expect(zoneFor('Asia/Tokyo', 'Europe/London', 'UTC')).toBe('Asia/Tokyo');
    expect(zoneFor('', 'Europe/London', 'UTC')).toBe('Europe/London');
    expect(zoneFor(null, null, 'UTC')).toBe('UTC');
  });
});
