import { describe, expect, it } from 'vitest';
import { MergingQueue } from './ingest-merge.js';

/** The queue alone, over a plain function: which items go together, and what a failed round does. */
describe('MergingQueue', () => {
  function recorder(fail: (items: string[]) => boolean) {
    const rounds: string[][] = [];
    const q = new MergingQueue<string, string>(
      async (_key, items) => {
        rounds.push(items);
        await Promise.resolve();
        if (fail(items)) throw new Error(`failed: ${items.join(',')}`);
        return items.map((i) => i.toUpperCase());
      },
      (item) => item.length,
      6,
    );
    return { q, rounds };
  }

  it('applies what arrives in one turn together, up to the size limit, each answered with its own result', async () => {
    const { q, rounds } = recorder(() => false);
    const answers = await Promise.all(['aa', 'bb', 'cc', 'dd', 'e'].map((x) => q.run(1, x)));
    expect(answers).toEqual(['AA', 'BB', 'CC', 'DD', 'E']);
    expect(rounds).toEqual([
      ['aa', 'bb', 'cc'],
      ['dd', 'e'],
    ]);
    expect(q.stats).toEqual({ transactions: 2, batches: 5 });
  });

  it('keeps keys apart', async () => {
    const { q, rounds } = recorder(() => false);
    await Promise.all([q.run(1, 'a'), q.run(2, 'b'), q.run(1, 'c')]);
    expect(rounds).toEqual([['a', 'c'], ['b']]);
  });

  it('applies items that arrive while a round runs in the next round', async () => {
    const { q, rounds } = recorder(() => false);
    const first = q.run(1, 'a');
    await new Promise<void>((resolve) => setImmediate(resolve));
    const later = [q.run(1, 'b'), q.run(1, 'c')];
    await Promise.all([first, ...later]);
    expect(rounds).toEqual([['a'], ['b', 'c']]);
  });

  it('after a failed round applies each item alone, so only the failing item is refused', async () => {
    const { q, rounds } = recorder((items) => items.includes('x'));
    const settled = await Promise.allSettled(['a', 'x', 'b'].map((i) => q.run(1, i)));
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message))).toEqual(['A', 'failed: x', 'B']);
    expect(rounds).toEqual([['a', 'x', 'b'], ['a'], ['x'], ['b']]);
    expect(q.stats).toEqual({ transactions: 4, batches: 2 });
  });

  it('refuses a lone failing item with its own error', async () => {
    const { q } = recorder(() => true);
    await expect(q.run(1, 'a')).rejects.toThrow('failed: a');
  });
});
