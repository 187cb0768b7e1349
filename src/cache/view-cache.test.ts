import { describe, expect, it } from 'vitest';
import { ViewCache } from './view-cache.js';

describe('ViewCache.getOrCompute', () => {
  it('computes a view once for every request that misses at the same time', async () => {
    const cache = new ViewCache<string>();
    let computed = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const compute = async () => {
      computed++;
      await gate;
      return 'view';
    };
    const answers = Promise.all(Array.from({ length: 5 }, () => cache.getOrCompute('1|k', 7, 100, compute)));
    release();
    expect(await answers).toEqual(['view', 'view', 'view', 'view', 'view']);
    expect(computed).toBe(1);
    // Cached for the same version and second, computed anew for another.
    expect(await cache.getOrCompute('1|k', 7, 100, compute)).toBe('view');
    expect(computed).toBe(1);
    await cache.getOrCompute('1|k', 8, 100, compute);
    expect(computed).toBe(2);
  });

  it('keeps a view computed across a drop out of the cache', async () => {
    const cache = new ViewCache<string>();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const first = cache.getOrCompute('1|k', 7, 100, async () => {
      await gate;
      return 'before the change';
    });
    cache.dropPrefix('1|');
    release();
    expect(await first).toBe('before the change');
    expect(cache.get('1|k', 7, 100)).toBeUndefined();
    expect(await cache.getOrCompute('1|k', 7, 100, async () => 'after the change')).toBe('after the change');
  });
});
