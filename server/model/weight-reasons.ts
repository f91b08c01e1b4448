/**
 * What a collection-aware model read to weigh an n-gram, in words: the statistics of the n-gram in the
 * index the query runs on (collection-statistics.ts), with where the n-gram stands among the query's
 * n-grams of its kind. The model is a learned function of these and of the query's wordpieces, so this
 * names the inputs that make a weight differ from the phrase rule's; it does not split the weight among
 * them. Pure: the editor's weight hints print it in their tooltips and the word's hover (server/lsp/engine/weights.ts weighedWordInputs).
 */
import type { NgramStatistics } from './statistic-names.js';

export interface WeighedNgram {
  kind: 'unigram' | 'bigram';
  statistics?: NgramStatistics;
}

/** `2.31`, `0.042`, `12.5`: three significant digits, no exponent for the values statistics take. */
function num(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  return a >= 100 ? x.toFixed(0) : a >= 10 ? x.toFixed(1) : a >= 1 ? x.toFixed(2) : x.toFixed(3);
}

function percent(x: number): string {
  return `${Math.round(x * 100)} %`;
}

/**
 * One line: "idf 2.31 (this query's words: 1.10–4.05) · in 60 % of the first pass's top 10 · Bo1 informativeness 0.42 (1 = …)",
 * for a pair also how often its words stand together, for a Bo1 word its Bo1 weight and feedback share.
 * Undefined when the model read no statistics for it (a model that reads none).
 */
export function describeWeightInputs(ngram: WeighedNgram, query: readonly WeighedNgram[]): string | undefined {
  const s = ngram.statistics;
  if (!s) return undefined;
  const peers = query.filter((g) => g.kind === ngram.kind && g.statistics && !g.statistics.expansion).map((g) => g.statistics!.idf);
  const low = Math.min(...peers);
  const high = Math.max(...peers);
  const range = peers.length > 1 && high > low ? ` (this query's ${ngram.kind === 'unigram' ? 'words' : 'pairs'}: ${num(low)}–${num(high)})` : '';
  const parts = [`idf ${num(s.idf)}${range}`];
  if (ngram.kind === 'bigram') parts.push(`together as a phrase in ${percent(s.pairRatio)} of the documents of its rarer word`);
  if (s.expansion) {
    parts.push(`a Bo1 word: Bo1 weight ${num(s.bo1Weight)}, in ${percent(s.fbShare)} of the feedback documents`);
  } else {
    parts.push(`in ${percent(s.topShare)} of the first pass's top 10`);
    if (ngram.kind === 'unigram') parts.push(`Bo1 informativeness ${num(s.bo1)} (1 = the query's highest)`);
  }
  return parts.join(' · ');
}
