import { describe, expect, it } from 'vitest';
import { ownedBytes, ownedTexts } from './owned-bytes.js';

describe('ownedBytes', () => {
  it('copies a slice of Node’s shared pool, or of a much larger buffer, into memory of its own', () => {
    const pooled = Buffer.from('{"TC":1}');
    expect(pooled.buffer.byteLength).toBeGreaterThan(pooled.length);
    const own = ownedBytes(pooled);
    expect(own.buffer.byteLength).toBe(own.length);
    expect(own.toString()).toBe('{"TC":1}');
    const writer = Buffer.allocUnsafeSlow(64 * 1024).fill(49);
    const kept = ownedBytes(writer.subarray(0, 10_000));
    expect(kept.buffer.byteLength).toBe(10_000);
    expect(kept.equals(writer.subarray(0, 10_000))).toBe(true);
  });

  it('keeps a buffer of its own with at most a quarter unused as it is (no copy of a month of hours)', () => {
    const writer = Buffer.allocUnsafeSlow(64 * 1024);
    const mostly = writer.subarray(0, 50_000);
    expect(ownedBytes(mostly)).toBe(mostly);
  });
});

describe('ownedTexts', () => {
  it('writes the texts into one allocation of exactly their bytes, a view each', () => {
    const [a, b, c] = ownedTexts(['{"x":1}', '"é"', '']);
    expect([a!.toString(), b!.toString(), c!.toString()]).toEqual(['{"x":1}', '"é"', '']);
    expect(a!.buffer).toBe(b!.buffer);
    expect(a!.buffer.byteLength).toBe(7 + 4);
  });
});
