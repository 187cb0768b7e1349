import { describe, expect, it } from 'vitest';
import { BucketDayCache } from './bucket-day-cache.js';
import type { BucketFragment } from '../wire/hits-json.js';

function fragment(bytes: number, key = '1'): BucketFragment {
  return { bytes: Buffer.alloc(bytes, 0x20), keys: new Map([[key, [0, bytes]]]) };
}

describe('BucketDayCache', () => {
  it('answers an entry only under the token it was kept with, and forgets it on a newer one', () => {
    const c = new BucketDayCache(1 << 20);
    const f = fragment(100);
    c.set('a|20000', '3.4', f);
    expect(c.get('a|20000', '3.4')).toBe(f);
    expect(c.get('a|20000', '3.5')).toBeUndefined();
    expect(c.size).toBe(0);
    expect(c.bytes).toBe(0);
    expect(c.get('a|20000', '3.4')).toBeUndefined();
  });

  it('stays within its byte budget, dropping the least recently used first', () => {
    const c = new BucketDayCache(3 * 1400);
    c.set('d1', 't', fragment(1000));
    c.set('d2', 't', fragment(1000));
    c.set('d3', 't', fragment(1000));
    expect(c.get('d1', 't')).toBeDefined(); // d1 is now the most recent
    c.set('d4', 't', fragment(1000));
    expect(c.get('d2', 't')).toBeUndefined();
    expect(c.get('d1', 't')).toBeDefined();
    expect(c.get('d3', 't')).toBeDefined();
    expect(c.get('d4', 't')).toBeDefined();
    expect(c.bytes).toBeLessThanOrEqual(c.maxBytes);
  });

  it('replaces an entry in place and does not keep a day larger than the whole budget', () => {
    const c = new BucketDayCache(2000);
    c.set('d1', 't1', fragment(500));
    c.set('d1', 't2', fragment(600));
    expect(c.size).toBe(1);
    expect(c.get('d1', 't2')!.bytes.length).toBe(600);
    c.set('big', 't', fragment(5000));
    expect(c.get('big', 't')).toBeUndefined();
    expect(c.get('d1', 't2')).toBeDefined();
  });

  it('keeps nothing with a budget of 0', () => {
    const c = new BucketDayCache(0);
    c.set('d1', 't', fragment(1));
    expect(c.size).toBe(0);
  });
});
