/**
 * Candidate surface forms for each query word (issue 15 §1, after CSurF: Sparse Lexical Retrieval through
 * Contextualized Surface Forms, ICTIR 2023): other words the user's own collection uses where the query
 * says this one. Four sources, each checked against this index so that every candidate is an indexed
 * term (df > 0), never a word the collection lacks:
 * - `variant`: morphological variants. In a stemmed index the variants Porter merges are the query term
 *   itself, so the useful ones are those it splits (analysis → analysi, analyz, analyt): index terms
 *   that share the query term's stem but its last two letters (at least 5 letters) and add at most 4. In an index of terms as written, the variants Porter merges (terms whose Porter
 *   stem is the query word's).
 * - `wordnet`: WordNet synonyms (the other lemmas of the word's most frequent sense in each part of speech,
 *   where the query's other words point to that sense: the lexicon chooses).
 *   A variant or synonym whose word vector is far from the query word's, or that has none, is left out
 *   (MIN_ALTERNATIVE_SIMILARITY, `related`).
 * - `embedding`: the word's nearest words by word vector (GloVe) in the whole vocabulary that this index holds.
 * - `cooccurrence`: terms that occur with the query word in the first-pass top k documents, ranked by
 *   the share of those documents that hold both, times idf.
 * The lexical resources are passed in (`SurfaceLexicon`), so the engine reads no model files; without
 * one, its source is skipped (the caller says why).
 */
import type { IndexReader } from '../index/reader.js';
import { porterStem } from '../analysis/porter.js';
import { mapsBackTo, representativeWord, surfaceForms } from './surface-forms.js';

export type CandidateSource = 'variant' | 'wordnet' | 'embedding' | 'cooccurrence';
export const CANDIDATE_SOURCES: readonly CandidateSource[] = ['variant', 'wordnet', 'embedding', 'cooccurrence'];

/** The lexical resources the candidates read; each method absent = that source is off. */
export interface SurfaceLexicon {
  /** WordNet synonyms of a word in the senses that fit a query whose other words are `context`, most frequent sense first. */
  synonyms?(word: string, context: readonly string[]): readonly string[];
  /** The words nearest to `word` by word vector, best first, among those `accept` keeps. */
  neighbours?(word: string, k: number, accept: (word: string) => boolean): readonly { word: string; similarity: number }[];
  /** Cosine similarity of two words' vectors, undefined when one has none. */
  similarity?(a: string, b: string): number | undefined;
}

/** A word of the query that expansion may give alternatives to. */
export interface QueryWord {
  /** As written, lowercased. */
  word: string;
  /** Its index term (the analyser's output). */
  term: string;
}

export interface SurfaceCandidate {
  /** The index term (df > 0 in this index). */
  term: string;
  /** The word to write for it (a real word: the resource's word, or the documents' most frequent form). */
  word: string;
  /** True when `word` must be written raw (it does not analyse back to `term`). */
  raw: boolean;
  sources: CandidateSource[];
  df: number;
  cf: number;
  /** Cosine similarity of the query word's and the candidate's word vectors (0 when either has none). */
  similarity: number;
  /** Mean similarity of the candidate to the query's other words (0 when none has a vector): the query's context. */
  contextSimilarity: number;
  /** Share of the first-pass top k documents that contain the candidate. */
  topShare: number;
  /** Share of the first-pass top k documents that contain both the query word and the candidate. */
  coShare: number;
}

export interface WordCandidates extends QueryWord {
  df: number;
  /** Share of the first-pass top k documents that contain the query word. */
  topShare: number;
  candidates: SurfaceCandidate[];
}

export interface SurfaceCandidateOptions {
  /** Per source and query word (defaults: variant 3, wordnet 5, embedding 5, cooccurrence 3). */
  limits?: Partial<Record<CandidateSource, number>>;
}

const DEFAULT_LIMITS: Record<CandidateSource, number> = { variant: 3, wordnet: 5, embedding: 5, cooccurrence: 3 };

