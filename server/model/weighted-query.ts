/**
 * From predicted n-gram weights to an Indri query AST:
 *   #weight( w1 t1 … wk tk  wb #1(a b) … )
 * Uni-grams become terms, bi-grams ordered windows of size 1 (the engine's #1, which is exactly
 * the bigram statistics the model was trained with). Repeated n-grams are merged by SUMMING their
 * weights: the engine accumulates a concept met twice the same way (query term frequency), and
 * the training loss used the same sum (query term frequency is kept).
 */
import type { QueryAst } from '../../grammar/ast.js';
import { walk } from '../../grammar/ast.js';
import type { QueryDiagnostic } from '../../grammar/diagnostics.js';
import { DEFAULT_FEEDBACK_DOCS, expandQuery, selectFeedbackDocs, type ExpansionResult } from '../engine/expansion/index.js';
import type { IndexReader } from '../engine/index/reader.js';
import { prepareQuery, runQuery, type FeedbackOptions, type SearchHit, type SearchOptions } from '../engine/search.js';
import { expansionScaleOf, type NgramWeight, type NgramWeights, type WeightModel } from './runtime.js';
import { planWeighing, weighInsideStructure, type WeighPlanResult } from './structured-weights.js';
import { queryStatistics } from './collection-statistics.js';
import { buildWeightedQueryAst, type MergedNgram } from './weighted-ast.js';

// The #weight AST builder lives in weighted-ast.ts (collection-statistics.ts needs it without the ranking code).
export { buildWeightedQueryAst, mergeNgrams, type MergedNgram, type WeightedQueryOptions } from './weighted-ast.js';

/**
 * The natural-language text to weigh for a parsed query: the query text itself for plain text,
 * and the words of its terms (in order) for structured Indri/Lucene queries, so operator names
 * and weights already in the query are not read as words.
 */
export function queryTextForWeighing(ast: QueryAst, text: string): string {
  if (ast.dialect === 'text' || !ast.root) return text;
  const words: string[] = [];
  walk(ast.root, (n) => {
    if (n.kind === 'term') words.push(n.text);
  });
  // walk() is pre-order over a stack, children visited in source order.
  return words.join(' ');
}

// ---------------------------------------------------------------------------------------------
// TW-BERT with query expansion (paper §5.3): a first uniform BM25 pass and Bo1 pick the expansion
// terms, then the model weighs the original query and the expansion terms together.

/** The part of the engine's IndexReader that surface-word recovery needs. */
export interface StoredTextReader {
  readonly analyzer: { analyze(text: string): { term: string; start: number; end: number }[] };
  document(doc: number): { title: string; fields: Record<string, string> };
}

/**
 * For each analysed term (e.g. a Bo1 stem such as `aerodynam`), the word as it is written most
 * often in the given documents (`aerodynamic`), lowercased; ties go to the alphabetically first.
 * Why: the encoder was trained on natural text, so it should read words, not Porter stems, and the
 * chosen word analyses back to exactly the term (it was found by analysing it), so the weighted
 * query matches the same index term. A term not found in the text keeps its analysed form.
 */
export function surfaceWordsFor(reader: StoredTextReader, docs: readonly number[], terms: readonly string[]): Map<string, string> {
  const wanted = new Set(terms);
  const counts = new Map<string, Map<string, number>>();
  for (const doc of docs) {
    const stored = reader.document(doc);
    for (const text of [stored.title, ...Object.values(stored.fields)]) {
      if (!text) continue;
      for (const t of reader.analyzer.analyze(text)) {
        if (!wanted.has(t.term)) continue;
        const word = text.slice(t.start, t.end).toLowerCase();
        let byWord = counts.get(t.term);
        if (!byWord) counts.set(t.term, (byWord = new Map()));
        byWord.set(word, (byWord.get(word) ?? 0) + 1);
      }
    }
  }
  const out = new Map<string, string>();
  for (const term of terms) {
    const byWord = counts.get(term);
    let best = term;
    let bestCount = 0;
    if (byWord) {
      for (const [word, n] of byWord) {
        if (n > bestCount || (n === bestCount && word < best)) {
          best = word;
          bestCount = n;
        }
      }
    }
    out.set(term, best);
  }
  return out;
}

