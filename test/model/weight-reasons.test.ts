/**
 * describeWeightInputs: what a collection-aware model read for an n-gram, in words (worked examples).
 */
import { describe, expect, it } from 'vitest';
import type { NgramStatistics } from '../../server/model/statistic-names.js';
import { describeWeightInputs, type WeighedNgram } from '../../server/model/weight-reasons.js';

const base: NgramStatistics = { idf: 0, ictf: 0, pairRatio: 0, topShare: 0, bo1: 0, expansion: 0, bo1Weight: 0, fbShare: 0, fbCooccur: 0, fbGap: 0, fbCoverage: 0 };
const word = (s: Partial<NgramStatistics>): WeighedNgram => ({ kind: 'unigram', statistics: { ...base, ...s } });
const pair = (s: Partial<NgramStatistics>): WeighedNgram => ({ kind: 'bigram', statistics: { ...base, ...s } });

describe('describeWeightInputs', () => {
  const boundary = word({ idf: 2.3141, topShare: 0.6, bo1: 0.4213 });
  const layer = word({ idf: 1.1, topShare: 0.9, bo1: 1 });
  const flow = word({ idf: 4.0512, topShare: 0.3, bo1: 0.05 });
  const boundaryLayer = pair({ idf: 3.2, pairRatio: 0.354, topShare: 0.5 });
  const folate = word({ idf: 5.5, expansion: 1, bo1Weight: 0.325, fbShare: 2 / 3 });
  const query = [boundary, layer, flow, boundaryLayer, folate];

  it("gives a word's idf beside the range over the query's own words, its top-10 share and Bo1 informativeness", () => {
    expect(describeWeightInputs(boundary, query)).toBe("idf 2.31 (this query's words: 1.10–4.05) · in 60 % of the first pass's top 10 · Bo1 informativeness 0.421 (1 = the query's highest)");
  });

  it('gives a pair how often its words stand together, and no range when it is the only pair', () => {
    expect(describeWeightInputs(boundaryLayer, query)).toBe("idf 3.20 · together as a phrase in 35 % of the documents of its rarer word · in 50 % of the first pass's top 10");
  });

  it("gives a Bo1 word its Bo1 weight and feedback share; Bo1 words take no part in the query words' range", () => {
    expect(describeWeightInputs(folate, query)).toBe("idf 5.50 (this query's words: 1.10–4.05) · a Bo1 word: Bo1 weight 0.325, in 67 % of the feedback documents");
  });

  it('says nothing for a model that read no statistics', () => {
    expect(describeWeightInputs({ kind: 'unigram' }, [{ kind: 'unigram' }])).toBeUndefined();
  });
});
