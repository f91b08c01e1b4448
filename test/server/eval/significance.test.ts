/**
 * The significance tests: the t CDF against closed forms (df = 1, 2, 4), against a
 * numerical integral of the t density, and against printed critical values; the
 * randomisation test against exact enumeration.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compareRuns,
  formatComparison,
  logGamma,
  pairedRandomizationTest,
  pairedTTest,
  parseQrels,
  parseRun,
  regularizedIncompleteBeta,
  studentTCdf,
  studentTTwoSidedP,
} from '../../../server/engine/eval/index.js';

/** ∫_{-∞}^{t} of the t density by Simpson's rule on a substitution x = tan(θ) (finite interval). */
function tCdfByIntegration(t: number, df: number): number {
  const logC = logGamma((df + 1) / 2) - logGamma(df / 2) - 0.5 * Math.log(df * Math.PI);
  const density = (x: number) => Math.exp(logC - ((df + 1) / 2) * Math.log1p((x * x) / df));
  const lo = -Math.PI / 2;
  const hi = Math.atan(t);
  const n = 20000;
  const h = (hi - lo) / n;
  let sum = 0;
  for (let i = 0; i <= n; i++) {
    const th = lo + i * h;
    const c = Math.cos(th);
    const g = i === 0 ? 0 : density(Math.tan(th)) / (c * c);
    sum += (i === 0 || i === n ? 1 : i % 2 ? 4 : 2) * g;
  }
  return (sum * h) / 3;
}

describe('special functions', () => {
  it('logGamma matches factorials and Γ(1/2) = √π', () => {
    expect(logGamma(1)).toBeCloseTo(0, 12);
    expect(logGamma(5)).toBeCloseTo(Math.log(24), 12);
    expect(logGamma(0.5)).toBeCloseTo(0.5 * Math.log(Math.PI), 12);
    expect(logGamma(100)).toBeCloseTo(359.1342053695754, 9);
  });

  it('I_x(a, 1) = x^a and I_x(1, b) = 1 − (1−x)^b', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.001, max: 0.999, noNaN: true }), fc.double({ min: 0.1, max: 40, noNaN: true }), (x, a) => {
        expect(regularizedIncompleteBeta(x, a, 1)).toBeCloseTo(x ** a, 10);
        expect(regularizedIncompleteBeta(x, 1, a)).toBeCloseTo(1 - (1 - x) ** a, 10);
      }),
    );
  });

  it('symmetry I_x(a, b) = 1 − I_{1−x}(b, a)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.001, max: 0.999, noNaN: true }),
        fc.double({ min: 0.2, max: 60, noNaN: true }),
        fc.double({ min: 0.2, max: 60, noNaN: true }),
        (x, a, b) => {
          expect(regularizedIncompleteBeta(x, a, b) + regularizedIncompleteBeta(1 - x, b, a)).toBeCloseTo(1, 10);
        },
      ),
    );
  });
});

describe('Student t distribution', () => {
  it('df = 1 is the Cauchy distribution: two-sided p = 1 − (2/π)·atan|t|', () => {
    fc.assert(
      fc.property(fc.double({ min: -50, max: 50, noNaN: true }), (t) => {
        expect(studentTTwoSidedP(t, 1)).toBeCloseTo(1 - (2 / Math.PI) * Math.atan(Math.abs(t)), 11);
      }),
    );
  });

  it('df = 2: CDF = 1/2 + t / (2√(2 + t²))', () => {
    fc.assert(
      fc.property(fc.double({ min: -50, max: 50, noNaN: true }), (t) => {
        expect(studentTCdf(t, 2)).toBeCloseTo(0.5 + t / (2 * Math.sqrt(2 + t * t)), 11);
      }),
    );
  });

  it('df = 4: CDF = 1/2 + (3/8)·u·(1 − u²/12)·… in closed form', () => {
    fc.assert(
      fc.property(fc.double({ min: -30, max: 30, noNaN: true }), (t) => {
        // F(t) = 1/2 + (3/8)·(t/√(1+t²/4))·(1 − t²/(12(1+t²/4))) for df = 4.
        const s = 1 + (t * t) / 4;
        const closed = 0.5 + (3 / 8) * (t / Math.sqrt(s)) * (1 - (t * t) / (12 * s));
        expect(studentTCdf(t, 4)).toBeCloseTo(closed, 11);
      }),
    );
  });

  it.each([
    [3, 0.7],
    [7, 2.9],
    [11, -1.3],
    [25, 0.3],
    [49, 2.01],
    [120, -1.97],
  ])('df = %d, t = %d agrees with the integrated density', (df, t) => {
    expect(studentTCdf(t, df)).toBeCloseTo(tCdfByIntegration(t, df), 8);
  });

  it.each([
    // Two-sided 5% and 1% critical values from standard t tables.
    [3, 3.182446305, 0.05],
    [10, 2.228138852, 0.05],
    [30, 2.042272456, 0.05],
    [10, 3.169272673, 0.01],
    [49, 2.009575237, 0.05],
  ])('df = %d: t = %d gives two-sided p = %d', (df, t, p) => {
    expect(studentTTwoSidedP(t, df)).toBeCloseTo(p, 8);
  });
});

