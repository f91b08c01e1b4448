/**
 * Ranking for both front ends: one query (optionally with pseudo-relevance feedback), many queries
 * with a weighting model (`search --weights`, `eval-model`, the editor's run file), and the one
 * place where "first pass → feedback documents → expansion" is written (expandWithFeedback).
 */
import type { QueryAst } from '../../grammar/ast.js';
import type { QueryDiagnostic } from '../../grammar/diagnostics.js';
import { DEFAULT_FEEDBACK_DOCS, type ExpansionMethod, type ExpansionResult } from '../engine/expansion/index.js';
import type { SearchHit, SearchOptions, SearchResult } from '../engine/search.js';
import { expansionScaleOf, type NgramWeights, type WeightModel } from '../model/runtime.js';
import { planWeighing, type WeighPlanResult } from '../model/structured-weights.js';
import {
  applyWeights,
  expandedModelInput,
  restrictBigramsToQuery,
  scaleExpansionWeights,
  surfaceWordsFor,
  type ExpandedModelInput,
} from '../model/weighted-query.js';
import type { NgramStatistics, StatisticsExpansion } from '../model/collection-statistics.js';
import type { LocalBackend } from './backend.js';

export interface FeedbackOptions {
  method: ExpansionMethod;
  /** Feedback documents (default: Bo1 3 as Terrier, RM3 10 as Indri). */
  fbDocs?: number;
  /** Expansion terms (default 10). */
  fbTerms?: number;
  /** RM3 fbOrigWeight λ (default 0.5); Bo1 ignores it. */
  originalWeight?: number;
}

/**
 * Pseudo-relevance feedback for one query (SEMANTICS.md §4.5): the top `fbDocs` documents of a first
 * pass with `search` (or the documents the user named, Indri's <feedbackDocno>) feed Bo1 or RM3,
 * whose term statistics come from the same backend.
 */
export function expandWithFeedback(backend: LocalBackend, ast: QueryAst, feedback: FeedbackOptions, search: SearchOptions, namedDocs?: number[]): ExpansionResult {
  const fbDocs = feedback.fbDocs ?? DEFAULT_FEEDBACK_DOCS[feedback.method];
  const docs = namedDocs ?? backend.feedbackDocuments(ast, fbDocs, search);
  return backend.expand(ast, docs, { method: feedback.method, fbTerms: feedback.fbTerms, originalWeight: feedback.originalWeight });
}

export interface RankQueryOptions extends SearchOptions {
  expand?: FeedbackOptions;
}

export interface QueryRun extends SearchResult {
  /** The expansion used for the second pass, when `expand` was given. */
  expansion?: ExpansionResult;
}

/**
 * Ranks one query. With `expand`, the query is expanded from its feedback documents and the
 * expanded query is ranked with the same scorer and parameters; the warnings are the query's as
 * written.
 */
export function rankQuery(backend: LocalBackend, ast: QueryAst, options: RankQueryOptions = {}): QueryRun {
  const { expand, ...search } = options;
  if (!expand) return backend.search(ast, search);
  const expansion = expandWithFeedback(backend, ast, expand, search);
  const second = backend.search(expansion.ast, search);
  return { ...second, warnings: backend.compile(ast, search).warnings, expansion };
}

// ---------------------------------------------------------------------------------------------
// TW-BERT with query expansion (paper §5.3): a first uniform BM25 pass and Bo1 pick the expansion
// terms, then the model weighs the original query and the expansion terms together.

/** What §5.3 gives the model for one query, and the Bo1 expansion it came from. */
export interface Bo1ModelInput extends ExpandedModelInput {
  expansion: ExpansionResult;
}

/**
 * The paper's §5.3 input for one query: a first pass with the query as written (uniform BM25) picks
 * the top `fbDocs` documents, Bo1 picks the expansion terms from them, and the model reads the query
 * followed by the new terms (each stem as the word the feedback documents use most). `rankQueries`
 * and the training export (`export-training --expand bo1`) both build it here, so the model is
 * trained on exactly the inputs it is run on.
 */
export function bo1ModelInput(backend: LocalBackend, ast: QueryAst, text: string, expand: FeedbackOptions, search: SearchOptions): Bo1ModelInput {
  const expansion = expandWithFeedback(backend, ast, { method: 'bo1', fbDocs: expand.fbDocs, fbTerms: expand.fbTerms }, search);
  // Bo1's new terms in its order (best first). Terms already among the query's words are not
  // appended again: the model weighs them where the user wrote them (a second copy would double
  // their summed weight), and Bo1's reweighting of them is replaced by the model's weight.
  const inQuery = new Set(backend.analyzer.analyze(text).map((t) => t.term));
  const added = expansion.terms.filter((t) => !t.isOriginal && !inQuery.has(t.term)).map((t) => t.term);
  const words = surfaceWordsFor(backend, expansion.feedbackDocs, added);
  return { ...expandedModelInput(text, added.map((t) => words.get(t) ?? t)), expansion };
}

/**
 * What a collection-aware model reads of the Bo1 expansion of its input (collection-statistics.ts: which words are
 * Bo1's, their w', the feedback documents). rankQueries and the training export both call it, so the model is
 * trained on the statistics it is run on.
 */
export function statisticsExpansionOf(input: Bo1ModelInput): StatisticsExpansion {
  return { queryEnd: input.queryEnd, terms: input.expansion.terms, feedbackDocs: input.expansion.feedbackDocs };
}

/** The statistics a collection-aware model reads for one input of rankQueries: with its Bo1 expansion when it has one. */
export function modelStatistics(backend: LocalBackend, input: ExpandedModelInput | Bo1ModelInput): NgramStatistics[] {
  return backend.ngramStatistics(input.text, 'expansion' in input ? statisticsExpansionOf(input) : undefined);
}

