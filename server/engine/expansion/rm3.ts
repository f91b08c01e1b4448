/**
 * Stage 3 for RM3, the Indri variant (RMExpander / RelevanceModel, SEMANTICS.md §1.7):
 *   P(w|R) ∝ Σ_D P(w|D)·P(D|Q),
 * with P(w|D) = (tf_{w,D} + fbMu·P(w|C)) / (|D| + fbMu) (fbMu = 0: maximum likelihood)
 * and P(D|Q) ∝ exp(score of D for the original query), where the score is Indri's
 * query likelihood: the weighted mean over the query terms of
 * log((tf + mu·P(t|C)) / (|D| + mu)), mu = 2500, P(t|C) = cf/|C| or 1/(2|C|) for an
 * unseen term (SEMANTICS.md §1.6). No document-count filter: every term of the feedback set is a
 * candidate, so a tiny corpus still yields expansion terms (the pyterrier#407 lesson).
 * The top fbTerms are then mixed with the original query by fbOrigWeight (RM3):
 *   #weight( λ #combine(original) (1−λ) #weight( p1 "t1" … ) ).
 */
import type { FeedbackStatistics } from './feedback.js';
import type { CollectionView } from './bo1.js';

export interface Rm3Options {
  /** Dirichlet prior of the query likelihood that weighs feedback documents (Indri default 2500). */
  mu?: number;
  /** Dirichlet prior of the feedback document models (Indri fbMu, default 0). */
  fbMu?: number;
}

export interface RelevanceModelTerm {
  term: string;
  tfx: number;
  dfx: number;
  /** P(w|R), summing to 1 over all candidate terms. */
  probability: number;
}

/** P(D|Q) for each feedback document (in `stats.documents` order), summing to 1. */
export function feedbackDocumentWeights(
  stats: FeedbackStatistics,
  collection: CollectionView,
  queryTerms: ReadonlyMap<string, number>,
  mu = 2500,
): number[] {
  const totalWeight = [...queryTerms.values()].reduce((s, w) => s + w, 0);
  const logScores = stats.documents.map((d) => {
    if (totalWeight <= 0) return 0;
    let score = 0;
    for (const [term, w] of queryTerms) {
      const cf = collection.collectionFrequency(term);
      const pc = cf > 0 ? cf / collection.totalTokens : 1 / (2 * collection.totalTokens);
      const tf = d.tfs.get(term) ?? 0;
      score += (w / totalWeight) * Math.log((tf + mu * pc) / (d.length + mu));
    }
    return score;
  });
  // exp relative to the best document, so that long queries do not underflow to 0/0.
  const top = Math.max(...logScores);
  const un = logScores.map((s) => Math.exp(s - top));
  const sum = un.reduce((s, x) => s + x, 0);
  return un.map((x) => x / sum);
}

/** The relevance model over every term of the feedback documents, highest probability first. */
export function relevanceModel(
  stats: FeedbackStatistics,
  collection: CollectionView,
  queryTerms: ReadonlyMap<string, number>,
  options: Rm3Options = {},
): RelevanceModelTerm[] {
  const fbMu = options.fbMu ?? 0;
  const docWeights = feedbackDocumentWeights(stats, collection, queryTerms, options.mu ?? 2500);
  const probability = new Map<string, number>();
  stats.documents.forEach((d, i) => {
    const denominator = d.length + fbMu;
    if (denominator <= 0) return;
    // With fbMu > 0 a term absent from D still gets fbMu·P(w|C)/(|D|+fbMu) from it;
    // with fbMu = 0 only D's own terms contribute.
    for (const term of fbMu > 0 ? stats.terms.keys() : d.tfs.keys()) {
      const tf = d.tfs.get(term) ?? 0;
      const pc = fbMu > 0 ? collection.collectionFrequency(term) / collection.totalTokens : 0;
      probability.set(term, (probability.get(term) ?? 0) + docWeights[i] * ((tf + fbMu * pc) / denominator));
    }
  });
  const total = [...probability.values()].reduce((s, p) => s + p, 0);
  const terms: RelevanceModelTerm[] = [];
  for (const [term, p] of probability) {
    const s = stats.terms.get(term)!;
    terms.push({ term, tfx: s.tfx, dfx: s.dfx, probability: total > 0 ? p / total : 0 });
  }
  terms.sort((a, b) => b.probability - a.probability || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));
  return terms;
}
