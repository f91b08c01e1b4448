/**
 * The fixed phrase rule, the baseline a learned weighting model must beat (issue 16): every word of
 * the query at weight 1 and every adjacent pair of words as `#1(a b)` at 0.25. Words and pairs are
 * exactly the n-grams the model weighs (segment.ts: analysed, stopped words; a pair is two words
 * adjacent after stopping, what `#1` matches), so the rule and the model differ only in the weights.
 * It is a WeightModel so that `search --weights phrase` and `eval-model` rank it through the same
 * rankQueries path as the model; it loads nothing and cannot fail.
 */
import { createAnalyzer } from '../engine/analysis/index.js';
import type { ModelConfig, NgramWeights, WeightModel } from './runtime.js';
import { segmentQuery, type WordAnalyzer } from './segment.js';

export const PHRASE_RULE_WORD_WEIGHT = 1;
export const PHRASE_RULE_PAIR_WEIGHT = 0.25;

/** The rule's weights for one query text. */
export function phraseRuleWeights(text: string, analyzer: WordAnalyzer): NgramWeights {
  const segmented = segmentQuery(text, analyzer, { bigrams: true });
  return {
    query: text,
    ngrams: segmented.ngrams.map((g) => {
      const first = segmented.words[g.wordIndices[0]];
      const last = segmented.words[g.wordIndices[g.wordIndices.length - 1]];
      const unigram = g.terms.length === 1;
      return {
        kind: unigram ? 'unigram' : 'bigram',
        terms: g.terms,
        surface: text.slice(first.start, last.end),
        start: first.start,
        end: last.end,
        weight: unigram ? PHRASE_RULE_WORD_WEIGHT : PHRASE_RULE_PAIR_WEIGHT,
      };
    }),
  };
}

/** The rule behind the WeightModel interface (analyser: the engine's `terrier` profile unless given). */
export function createPhraseRule(analyzer: WordAnalyzer = createAnalyzer('terrier')): WeightModel {
  const config: ModelConfig = {
    format: 1,
    tokenizer: '',
    maxTokens: 0,
    profile: 'terrier',
    inputs: { ids: '', attentionMask: '', ngramMask: '' },
    output: '',
    models: {},
  };
  return {
    name: 'phrase',
    device: 'cpu',
    notices: [],
    config,
    weigh: async (queries: string[]) => queries.map((q) => phraseRuleWeights(q, analyzer)),
    dispose: async () => undefined,
  };
}
