/**
 * TopK against an exhaustive sort: for random documents with many equal scores (equal in float32 but
 * not in float64 too), the k kept, best first, are exactly the first k of all documents sorted by
 * compareRanked (score as float32 descending, ties by docno descending), and taking them empties it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareRanked, TopK } from '../../../server/engine/scoring/ranking.js';

// Scores that tie: a few values, some differing only past float32's precision.
const SCORES = [0, 1, 1 + 1e-12, 2.5, 2.5 + 1e-10, 3, -1, 1e-30];

describe('TopK', () => {
  it('keeps the k best in compareRanked order', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...SCORES), { minLength: 0, maxLength: 300 }), fc.integer({ min: 0, max: 320 }), fc.integer({ min: 1, max: 1_000_000 }), (scores, k, seed) => {
        // Docno order differs from document order: rank = a permutation of the documents.
        const rankOf = (doc: number) => (doc * 7919 + seed) % 1_000_003;
        const docno = (doc: number) => String(rankOf(doc)).padStart(7, '0');
        const top = new TopK(k, rankOf);
        scores.forEach((s, doc) => top.offer(doc, s));
        const expected = scores
          .map((score, doc) => ({ doc, docno: docno(doc), score }))
          .sort(compareRanked)
          .slice(0, k);
        expect(top.sorted(docno)).toEqual(expected);
        expect(top.sorted(docno)).toEqual([]);
      }),
      { numRuns: 300, seed: 42 },
    );
  });
});
