/**
 * The readings of whether a model's weights carry information (server/model/weight-information.ts) on hand-made
 * queries whose answers are worked out here: the relevance weight's formula, topic/generic pairs and their ties,
 * the per-query reading, and the spread of a word's weight across queries and collections.
 */
import { describe, expect, it } from 'vitest';
import { crossCollectionVariation, relevanceWeight, topicOrder, weightVariation, type WeighedQuery } from '../../server/model/weight-information.js';

const word = (term: string, weight: number, topicality: number, idf = 1) => ({ term, weight, topicality, idf });

describe('weight information', () => {
  it('relevance weight: log of the odds in the relevant documents over the odds in the others', () => {
    // 3 of 4 relevant documents hold it, 10 of 100 in all: (3.5/1.5) / (7.5/89.5).
    expect(relevanceWeight(3, 4, 10, 100)).toBeCloseTo(Math.log((3.5 / 1.5) / (7.5 / 89.5)), 12);
    // A word every relevant document lacks, common elsewhere, weighs below 0.
    expect(relevanceWeight(0, 4, 50, 100)).toBeLessThan(0);
  });

  it('counts the pairs whose topicalities differ by the margin, with ties half, for the weights and for idf', () => {
    const q: WeighedQuery = {
      qid: '1',
      // a is clearly more topical than b and c; b and c are within the margin of each other.
      words: [word('a', 0.6, 3, 2), word('b', 0.4, 1.5, 3), word('c', 0.6, 1, 1)],
    };
    const t = topicOrder([q]);
    // Pairs (a, b) and (a, c): the weights put a above b, and tie a with c.
    expect(t.pairs).toBe(2);
    expect(t.agree).toBeCloseTo((1 + 0.5) / 2, 12);
    // idf: a (2) under b (3), above c (1).
    expect(t.idfAgree).toBeCloseTo(0.5, 12);
    // The query's top word (a) against its bottom word (c): a tie.
    expect(t.queries).toBe(1);
    expect(t.queriesAgree).toBe(0.5);
    expect(t.queriesIdfAgree).toBe(1);
  });

  it('leaves out queries whose words are all about as topical, and says so with no figure', () => {
    const t = topicOrder([{ qid: '1', words: [word('a', 1, 1), word('b', 0, 1.5)] }, { qid: '2', words: [word('c', 1, 2)] }]);
    expect(t.pairs).toBe(0);
    expect(t.queries).toBe(0);
    expect(t.agree).toBeNaN();
    expect(t.queriesAgree).toBeNaN();
  });

  it("reads a word's weight range across queries and the spread of all weights", () => {
    const queries: WeighedQuery[] = [
      { qid: '1', words: [word('a', 0.2, 0), word('b', 0.5, 0)] },
      { qid: '2', words: [word('a', 0.3, 0), word('c', 0.9, 0)] },
      { qid: '3', words: [word('a', 0.6, 0), word('b', 0.5, 0)] },
    ];
    const v = weightVariation(queries);
    // a: 0.2 … 0.6; b: 0.5 … 0.5; c once (left out). Median of (0.4, 0) is 0.2.
    expect(v.repeatedWords).toBe(2);
    expect(v.medianRange).toBeCloseTo(0.2, 12);
    // Weights sorted: 0.2 0.3 0.5 0.5 0.6 0.9; quartiles by linear interpolation at positions 1.25 and 3.75:
    // 0.3 + 0.25·0.2 = 0.35 and 0.5 + 0.75·0.1 = 0.575.
    expect(v.weightIqr).toBeCloseTo(0.575 - 0.35, 12);
  });

  it("reads the range of a word's mean weight between collections", () => {
    const one: WeighedQuery[] = [{ qid: '1', words: [word('a', 0.2, 0), word('b', 0.4, 0)] }, { qid: '2', words: [word('a', 0.4, 0)] }];
    const two: WeighedQuery[] = [{ qid: '1', words: [word('a', 0.5, 0), word('c', 0.1, 0)] }];
    const three: WeighedQuery[] = [{ qid: '1', words: [word('b', 0.4, 0)] }];
    const x = crossCollectionVariation([one, two, three]);
    // a: means 0.3 and 0.5 (range 0.2); b: 0.4 and 0.4 (range 0); c in one collection only.
    expect(x.sharedWords).toBe(2);
    expect(x.medianRange).toBeCloseTo(0.1, 12);
  });
});
