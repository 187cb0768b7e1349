import { describe, expect, it } from 'vitest';
import { erlangAnswer, scheduledFor } from './erlang-answer.js';
import { erlangAAt, erlangB, erlangC, erlangCAt, fewestAgents } from './erlang.js';
import { lnGamma, lnGammaStar } from './gamma.js';

const pct = (x: number) => Math.round(x * 10000) / 100;
const r2 = (x: number) => Math.round(x * 100) / 100;
/** The reference interval of PRODUCT.md §14: 100 calls in 30 minutes, AHT 180 s, 80 % within 20 s (10 Erlangs). */
const REFERENCE = { offered: 100, intervalMinutes: 30, aht: 180, target: { serviceLevel: 80, seconds: 20 } };

describe('the reference values of PRODUCT.md §14', () => {
  it('Erlang C: 14 agents, pWait 17.41, service level 88.84, ASA 7.84, occupancy 71.43', () => {
    expect(erlangAnswer(REFERENCE)).toEqual({ traffic: 10, agents: 14, scheduled: 14, serviceLevel: 88.84, pWait: 17.41, asa: 7.84, occupancy: 71.43 });
    // 13 agents would miss the target: 14 is the fewest.
    expect(erlangCAt(13, 10, 180, 20)!.serviceLevel).toBeLessThan(0.8);
  });

  it('30 % shrinkage schedules 20; a 70 % occupancy cap needs 15', () => {
    expect(erlangAnswer({ ...REFERENCE, shrinkage: 30 })).toMatchObject({ agents: 14, scheduled: 20 });
    // 10 Erlangs on 14 agents is 71.43 % busy, over the cap; on 15, 66.67 %.
    expect(erlangAnswer({ ...REFERENCE, maxOccupancy: 70 })).toMatchObject({ agents: 15, occupancy: 66.67, serviceLevel: 94.15 });
  });

  it('Erlang A with 300 s patience: 13 agents, and at 14 the published figures', () => {
    expect(erlangAnswer({ ...REFERENCE, patience: 300 })).toMatchObject({ traffic: 10, agents: 13 });
    const at14 = erlangAAt(14, 10, 180, 20, 300);
    expect([pct(at14.pWait), pct(at14.pAbandon), r2(at14.asa), pct(at14.serviceLevel), pct(at14.occupancy)]).toEqual([14.53, 1.4, 4.2, 91.68, 70.43]);
    // The operation reaches 14 agents when the target asks for more than 13 give (85.82 %).
    expect(erlangAnswer({ ...REFERENCE, target: { serviceLevel: 90, seconds: 20 }, patience: 300 })).toEqual({
      traffic: 10,
      agents: 14,
      scheduled: 14,
      serviceLevel: 91.68,
      pWait: 14.53,
      asa: 4.2,
      occupancy: 70.43,
      pAbandon: 1.4,
    });
  });

  it('rounds the scheduled agents up, but not past a whole number floating point misses (14 ÷ 0.7)', () => {
    expect(scheduledFor(14, 30)).toBe(20);
    expect(scheduledFor(15, 30)).toBe(22); // 21.43
    expect(scheduledFor(0, 50)).toBe(0);
  });

  it('no traffic needs no agents', () => {
    expect(erlangAnswer({ ...REFERENCE, offered: 0 })).toEqual({ traffic: 0, agents: 0, scheduled: 0, serviceLevel: 100, pWait: 0, asa: 0, occupancy: 0 });
  });
});

/**
 * Erlang B tables as published. Sources:
 * - erlang.com, "How much traffic can a trunk group handle?" (Westbay Engineers' calculator manual):
 *   15 lines at 1 % blocking carry 8.108 Erlangs.
 * - erlang.com forum, "Trunk Engineering" (2001): 1,200 calls an hour of 3 minutes (33.33 Erlangs) at 1 % blocking need 45 lines.
 * - B. Goode / D. Collins, "Carrier Grade Voice over IP" (2nd ed.), Appendix A "Table of Erlang B" (to 0.1 Erlang):
 *   5 channels carry 1.4 / 1.7 / 2.2 Erlangs at 1 / 2 / 5 % blocking, 9 channels 3.8 / 4.3 / 5.4.
 */
describe('Erlang B against published tables', () => {
  /** The most traffic n lines carry at blocking ≤ p (B rises with traffic: bisection). */
  const capacity = (n: number, p: number) => {
    let lo = 0;
    let hi = 4 * n + 10;
    for (let i = 0; i < 200; i++) {
      const mid = (lo + hi) / 2;
      if (erlangB(n, mid) <= p) lo = mid;
      else hi = mid;
    }
    return lo;
  };

  it('15 lines, 1 %: 8.108 Erlangs (erlang.com)', () => {
    expect(capacity(15, 0.01).toFixed(3)).toBe('8.108');
  });

  it('33.33 Erlangs at 1 %: 45 lines (erlang.com forum)', () => {
    let n = 1;
    while (erlangB(n, 1200 / 36) > 0.01) n++;
    expect(n).toBe(45);
  });

  it('Carrier Grade Voice over IP, Appendix A: 5 and 9 channels at 1, 2 and 5 %', () => {
    expect([0.01, 0.02, 0.05].map((p) => capacity(5, p).toFixed(1))).toEqual(['1.4', '1.7', '2.2']);
    expect([0.01, 0.02, 0.05].map((p) => capacity(9, p).toFixed(1))).toEqual(['3.8', '4.3', '5.4']);
  });
});

