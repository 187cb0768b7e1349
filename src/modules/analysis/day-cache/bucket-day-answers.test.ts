import { describe, expect, it } from 'vitest';
import { BucketDayCache } from './bucket-day-cache.js';
import { fragmentsByDay, type DayAnswerPlan } from './bucket-day-answers.js';
import type { DaySegment } from './day-segments.js';
import type { BucketFragment, Grid } from '../wire/hits-json.js';

const DAY = 86_400;
const FIRST = 20_000;

/** `n` whole UTC days from FIRST. */
function wholeDays(n: number): DaySegment[] {
  return Array.from({ length: n }, (_, i) => {
    const day = FIRST + i;
    return { day, from: day * DAY, to: (day + 1) * DAY, whole: true, utcDays: [day, day] };
  });
}

/** A plan whose every day writes a 1,000-byte fragment, recording the days it computes. */
function plan(segments: DaySegment[], computed: number[][]): DayAnswerPlan {
  return {
    keyOf: (day) => `account|hourly|agentId|${day}`,
    segments,
    versions: new Map(),
    async compute(_from, _to, firstDay, lastDay) {
      computed.push(Array.from({ length: lastDay - firstDay + 1 }, (_, i) => firstDay + i));
      const grid: Grid = new Map();
      return grid;
    },
    write: (): BucketFragment => ({ bytes: Buffer.alloc(1000, 0x20), keys: new Map([['1', [0, 1000]]]) }),
  };
}

describe('fragmentsByDay', () => {
  it('keeps only the days that fit the budget beside its own kept days, so the same ask finds them next time', async () => {
    const segments = wholeDays(6);
    // What one day counts against a budget (the budget plays no part in it).
    const perDay = new BucketDayCache(0).charge(`account|hourly|agentId|${FIRST}`, plan(segments, []).write(new Map()));
    const budget = new BucketDayCache(3 * perDay + perDay / 2);
    const computed: number[][] = [];

    const first = await fragmentsByDay(budget, plan(segments, computed));
    expect(first).toHaveLength(6);
    expect(computed).toEqual([[20_000, 20_001, 20_002, 20_003, 20_004, 20_005]]);
    // The first three fit; the others are answered but not kept (kept, they would have evicted the first ones).
    expect(budget.size).toBe(3);

    // Asked again, and again: the same three days are found, the other three computed; nothing is evicted.
    for (let round = 0; round < 2; round++) {
      computed.length = 0;
      const again = await fragmentsByDay(budget, plan(segments, computed));
      expect(again.every((f) => f.bytes.length === 1000)).toBe(true);
      expect(computed).toEqual([[20_003, 20_004, 20_005]]);
      expect(budget.size).toBe(3);
    }
  });

  it('keeps every day of an answer that fits', async () => {
    const segments = wholeDays(4);
    const cache = new BucketDayCache(1 << 20);
    const computed: number[][] = [];
    await fragmentsByDay(cache, plan(segments, computed));
    computed.length = 0;
    await fragmentsByDay(cache, plan(segments, computed));
    expect(computed).toEqual([]);
    expect(cache.size).toBe(4);
  });
});