describe('paired t-test', () => {
  it('computes t from the mean and standard deviation of the differences', () => {
    // d = 0.1, 0.05, 0.15, 0.1: mean 0.1, s² = 0.005/3, t = 0.1/√(s²/4) = 4.898979…
    const r = pairedTTest([0.1, 0.2, 0.3, 0.4], [0.2, 0.25, 0.45, 0.5]);
    expect(r.t).toBeCloseTo(4.898979485566356, 9);
    expect(r.df).toBe(3);
    expect(r.p).toBeCloseTo(2 * (1 - studentTCdf(r.t, 3)), 12);
    expect(r.p).toBeCloseTo(2 * (1 - tCdfByIntegration(r.t, 3)), 8);
  });

  it('identical runs give p = 1; a constant shift gives p = 0; one pair is undefined', () => {
    expect(pairedTTest([0.1, 0.5, 0.2], [0.1, 0.5, 0.2]).p).toBe(1);
    expect(pairedTTest([0.1, 0.5, 0.2], [0.2, 0.6, 0.3]).p).toBe(0);
    expect(pairedTTest([0.1], [0.2]).p).toBeNaN();
  });

  it('is symmetric in the order of the runs', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true })), { minLength: 3, maxLength: 40 }), (pairs) => {
        const a = pairs.map((p) => p[0]);
        const b = pairs.map((p) => p[1]);
        const ab = pairedTTest(a, b).p;
        const ba = pairedTTest(b, a).p;
        if (Number.isNaN(ab)) expect(ba).toBeNaN();
        else expect(ab).toBeCloseTo(ba, 12);
      }),
    );
  });
});

describe('paired randomisation test', () => {
  it('enumerates all 2^n sign assignments when that is at most the permutation count', () => {
    // d = 1, 1, 1: |Σ| = 3 for 2 of the 8 assignments.
    const r = pairedRandomizationTest([0, 0, 0], [1, 1, 1]);
    expect(r.exact).toBe(true);
    expect(r.permutations).toBe(8);
    expect(r.p).toBe(0.25);
  });

  it('identical runs give p = 1', () => {
    const base = Array.from({ length: 40 }, (_, i) => (i * 37) % 11 / 11);
    expect(pairedRandomizationTest(base, base).p).toBe(1);
  });

  it('is reproducible (fixed seed) and close to the exact p-value', () => {
    const n = 16;
    const base = Array.from({ length: n }, (_, i) => ((i * 7) % 13) / 13);
    const treat = base.map((x, i) => x + (i % 3 === 0 ? -0.05 : 0.08) * ((i % 5) + 1) / 5);
    const sampled = pairedRandomizationTest(base, treat);
    expect(sampled.exact).toBe(false);
    expect(sampled.permutations).toBe(10_000);
    expect(pairedRandomizationTest(base, treat).p).toBe(sampled.p);
    // Exact p by enumerating all 2^16 assignments here, independently of the implementation.
    const d = treat.map((x, i) => x - base[i]);
    const observed = Math.abs(d.reduce((s, x) => s + x, 0));
    let count = 0;
    for (let mask = 0; mask < 1 << n; mask++) {
      let s = 0;
      for (let i = 0; i < n; i++) s += mask & (1 << i) ? -d[i] : d[i];
      if (Math.abs(s) >= observed - 1e-9) count++;
    }
    const exact = count / 2 ** n;
    // 10,000 draws: standard error ≤ 0.005.
    expect(Math.abs(sampled.p - exact)).toBeLessThan(0.02);
  });

  it('a large consistent improvement is significant but never p = 0 when sampled', () => {
    const base = Array.from({ length: 30 }, (_, i) => (i % 10) / 10);
    const r = pairedRandomizationTest(base, base.map((x) => x + 0.1));
    expect(r.p).toBeCloseTo(1 / 10_001, 12);
  });
});

