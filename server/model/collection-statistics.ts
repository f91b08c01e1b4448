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
 *
 * What TW-BERT + Bo1 (paper §5.3) reads to decide, per query and per word, how much to expand. The model's
 * input is then the query followed by the Bo1 words (ranking.ts bo1ModelInput), and `expansion` says where the
 * query ends and which Bo1 expansion the words came from; without one these describe the query's own first pass:
 * - `expansion`: 1 for a word after the query's end (a Bo1 word) or a pair that reaches past it (never weighed:
 *   weighted-query.ts restrictBigramsToQuery; the model leaves such pairs out of its attention), else 0;
 * - `bo1Weight`: the word's Bo1 expansion weight w' (SEMANTICS.md §4.5 step 5; the amount Bo1 adds to an original
 *   term too), 0 for a pair, a word Bo1 did not choose, or without an expansion;
 * - `fbShare`: the share of the feedback documents (Bo1's; without an expansion the top FEEDBACK_DOCS of the
 *   query's first pass) that contain the concept;
 * - `fbCooccur`: over the feedback documents that contain the concept, the mean share of the query's other distinct
 *   words they contain (0 when none contains it or the query has no other word): does a Bo1 word come with the query
 *   or from a document about something else;
 * - `fbGap` (the same for every n-gram of the query): 1 − the k-th score / the first score of the query's first pass
 *   (uniform BM25 of the query without the Bo1 words, top STATISTICS_TOP_K), clamped to [0, 1]: how far the
 *   feedback documents stand out;
 * - `fbCoverage` (the same for every n-gram): the mean share of the query's distinct words that a feedback document
 *   contains: whether the feedback documents are about the whole query.
 * Genericity across reference corpora is not here: it does not depend on the index, so a model that reads it ships
 * its table and the runtime computes it from the query's wordpieces (genericity.ts).
 */
import { bo1Weight } from '../engine/expansion/bo1.js';
import type { IndexReader } from '../engine/index/reader.js';
import { ConceptEvaluator, indexOfDoc, type ConceptPostings } from '../engine/scoring/concepts.js';
import { search } from '../engine/search.js';
import { segmentQuery } from './segment.js';
import { conceptSpecOf, uniformWeights } from './ngram-concepts.js';
import { buildWeightedQueryAst } from './weighted-ast.js';

export const STATISTICS_TOP_K = 10;
/** Feedback documents of the fb* statistics without an expansion: Bo1's default (SEMANTICS.md §4.5). */
export const FEEDBACK_DOCS = 3;
import type { NgramStatistics } from './statistic-names.js';
export { STATISTIC_NAMES, type StatisticName, type NgramStatistics } from './statistic-names.js';

export interface QueryStatistics {
  /** The first-pass documents the top-k statistics were read from. */
  topDocs: number[];
  /** One entry per n-gram of segmentQuery(text), in its order. */
  ngrams: { terms: string[]; stats: NgramStatistics }[];
}

/**
 * The Bo1 expansion a model input was built from (ranking.ts bo1ModelInput): where the query ends in the text,
 * Bo1's terms with their expansion weights, and its feedback documents.
 */
export interface StatisticsExpansion {
  queryEnd: number;
  terms: readonly { term: string; expansionWeight: number }[];
  feedbackDocs: readonly number[];
}

export interface QueryStatisticsOptions {
  topK?: number;
  evaluator?: ConceptEvaluator;
  /** TW-BERT + Bo1: `text` is the query followed by these Bo1 words. */
  expansion?: StatisticsExpansion;
}

function firstPass(reader: IndexReader, text: string, topK: number) {
  const ast = buildWeightedQueryAst(uniformWeights(text, reader, false), { digits: 0 });
  return ast.root && topK > 0 ? search(reader, ast, { scorer: 'bm25', k: topK }).hits : [];
}

/** The statistics of every n-gram of `text` in `reader`'s collection (see the header). */
export function queryStatistics(reader: IndexReader, text: string, options: QueryStatisticsOptions = {}): QueryStatistics {
  const topK = options.topK ?? STATISTICS_TOP_K;
  const evaluator = options.evaluator ?? new ConceptEvaluator(reader);
  const expansion = options.expansion;
  const seg = segmentQuery(text, reader.analyzer);
  const { numDocs: N, totalTokens: T } = reader.stats();
  const firstHits = firstPass(reader, text, topK);
  const topDocs = firstHits.map((h) => h.doc);
  const postingsOf = (terms: string[]): ConceptPostings => evaluator.materialize(conceptSpecOf(terms));
  const contains = (terms: string[], doc: number) => indexOfDoc(postingsOf(terms).docs, doc) >= 0;

  // The query without the Bo1 words: its first pass, its feedback documents and its distinct words.
  const queryEnd = expansion?.queryEnd ?? text.length;
  // A pair that reaches past the query's end is never weighed (restrictBigramsToQuery), so it counts as expansion.
  const isExpansion = seg.ngrams.map((g) => seg.words[g.wordIndices[g.wordIndices.length - 1]].end > queryEnd);
  const queryHits = expansion ? firstPass(reader, text.slice(0, queryEnd), STATISTICS_TOP_K) : firstHits.slice(0, STATISTICS_TOP_K);
  const fbDocs = expansion ? [...expansion.feedbackDocs] : queryHits.slice(0, FEEDBACK_DOCS).map((h) => h.doc);
  const queryWords = [...new Set(seg.ngrams.filter((g, i) => g.terms.length === 1 && !isExpansion[i]).map((g) => g.terms[0]))];
  const wordsIn = fbDocs.map((d) => new Set(queryWords.filter((w) => contains([w], d))));
  const fbGap = queryHits.length >= 2 && queryHits[0].score > 0 ? Math.min(1, Math.max(0, 1 - queryHits[queryHits.length - 1].score / queryHits[0].score)) : 0;
  const fbCoverage = fbDocs.length && queryWords.length ? wordsIn.reduce((s, w) => s + w.size, 0) / (fbDocs.length * queryWords.length) : 0;
  const bo1Weights = new Map((expansion?.terms ?? []).map((t) => [t.term, t.expansionWeight]));

  const raw = seg.ngrams.map((g, ngramIndex) => {
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
    const others = queryWords.filter((w) => !g.terms.includes(w));
    let inFb = 0;
    let cooccur = 0;
    fbDocs.forEach((d, j) => {
      if (indexOfDoc(p.docs, d) < 0) return;
      inFb++;
      if (others.length) cooccur += others.filter((w) => wordsIn[j].has(w)).length / others.length;
    });
    return {
      terms: g.terms,
      idf: Math.log(1 + (N - p.df + 0.5) / (p.df + 0.5)),
      ictf: T > 0 ? Math.log(T / Math.max(p.cf, 0.5)) : 0,
      pairRatio,
      topShare: topDocs.length ? inTop / topDocs.length : 0,
      bo1: tfx > 0 && p.cf > 0 && N > 0 ? bo1Weight(tfx, p.cf, N) : 0,
      expansion: isExpansion[ngramIndex] ? 1 : 0,
      bo1Weight: g.terms.length === 1 ? (bo1Weights.get(g.terms[0]) ?? 0) : 0,
      fbShare: fbDocs.length ? inFb / fbDocs.length : 0,
      fbCooccur: inFb ? cooccur / inFb : 0,
    };
  });
  const maxBo1 = Math.max(0, ...raw.map((r) => r.bo1));
  return {
    topDocs,
    ngrams: raw.map((r) => ({
      terms: r.terms,
      stats: {
        idf: r.idf,
        ictf: r.ictf,
        pairRatio: r.pairRatio,
        topShare: r.topShare,
        bo1: maxBo1 > 0 ? r.bo1 / maxBo1 : 0,
        expansion: r.expansion,
        bo1Weight: r.bo1Weight,
        fbShare: r.fbShare,
        fbCooccur: r.fbCooccur,
        fbGap,
        fbCoverage,
      },
    })),
  };
}
