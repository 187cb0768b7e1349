import { describe, expect, it } from 'vitest';
import { History, PLAN_SECONDS, dayIntervals, daySpan, wallMidnightOf } from './plan-days.js';

const utc = (y: number, mo: number, d: number, hh = 0, mi = 0) => Date.UTC(y, mo - 1, d, hh, mi) / 1000;
const wall = (y: number, mo: number, d: number) => utc(y, mo, d);

describe('plan days', () => {
  it('a half-hour zone: local hours start at :30 UTC, labelled by local minutes', () => {
    const m = wall(2026, 11, 23);
    const span = daySpan('Asia/Kolkata', m);
    expect(span).toEqual({ start: utc(2026, 11, 22, 18, 30), end: utc(2026, 11, 23, 18, 30) });
    const hours = dayIntervals('Asia/Kolkata', span, m, PLAN_SECONDS.hour);
    expect(hours).toHaveLength(24);
    expect(hours.map((h) => h.label)).toEqual(Array.from({ length: 24 }, (_, i) => i * 60));
    expect(hours[9]).toEqual({ start: utc(2026, 11, 23, 3, 30), end: utc(2026, 11, 23, 4, 30), label: 540, first: 36, quarters: 4 });
    expect(wallMidnightOf('Asia/Kolkata', utc(2026, 11, 22, 19))).toBe(m);
  });

  it('clocks going back: 25 hours, the repeated 01:00 twice with one label; going forward: 23, no 02:00', () => {
    const back = wall(2026, 11, 1);
    const hours = dayIntervals('America/New_York', daySpan('America/New_York', back), back, 3600);
    expect(hours.map((h) => h.label / 60)).toEqual([0, 1, 1, ...Array.from({ length: 22 }, (_, i) => i + 2)]);
    const fwd = wall(2027, 3, 14);
    const halves = dayIntervals('America/New_York', daySpan('America/New_York', fwd), fwd, 1800);
    expect(halves).toHaveLength(46);
    expect(halves.map((h) => h.label)).not.toContain(120);
    expect(halves.map((h) => h.label)).toContain(180);
  });

  it('history: a mean per occurrence, a missing occurrence leaves the mean of the others', () => {
    const q = (offered: number, answered = 0, handle = 0) => ({ offered, answered, handle });
    const h = new History();
    const two = [
      { start: 0, end: 900, label: 0, first: 0, quarters: 1 },
      { start: 900, end: 1800, label: 15, first: 1, quarters: 1 },
    ];
    h.addDay(two, [q(4, 2, 200), q(1)]);
    h.addDay(two, []);
    h.addDay([two[0]!], [q(2, 1, 50)]);
    expect(h.of(0)).toEqual({ offered: 2, answered: 3, handle: 250 });
    expect(h.of(15)).toEqual({ offered: 0.5, answered: 0, handle: 0 });
    expect(h.of(30)).toEqual({ offered: 0, answered: 0, handle: 0 });
  });
});
