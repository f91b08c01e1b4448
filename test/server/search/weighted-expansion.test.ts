/**
 * The pure pieces of TW-BERT + Bo1 (server/model/weighted-query.ts, paper §5.3) and of the weight
 * chart, with the engine's real terrier analyser: which word stands for a Bo1 stem, what text the
 * model reads, which bi-grams survive, and how long a bar is.
 */
import { describe, expect, it } from 'vitest';
import { createAnalyzer } from '../../../server/engine/analysis/index.js';
import { segmentQuery } from '../../../server/model/segment.js';
import type { NgramWeights } from '../../../server/model/runtime.js';
import { expandedModelInput, restrictBigramsToQuery, surfaceWordsFor, weightBar } from '../../../server/model/weighted-query.js';

const analyzer = createAnalyzer('terrier');

describe('surfaceWordsFor', () => {
  const docs = [
    { title: 'Aerodynamic heating', fields: { text: 'the aerodynamic heating of cones; aerodynamics of cones' } },
    { title: '', fields: { text: 'Cone cones CONES models modelling' } },
  ];
  const reader = { analyzer, document: (doc: number) => docs[doc]! };

  it.each([
    // stem, feedback docs, expected word: the most frequent surface form (lowercased) that analyses to the stem
    ['aerodynam', [0, 1], 'aerodynamic'],
    ['cone', [0, 1], 'cones'],
    ['cone', [1], 'cones'],
    ['heat', [0], 'heating'],
    // A tie between two forms goes to the alphabetically first.
    ['model', [1], 'modelling'],
    // Not in the feedback text: the stem itself.
    ['vortex', [0, 1], 'vortex'],
  ])('%s in docs %j → %s', (term, feedback, word) => {
    const words = surfaceWordsFor(reader, feedback as number[], [term as string]);
    expect(words.get(term as string)).toBe(word);
    if (word !== term) expect(analyzer.analyzeTerm(word as string)).toEqual([term]);
  });
});

describe('expandedModelInput and restrictBigramsToQuery', () => {
  it.each([
    ['laminar flow over a flat plate', ['boundary', 'layer'], ['laminar flow', 'flow flat', 'flat plate']],
    ['heat transfer', [], ['heat transfer']],
    ['flow of air', ['jet'], ['flow air']],
  ])('%s + %j keeps only the bi-grams inside the query', (query, words, bigrams) => {
    const input = expandedModelInput(query, words);
    expect(input.text).toBe(words.length ? `${query} ${words.join(' ')}` : query);
    expect(input.queryEnd).toBe(query.length);
    const seg = segmentQuery(input.text, analyzer);
    const weights: NgramWeights = {
      query: input.text,
      ngrams: seg.ngrams.map((g) => ({
        kind: g.terms.length === 1 ? 'unigram' : 'bigram',
        terms: g.terms,
        surface: input.text.slice(seg.words[g.wordIndices[0]].start, seg.words[g.wordIndices.at(-1)!].end),
        start: seg.words[g.wordIndices[0]].start,
        end: seg.words[g.wordIndices.at(-1)!].end,
        weight: 1,
      })),
    };
    const kept = restrictBigramsToQuery(weights, input.queryEnd);
    // Every uni-gram stays (query and expansion words); bi-grams only within the query (a stopword
    // between two words does not break a bi-gram: shown as its first and last word).
    expect(kept.ngrams.filter((g) => g.kind === 'unigram')).toHaveLength(seg.words.length);
    expect(kept.ngrams.filter((g) => g.kind === 'bigram').map((g) => { const w = g.surface.split(' '); return `${w[0]} ${w.at(-1)}`; })).toEqual(bigrams);
  });
});

describe('weightBar', () => {
  it.each([
    [1, 1, 4, '████'],
    [0.5, 1, 4, '██'],
    [0.3125, 1, 4, '█▎'],
    [0, 1, 4, ''],
    [2, 1, 4, '████'],
    [1, 0, 4, ''],
  ])('weightBar(%d, %d, %d) = %j', (value, max, width, bar) => {
    expect(weightBar(value, max, width)).toBe(bar);
  });
});
