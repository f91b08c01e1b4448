/**
 * Pseudo-relevance feedback query expansion (SEMANTICS.md §4.5 Bo1, §1.7/§4.3 RM3), in three
 * stages as Terrier splits it (as Terrier does): feedback selection
 * (feedback.ts: selectFeedbackDocs) → term statistics (feedback.ts: feedbackStatistics)
 * → term scoring (bo1.ts, rm3.ts). This module combines the scored terms with the
 * original query and builds the expanded query AST.
 */
import { checkExpansionFitsIndex } from '../scoring/impact.js';
import type { FilterNode, QueryAst, QueryNode, SourceRange, TermNode, WeightedItem } from '../../../grammar/ast.js';
import type { IndexReader } from '../index/reader.js';
import { bo1Weights, type CollectionView } from './bo1.js';
import { feedbackStatistics, type FeedbackStatistics } from './feedback.js';
import { maxWeight, originalQuery, type OriginalQuery } from './query-terms.js';
import { relevanceModel } from './rm3.js';

export { selectFeedbackDocs, feedbackStatistics, DEFAULT_FEEDBACK_DOCS } from './feedback.js';
export type { FeedbackStatistics, FeedbackTermStats } from './feedback.js';
export { bo1Weight, bo1ParameterFreeNormaliser, bo1Weights, type Bo1TermWeight } from './bo1.js';
export { relevanceModel, feedbackDocumentWeights, type RelevanceModelTerm } from './rm3.js';
export { originalQuery, type OriginalQuery } from './query-terms.js';

export type ExpansionMethod = 'bo1' | 'rm3';

export interface ExpansionOptions {
  method: ExpansionMethod;
  /** Terms to add (default 10 for both methods). For Bo1, max(fbTerms, |query|) are (re)weighted; 0 = only reweight the original terms. */
  fbTerms?: number;
  /** RM3 fbOrigWeight λ, the original query's share (default 0.5). Bo1 has no such parameter and ignores it. */
  originalWeight?: number;
  /** Bo1: Terrier's parameter-free normaliser (default true); false = β·w/max w. */
  parameterFree?: boolean;
  /** Bo1: β when not parameter-free (Terrier rocchio.beta, default 0.4). */
  beta?: number;
  /** Bo1: expansion.mindocuments (default 2). */
  minDocuments?: number;
  /** RM3: Dirichlet mu of the query likelihood that weighs feedback documents (default 2500). */
  mu?: number;
  /** RM3: Indri fbMu, smoothing of the feedback document models (default 0). */
  fbMu?: number;
}

export interface ExpansionTerm {
  /** Analysed form. */
  term: string;
  /**
   * Bo1: the term's weight in the expanded #weight (original qtw + w', before the
   * scorer's max normalisation). RM3: P(w|R) renormalised over the chosen terms, its
   * weight inside the relevance-model #weight.
   */
  weight: number;
  isOriginal: boolean;
  /** Occurrences in the feedback documents. */
  tfx: number;
  /** Feedback documents containing the term. */
  dfx: number;
  /** Bo1: the normalised expansion weight w' added to the term (0 if not selected). RM3: P(w|R) before renormalisation. */
  expansionWeight: number;
}

export interface ExpansionResult {
  method: ExpansionMethod;
  terms: ExpansionTerm[];
  /** The expanded query, Indri dialect: #weight( w "t" … ) with raw (quoted) analysed terms. */
  ast: QueryAst;
  /** Feedback documents actually used. */
  feedbackDocs: number[];
}

/** Ranges for nodes that expansion creates: they have no source text of their own. */
const NO_RANGE: SourceRange = { start: 0, end: 0 };

function collectionView(reader: IndexReader): CollectionView {
  const s = reader.stats();
  return {
    numDocs: s.numDocs,
    totalTokens: s.totalTokens,
    avgDocLength: s.avgDocLength,
    collectionFrequency: (term) => reader.termStats(term)?.cf ?? 0,
  };
}

function rawTerm(term: string): TermNode {
  return { kind: 'term', text: term, raw: true, range: NO_RANGE };
}

function weightNode(items: WeightedItem[]): QueryNode {
  return { kind: 'belief', op: 'weight', items, range: NO_RANGE };
}

/** Lucene MUST_NOT clauses survive as #filrej around the scored query. */
function withRejects(scored: QueryNode, rejects: readonly QueryNode[]): QueryNode {
  return rejects.reduce<QueryNode>(
    (inner, filter): FilterNode => ({ kind: 'filter', mode: 'reject', form: 'filrej', filter, scored: inner, range: NO_RANGE }),
    scored,
  );
}

