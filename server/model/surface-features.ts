/**
 * What the learned expansion's model reads about one candidate surface form (issue 15 §2): its sources,
 * its similarity to the query word and to the rest of the query (the query's context), and its collection
 * statistics beside the query word's. One function for the training export (model/csurf/export.mjs) and
 * run time (surface-model.ts), so the model is run on exactly the numbers it was trained on.
 */
import { CANDIDATE_SOURCES, type SurfaceCandidate, type WordCandidates } from '../engine/expansion/surface-candidates.js';

export const SURFACE_FEATURE_NAMES = [
  ...CANDIDATE_SOURCES.map((s) => `source:${s}`),
  'similarity',
  'contextSimilarity',
  'idf',
  'wordIdf',
  'dfRatio',
  'topShare',
  'coShare',
  'wordTopShare',
  'sourceCount',
  'queryWords',
] as const;
export const SURFACE_FEATURES = SURFACE_FEATURE_NAMES.length;

/**
 * The feature vector of `candidate` for `word` in a collection of `numDocs` documents, for a query of
 * `queryWords` words. Every value is scaled to about [-1, 1], so one model reads collections of any size:
 * idf as ln(N/df)/ln N, the df ratio as ln(df/df_word)/5 clipped to [-1, 1].
 */
export function surfaceFeatures(word: WordCandidates, candidate: SurfaceCandidate, numDocs: number, queryWords: number): number[] {
  const lnN = Math.log(Math.max(numDocs, 2));
  const idf = (df: number) => (df > 0 ? Math.log(numDocs / df) / lnN : 1);
  const ratio = word.df > 0 ? Math.max(-1, Math.min(1, Math.log(candidate.df / word.df) / 5)) : 1;
  return [
    ...CANDIDATE_SOURCES.map((s) => (candidate.sources.includes(s) ? 1 : 0)),
    candidate.similarity,
    candidate.contextSimilarity,
    idf(candidate.df),
    idf(word.df),
    ratio,
    candidate.topShare,
    candidate.coShare,
    word.topShare,
    candidate.sources.length / CANDIDATE_SOURCES.length,
    1 / Math.max(1, queryWords),
  ];
}