export interface ExpandedModelInput {
  /** The text the model reads: the query as written, a space, then the expansion words in Bo1 order. */
  text: string;
  /** UTF-16 length of the original query inside `text`: n-grams ending after it belong to the expansion. */
  queryEnd: number;
}

/**
 * How the model input is formed for TW-BERT + Bo1 (paper §5.3: the expansion terms picked by Bo1
 * after a uniform first pass are weighed by TW-BERT together with the original query terms).
 * The expansion words are appended to the query text, separated by a space, so every term is
 * encoded in the context of all the others: the original terms see what the feedback documents
 * added, and each expansion term is judged against the query it expands — a per-term weight that
 * ignored the query would be Bo1's own weight again. A plain space rather than a [SEP] segment
 * keeps the input in the form the model was trained on (one query string), and
 * the engine's analyser would read a literal "[SEP]" as the word "sep".
 */
export function expandedModelInput(query: string, expansionWords: readonly string[]): ExpandedModelInput {
  const words = expansionWords.filter((w) => w.length > 0);
  return { text: words.length ? `${query} ${words.join(' ')}` : query, queryEnd: query.length };
}

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
export function bo1ModelInput(reader: IndexReader, ast: QueryAst, text: string, expand: FeedbackOptions, search: SearchOptions): Bo1ModelInput {
  const fbDocs = expand.fbDocs ?? DEFAULT_FEEDBACK_DOCS.bo1;
  const first = runQuery(reader, ast, { ...search, k: Math.max(fbDocs, 1) });
  const expansion = expandQuery(reader, ast, selectFeedbackDocs(first.hits, fbDocs), { method: 'bo1', fbTerms: expand.fbTerms });
  // Bo1's new terms in its order (best first). Terms already among the query's words are not
  // appended again: the model weighs them where the user wrote them (a second copy would double
  // their summed weight), and Bo1's reweighting of them is replaced by the model's weight.
  const inQuery = new Set(reader.analyzer.analyze(text).map((t) => t.term));
  const added = expansion.terms.filter((t) => !t.isOriginal && !inQuery.has(t.term)).map((t) => t.term);
  const words = surfaceWordsFor(reader, expansion.feedbackDocs, added);
  return { ...expandedModelInput(text, added.map((t) => words.get(t) ?? t)), expansion };
}

/**
 * Multiplies the weights of the expansion n-grams (those after `queryEnd`) by the model's learned
 * expansion scale (config.json `expansionScale`, learned through BM25 on Bo1-expanded training
 * queries: model/MODEL_CARD.md). The encoder reads an appended word like a query word, and without
 * the scale it gives it a query word's weight, which lets the feedback documents pull the ranking
 * away from the query (Bo1 itself gives its added terms a fraction of an original term's weight).
 */
export function scaleExpansionWeights(weights: NgramWeights, queryEnd: number, scale: number): NgramWeights {
  if (scale === 1) return weights;
  return { query: weights.query, ngrams: weights.ngrams.map((g) => (g.start >= queryEnd ? { ...g, weight: g.weight * scale } : g)) };
}

/**
 * Keeps the model's uni-grams (query and expansion words) and the bi-grams that lie inside the
 * original query. Expansion terms are a bag chosen from the feedback documents, not a phrase: a
 * bi-gram across the query/expansion boundary or between two expansion words is an artefact of
 * the concatenation, and `#1(a b)` would demand an adjacency no one wrote.
 */
export function restrictBigramsToQuery(weights: NgramWeights, queryEnd: number): NgramWeights {
  return { query: weights.query, ngrams: weights.ngrams.filter((g) => g.kind === 'unigram' || g.end <= queryEnd) };
}

// ---------------------------------------------------------------------------------------------
// A terminal picture of the weights, after the paper's Figure 4 (each query's uni-grams and
// bi-grams with their predicted weights as bars).

export interface WeightChartQuery {
  qid: string;
  query: string;
  ngrams: MergedNgram[];
}

