import { describe, expect, it } from 'vitest';
import { nextAttemptAt, retryAfterMs, verdictOf } from './retry-schedule.js';

const NOW = 1_700_000_000_000;

describe('retry schedule', () => {
  it('classifies answers', () => {
    expect(verdictOf(200, null, NOW)).toEqual({ kind: 'delivered' });
    expect(verdictOf(299, null, NOW)).toEqual({ kind: 'delivered' });
    expect(verdictOf(null, null, NOW)).toEqual({ kind: 'retry' });
    for (const s of [408, 500, 502, 503, 599]) expect(verdictOf(s, null, NOW)).toEqual({ kind: 'retry' });
    expect(verdictOf(429, '30', NOW)).toEqual({ kind: 'retry', retryAfterMs: 30_000 });
    expect(verdictOf(429, null, NOW)).toEqual({ kind: 'retry' });
    expect(verdictOf(410, null, NOW)).toEqual({ kind: 'disable' });
    for (const s of [301, 302, 400, 401, 403, 404, 422]) expect(verdictOf(s, null, NOW)).toEqual({ kind: 'fail' });
  });
  it('reads Retry-After as seconds or a date, capped at 1 h', () => {
    expect(retryAfterMs('0', NOW)).toBe(0);
    expect(retryAfterMs(' 90 ', NOW)).toBe(90_000);
    expect(retryAfterMs('99999', NOW)).toBe(3_600_000);
    expect(retryAfterMs(new Date(NOW + 45_000).toUTCString(), NOW)).toBe(45_000);
    expect(retryAfterMs('soon', NOW)).toBeNull();
  });
  it('spreads each delay by ± 20 % and stops after the ninth retry', () => {
    expect(nextAttemptAt(1, NOW, { kind: 'retry' }, 0)).toBe(NOW + 4_000);
    expect(nextAttemptAt(1, NOW, { kind: 'retry' }, 0.5)).toBe(NOW + 5_000);
    expect(nextAttemptAt(2, NOW, { kind: 'retry' }, 0.999999)).toBe(NOW + 36_000);
    expect(nextAttemptAt(9, NOW, { kind: 'retry' }, 0.5)).toBe(NOW + 8 * 3_600_000);
    expect(nextAttemptAt(10, NOW, { kind: 'retry' }, 0.5)).toBeNull();
    expect(nextAttemptAt(10, NOW, { kind: 'retry', retryAfterMs: 1000 }, 0.5)).toBeNull();
    expect(nextAttemptAt(3, NOW, { kind: 'retry', retryAfterMs: 1000 }, 0.9)).toBe(NOW + 1000);
    expect(nextAttemptAt(1, NOW, { kind: 'fail' }, 0.5)).toBeNull();
  });
});
