/**
 * Stage 3 for Bo1 (SEMANTICS.md §4.5, after Terrier's Bo1.java and
 * DFRBagExpansionTerms.assignWeights): the Bose-Einstein weight of each feedback term,
 * the two-document filter and the normaliser. Pure functions of the statistics.
 */
import type { FeedbackStatistics } from './feedback.js';

/** Bo1 weight: Pn = F/N, w = tf_x·log2((1+Pn)/Pn) + log2(1+Pn) (SEMANTICS.md §4.5 step 4). */
export function bo1Weight(tfx: number, collectionFrequency: number, numDocs: number): number {
  const pn = collectionFrequency / numDocs;
  return tfx * Math.log2((1 + pn) / pn) + Math.log2(1 + pn);
}

/**
 * Terrier's parameter-free normaliser (SEMANTICS.md §4.5 step 5): the Bo1 weight of a term whose
 * collection frequency equals tfx_max, the tf_x of the highest-weighted term, with
 * N' = collectionLength / averageDocumentLength.
 */
export function bo1ParameterFreeNormaliser(tfxMax: number, totalTokens: number, avgDocLength: number): number {
  const nPrime = totalTokens / avgDocLength;
  const f = tfxMax / nPrime;
  return tfxMax * Math.log2((1 + f) / f) + Math.log2(1 + f);
}

export interface Bo1Options {
  /** Terrier `parameter.free.expansion` (default true). */
  parameterFree?: boolean;
  /** Terrier `rocchio.beta`, used when not parameter-free (default 0.4). */
  beta?: number;
  /** Terrier `expansion.mindocuments` (default 2). */
  minDocuments?: number;
}

export interface CollectionView {
  numDocs: number;
  totalTokens: number;
  avgDocLength: number;
  /** Collection frequency F of an analysed term (0 when absent). */
  collectionFrequency(term: string): number;
}

export interface Bo1TermWeight {
  term: string;
  tfx: number;
  dfx: number;
  /** Un-normalised Bo1 weight w (0 when removed by the two-document filter). */
  raw: number;
  /** Normalised weight w' (parameter-free: w/norm; otherwise β·w/max w). */
  weight: number;
  /** True when the two-document filter set the weight to 0. */
  filtered: boolean;
}

/**
 * Weighs every feedback term. A term found in fewer than `minDocuments` feedback
 * documents gets weight 0, unless it is an original query term or the feedback set itself
 * has fewer than `minDocuments` documents (DFRBagExpansionTerms: minDF = 0 then).
 */
export function bo1Weights(
  stats: FeedbackStatistics,
  collection: CollectionView,
  originalTerms: ReadonlySet<string>,
  options: Bo1Options = {},
): Bo1TermWeight[] {
  const parameterFree = options.parameterFree ?? true;
  const beta = options.beta ?? 0.4;
  const minDocuments = options.minDocuments ?? 2;
  const minDf = stats.documents.length < minDocuments ? 0 : minDocuments;

  const weights: Bo1TermWeight[] = [];
  let best: Bo1TermWeight | undefined;
  for (const [term, { tfx, dfx }] of stats.terms) {
    const filtered = minDf > 0 && dfx < minDf && !originalTerms.has(term);
    const F = collection.collectionFrequency(term);
    // F ≥ tf_x > 0 for a term read from the index; guard a reader that disagrees with itself.
    const raw = filtered || F <= 0 ? 0 : bo1Weight(tfx, F, collection.numDocs);
    const entry: Bo1TermWeight = { term, tfx, dfx, raw, weight: 0, filtered };
    weights.push(entry);
    if (!best || raw > best.raw) best = entry;
  }
  if (!best || best.raw <= 0) return weights;

  const normaliser = parameterFree
    ? bo1ParameterFreeNormaliser(best.tfx, collection.totalTokens, collection.avgDocLength)
    : best.raw;
  for (const w of weights) w.weight = (w.raw / normaliser) * (parameterFree ? 1 : beta);
  return weights;
}
