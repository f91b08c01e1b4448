/**
 * Paired significance tests between two systems' per-query scores:
 * - the two-sided paired Student t-test, with the t distribution's CDF computed from the
 *   regularised incomplete beta function (continued fraction, modified Lentz method);
 * - the two-sided paired randomisation (sign-flip permutation) test of the mean
 *   difference (Smucker, Allan & Carterette, CIKM 2007), with a fixed seed.
 */

export interface PairedTestResult {
  /** Two-sided p-value; NaN when undefined (fewer than two pairs for the t-test, none for the randomisation test). */
  p: number;
  /** Mean of (treatment − baseline). */
  meanDifference: number;
  /** Number of pairs. */
  n: number;
}

export interface TTestResult extends PairedTestResult {
  t: number;
  df: number;
}

export interface RandomizationResult extends PairedTestResult {
  /** Sign assignments examined (2^n when enumerated exactly). */
  permutations: number;
  /** True when every one of the 2^n sign assignments was enumerated instead of sampled. */
  exact: boolean;
}

function differences(baseline: readonly number[], treatment: readonly number[]): number[] {
  if (baseline.length !== treatment.length) {
    throw new Error(`paired test needs equal lengths, got ${baseline.length} and ${treatment.length}`);
  }
  return treatment.map((x, i) => x - baseline[i]);
}

// ---------------------------------------------------------------------------------
// Special functions

const LANCZOS_G = 7;
const LANCZOS_COEF = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Γ(x) for x > 0 (Lanczos approximation, g = 7, n = 9; ~15 significant digits). */
export function logGamma(x: number): number {
  if (x < 0.5) {
    // Reflection keeps the series in its accurate range.
    return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
  }
  const z = x - 1;
  let series = LANCZOS_COEF[0];
  for (let i = 1; i < LANCZOS_COEF.length; i++) series += LANCZOS_COEF[i] / (z + i);
  const t = z + LANCZOS_G + 0.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(series);
}

/**
 * Continued fraction for I_x(a, b) (the standard expansion whose even and odd terms are
 * d_{2m} = m(b−m)x / ((a+2m−1)(a+2m)), d_{2m+1} = −(a+m)(a+b+m)x / ((a+2m)(a+2m+1))),
 * evaluated with the modified Lentz algorithm. Converges fast for x < (a+1)/(a+b+2).
 */
function betaContinuedFraction(a: number, b: number, x: number): number {
  const TINY = 1e-300;
  const EPS = 1e-15;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < TINY) d = TINY;
  d = 1 / d;
  let f = d;
  for (let m = 1; m <= 10_000; m++) {
    const m2 = 2 * m;
    // Even step.
    let num = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + num * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + num / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    f *= d * c;
    // Odd step.
    num = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + num * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + num / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const delta = d * c;
    f *= delta;
    if (Math.abs(delta - 1) < EPS) return f;
  }
  return f;
}

/**
 * The regularised incomplete beta function I_x(a, b), for a, b > 0 and 0 ≤ x ≤ 1.
 * `complement` may carry 1 − x computed without cancellation (e.g. t²/(df+t²) next to
 * df/(df+t²)); near x = 1 that keeps the digits that 1 − x would lose.
 */
export function regularizedIncompleteBeta(x: number, a: number, b: number, complement = 1 - x): number {
  if (!(a > 0 && b > 0)) throw new RangeError(`incomplete beta needs a, b > 0 (got ${a}, ${b})`);
  if (x <= 0) return 0;
  if (complement <= 0) return 1;
  // x^a (1−x)^b / B(a,b), in log space.
  const logFront = a * Math.log(x) + b * Math.log(complement) - (logGamma(a) + logGamma(b) - logGamma(a + b));
  // Use the symmetry I_x(a,b) = 1 − I_{1−x}(b,a) where the fraction converges slowly.
  if (x < (a + 1) / (a + b + 2)) {
    return (Math.exp(logFront) * betaContinuedFraction(a, b, x)) / a;
  }
  return 1 - (Math.exp(logFront) * betaContinuedFraction(b, a, complement)) / b;
}

/**
 * P(|T| ≥ |t|) for Student's t with `df` degrees of freedom:
 * I_{df/(df+t²)}(df/2, 1/2) = 1 − I_{t²/(df+t²)}(1/2, df/2). The second form is used for
 * small |t|, where the first argument is too close to 1 to carry the tail's digits.
 */
function twoSidedTail(t: number, df: number): number {
  const x = df / (df + t * t);
  const y = (t * t) / (df + t * t);
  if (y < 0.5) return 1 - regularizedIncompleteBeta(y, 0.5, df / 2, x);
  return regularizedIncompleteBeta(x, df / 2, 0.5, y);
}

/** CDF of Student's t distribution with `df` degrees of freedom. */
export function studentTCdf(t: number, df: number): number {
  if (Number.isNaN(t)) return NaN;
  if (t === Infinity) return 1;
  if (t === -Infinity) return 0;
  const halfTail = twoSidedTail(t, df) / 2;
  return t > 0 ? 1 - halfTail : halfTail;
}

