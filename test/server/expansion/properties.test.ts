/** Properties of Bo1 and RM3 over random tiny corpora (fast-check). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expandQuery } from '../../../server/engine/expansion/index.js';
import { bag, tinyIndex } from './fixtures.js';

const WORDS = ['cat', 'dog', 'fish', 'bird', 'tree', 'rock', 'moon', 'sun', 'star', 'lake', 'hill', 'road'];

const caseArb = fc
  .record({
    docs: fc.array(fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 12 }), { minLength: 2, maxLength: 8 }),
    query: fc.uniqueArray(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }),
    feedbackSeed: fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
    fbTerms: fc.integer({ min: 1, max: 6 }),
  })
  .map(({ docs, query, feedbackSeed, fbTerms }) => ({
    texts: docs.map((d) => d.join(' ')),
    query,
    feedback: [...new Set(feedbackSeed.map((s) => s % docs.length))],
    fbTerms,
  }));

/** term → tf summed over the feedback documents, counted from the raw texts. */
function feedbackCounts(texts: string[], feedback: number[]): Map<string, { tfx: number; dfx: number }> {
  const out = new Map<string, { tfx: number; dfx: number }>();
  for (const d of feedback) {
    const seen = new Set<string>();
    for (const w of texts[d].split(' ')) {
      const s = out.get(w) ?? { tfx: 0, dfx: 0 };
      s.tfx++;
      if (!seen.has(w)) s.dfx++;
      seen.add(w);
      out.set(w, s);
    }
  }
  return out;
}

describe('Bo1 properties', () => {
  it('positive weights; at most max(fbTerms, |q|) reweighted; new terms pass the filter; original weights only grow', () => {
    fc.assert(
      fc.property(caseArb, ({ texts, query, feedback, fbTerms }) => {
        const reader = tinyIndex(texts);
        const r = expandQuery(reader, bag(...query), feedback, { method: 'bo1', fbTerms });
        const counts = feedbackCounts(texts, feedback);
        const added = r.terms.filter((t) => t.expansionWeight > 0);
        expect(added.length).toBeLessThanOrEqual(Math.max(fbTerms, query.length));
        for (const t of r.terms) {
          expect(t.weight).toBeGreaterThan(0);
          expect(t.tfx).toBe(counts.get(t.term)?.tfx ?? 0);
          expect(t.dfx).toBe(counts.get(t.term)?.dfx ?? 0);
          if (t.isOriginal) expect(t.weight).toBeCloseTo(1 + t.expansionWeight, 12);
          else if (feedback.length >= 2) expect(t.dfx).toBeGreaterThanOrEqual(2);
        }
        expect(r.terms.filter((t) => t.isOriginal).map((t) => t.term).sort()).toEqual([...query].sort());
      }),
      { numRuns: 60 },
    );
  });
});

describe('RM3 properties', () => {
  it('at most fbTerms terms, all from the feedback documents, weights summing to 1, interpolated by λ', () => {
    fc.assert(
      fc.property(caseArb, fc.double({ min: 0.05, max: 0.95, noNaN: true }), ({ texts, query, feedback, fbTerms }, lambda) => {
        const reader = tinyIndex(texts);
        const r = expandQuery(reader, bag(...query), feedback, { method: 'rm3', fbTerms, originalWeight: lambda });
        const counts = feedbackCounts(texts, feedback);
        expect(r.terms.length).toBe(Math.min(fbTerms, counts.size));
        expect(r.terms.reduce((s, t) => s + t.weight, 0)).toBeCloseTo(1, 12);
        for (const t of r.terms) expect(counts.has(t.term)).toBe(true);
        for (let i = 1; i < r.terms.length; i++) expect(r.terms[i - 1].weight).toBeGreaterThanOrEqual(r.terms[i].weight);
        const root = r.ast.root;
        if (root?.kind !== 'belief') throw new Error('expected #weight');
        expect(root.items.map((i) => i.weight)).toEqual([lambda, 1 - lambda]);
      }),
      { numRuns: 60 },
    );
  });
});
