import { describe, expect, it } from 'vitest';
import { gatherRollups, gatheredRollup } from './rollup-write.js';
import type { Queryable } from './types.js';

// A gathering's pending roll-ups are written once, by its owner, when its work is done (rollup-write.ts gatherRollups).
describe('gatherRollups', () => {
  // Only the key identity of the executor matters here: no statement runs.
  const tx = (): Queryable => ({ dialect: 'sqlite' }) as Queryable;
  const pending = (written: string[], name: string) => async () => ({ adds: 0, flush: async () => void written.push(name) });

  it('one pending roll-up per key, written once after the work, before gatherRollups returns; none outside a gathering', async () => {
    const t = tx();
    const written: string[] = [];
    expect(gatheredRollup(t, 'a', pending(written, 'a'))).toBeNull();
    await gatherRollups(t, async () => {
      (await gatheredRollup(t, 'a', pending(written, 'a'))!).adds++;
      (await gatheredRollup(t, 'a', pending(written, 'a-again'))!).adds++;
      await gatheredRollup(t, 'b', pending(written, 'b'));
      // Nested (a caller's gathering inside another's): the outer one writes.
      await gatherRollups(t, async () => void (await gatheredRollup(t, 'a', pending(written, 'a-inner'))!).adds++);
      expect(written).toEqual([]);
      // Another transaction's executor has a gathering of its own, or none.
      expect(gatheredRollup(tx(), 'a', pending(written, 'other'))).toBeNull();
    });
    expect(written).toEqual(['a', 'b']);
    expect(gatheredRollup(t, 'a', pending(written, 'a'))).toBeNull();
  });

  it('work that throws writes nothing (its transaction rolls back) and closes the gathering', async () => {
    const t = tx();
    const written: string[] = [];
    await expect(
      gatherRollups(t, async () => {
        await gatheredRollup(t, 'a', pending(written, 'a'));
        throw new Error('failed');
      }),
    ).rejects.toThrow('failed');
    expect(written).toEqual([]);
    expect(gatheredRollup(t, 'a', pending(written, 'a'))).toBeNull();
  });
});