/** Two-sided p-value of a t statistic: P(|T| ≥ |t|). */
export function studentTTwoSidedP(t: number, df: number): number {
  if (Number.isNaN(t)) return NaN;
  if (!Number.isFinite(t)) return 0;
  return twoSidedTail(t, df);
}

// ---------------------------------------------------------------------------------
// Tests

/** Two-sided paired t-test of treatment against baseline. */
export function pairedTTest(baseline: readonly number[], treatment: readonly number[]): TTestResult {
  const d = differences(baseline, treatment);
  const n = d.length;
  const mean = n ? d.reduce((s, x) => s + x, 0) / n : NaN;
  if (n < 2) return { p: NaN, t: NaN, df: n - 1, meanDifference: mean, n };
  const variance = d.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1);
  const df = n - 1;
  // A zero-variance difference: identical runs (p = 1) or a constant shift (t = ±∞, p = 0).
  // Relative threshold, so that rounding noise in the mean does not read as a shift.
  const scale = d.reduce((s, x) => Math.max(s, Math.abs(x)), 0);
  if (variance <= (scale * 1e-12) ** 2) {
    const same = Math.abs(mean) <= scale * 1e-12 || scale === 0;
    return { p: same ? 1 : 0, t: same ? 0 : Math.sign(mean) * Infinity, df, meanDifference: mean, n };
  }
  const t = mean / Math.sqrt(variance / n);
  return { p: studentTTwoSidedP(t, df), t, df, meanDifference: mean, n };
}

/** Seed and number of permutations used unless told otherwise. */
export const RANDOMIZATION_SEED = 0x5eed_2007;
export const RANDOMIZATION_PERMUTATIONS = 10_000;

/** mulberry32: a small, fast 32-bit generator; a fixed seed makes p-values reproducible. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return (z ^ (z >>> 14)) >>> 0;
  };
}

/**
 * Two-sided paired randomisation test: under the null hypothesis each query's two scores
 * are exchangeable, so each difference keeps or flips its sign with probability 1/2. The
 * statistic is |Σ d_i| (equivalent to |mean|, as n is fixed).
 * - When 2^n ≤ permutations, every sign assignment is enumerated: p = #{|S| ≥ |S_obs|}/2^n, exact.
 * - Otherwise `permutations` random assignments are drawn and p = (1 + #{|S| ≥ |S_obs|})/(1 + permutations),
 *   the Monte Carlo p-value that counts the observed assignment (Phipson & Smyth 2010), so p is never 0.
 */
export function pairedRandomizationTest(
  baseline: readonly number[],
  treatment: readonly number[],
  options: { permutations?: number; seed?: number } = {},
): RandomizationResult {
  const d = differences(baseline, treatment);
  const n = d.length;
  const permutations = options.permutations ?? RANDOMIZATION_PERMUTATIONS;
  const observed = Math.abs(d.reduce((s, x) => s + x, 0));
  const meanDifference = n ? d.reduce((s, x) => s + x, 0) / n : NaN;
  if (n === 0) return { p: NaN, meanDifference, n, permutations: 0, exact: true };
  // Sums of the same magnitudes in another order differ by rounding only; count those as ties.
  const tolerance = 1e-9 * Math.max(1, d.reduce((s, x) => s + Math.abs(x), 0));
  const atLeastAsExtreme = (sum: number) => Math.abs(sum) >= observed - tolerance;

  if (n <= 30 && 2 ** n <= permutations) {
    const total = 2 ** n;
    let count = 0;
    for (let mask = 0; mask < total; mask++) {
      let sum = 0;
      for (let i = 0; i < n; i++) sum += mask & (1 << i) ? -d[i] : d[i];
      if (atLeastAsExtreme(sum)) count++;
    }
    return { p: count / total, meanDifference, n, permutations: total, exact: true };
  }

  const next = mulberry32(options.seed ?? RANDOMIZATION_SEED);
  let count = 0;
  for (let r = 0; r < permutations; r++) {
    let sum = 0;
    let bits = 0;
    for (let i = 0; i < n; i++) {
      if (i % 32 === 0) bits = next();
      sum += bits & (1 << i % 32) ? -d[i] : d[i];
    }
    if (atLeastAsExtreme(sum)) count++;
  }
  return { p: (count + 1) / (permutations + 1), meanDifference, n, permutations, exact: false };
}

/**
 * Holm's step-down adjustment of m p-values (Holm, "A simple sequentially rejective multiple test
 * procedure", Scand. J. Statistics 6, 1979): sort ascending, p_(i) becomes max over j ≤ i of
 * min(1, (m − j + 1)·p_(j)), so the adjusted values keep the order of the raw ones. Rejecting where
 * the adjusted p ≤ α controls the family-wise error rate at α. Returned in the input order; a NaN
 * (an undefined test) stays NaN and does not count towards m.
 */
export function holmAdjust(pValues: readonly number[]): number[] {
  const defined = pValues.map((p, i) => ({ p, i })).filter((x) => !Number.isNaN(x.p));
  defined.sort((a, b) => a.p - b.p || a.i - b.i);
  const m = defined.length;
  const adjusted = pValues.map(() => NaN);
  let running = 0;
  defined.forEach(({ p, i }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    adjusted[i] = running;
  });
  return adjusted;
}