// ---------------------------------------------------------------------------------------------
// Ranking with model weights (`querylens search --weights`, `querylens eval-model`).

/** One query to rank: its id, parsed form and text as written. */
export interface QueryToRank {
  qid: string;
  ast: QueryAst;
  text: string;
}

export interface RankedQuery {
  qid: string;
  hits: SearchHit[];
  /** Warnings about the query as written (stopwords, unknown terms, ...). */
  warnings: QueryDiagnostic[];
  /** The query the final ranking used (after weighting and expansion). */
  finalAst: QueryAst;
  /** True when `finalAst` is the query as written (no weights, no expansion, or nothing to weigh). */
  asWritten: boolean;
  /** The text the model read, when a model weighed the query. */
  modelInput?: string;
  /**
   * Why the model's weights could not be put into the query as written (structured-weights.ts), at
   * the node's range; the query is then ranked as written, and the message is also in `warnings`.
   */
  refusal?: QueryDiagnostic;
}

export interface RankQueriesOptions {
  search: SearchOptions & { k: number };
  expand?: FeedbackOptions;
  /** A loaded model, or null for the query as written. */
  model: WeightModel | null;
  /** Significant digits of the model's weights: 4, as `querylens weigh` prints them, so both rank the same. */
  digits?: number;
}

/**
 * Ranks every query: as written (model null), or with the model's weights under the one rule of
 * structured-weights.ts (exactly what `querylens weigh` writes: a flat bag of words becomes the model's
 * #weight, a structured query keeps its structure with the weights inside, a query that cannot be
 * weighed is ranked as written with a located `refusal`), optionally, for flat queries, after
 * Bo1 as the paper's §5.3 does it: a first uniform pass (the query as written) selects the feedback
 * documents, Bo1 picks the expansion terms, the model weighs the query and the expansion words
 * together (bo1ModelInput), the expansion words' weights are multiplied by the model's learned
 * expansion scale (scaleExpansionWeights), and the final ranking uses these weights, not Bo1's.
 * The model is called once for all queries (batched); the rest is rankQuery.
 * Throws RangeError for a model with RM3 (§5.3 combines the model with Bo1) and lets the model's
 * WeightModelError through.
 */
export async function rankQueries(backend: LocalBackend, queries: readonly QueryToRank[], options: RankQueriesOptions): Promise<RankedQuery[]> {
  const { model, expand, search } = options;
  if (!model) {
    return queries.map((q) => {
      const r = rankQuery(backend, q.ast, { ...search, expand });
      return { qid: q.qid, hits: r.hits, warnings: r.warnings, finalAst: r.expansion?.ast ?? q.ast, asWritten: !r.expansion };
    });
  }
  if (expand && expand.method !== 'bo1') throw new RangeError(`${model.name} weights combine with Bo1 expansion only (paper §5.3), not ${expand.method}`);

  // One rule for every query (structured-weights.ts): a flat bag of words gets the model's #weight of
  // uni-grams and bi-grams, a structured query the model's weights inside its own structure, and a
  // query that cannot be weighed is ranked as written with the reason.
  const plans = queries.map((q): WeighPlanResult => {
    const planned = planWeighing(q.ast, q.text);
    if (planned.ok && !planned.plan.flat && expand) {
      return {
        ok: false,
        refusal: {
          message: `cannot weigh this query with --expand ${expand.method}: the model's expansion (paper §5.3) reads a plain query followed by the expansion words, and this query has structure of its own to keep`,
          range: q.ast.root?.range ?? q.ast.range,
        },
      };
    }
    return planned;
  });
  const inputs = queries.map((q, i): ExpandedModelInput | Bo1ModelInput | null => {
    const planned = plans[i];
    if (!planned.ok) return null;
    const text = planned.plan.text;
    if (!expand) return { text, queryEnd: text.length };
    return bo1ModelInput(backend, q.ast, text, expand, search);
  });

  const asked = inputs.filter((x): x is ExpandedModelInput | Bo1ModelInput => x !== null);
  // A collection-aware model reads each n-gram's statistics in this collection (collection-statistics.ts),
  // with the Bo1 expansion its input came from.
  const statistics = model.readsStatistics ? asked.map((i) => modelStatistics(backend, i)) : undefined;
  const answers = await model.weigh(asked.map((i) => i.text), statistics);
  const weights: (NgramWeights | null)[] = [];
  let k = 0;
  for (const input of inputs) weights.push(input ? answers[k++] : null);
  const scale = expansionScaleOf(model);
  return queries.map((q, i) => {
    const planned = plans[i];
    const input = inputs[i];
    if (!planned.ok || !input) {
      const refusal: QueryDiagnostic = { code: 'model/cannot-weigh', severity: 'error', message: planned.ok ? '' : planned.refusal.message, range: planned.ok ? q.ast.range : planned.refusal.range };
      const r = backend.search(q.ast, search);
      return { qid: q.qid, hits: r.hits, warnings: [...r.warnings, refusal], finalAst: q.ast, asWritten: true, refusal };
    }
    const kept = planned.plan.flat ? scaleExpansionWeights(restrictBigramsToQuery(weights[i]!, input.queryEnd), input.queryEnd, scale) : weights[i]!;
    const weighted = applyWeights(q.ast, planned.plan, kept, options.digits ?? 4);
    // A query with nothing to weigh (only stopwords) is ranked as written, as `weigh` keeps it.
    const finalAst = weighted.root ? weighted : q.ast;
    const r = backend.search(finalAst, search);
    return {
      qid: q.qid,
      hits: r.hits,
      warnings: backend.compile(q.ast, search).warnings,
      finalAst,
      asWritten: !weighted.root,
      modelInput: input.text,
    };
  });
}