const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/** A bar of `value / max` of `width` columns, in eighths of a column. */
export function weightBar(value: number, max: number, width: number): string {
  if (!(value > 0) || !(max > 0)) return '';
  const eighths = Math.round((Math.min(value, max) / max) * width * 8);
  return '█'.repeat(Math.floor(eighths / 8)) + EIGHTHS[eighths % 8];
}

/**
 * Uni-grams then bi-grams of every query, one line each: the n-gram as written, a bar, the weight.
 * Bars are scaled per query (its largest weight spans `width` columns): the engine divides a
 * query's weights by their maximum (Terrier's matchop normalisation, README "Scoring"), so only the
 * ratios within one query change its ranking, and that is what the bars show.
 */
export function formatWeightChart(queries: readonly WeightChartQuery[], options: { width?: number; digits?: number } = {}): string {
  const width = options.width ?? 40;
  const digits = options.digits ?? 3;
  const label = (g: MergedNgram) => (g.words.length ? g.words : g.terms).join(' ');
  const labelWidth = Math.max(8, ...queries.flatMap((q) => q.ngrams.map((g) => label(g).length)));
  const lines: string[] = [];
  for (const q of queries) {
    lines.push(`${q.qid}  ${q.query}`);
    if (!q.ngrams.length) {
      lines.push('    (nothing to weigh: every word is a stopword)', '');
      continue;
    }
    const max = Math.max(0, ...q.ngrams.map((g) => g.weight));
    for (const kind of ['unigram', 'bigram'] as const) {
      const grams = q.ngrams.filter((g) => g.kind === kind);
      if (!grams.length) continue;
      lines.push(`  ${kind === 'unigram' ? 'uni-grams' : 'bi-grams'}`);
      for (const g of grams) {
        lines.push(`    ${label(g).padEnd(labelWidth)}  ${weightBar(g.weight, max, width).padEnd(width)}  ${Number(g.weight.toPrecision(digits))}`);
      }
    }
    lines.push('');
  }
  return lines.join('\n');
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
 * The model is called once for all queries (batched); the rest is the engine's runQuery.
 * Throws RangeError for a model with RM3 (§5.3 combines the model with Bo1) and lets the model's
 * WeightModelError through.
 */
export async function rankQueries(reader: IndexReader, queries: readonly QueryToRank[], options: RankQueriesOptions): Promise<RankedQuery[]> {
  const { model, expand, search } = options;
  if (!model) {
    return queries.map((q) => {
      const r = runQuery(reader, q.ast, { ...search, expand });
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
  const inputs = queries.map((q, i): ExpandedModelInput | null => {
    const planned = plans[i];
    if (!planned.ok) return null;
    const text = planned.plan.text;
    if (!expand) return { text, queryEnd: text.length };
    return bo1ModelInput(reader, q.ast, text, expand, search);
  });

  const asked = inputs.filter((x): x is ExpandedModelInput => x !== null);
  // A collection-aware model reads each n-gram's statistics in this index (collection-statistics.ts).
  const statistics = model.readsStatistics ? asked.map((i) => queryStatistics(reader, i.text).ngrams.map((g) => g.stats)) : undefined;
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
      const r = runQuery(reader, q.ast, search);
      return { qid: q.qid, hits: r.hits, warnings: [...r.warnings, refusal], finalAst: q.ast, asWritten: true, refusal };
    }
    let weighted: QueryAst;
    if (planned.plan.flat) {
      const kept = scaleExpansionWeights(restrictBigramsToQuery(weights[i]!, input.queryEnd), input.queryEnd, scale);
      weighted = buildWeightedQueryAst(kept, { digits: options.digits ?? 4 });
    } else {
      weighted = weighInsideStructure(q.ast, planned.plan, weights[i]!, options.digits ?? 4);
    }
    // A query with nothing to weigh (only stopwords) is ranked as written, as `weigh` keeps it.
    const finalAst = weighted.root ? weighted : q.ast;
    const r = runQuery(reader, finalAst, search);
    return {
      qid: q.qid,
      hits: r.hits,
      warnings: prepareQuery(reader, q.ast, search).warnings,
      finalAst,
      asWritten: !weighted.root,
      modelInput: input.text,
    };
  });
}
