/**
 * The learned surface-form expansion of one query, up to the model (issue 15): the query's plain words
 * (surface-query.ts), a first pass (uniform BM25 of the query as written, top SURFACE_FEEDBACK_DOCS) for
 * the co-occurrence source and the shares, the candidates (engine/expansion/surface-candidates.ts) and
 * each candidate's features (surface-features.ts). The training export and run time both call
 * `queryCandidates`, so the model is trained on the inputs it is run on.
 */
import type { QueryAst } from '../../grammar/ast.js';
import { parseIndri, parseLucene } from '../../grammar/index.js';
import { surfaceCandidates, type SurfaceLexicon, type WordCandidates } from '../engine/expansion/surface-candidates.js';
import type { IndexReader } from '../engine/index/reader.js';
import { search } from '../engine/search.js';
import { surfaceFeatures } from './surface-features.js';
import { expandableWords, roundWeight, surfaceExpandedText, SURFACE_DIGITS, type SurfaceAlternative, type SurfaceQueryForm } from './surface-query.js';

/** First-pass documents read for co-occurrence and the top-k shares. */
export const SURFACE_FEEDBACK_DOCS = 10;

export interface QueryCandidates {
  /** One entry per distinct expandable word (by term), in query order. */
  words: WordCandidates[];
  feedbackDocs: number[];
  /** The feature vector of every candidate, word by word, candidate by candidate. */
  features: number[][];
}

export function queryCandidates(reader: IndexReader, ast: QueryAst, lexicon: SurfaceLexicon): QueryCandidates {
  const seen = new Set<string>();
  const words = expandableWords(ast, reader.analyzer).filter((w) => !seen.has(w.term) && seen.add(w.term));
  const feedbackDocs = ast.root && words.length ? search(reader, ast, { scorer: 'bm25', k: SURFACE_FEEDBACK_DOCS }).hits.map((h) => h.doc) : [];
  const candidates = surfaceCandidates(
    reader,
    words.map((w) => ({ word: w.word, term: w.term })),
    feedbackDocs,
    lexicon,
  );
  const N = reader.stats().numDocs;
  const features = candidates.flatMap((w) => w.candidates.map((c) => surfaceFeatures(w, c, N, words.length)));
  return { words: candidates, feedbackDocs, features };
}

/** The model's weights (one per candidate, in `features` order) as each word's alternatives. */
export function alternativesOf(found: QueryCandidates, weights: ArrayLike<number>): Map<string, SurfaceAlternative[]> {
  const out = new Map<string, SurfaceAlternative[]>();
  let i = 0;
  for (const w of found.words) {
    const list = w.candidates.map((c) => ({ word: c.word, raw: c.raw, weight: weights[i++]!, similarity: c.similarity }));
    out.set(w.term, list.sort(bySuggestionOrder));
  }
  return out;
}

/** One query word's suggestions, best first (what a person reads in the CLI comment lines and the editor's title). */
export interface WordSuggestions {
  word: string;
  term: string;
  /** Where the word is written in the query text (`[start, end)` offsets of each occurrence): where an editor shows it. */
  at: { start: number; end: number }[];
  /** Heaviest first; of equal weights, the closest to the word by word vector first (a fixed-weight model gives all one weight). */
  alternatives: { word: string; term: string; weight: number; sources: string[]; similarity: number }[];
}

export interface LearnedExpansion {
  /** The query with the suggestions in it (surface-query.ts), in `dialect`. */
  text: string;
  dialect: 'indri' | 'lucene';
  /** `text` parsed: what is ranked. */
  ast: QueryAst;
  suggestions: WordSuggestions[];
  feedbackDocs: number[];
  /** Candidates the model weighed (suggested or not): 0 says the index offered none, not that the model refused them. */
  candidates: number;
}

/**
 * The learned expansion of one query: candidates, the model's weight for each, and the query rewritten with
 * the weighed alternatives (weights under the model's minWeight left out). `text` is the query as written.
 */
export async function learnedExpansion(
  reader: IndexReader,
  ast: QueryAst,
  text: string,
  model: { weigh(features: readonly (readonly number[])[]): Promise<Float32Array>; config?: { form?: SurfaceQueryForm } },
  lexicon: SurfaceLexicon,
  digits = SURFACE_DIGITS,
): Promise<LearnedExpansion> {
  const found = queryCandidates(reader, ast, lexicon);
  const weights = await model.weigh(found.features);
  const alternatives = alternativesOf(found, weights);
  // The query form the model was trained for.
  const rewritten = surfaceExpandedText(text, ast, alternatives, reader.analyzer, digits, model.config?.form ?? 'wsyn');
  const parsed = rewritten.dialect === 'lucene' ? parseLucene(rewritten.text).ast : parseIndri(rewritten.text).ast;
  let i = 0;
  const written = expandableWords(ast, reader.analyzer);
  const suggestions = found.words.map((w) => ({
    word: w.word,
    term: w.term,
    at: written.filter((x) => x.term === w.term).map((x) => ({ start: x.node.range.start, end: x.node.range.end })),
    alternatives: w.candidates
      .map((c) => ({ word: c.word, term: c.term, weight: weights[i++]!, sources: c.sources, similarity: c.similarity }))
      .filter((a) => roundWeight(a.weight, digits) > 0)
      .sort(bySuggestionOrder),
  }));
  return { text: rewritten.text, dialect: rewritten.dialect, ast: parsed, suggestions, feedbackDocs: found.feedbackDocs, candidates: found.features.length };
}

/** The order suggestions are shown in: heaviest first, then the closest by word vector, then by word. */
export function bySuggestionOrder(a: { weight: number; similarity: number; word: string }, b: { weight: number; similarity: number; word: string }): number {
  return b.weight - a.weight || b.similarity - a.similarity || (a.word < b.word ? -1 : a.word > b.word ? 1 : 0);
}

/**
 * Why a query's learned expansion has no alternative, in words both front ends show: no word can take one, the
 * index offers no candidate (`problems`: resources that could not be read), or the model weighs every candidate
 * under `minWeight`.
 */
export function whyNoAlternative(x: Pick<LearnedExpansion, 'suggestions' | 'candidates'>, minWeight: number, problems: readonly string[] = []): string {
  if (x.suggestions.length === 0) {
    return 'none of its words can take alternatives (only plain words over the whole document do; words in windows, phrases, synonym sets, fields or quotes keep their meaning)';
  }
  if (x.candidates === 0) return `the index holds no variant, synonym or neighbour of its words${problems.length ? ` (${problems.join('; ')})` : ''}`;
  return `it weighs each of the ${x.candidates} candidate${x.candidates === 1 ? '' : 's'} of its words below ${minWeight}`;
}
