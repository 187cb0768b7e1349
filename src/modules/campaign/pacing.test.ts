import { describe, expect, it } from 'vitest';
import {
  abandonBudget,
  answerHorizon,
  binomialTailAbove,
  decideDials,
  humanChanceAtAge,
  releaseChances,
  surelyAtLeast,
  TAIL,
  type PacingInput,
  type PacingOutlook,
} from './pacing.js';

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

describe('surelyAtLeast', () => {
  it('is the most agents free with at least the probability asked', () => {
    expect(surelyAtLeast([1], 0.99)).toBe(0);
    expect(surelyAtLeast([0.5, 0.5], 0.99)).toBe(0);
    expect(surelyAtLeast([0.001, 0.009, 0.99], 0.99)).toBe(2); // P(≥ 2) = 0.99
    expect(surelyAtLeast([0.002, 0.009, 0.989], 0.99)).toBe(1); // P(≥ 2) = 0.989
    expect(surelyAtLeast([0, 0, 1], 0.99)).toBe(2);
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

  it('predictive dials ahead while the people expected to find no agent stay within 40 % of the limit', () => {
    const d = decideDials({ ...base, humanAnswered: 10_000, abandoned: 0 });
    expect(d.as).toBe('predictive');
    // With n calls, people ~ Binomial(n, 0.25) and 5 free agents: E[(people − 5)+] ≤ 1.2 % of E[people].
    const share = (n: number) => {
      let e = 0;
      for (let k = 6; k <= n; k++) e += (binomialTailAbove(n, 0.25, k - 1) - binomialTailAbove(n, 0.25, k)) * (k - 5);
      return e / (n * 0.25);
    };
    expect(d.dials).toBeGreaterThan(5);
    expect(share(d.dials)).toBeLessThanOrEqual(0.012);
    expect(share(d.dials + 1)).toBeGreaterThan(0.012);
    // Calls in flight count at the answer rate: as many fewer new ones.
    expect(decideDials({ ...base, humanAnswered: 10_000, pendingPredictive: 4, lines: 4 }).dials).toBe(d.dials - 4);
  });

  const outlook: PacingOutlook = {
    talking: [],
    wrapping: [],
    ringing: [],
    waiting: 0,
    // Of 100 dials: 25 people and 10 machines answered 5–25 s after the dial, the rest ended unanswered at 25 s.
    outcomes: [
      ...Array.from({ length: 25 }, (_, k) => ({ secs: 5 + (k % 21), human: true, n: 1 })),
      ...Array.from({ length: 10 }, (_, k) => ({ secs: 5 + 2 * k, human: false, n: 1 })),
      ...Array.from({ length: 65 }, () => ({ secs: 25, human: false, n: 1 })),
    ],
    talkSecs: 120,
    wrapSecs: 10,
  };

  it('counts the agents about to come out of wrap-up or to end their calls', () => {
    const none = decideDials({ ...base, freeAgents: 0, humanAnswered: 10_000, outlook });
    expect(none.dials).toBe(0);
    const soon = decideDials({
      ...base,
      freeAgents: 0,
      humanAnswered: 10_000,
      outlook: { ...outlook, wrapping: [8, 9, 7], talking: new Array<number>(15).fill(60) },
    });
    expect(soon.dials).toBeGreaterThan(0);
    expect(soon.as).toBe('predictive');
  });

  it('outcomes grouped with their counts decide exactly as one outcome per dial', () => {
    const groups = new Map<string, { secs: number; human: boolean; n: number }>();
    for (const o of outlook.outcomes) {
      const g = groups.get(`${o.secs}:${o.human}`);
      if (g) g.n++;
      else groups.set(`${o.secs}:${o.human}`, { ...o });
    }
    const grouped = { ...outlook, outcomes: [...groups.values()].reverse() };
    expect(grouped.outcomes.length).toBeLessThan(outlook.outcomes.length / 2);
    for (const age of [0, 5, 12, 20, 25]) expect(humanChanceAtAge(age, grouped.outcomes, 0.25)).toBe(humanChanceAtAge(age, outlook.outcomes, 0.25));
    expect(answerHorizon(grouped.outcomes)).toBe(answerHorizon(outlook.outcomes));
    expect(answerHorizon(grouped.outcomes)).toBeCloseTo((341 + 20) / 27, 9); // the 25 people: 5–25 s, then 5–8 s; the prior: 10 s worth 2
    for (const busy of [
      { wrapping: [8, 9, 7], talking: new Array<number>(15).fill(60), ringing: [1, 4, 9, 16, 20], waiting: 1 },
      { wrapping: [], talking: new Array<number>(6).fill(30), ringing: [2, 3], waiting: 0 },
    ]) {
      const input = {
        ...base,
        freeAgents: 6,
        humanAnswered: 10_000,
        abandoned: 100,
        pendingPredictive: busy.ringing.length + busy.waiting,
        lines: busy.ringing.length + busy.waiting,
      };
      const one = decideDials({ ...input, outlook: { ...outlook, ...busy } });
      expect(decideDials({ ...input, outlook: { ...grouped, ...busy } })).toEqual(one);
      expect(one.dials).toBeGreaterThan(0);
    }
  });

  it('a call that has rung long is rarely a person still to answer', () => {
    expect(humanChanceAtAge(0, outlook.outcomes, 0.25)).toBeCloseTo(0.25, 2);
    expect(humanChanceAtAge(25, outlook.outcomes, 0.25)).toBeCloseTo(0.25, 2); // nothing learned beyond 25 s: the prior
    expect(humanChanceAtAge(20, outlook.outcomes, 0.25)).toBeLessThan(0.15);
    const young = decideDials({
      ...base,
      humanAnswered: 10_000,
      pendingPredictive: 8,
      lines: 8,
      outlook: { ...outlook, ringing: new Array<number>(8).fill(1) },
    });
    const old = decideDials({
      ...base,
      humanAnswered: 10_000,
      pendingPredictive: 8,
      lines: 8,
      outlook: { ...outlook, ringing: new Array<number>(8).fill(22) },
    });
    expect(old.dials).toBeGreaterThan(young.dials);
  });

  it('release chances: memoryless talk then the mean wrap-up; a wrap-up under way by its remainder', () => {
    const [talk, wrap] = releaseChances({ ...outlook, talking: [300], wrapping: [5] }, 15);
    expect(talk).toBeCloseTo(1 - Math.exp(-5 / 120), 6);
    expect(wrap).toBeCloseTo(1 - Math.exp(-15 / 5), 6);
    expect(releaseChances({ ...outlook, talking: [0] }, 8)[0]).toBe(0); // shorter than the wrap-up: nobody free from a call
  });

  it('a small budget keeps the surplus of people over free agents within it', () => {
    const d = decideDials({ ...base, humanAnswered: 1000, abandoned: 25 }); // budget 5
    expect(d.budget).toBe(5);
    expect(d.dials).toBeGreaterThan(5);
    expect(binomialTailAbove(d.dials, 0.25, 5 + 5)).toBeLessThanOrEqual(TAIL);
  });

  it('the tail check counts the busy agents all but sure to be free by then: in wrap-up, not talking', () => {
    // No agent free, a budget of 2; sixteen agents talking, each free within the look-ahead 4 % of the time: no call.
    const small = { ...base, freeAgents: 0, humanAnswered: 1000, abandoned: 28 };
    expect(decideDials({ ...small, outlook: { ...outlook, talking: new Array<number>(16).fill(60) } }).dials).toBe(0);
    // Four agents 9 s into a 10 s wrap-up: each free within the look-ahead 95 % of the time, at least two of them 99.5 %.
    const wrapping = { ...outlook, wrapping: [9, 9, 9, 9] };
    expect(releaseChances(wrapping, 15).every((q) => q > 0.94)).toBe(true);
    const d = decideDials({ ...small, outlook: wrapping });
    expect(d).toMatchObject({ as: 'predictive', budget: 2, dials: 4 });
    // The tail binds: 4 calls can never bring more than 2 + 2 people, 5 calls do so 0.1 % of the time (over TAIL, 0.03 %).
    expect(binomialTailAbove(4, 0.25, 4)).toBe(0);
    expect(binomialTailAbove(5, 0.25, 4)).toBeGreaterThan(TAIL);
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
