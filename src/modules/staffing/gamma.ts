/**
 * The gamma function's logarithm and the lower incomplete gamma (scaled:
 * γ*(a, x) = γ(a, x)·x^−a·e^x), in log space, for Erlang A (erlang.ts). Erlang A's sums are
 * incomplete gamma functions whose arguments grow with agents × patience ÷
 * handle time (millions with long patience), far past where Γ or x^a fit a
 * double, so everything here is a logarithm until the final ratio.
 *
 * Methods: Stirling's series for ln Γ (shifted up to 15 by the recurrence
 * Γ(x+1) = x Γ(x)); for P(a, x) the power series when x < a + 1 and the
 * continued fraction of Q = 1 − P (modified Lentz) otherwise, as in
 * Numerical Recipes §6.2. Both converge in O(√a) terms near x ≈ a.
 * (No npm package computes these in log space for arguments this large;
 * docs/staffing.md.)
 */

const HALF_LN_2PI = 0.5 * Math.log(2 * Math.PI);
const EPS = 1e-16;
/** Far beyond any convergence these arguments need (≈ 10 √a); a bug guard, not a tuning knob. */
const MAX_TERMS = 50_000_000;

/** ln Γ(x) for x > 0, absolute error below 1e-13. */
export function lnGamma(x: number): number {
  if (!(x > 0)) throw new RangeError(`lnGamma of ${x}`);
  let shift = 0;
  while (x < 15) {
    shift += Math.log(x);
    x += 1;
  }
  const inv = 1 / x;
  const inv2 = inv * inv;
  const series = inv * (1 / 12 - inv2 * (1 / 360 - inv2 * (1 / 1260 - inv2 * (1 / 1680 - inv2 / 1188))));
  return (x - 0.5) * Math.log(x) - x + HALF_LN_2PI + series - shift;
}

/** ln of x^a e^(−x) / Γ(a), the prefactor shared by the series and the continued fraction. */
function lnPrefactor(a: number, x: number): number {
  return a * Math.log(x) - x - lnGamma(a);
}

/**
 * ln of γ*(a, x) = γ(a, x)·x^−a·e^x = Σ_k x^k / (a (a+1) … (a+k)), for a > 0, x ≥ 0.
 * Erlang A's sums are this series itself, so where the series converges
 * (x < a + 1) no x^a or Γ(a) is formed at all: nothing cancels, however large
 * a and x are. Beyond, it is Γ(a)·x^−a·e^x·(1 − Q(a, x)) with Q by the
 * continued fraction.
 */
export function lnGammaStar(a: number, x: number): number {
  if (!(a > 0) || !(x >= 0)) throw new RangeError(`lnGammaStar(${a}, ${x})`);
  if (x < a + 1) {
    let term = 1 / a;
    let sum = term;
    for (let k = 1; k < MAX_TERMS; k++) {
      term *= x / (a + k);
      sum += term;
      if (term < sum * EPS) return Math.log(sum);
    }
    throw new Error(`lnGammaStar(${a}, ${x}): series did not converge`);
  }
  const lnP = Math.log1p(-Math.exp(lnPrefactor(a, x) + lnUpperFraction(a, x)));
  return lnGamma(a) - a * Math.log(x) + x + lnP;
}

/** ln of the continued fraction of Q(a, x) = x^a e^−x / Γ(a) · CF (modified Lentz; x ≥ a + 1). */
function lnUpperFraction(a: number, x: number): number {
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < MAX_TERMS; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < EPS) return Math.log(h);
  }
  throw new Error(`continued fraction of Q(${a}, ${x}) did not converge`);
}
