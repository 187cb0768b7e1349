import { describe, expect, it } from 'vitest';
import { abandonBudget, binomialTailAbove, decideDials, type PacingInput } from './pacing.js';

const base: PacingInput = {
  mode: 'predictive',
  freeAgents: 5,
  reservedAgents: 0,
  lines: 0,
  pendingPredictive: 0,
  maxLines: 50,
  dialRatio: 1,
  humanAnswered: 1000,
  abandoned: 0,
  maxAbandonRate: 3,
  humanRate: 0.25,
};

describe('abandonBudget', () => {
  it('is the most abandons that keep (A + x) / (H + x) at or under the limit', () => {
    expect(abandonBudget(0, 0, 3)).toBe(0);
    expect(abandonBudget(33, 0, 3)).toBe(1); // 1/34 = 2.94 %
    expect(abandonBudget(32, 0, 3)).toBe(0); // 1/33 = 3.03 %
    expect(abandonBudget(1000, 30, 3)).toBe(0);
    expect(abandonBudget(1000, 25, 3)).toBe(5); // 30/1005 = 2.985 %, 31/1006 = 3.08 %
    expect(abandonBudget(1000, 40, 3)).toBeLessThan(0);
  });
});

describe('binomialTailAbove', () => {
  it('matches the exact sums', () => {
    expect(binomialTailAbove(2, 0.5, 0)).toBeCloseTo(0.75);
    expect(binomialTailAbove(2, 0.5, 1)).toBeCloseTo(0.25);
    expect(binomialTailAbove(3, 0.5, 3)).toBe(0);
    expect(binomialTailAbove(10, 0.25, -1)).toBe(1);
  });
});

describe('decideDials', () => {
  it('preview never dials by itself', () => {
    expect(decideDials({ ...base, mode: 'preview' }).dials).toBe(0);
  });

  it('progressive: (free + reserved agents) × ratio − calls holding reservations', () => {
    expect(decideDials({ ...base, mode: 'progressive', freeAgents: 4 })).toMatchObject({ dials: 4, as: 'progressive' });
    expect(decideDials({ ...base, mode: 'progressive', freeAgents: 4, reservedAgents: 2, lines: 2, dialRatio: 2 }).dials).toBe(10);
    expect(decideDials({ ...base, mode: 'progressive', freeAgents: 0, reservedAgents: 3, lines: 3 }).dials).toBe(0);
  });

  it('never more than maxLines in progress', () => {
    expect(decideDials({ ...base, mode: 'progressive', freeAgents: 40, maxLines: 10, lines: 7 }).dials).toBe(3);
    expect(decideDials({ ...base, maxLines: 10, lines: 10 }).dials).toBe(0);
  });

  it('predictive dials ahead: about free agents ÷ answer rate, as the budget allows', () => {
    const d = decideDials({ ...base, humanAnswered: 10_000, abandoned: 0 });
    expect(d.as).toBe('predictive');
    expect(d.dials).toBe(20); // 5 agents ÷ 25 %
    expect(decideDials({ ...base, humanAnswered: 10_000, pendingPredictive: 12, lines: 12 }).dials).toBe(8);
  });

  it('a small budget keeps the surplus of people over free agents within it', () => {
    const d = decideDials({ ...base, humanAnswered: 1000, abandoned: 25 }); // budget 5
    expect(d.budget).toBe(5);
    expect(d.dials).toBeGreaterThan(5);
    expect(binomialTailAbove(d.dials, 0.25, 5 + 5)).toBeLessThanOrEqual(0.01);
  });

  it('falls back to progressive when the next abandon would pass the limit', () => {
    const d = decideDials({ ...base, humanAnswered: 1000, abandoned: 30 });
    expect(d).toMatchObject({ as: 'progressive', fallback: true, dials: 5 });
    // In-flight predictive calls keep the free agents they may need.
    expect(decideDials({ ...base, humanAnswered: 1000, abandoned: 30, pendingPredictive: 3, lines: 3 }).dials).toBe(2);
    // A new campaign (no one answered yet) starts progressive.
    expect(decideDials({ ...base, humanAnswered: 0 }).fallback).toBe(true);
  });
});
