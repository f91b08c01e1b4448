/**
 * From predicted n-gram weights to an Indri query AST:
 *   #weight( w1 t1 … wk tk  wb #1(a b) … )
 * Uni-grams become terms, bi-grams ordered windows of size 1 (the engine's #1, which is exactly
 * the bigram statistics the model was trained with). Repeated n-grams are merged by SUMMING their
 * weights: the engine accumulates a concept met twice the same way (query term frequency), and
 * the training loss used the same sum (query term frequency is kept).
 */
import type { QueryAst } from '../../grammar/ast.js';
import type { NgramWeights } from './runtime.js';
import { weighInsideStructure, type WeighPlan } from './structured-weights.js';
import { buildWeightedQueryAst, type MergedNgram } from './weighted-ast.js';

// The #weight AST builder lives in weighted-ast.ts (collection-statistics.ts needs it without the ranking code).
export { buildWeightedQueryAst, mergeNgrams, type MergedNgram, type WeightedQueryOptions } from './weighted-ast.js';

/**
 * The query the model's weights make under the one rule of structured-weights.ts: a flat plan
 * becomes the model's `#weight` of uni-grams and bi-grams, a structured one keeps the user's
 * structure with the weights inside. `weigh`, `search --weights` and the editor all build it here.
 */
export function applyWeights(ast: QueryAst, plan: WeighPlan, weights: NgramWeights, digits = 4): QueryAst {
  return plan.flat ? buildWeightedQueryAst(weights, { digits }) : weighInsideStructure(ast, plan, weights, digits);
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
