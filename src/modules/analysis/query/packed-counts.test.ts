import { describe, expect, it } from 'vitest';
import { PACKED_SLOTS, addPacked } from './analysis.repository.js';
import { NCOLS } from '../rollup/counters.js';

describe('addPacked', () => {
  it('adds every packed integer (multi-digit, zero, negative) into its slot, the last into the ghost slot', () => {
    const values = PACKED_SLOTS.map((_, i) => (i % 3 === 0 ? 0 : i % 3 === 1 ? 1234567 + i : -(i + 1)));
    const vec = new Array<number>(NCOLS + 1).fill(1);
    addPacked(values.join(','), vec);
    PACKED_SLOTS.forEach((slot, i) => expect(vec[slot]).toBe(1 + values[i]!));
    expect(PACKED_SLOTS[PACKED_SLOTS.length - 1]).toBe(NCOLS);
  });
});
