/**
 * A segmented query's n-grams as engine concepts and as uniform weights: shared by the training
 * export and the collection statistics, which both read the index the query runs on.
 */
import type { IndexReader } from '../engine/index/reader.js';
import type { ConceptSpec } from '../engine/scoring/concepts.js';
import type { NgramWeights } from './runtime.js';
import { segmentQuery } from './segment.js';

export function conceptSpecOf(terms: string[]): ConceptSpec {
  if (terms.length === 1) return { kind: 'term', term: terms[0] };
  return { kind: 'window', ordered: true, size: 1, children: terms.map((term) => ({ kind: 'term', term }) as ConceptSpec) };
}

/** Uniform weights for a segmented query, as NgramWeights (uni-grams only when `bigrams` is false). */
export function uniformWeights(text: string, reader: IndexReader, bigrams: boolean): NgramWeights {
  const seg = segmentQuery(text, reader.analyzer, { bigrams });
  return {
    query: text,
    ngrams: seg.ngrams.map((g) => {
      const first = seg.words[g.wordIndices[0]];
      const last = seg.words[g.wordIndices[g.wordIndices.length - 1]];
      return { kind: g.terms.length === 1 ? 'unigram' : 'bigram', terms: g.terms, surface: text.slice(first.start, last.end), start: first.start, end: last.end, weight: 1 };
    }),
  };
}
