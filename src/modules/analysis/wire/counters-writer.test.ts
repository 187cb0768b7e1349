import { describe, expect, it } from 'vitest';
import { CODES, counterValue, NCOLS, type Code } from '../rollup/counters.js';
import { countersWriter } from './counters-writer.js';

/** What the writer must write: the counters as counterValue computes them, through JSON.stringify. */
function expected(fields: { name: string; code: Code }[], v: number[]): string {
  return JSON.stringify(Object.fromEntries(fields.map((f) => [f.name, counterValue(v, f.code)])));
}

function written(fields: { name: string; code: Code }[], v: number[]): string {
  const w = countersWriter(fields);
  const buf = Buffer.alloc(w.maxBytes + 8, 0x7e);
  const end = w.write(buf, 3, v);
  expect(end - 3).toBeLessThanOrEqual(w.maxBytes);
  expect(buf[end]).toBe(0x7e); // nothing written past the answered end
  return buf.subarray(3, end).toString();
}

function vector(pick: (slot: number) => number): number[] {
  return Array.from({ length: NCOLS + 1 }, (_, slot) => pick(slot));
}

describe('countersWriter', () => {
  const every = CODES.map((c) => ({ name: c, code: c }));

  it('writes every counter as JSON.stringify writes counterValue', () => {
    let seed = 7;
    const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
    const shapes: ((slot: number) => number)[] = [
      () => 0,
      (s) => rnd(10) + s,
      () => rnd(2 ** 31),
      // Sums of seconds with fractions, integers past 2^31, -0.
      (s) => (s % 3 === 0 ? rnd(100_000) / 7 : s % 3 === 1 ? 2 ** 40 + rnd(1000) : -0),
    ];
    for (const shape of shapes)
      for (let i = 0; i < 200; i++) {
        const v = vector(shape);
        expect(written(every, v)).toBe(expected(every, v));
      }
  });

  it('writes null for an average of nothing, and renamed and reordered fields', () => {
    const fields: { name: string; code: Code }[] = [
      { name: 'avgHoldTime', code: 'avgHoldTime' },
      { name: 'TH', code: 'TC' },
      { name: 'gh_uc', code: 'GH_UC' },
      { name: 'mc', code: 'MC' },
    ];
    const v = vector(() => 0);
    v[0] = 4; // tc, no answered call: avgHoldTime is null
    v[NCOLS] = 2;
    expect(written(fields, v)).toBe('{"avgHoldTime":null,"TH":4,"gh_uc":2,"mc":4}');
    expect(written(fields, v)).toBe(expected(fields, v));
  });

  it('makes one writer per field list', () => {
    expect(countersWriter([{ name: 'TC', code: 'TC' }])).toBe(countersWriter([{ name: 'TC', code: 'TC' }]));
    expect(countersWriter([{ name: 'TC', code: 'TC' }])).not.toBe(countersWriter([{ name: 'tc', code: 'TC' }]));
  });
});