function byTerm(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Expands `ast` with terms from the feedback documents (doc ids, e.g. the top hits of a
 * first search: `selectFeedbackDocs(hits, DEFAULT_FEEDBACK_DOCS[method])`).
 */
export function expandQuery(
  reader: IndexReader,
  ast: QueryAst,
  feedbackDocs: number[],
  options: ExpansionOptions,
): ExpansionResult {
  checkExpansionFitsIndex(reader);
  const fbTerms = options.fbTerms ?? 10;
  if (!Number.isInteger(fbTerms) || fbTerms < 0) throw new RangeError(`fbTerms must be a non-negative integer, got ${fbTerms}`);
  const query = originalQuery(ast, reader.analyzer);
  const stats = feedbackStatistics(reader, feedbackDocs);
  const collection = collectionView(reader);
  const used = stats.documents.map((d) => d.doc);
  if (options.method === 'bo1') return { method: 'bo1', feedbackDocs: used, ...expandBo1(query, stats, collection, fbTerms, options) };
  if (options.method === 'rm3') return { method: 'rm3', feedbackDocs: used, ...expandRm3(ast, query, stats, collection, fbTerms, options) };
  throw new RangeError(`unknown expansion method '${String((options as { method: unknown }).method)}' (expected bo1 or rm3)`);
}

/**
 * Terrier/PyTerrier combination (SEMANTICS.md §4.5 step 6): original weights divided by their max
 * first, then for the top max(fbTerms, |query|) terms by w', add w' to the term's weight
 * (new terms start at 0). The scorer divides by the max again at retrieval.
 */
export function expandBo1(
  query: OriginalQuery,
  stats: FeedbackStatistics,
  collection: CollectionView,
  fbTerms: number,
  options: ExpansionOptions,
): Pick<ExpansionResult, 'terms' | 'ast'> {
  const norm = maxWeight(query);
  const original = new Map([...query.terms].map(([t, w]) => [t, w / norm]));
  const weighted = bo1Weights(stats, collection, new Set(original.keys()), options);
  const byName = new Map(weighted.map((w) => [w.term, w]));

  // Terrier: |query| is the number of query entries; 0 terms = conservative QE (reweight only).
  const querySize = original.size + query.others.length;
  let chosen: typeof weighted;
  if (fbTerms === 0) {
    chosen = weighted.filter((w) => original.has(w.term));
  } else {
    const ranked = [...weighted].sort((a, b) => b.weight - a.weight || byTerm(a.term, b.term));
    // Zero-weight (filtered) terms would be added with weight 0: they change nothing, so leave them out.
    chosen = ranked.slice(0, Math.max(fbTerms, querySize)).filter((w) => w.weight > 0);
  }

  const added = new Map(chosen.map((w) => [w.term, w.weight]));
  const terms: ExpansionTerm[] = [];
  for (const [term, qtw] of original) {
    const s = byName.get(term);
    terms.push({ term, weight: qtw + (added.get(term) ?? 0), isOriginal: true, tfx: s?.tfx ?? 0, dfx: s?.dfx ?? 0, expansionWeight: added.get(term) ?? 0 });
  }
  for (const w of chosen) {
    if (original.has(w.term)) continue;
    terms.push({ term: w.term, weight: w.weight, isOriginal: false, tfx: w.tfx, dfx: w.dfx, expansionWeight: w.weight });
  }
  terms.sort((a, b) => b.weight - a.weight || byTerm(a.term, b.term));

  const items: WeightedItem[] = [
    ...terms.map((t) => ({ weight: t.weight, node: rawTerm(t.term) })),
    ...query.others.map((o) => ({ weight: o.weight / norm, node: o.node })),
  ];
  const root = items.length ? withRejects(weightNode(items), query.rejects) : null;
  return { terms, ast: { dialect: 'indri', root, range: NO_RANGE } };
}

/** Indri RM3 (see rm3.ts): #weight( λ <original> (1−λ) #weight( p "t" … ) ). */
function expandRm3(
  ast: QueryAst,
  query: OriginalQuery,
  stats: FeedbackStatistics,
  collection: CollectionView,
  fbTerms: number,
  options: ExpansionOptions,
): Pick<ExpansionResult, 'terms' | 'ast'> {
  const lambda = options.originalWeight ?? 0.5;
  if (!(lambda >= 0 && lambda <= 1)) throw new RangeError(`originalWeight must lie in [0, 1], got ${lambda}`);
  const model = relevanceModel(stats, collection, query.terms, options).slice(0, fbTerms).filter((t) => t.probability > 0);
  const mass = model.reduce((s, t) => s + t.probability, 0);
  const terms: ExpansionTerm[] = model.map((t) => ({
    term: t.term,
    weight: t.probability / mass,
    isOriginal: query.terms.has(t.term),
    tfx: t.tfx,
    dfx: t.dfx,
    expansionWeight: t.probability,
  }));

  const originalNode = originalAsIndri(ast, query);
  const expansionNode = terms.length ? weightNode(terms.map((t) => ({ weight: t.weight, node: rawTerm(t.term) }))) : null;
  let scored: QueryNode | null;
  if (originalNode && expansionNode) {
    scored = weightNode([
      { weight: lambda, node: originalNode },
      { weight: 1 - lambda, node: expansionNode },
    ]);
  } else {
    scored = originalNode ?? expansionNode;
  }
  const root = scored ? withRejects(scored, query.rejects) : null;
  return { terms, ast: { dialect: 'indri', root, range: NO_RANGE } };
}

/**
 * The original query as an Indri node: the user's own tree when it is Indri already
 * (keeping what they wrote), otherwise the bag of analysed terms and kept concepts.
 */
function originalAsIndri(ast: QueryAst, query: OriginalQuery): QueryNode | null {
  if (ast.dialect === 'indri' && ast.root && ast.root.kind !== 'error') return ast.root;
  // Scaled so the largest weight is 1: #weight divides by the sum anyway, and 1s read best.
  const norm = maxWeight(query);
  const items: WeightedItem[] = [
    ...[...query.terms].map(([term, weight]) => ({ weight: weight / norm, node: rawTerm(term) })),
    ...query.others.map((o) => ({ weight: o.weight / norm, node: o.node })),
  ];
  return items.length ? weightNode(items) : null;
}