/** Letters only, 3 or more: what a person reads as a word (no numbers, codes or fragments). */
const WORDLIKE = /^\p{L}{3,}$/u;

export function surfaceCandidates(
  reader: IndexReader,
  words: readonly QueryWord[],
  feedbackDocs: readonly number[],
  lexicon: SurfaceLexicon,
  options: SurfaceCandidateOptions = {},
): WordCandidates[] {
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const queryTerms = new Set(words.map((w) => w.term));
  const { numDocs } = reader.stats();
  const docTerms = [...new Set(feedbackDocs)].map((d) => new Set(reader.docVector(d).terms));
  const k = docTerms.length;
  const share = (pred: (terms: Set<string>) => boolean) => (k ? docTerms.filter(pred).length / k : 0);
  const usable = (term: string | undefined): term is string =>
    term !== undefined && !queryTerms.has(term) && (reader.termStats(term)?.df ?? 0) > 0;

  // Co-occurrence candidates' words come from the feedback documents' text, read once for all words.
  const coByWord = words.map((w) => cooccurring(w.term, docTerms, queryTerms, numDocs, reader, limits.cooccurrence));
  const coForms = surfaceForms(reader, [...new Set(feedbackDocs)], coByWord.flat());

  return words.map((qw, wi) => {
    const found = new Map<string, { word: string; raw: boolean; sources: CandidateSource[] }>();
    const add = (term: string, word: string, raw: boolean, source: CandidateSource) => {
      const have = found.get(term);
      if (have) {
        if (!have.sources.includes(source)) have.sources.push(source);
      } else {
        found.set(term, { word, raw, sources: [source] });
      }
    };
    // A resource word counts only when it is one index term of its own.
    const termOf = (word: string): string | undefined => {
      const analysed = reader.analyzer.analyzeTerm(word);
      return analysed.length === 1 ? analysed[0] : undefined;
    };

    // A spelling or a sense the word's vector says is unrelated is no alternative (`related`).
    let kept = 0;
    for (const v of variants(reader, qw, limits.variant * 3)) {
      if (kept >= limits.variant) break;
      if (!usable(v.term) || !related(lexicon, qw.word, v.word)) continue;
      add(v.term, v.word, v.raw, 'variant');
      kept++;
    }
    const others = words.filter((o) => o.term !== qw.term).map((o) => o.word);
    if (lexicon.synonyms && limits.wordnet > 0) {
      let n = 0;
      for (const s of lexicon.synonyms(qw.word, others)) {
        if (n >= limits.wordnet) break;
        const term = WORDLIKE.test(s) ? termOf(s) : undefined;
        if (term === qw.term || !usable(term) || !related(lexicon, qw.word, s)) continue;
        add(term, s, false, 'wordnet');
        n++;
      }
    }
    if (lexicon.neighbours && limits.embedding > 0) {
      const accept = (w: string) => {
        const term = WORDLIKE.test(w) ? termOf(w) : undefined;
        return term !== qw.term && usable(term);
      };
      for (const nb of lexicon.neighbours(qw.word, limits.embedding, accept)) add(termOf(nb.word)!, nb.word, false, 'embedding');
    }
    for (const term of coByWord[wi]!) {
      const form = coForms.get(term)!;
      add(term, form.text, form.raw, 'cooccurrence');
    }

    const candidates = [...found].map(([term, f]): SurfaceCandidate => {
      const stats = reader.termStats(term)!;
      const sims = others.map((o) => lexicon.similarity?.(o, f.word)).filter((s): s is number => s !== undefined);
      return {
        term,
        word: f.word,
        raw: f.raw,
        sources: f.sources,
        df: stats.df,
        cf: stats.cf,
        similarity: lexicon.similarity?.(qw.word, f.word) ?? 0,
        contextSimilarity: sims.length ? sims.reduce((a, b) => a + b, 0) / sims.length : 0,
        topShare: share((t) => t.has(term)),
        coShare: share((t) => t.has(term) && t.has(qw.term)),
      };
    });
    return { ...qw, df: reader.termStats(qw.term)?.df ?? 0, topShare: share((t) => t.has(qw.term)), candidates };
  });
}