describe('compareRuns', () => {
  const qrels = parseQrels(['1 0 a 1', '1 0 b 1', '2 0 c 1', '3 0 d 1', '3 0 e 1', '4 0 f 1'].join('\n'));
  const base = parseRun(
    ['1 Q0 x 1 3 base', '1 Q0 a 2 2 base', '2 Q0 y 1 2 base', '2 Q0 c 2 1 base', '3 Q0 d 1 2 base', '4 Q0 z 1 2 base', '4 Q0 f 2 1 base'].join('\n'),
  );
  const better = parseRun(['1 Q0 a 1 3 better', '1 Q0 b 2 2 better', '2 Q0 c 1 2 better', '3 Q0 d 1 2 better', '3 Q0 e 2 1 better'].join('\n'));

  it('puts the baseline first, gives relative change and p-values, scores missing queries 0', () => {
    const c = compareRuns([base, better], qrels, { measures: ['recip_rank', 'num_ret'], test: 't' });
    expect(c.measures).toEqual(['recip_rank']); // counts are not compared
    expect(c.queries).toEqual(['1', '2', '3', '4']);
    expect(c.missing).toEqual([[], ['4']]);
    const [b, t] = c.cells[0];
    expect(b.mean).toBeCloseTo((0.5 + 0.5 + 1 + 0.5) / 4, 12);
    expect(t.mean).toBeCloseTo((1 + 1 + 1 + 0) / 4, 12);
    expect(t.changePercent).toBeCloseTo(((0.75 - 0.625) / 0.625) * 100, 9);
    expect(t.p).toBeCloseTo(pairedTTest([0.5, 0.5, 1, 0.5], [1, 1, 1, 0]).p, 12);
    expect(b.p).toBeNull();
  });

  it('the table names the test and marks p < 0.05 with †', () => {
    const c = compareRuns([base, better], qrels, { measures: ['recip_rank'], test: 'randomization' });
    const text = formatComparison(c);
    expect(text).toContain('two-sided paired randomisation test (exact, all 16 sign assignments)');
    expect(text).toContain('base (baseline)');
    expect(text).toMatch(/recip_rank\s+0\.6250\s+0\.7500 \(\+20\.0%, p=\d\.\d{4}\)/);
    expect(text).toContain('note: better has no results for 1 judged query (scored 0): 4');
    const t = formatComparison(compareRuns([base, better], qrels, { measures: ['recip_rank'] }));
    expect(t).toContain('two-sided paired t-test');
  });

  it('a significant difference gets a dagger', () => {
    const q = parseQrels(Array.from({ length: 12 }, (_, i) => `${i} 0 rel 1`).join('\n'));
    const lo = parseRun(Array.from({ length: 12 }, (_, i) => `${i} Q0 junk 1 2 lo\n${i} Q0 rel 2 1 lo`).join('\n'));
    const hi = parseRun(Array.from({ length: 12 }, (_, i) => `${i} Q0 rel 1 2 hi`).join('\n'));
    const c = compareRuns([lo, hi], q, { measures: ['recip_rank'], test: 'randomization' });
    expect(c.cells[0][1].p).toBeCloseTo(2 / 4096, 12);
    expect(formatComparison(c)).toContain('1.0000† (+100.0%');
  });
});

describe('holmAdjust', () => {
  it('matches hand-computed step-down values, in the input order', async () => {
    const { holmAdjust } = await import('../../../server/engine/eval/index.js');
    // Sorted 0.01, 0.02, 0.03, 0.04 with m = 4: 4·0.01 = 0.04, 3·0.02 = 0.06, 2·0.03 = 0.06, 1·0.04 = 0.04 → max so far 0.06.
    const out = holmAdjust([0.04, 0.01, 0.03, 0.02]);
    [0.06, 0.04, 0.06, 0.06].forEach((v, i) => expect(out[i]).toBeCloseTo(v, 12));
    // Capped at 1; a single p-value is unchanged.
    expect(holmAdjust([0.5, 0.6])).toEqual([1, 1]);
    expect(holmAdjust([0.2])).toEqual([0.2]);
    // 0.001·3 = 0.003, 0.02·2 = 0.04, 0.5·1 = 0.5; a NaN stays NaN and is not counted in m.
    const withNaN = holmAdjust([0.5, NaN, 0.001, 0.02]);
    expect(withNaN[1]).toBeNaN();
    [0.5, 0.003, 0.04].forEach((v, i) => expect(withNaN[[0, 2, 3][i]!]).toBeCloseTo(v, 12));
  });
});
