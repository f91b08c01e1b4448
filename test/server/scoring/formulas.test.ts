// Formula unit tests against values computed by hand from SEMANTICS.md §4.1, §4.2, §1.5–1.6.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  terrierIdf,
  terrierLengthNorm,
  terrierQtwFactor,
  terrierTfComponent,
  validateTerrierBm25Params,
} from '../../../server/engine/scoring/terrier-bm25.js';
import {
  byte4ToInt,
  intToByte4,
  LENGTH_TABLE,
  luceneAvgdl,
  luceneBm25Score,
  luceneIdf,
  luceneNormInverse,
  lucenePhraseIdf,
  validateLuceneBm25Params,
} from '../../../server/engine/scoring/lucene-bm25.js';
import { collectionProbability, combineBeliefs, dirichletBelief } from '../../../server/engine/scoring/dirichlet.js';

describe('Terrier BM25 (SEMANTICS.md §4.1)', () => {
  it('idf is log2((N − df + 0.5)/(df + 0.5))', () => {
    // log2(1388.5 / 12.5) = log2(111.08) = ln(111.08)/ln(2) = 4.710250/0.693147 = 6.795455
    expect(terrierIdf(12, 1400)).toBeCloseTo(6.795455, 6);
    expect(terrierIdf(1, 3)).toBeCloseTo(Math.log2(2.5 / 1.5), 14);
  });
  it('idf goes negative when df > N/2, as in Terrier', () => {
    expect(terrierIdf(80, 100)).toBeCloseTo(Math.log2(20.5 / 80.5), 14);
    expect(terrierIdf(80, 100)).toBeLessThan(0);
    expect(terrierIdf(50, 100)).toBeCloseTo(0, 14);
  });
  it('tf component includes (k1 + 1)', () => {
    // K = 1.2·(0.25 + 0.75·100/50) = 2.1; tfn = 2.2·3/(2.1 + 3) = 6.6/5.1
    expect(terrierLengthNorm(100, 50, 1.2, 0.75)).toBeCloseTo(2.1, 14);
    expect(terrierTfComponent(3, 100, 50, 1.2, 0.75)).toBeCloseTo(6.6 / 5.1, 14);
    // b = 0: no length normalisation.
    expect(terrierTfComponent(1, 1000, 10, 1.2, 0)).toBeCloseTo(2.2 / 2.2, 14);
  });
  it('k3 factor is 1 at qtw = 1 and (k3+1)qtw/(k3+qtw) otherwise', () => {
    expect(terrierQtwFactor(1, 8)).toBe(1);
    expect(terrierQtwFactor(0.5, 8)).toBeCloseTo(4.5 / 8.5, 14);
    expect(terrierQtwFactor(0, 8)).toBe(0);
  });
  it('rejects bad parameters with a message naming them', () => {
    expect(() => validateTerrierBm25Params({ k1: -1, b: 0.75, k3: 8 })).toThrow(/k1/);
    expect(() => validateTerrierBm25Params({ k1: 1.2, b: 1.5, k3: 8 })).toThrow(/b must lie in \[0, 1\]/);
    expect(() => validateTerrierBm25Params({ k1: 1.2, b: 0.75, k3: NaN })).toThrow(/k3/);
    expect(() => validateTerrierBm25Params({ k1: 0, b: 0, k3: 0 })).not.toThrow();
  });
});

