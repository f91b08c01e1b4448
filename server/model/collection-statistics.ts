/**
 * Per-n-gram statistics of a query in the collection it runs on (issue 16 item 1: the inputs that let a
 * weighting model transfer to an unseen corpus), computed from the engine's index with its analyser and
 * its exact `#1` windows. One function, so the training export (`export-training`, field "stats") and
 * run time compute them identically; test/model/collection-statistics.test.ts checks both against a
 * direct computation.
 *
 * For each n-gram of the segmented query (segment.ts: uni-grams, then bi-grams, one per occurrence):
 * - `idf`: ln(1 + (N − df + 0.5) / (df + 0.5)) of the n-gram's concept (a bi-gram's is its `#1` window's);
 * - `ictf`: ln(T / cf), T the collection's tokens (cf 0 counts as 0.5: the word is not in the collection);
 * - `pairRatio` (bi-grams; 0 for uni-grams): df(#1(a b)) / min(df(a), df(b)), how often the two words,
 *   where the rarer occurs, occur as this phrase *here*;
 * - `topShare`: the share of the first-pass top k documents (uniform BM25 of the query's uni-grams,
 *   as the training candidates are ranked) that contain the concept;
 * - `bo1`: the Bo1 informativeness of the concept in those documents (SEMANTICS.md §4.5: tf_x summed
 *   over the top k, Pn = cf / N, tf_x·log2((1+Pn)/Pn) + log2(1+Pn)), divided by the query's largest, so
 *   it is comparable across queries and collections.
 * Genericity across reference corpora is not here (it needs reference indexes; the shipped model's
 * genericity prior is a table inside its graph, model/MODEL_CARD.md).
 */
import { bo1Weight } from '../engine/expansion/bo1.js';
import type { IndexReader } from '../engine/index/reader.js';
import { ConceptEvaluator, indexOfDoc, type ConceptPostings } from '../engine/scoring/concepts.js';
import { search } from '../engine/search.js';
import { segmentQuery } from './segment.js';
import { conceptSpecOf, uniformWeights } from './ngram-concepts.js';
import { buildWeightedQueryAst } from './weighted-ast.js';

export const STATISTICS_TOP_K = 10;
import type { NgramStatistics } from './statistic-names.js';
export { STATISTIC_NAMES, type StatisticName, type NgramStatistics } from './statistic-names.js';

export interface QueryStatistics {
  /** The first-pass documents the top-k statistics were read from. */
  topDocs: number[];
  /** One entry per n-gram of segmentQuery(text), in its order. */
  ngrams: { terms: string[]; stats: NgramStatistics }[];
}

/** The statistics of every n-gram of `text` in `reader`'s collection (see the header). */
export function queryStatistics(reader: IndexReader, text: string, options: { topK?: number; evaluator?: ConceptEvaluator } = {}): QueryStatistics {
  const topK = options.topK ?? STATISTICS_TOP_K;
  const evaluator = options.evaluator ?? new ConceptEvaluator(reader);
  const seg = segmentQuery(text, reader.analyzer);
  const { numDocs: N, totalTokens: T } = reader.stats();
  const first = buildWeightedQueryAst(uniformWeights(text, reader, false), { digits: 0 });
  const topDocs = first.root && topK > 0 ? search(reader, first, { scorer: 'bm25', k: topK }).hits.map((h) => h.doc) : [];
  const postingsOf = (terms: string[]): ConceptPostings => evaluator.materialize(conceptSpecOf(terms));
  const raw = seg.ngrams.map((g) => {
    const p = postingsOf(g.terms);
    let inTop = 0;
    let tfx = 0;
    for (const d of topDocs) {
      const i = indexOfDoc(p.docs, d);
      if (i >= 0) {
        inTop++;
        tfx += p.tfs[i];
      }
    }
    const pairRatio = g.terms.length === 2 ? p.df / Math.max(1, Math.min(postingsOf([g.terms[0]]).df, postingsOf([g.terms[1]]).df)) : 0;
    return {
      terms: g.terms,
      idf: Math.log(1 + (N - p.df + 0.5) / (p.df + 0.5)),
      ictf: T > 0 ? Math.log(T / Math.max(p.cf, 0.5)) : 0,
      pairRatio,
      topShare: topDocs.length ? inTop / topDocs.length : 0,
      bo1: tfx > 0 && p.cf > 0 && N > 0 ? bo1Weight(tfx, p.cf, N) : 0,
    };
  });
  const maxBo1 = Math.max(0, ...raw.map((r) => r.bo1));
  return {
    topDocs,
    ngrams: raw.map((r) => ({
      terms: r.terms,
      stats: { idf: r.idf, ictf: r.ictf, pairRatio: r.pairRatio, topShare: r.topShare, bo1: maxBo1 > 0 ? r.bo1 / maxBo1 : 0 },
    })),
  };
}