/**
 * The least vector similarity of a variant or a WordNet synonym to the query word. The stem-prefix rule finds
 * `percentage` for `perception`, and WordNet's third sense of `dome` is `bean`; their vectors are far from the
 * word's (cosine ≈ 0.1), while true variants and the right sense are near (analysis/analyze, results/outcome).
 * Set once, by that reading of GloVe-100d cosines, not fitted to any measure.
 */
export const MIN_ALTERNATIVE_SIMILARITY = 0.4;

/**
 * True when `candidate` may stand for `word`: their vectors are near. When vectors are loaded, a word without
 * one is no alternative: the prefix rule's finds without a vector were mostly fragments and other concepts
 * (syndrome → syndro, cellulite → cellulose, active → activin; 22 of 25 rejected by a reader). Without
 * vectors at all there is nothing to judge by, and every candidate stays.
 */
function related(lexicon: SurfaceLexicon, word: string, candidate: string): boolean {
  if (!lexicon.similarity) return true;
  const s = lexicon.similarity(word, candidate);
  return s !== undefined && s >= MIN_ALTERNATIVE_SIMILARITY;
}

/** Morphological variants of one query word (see the header), most frequent first. */
function variants(reader: IndexReader, qw: QueryWord, limit: number): { term: string; word: string; raw: boolean }[] {
  if (limit <= 0) return [];
  const out: { term: string; word: string; raw: boolean; df: number }[] = [];
  if (reader.content?.preTokenised) {
    // Terms as written: the forms Porter would merge with the query word.
    const stem = porterStem(qw.word);
    if (stem.length < 3) return [];
    for (const t of reader.vocabulary(stem.slice(0, 3))) {
      if (t !== qw.term && WORDLIKE.test(t) && porterStem(t) === stem) out.push({ term: t, word: t, raw: false, df: reader.termStats(t)?.df ?? 0 });
    }
  } else {
    const prefix = qw.term.slice(0, Math.max(5, qw.term.length - 2));
    if (prefix.length < 5 || !WORDLIKE.test(qw.term)) return [];
    for (const t of reader.vocabulary(prefix)) {
      if (t === qw.term || !WORDLIKE.test(t) || t.length - prefix.length > 4) continue;
      out.push({ term: t, word: t, raw: false, df: reader.termStats(t)?.df ?? 0 });
    }
    out.sort((a, b) => b.df - a.df || (a.term < b.term ? -1 : 1));
    out.splice(limit);
    // The stem is not a word: write the word the documents use for it (a few postings' stored text).
    for (const v of out) {
      const form = representativeWord(reader, v.term);
      v.word = form.text;
      v.raw = form.raw || !mapsBackTo(reader.analyzer, form.text, v.term);
    }
  }
  return out.sort((a, b) => b.df - a.df || (a.term < b.term ? -1 : 1)).slice(0, limit);
}

/** Terms found with `term` in most of the first-pass documents that hold it, weighted by idf. */
function cooccurring(
  term: string,
  docTerms: readonly Set<string>[],
  queryTerms: ReadonlySet<string>,
  numDocs: number,
  reader: IndexReader,
  limit: number,
): string[] {
  if (limit <= 0) return [];
  const withWord = docTerms.filter((t) => t.has(term));
  if (withWord.length < 2) return [];
  const counts = new Map<string, number>();
  for (const terms of withWord) for (const t of terms) if (!queryTerms.has(t) && WORDLIKE.test(t)) counts.set(t, (counts.get(t) ?? 0) + 1);
  const scored: { term: string; score: number }[] = [];
  for (const [t, n] of counts) {
    if (n < 2) continue;
    const df = reader.termStats(t)?.df ?? 0;
    if (df <= 0) continue;
    scored.push({ term: t, score: (n / docTerms.length) * Math.log(numDocs / df) });
  }
  scored.sort((a, b) => b.score - a.score || (a.term < b.term ? -1 : 1));
  return scored.slice(0, limit).map((s) => s.term);
}
