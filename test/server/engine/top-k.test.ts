/**
 * TopK against an exhaustive sort: for random documents with many equal scores (equal in float32 but
 * not in float64 too), the k kept, best first, are exactly the first k of all documents sorted by
 * compareRanked (score as float32 descending, ties by docno descending), and taking them empties it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareRanked, largestFirst, rankMatched, TopK } from '../../../server/engine/scoring/ranking.js';

// Scores that tie: a few values, some differing only past float32's precision.
const SCORES = [0, -0, 1, 1 + 1e-12, 2.5, 2.5 + 1e-10, 3, -1, -1 - 1e-12, 1e-30, -1e-30, 1e38, -1e38, Number.MAX_VALUE];

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

  it('rankMatched (one packed number per document, a native sort) gives what TopK gives', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...SCORES), { minLength: 0, maxLength: 300, size: 'max' }), fc.integer({ min: 0, max: 320 }), fc.integer({ min: 0, max: 5000 }), (scores, k, seed) => {
        const numDocs = scores.length + 7;
        // Ranks: a permutation of 0..numDocs-1 that differs from document order.
        const byHash = Array.from({ length: numDocs }, (_, d) => d).sort((a, b) => ((a * 7919 + seed) % 1009) - ((b * 7919 + seed) % 1009) || a - b);
        const ranks = new Int32Array(numDocs);
        byHash.forEach((d, r) => (ranks[d] = r));
        const rankOf = (doc: number) => ranks[doc]!;
        const docno = (doc: number) => String(rankOf(doc)).padStart(6, '0');
        const top = new TopK(k, rankOf);
        // Documents offered in a shuffled order, as a term-at-a-time pass finds them.
        const docs = Int32Array.from(scores.map((_, d) => d).sort((a, b) => ((a * 37 + seed) % 101) - ((b * 37 + seed) % 101)));
        for (const d of docs) top.offer(d, scores[d]!);
        const ranked = rankMatched(docs, docs.length, k, numDocs, (d) => scores[d]!, rankOf, docno);
        expect(ranked).toEqual(top.sorted(docno));
      }),
      { numRuns: 300, seed: 7 },
    );
  });

  it('largestFirst gives the k largest values, largest first, as a full sort does', () => {
    // Packed-like values (integers below 2^52): spread evenly; in a few tight clusters (buckets of
    // several values to sort, or one too full, where the native sort takes over); with an outlier far
    // from the rest; with repeats.
    const spread = fc.integer({ min: 0, max: 2 ** 31 }).map((v) => v * 2 ** 20);
    const clustered = fc.tuple(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 4000 })).map(([c, v]) => c * 2 ** 40 + v * 2 ** 20);
    const extremes = fc.constantFrom(0, 2 ** 52 - 1, 12345);
    const arrays = fc.oneof(fc.array(spread, { maxLength: 400, size: 'max' }), fc.array(clustered, { maxLength: 400, size: 'max' }), fc.array(fc.oneof(spread, clustered, extremes), { maxLength: 400, size: 'max' }));
    fc.assert(
      fc.property(arrays, fc.integer({ min: 0, max: 450 }), (values, k) => {
        const input = Float64Array.from(values);
        const expected = Float64Array.from(values)
          .sort()
          .reverse()
          .slice(0, Math.min(k, values.length));
        const best = largestFirst(input, values.length, k);
        expect(Array.from(best.subarray(0, expected.length))).toEqual(Array.from(expected));
      }),
      { numRuns: 400, seed: 11 },
    );
  });
});