describe('Lucene BM25 (SEMANTICS.md §4.2)', () => {
  it('SmallFloat: lengths 0..39 are exact, 40 and 41 both decode to 40', () => {
    for (let i = 0; i < 40; i++) expect(byte4ToInt(intToByte4(i))).toBe(i);
    expect(intToByte4(40)).toBe(intToByte4(41));
    expect(byte4ToInt(intToByte4(41))).toBe(40);
  });
  it('SmallFloat decodes to the largest representable length not above the input', () => {
    const table = Array.from({ length: 256 }, (_, i) => byte4ToInt(i));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2_000_000_000 }), (len) => {
        const dec = byte4ToInt(intToByte4(len));
        const best = Math.max(...table.filter((v) => v <= len));
        expect(dec).toBe(best);
      }),
      { numRuns: 2000 },
    );
    // 256 distinct, increasing values.
    for (let i = 1; i < 256; i++) expect(table[i]!).toBeGreaterThan(table[i - 1]!);
    // Lucene keeps the table as floats.
    expect(LENGTH_TABLE[100]).toBe(Math.fround(table[100]!));
  });
  it('idf = ln(1 + (N − df + 0.5)/(df + 0.5)) in float32, never negative', () => {
    expect(luceneIdf(1, 10)).toBe(Math.fround(Math.log(1 + 9.5 / 1.5)));
    expect(luceneIdf(10, 10)).toBeGreaterThan(0);
    expect(lucenePhraseIdf([luceneIdf(1, 10), luceneIdf(2, 10)])).toBe(Math.fround(luceneIdf(1, 10) + luceneIdf(2, 10)));
  });
  it('score = weight − weight/(1 + freq·normInv) without (k1 + 1)', () => {
    expect(luceneBm25Score(2, 1, 1)).toBe(1);
    // k1 = 1.2, b = 0.75, dl = avgdl = 10: normInv = 1/1.2; tf = 2: idf·2/(2 + 1.2)
    const avgdl = luceneAvgdl(100, 10);
    const inv = luceneNormInverse(intToByte4(10), avgdl, 1.2, 0.75);
    expect(inv).toBe(Math.fround(1 / Math.fround(1.2)));
    const s = luceneBm25Score(Math.fround(3), 2, inv);
    expect(s).toBeCloseTo((3 * 2) / (2 + 1.2), 5);
    expect(s).toBe(Math.fround(s));
  });
  it('validates k1 and b', () => {
    expect(() => validateLuceneBm25Params({ k1: Infinity, b: 0.4 })).toThrow(/k1/);
    expect(() => validateLuceneBm25Params({ k1: 0.9, b: -0.1 })).toThrow(/b value/);
  });
});

describe('Indri query likelihood (SEMANTICS.md §1.5–1.6)', () => {
  it('Dirichlet belief log((tf + mu·cf/|C|)/(|D| + mu))', () => {
    expect(dirichletBelief(2, 100, collectionProbability(10, 1000), 2500)).toBeCloseTo(Math.log((2 + 25) / 2600), 14);
  });
  it('an unseen term gets P = 1/(2|C|)', () => {
    expect(collectionProbability(0, 1000)).toBe(1 / 2000);
    expect(dirichletBelief(0, 100, collectionProbability(0, 1000), 2500)).toBeCloseTo(Math.log(1.25 / 2600), 14);
  });
  const b = [Math.log(0.5), Math.log(0.25), Math.log(0.1)];
  it('#combine is the mean of the beliefs', () => {
    expect(combineBeliefs('combine', [1, 1, 1], b)).toBeCloseTo((b[0]! + b[1]! + b[2]!) / 3, 14);
  });
  it('#weight and #wand normalise by Σ|w|', () => {
    const want = (2 / 4) * b[0]! + (1 / 4) * b[1]! + (-1 / 4) * b[2]!;
    expect(combineBeliefs('weight', [2, 1, -1], b)).toBeCloseTo(want, 14);
    expect(combineBeliefs('wand', [2, 1, -1], b)).toBeCloseTo(want, 14);
  });
  it('#wsum, #or, #not, #max', () => {
    expect(combineBeliefs('wsum', [1, 3, 0], b)).toBeCloseTo(Math.log(0.25 * 0.5 + 0.75 * 0.25), 14);
    expect(combineBeliefs('or', [1, 1, 1], b)).toBeCloseTo(Math.log(1 - 0.5 * 0.75 * 0.9), 14);
    expect(combineBeliefs('not', [1], [Math.log(0.25)])).toBeCloseTo(Math.log(0.75), 14);
    expect(combineBeliefs('max', [1, 1, 1], b)).toBe(Math.log(0.5));
  });
});