describe('Erlang C and A from the same code', () => {
  it('Erlang C is Erlang B rewritten: C = n·B / (n − A·(1 − B)), and 1 without a steady state', () => {
    // 2 agents, 1 Erlang: B = 0.2, C = 2·0.2 / (2 − 0.8) = 1/3 (the M/M/2 textbook value).
    expect(erlangB(2, 1)).toBeCloseTo(0.2, 15);
    expect(erlangC(2, 1)).toBeCloseTo(1 / 3, 15);
    expect(erlangC(5, 5)).toBe(1);
    expect(erlangCAt(5, 5, 180, 20)).toBeNull();
  });

  it('Erlang A with 1 agent is M/M/1+M, whose queue is a birth–death chain summed here term by term', () => {
    // States: 0 idle, k ≥ 1 (one served, k − 1 waiting); π_k ∝ λ^k / Π_{j<k} (μ + jθ). λ = 1/60, μ = 1/45, θ = 1/90.
    const lambda = 1 / 60;
    const mu = 1 / 45;
    const theta = 1 / 90;
    let weight = 1;
    let total = 1;
    let queued = 0;
    for (let k = 1; k < 400; k++) {
      weight *= lambda / (mu + (k - 1) * theta);
      total += weight;
      queued += (k - 1) * weight;
    }
    const pBusy = (total - 1) / total;
    const abandon = (theta * queued) / total / lambda;
    const m = erlangAAt(1, lambda * 45, 45, 0, 90);
    expect(m.pWait).toBeCloseTo(pBusy, 12);
    expect(m.pAbandon).toBeCloseTo(abandon, 12);
    // With T = 0 only the calls that never wait are within the target.
    expect(m.serviceLevel).toBeCloseTo(1 - pBusy, 12);
  });

  it('the scaled incomplete gamma: closed forms, P(a, a) → 1/2, and its two methods meet where they hand over (x = a + 1)', () => {
    // γ*(1, x) = (e^x − 1)/x; γ*(a, 0) = 1/a.
    for (const x of [0.1, 2, 30]) expect(lnGammaStar(1, x)).toBeCloseTo(Math.log(Math.expm1(x) / x), 12);
    expect(lnGammaStar(4, 0)).toBeCloseTo(Math.log(1 / 4), 15);
    // P(a, x) = x^a e^−x γ*(a, x) / Γ(a); the median of Gamma(a) tends to a, so P(a, a) → 1/2.
    const p = (a: number, x: number) => Math.exp(a * Math.log(x) - x - lnGamma(a) + lnGammaStar(a, x));
    expect(p(1e6, 1e6)).toBeCloseTo(0.5, 3);
    for (const a of [0.5, 3, 40, 1e4, 1e7]) expect(lnGammaStar(a, a + 1 + 1e-9)).toBeCloseTo(lnGammaStar(a, a + 1 - 1e-9), 6);
    expect(lnGamma(10)).toBeCloseTo(Math.log(362880), 12);
    expect(lnGamma(0.5)).toBeCloseTo(0.5 * Math.log(Math.PI), 12);
  });

  it('answers 1,000 Erlangs without overflow, in both models', () => {
    const q = { traffic: 1000, aht: 180, serviceLevel: 0.8, seconds: 20, maxOccupancy: 1 };
    const c = fewestAgents(q);
    const a = fewestAgents({ ...q, patience: 300 });
    expect(c.agents).toBeGreaterThan(1000);
    expect(a.agents).toBeLessThan(c.agents);
    for (const m of [c, a]) for (const v of Object.values(m)) expect(Number.isFinite(v)).toBe(true);
  });

  it('Erlang A with a patience too short to represent against the handling time is the loss system it tends to (Erlang B), not an error', () => {
    // 9e-323 s against 86,400 s of handling: n·patience/aht underflows to 0 (the fuzz test's counterexample answered 500).
    const b = erlangB(3, 2);
    expect(erlangAAt(3, 2, 86_400, 20, 9e-323)).toEqual({
      agents: 3,
      serviceLevel: 1 - b,
      pWait: b,
      asa: b * 9e-323,
      occupancy: (2 * (1 - b)) / 3,
      pAbandon: b,
    });
    // And the representable neighbourhood agrees with that limit.
    const near = erlangAAt(3, 2, 180, 20, 1e-9);
    expect(near.pWait).toBeCloseTo(b, 6);
    expect(near.pAbandon).toBeCloseTo(b, 6);
    expect(near.serviceLevel).toBeCloseTo(1 - b, 6);
  });
});
