import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { erlangAAt, erlangB, erlangCAt, fewestAgents } from './erlang.js';

/*
 * Properties of the queueing models over random intervals. The independent
 * reference for Erlang A and C is the birth–death chain of the queue itself
 * (states: calls present; arrivals λ; departures min(k, n)·μ + max(k − n, 0)·θ),
 * summed term by term in log space here, not through the formulas of erlang.ts.
 */

const traffic = fc.double({ min: 0.05, max: 1000, noNaN: true });
const aht = fc.double({ min: 5, max: 3600, noNaN: true });
const seconds = fc.integer({ min: 0, max: 600 });
const patience = fc.double({ min: 1, max: 3600, noNaN: true });

/** Mean queue length and P(wait) of M/M/n (+M when theta > 0) by summing the chain's stationary distribution. */
function chain(n: number, lambda: number, mu: number, theta: number): { lq: number; pWait: number } {
  const rate = (k: number) => Math.min(k, n) * mu + Math.max(k - n, 0) * theta;
  const logs: number[] = [0];
  let top = 0;
  // Past the peak, until the terms are below e^−45 of it.
  for (let k = 1, log = 0; !(lambda < rate(k) && log < top - 45); k++) {
    log += Math.log(lambda / rate(k));
    logs.push(log);
    if (log > top) top = log;
    if (k > 5_000_000) throw new Error('chain did not settle');
  }
  let total = 0;
  let lq = 0;
  let busy = 0;
  logs.forEach((l, i) => {
    const p = Math.exp(l - top);
    total += p;
    if (i >= n) busy += p;
    if (i > n) lq += (i - n) * p;
  });
  return { lq: lq / total, pWait: busy / total };
}

describe('Erlang C and A properties', () => {
  it('the service level rises with every agent added (both models)', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.05, max: 200, noNaN: true }), aht, seconds, patience, (a, h, t, p) => {
        let lastC = -1;
        let lastA = -1;
        for (let n = 1; n <= Math.ceil(a) + 30; n++) {
          const c = erlangCAt(n, a, h, t);
          if (c) {
            expect(c.serviceLevel).toBeGreaterThanOrEqual(lastC - 1e-9);
            lastC = c.serviceLevel;
          }
          const e = erlangAAt(n, a, h, t, p);
          expect(e.serviceLevel).toBeGreaterThanOrEqual(lastA - 1e-9);
          lastA = e.serviceLevel;
        }
      }),
      { numRuns: 60 },
    );
  });

  it('Erlang A tends to Erlang C as the callers’ patience grows', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.5, max: 300, noNaN: true }), aht, seconds, fc.integer({ min: 1, max: 20 }), (a, h, t, extra) => {
        // At least 2 % below full load: nearer, the abandons a long patience still leaves shorten a very long queue, and the gap closes slowly.
        const n = Math.ceil(a * 1.02) + extra - 1;
        const c = erlangCAt(n, a, h, t)!;
        // Patience a million handle times: hardly anyone abandons.
        const e = erlangAAt(n, a, h, t, h * 1e6);
        expect(e.pAbandon).toBeLessThan(1e-3);
        expect(Math.abs(e.pWait - c.pWait)).toBeLessThan(1e-3);
        expect(Math.abs(e.serviceLevel - c.serviceLevel)).toBeLessThan(1e-3);
        // Near a full load (A → n) the few abandons shorten a long queue most: a looser bound for the mean wait.
        expect(Math.abs(e.asa - c.asa)).toBeLessThan(1e-3 * h + 1e-2 * c.asa);
        // And the gap closes as patience grows.
        const nearer = erlangAAt(n, a, h, t, h * 1e7);
        expect(Math.abs(nearer.pWait - c.pWait)).toBeLessThanOrEqual(Math.abs(e.pWait - c.pWait) + 1e-7);
        expect(Math.abs(nearer.asa - c.asa)).toBeLessThanOrEqual(Math.abs(e.asa - c.asa) + 1e-6 * h);
      }),
      { numRuns: 60 },
    );
  });

  it("Little's law: the mean queue of the chain is λ·ASA, and P(wait) agrees (both models)", () => {
    fc.assert(
      fc.property(fc.double({ min: 0.1, max: 60, noNaN: true }), aht, seconds, patience, fc.integer({ min: 0, max: 15 }), (a, h, t, p, extra) => {
        const lambda = a / h;
        const n = Math.max(1, Math.floor(a) + extra);
        const e = erlangAAt(n, a, h, t, p);
        const ra = chain(n, lambda, 1 / h, 1 / p);
        expect(Math.abs(lambda * e.asa - ra.lq)).toBeLessThan(1e-9 * (1 + ra.lq));
        expect(e.pWait).toBeCloseTo(ra.pWait, 9);
        // Erlang C at least 1 % below full load (nearer, the chain's sum runs to millions of terms).
        const nc = Math.ceil(a * 1.01) + extra;
        const c = erlangCAt(nc, a, h, t)!;
        const rc = chain(nc, lambda, 1 / h, 0);
        expect(Math.abs(lambda * c.asa - rc.lq)).toBeLessThan(1e-9 * (1 + rc.lq));
        expect(c.pWait).toBeCloseTo(rc.pWait, 9);
      }),
      { numRuns: 60 },
    );
  });

  it('Erlang B by its recurrence equals the textbook sum (A^n/n!) / Σ A^k/k! where that sum fits a double', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 60 }), fc.double({ min: 0.01, max: 80, noNaN: true }), (n, a) => {
        let term = 1;
        let sum = 1;
        for (let k = 1; k <= n; k++) {
          term *= a / k;
          sum += term;
        }
        expect(erlangB(n, a)).toBeCloseTo(term / sum, 12);
      }),
    );
  });

  it('no NaN or Infinity anywhere up to 1,000 Erlangs', () => {
    fc.assert(
      fc.property(
        traffic,
        aht,
        seconds,
        patience,
        fc.double({ min: 1, max: 99.9, noNaN: true }),
        fc.double({ min: 0, max: 3, noNaN: true }),
        (a, h, t, p, sl, f) => {
          const q = { traffic: a, aht: h, serviceLevel: sl / 100, seconds: t, maxOccupancy: 1 };
          const n = Math.max(1, Math.round(a * f));
          const all = [fewestAgents(q), fewestAgents({ ...q, patience: p }), erlangAAt(n, a, h, t, p), erlangCAt(n, a, h, t)];
          for (const m of all) {
            if (m === null) continue;
            for (const v of Object.values(m)) expect(Number.isFinite(v), JSON.stringify(m)).toBe(true);
            for (const v of [m.serviceLevel, m.pWait, m.pAbandon, m.occupancy]) {
              expect(v).toBeGreaterThanOrEqual(0);
              expect(v).toBeLessThanOrEqual(1);
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
