/**
 * The index browser (what Luke shows for a Lucene index): the most frequent terms, one term's
 * postings, one document's stored fields and term vector, and the analyser applied to a text with
 * the stopwords it drops. Pure reads of an IndexReader; every list is capped and says when it was
 * cut, so no answer grows with the collection.
 */
import type { Analyzer } from '../analysis/analyzer.js';
import { forEachToken } from '../analysis/tokenizer.js';
import type { IndexReader } from './reader.js';

/** Caps on what one answer may hold. */
export const BROWSE_LIMITS = { topTerms: 10_000, postingsDocs: 10_000, positions: 1_000, vectorTerms: 100_000 } as const;

/** A bad argument (a cap out of range): one line for the user. */
export class BrowseError extends Error {}

function checkCount(name: string, value: number, max: number): number {
  if (!Number.isInteger(value) || value < 1 || value > max) throw new BrowseError(`${name} must be an integer in 1..${max}, got ${value}`);
  return value;
}

export interface TermFrequency {
  term: string;
  df: number;
  cf: number;
}

export interface TopTerms {
  /** Vocabulary terms considered (all, or those with the prefix). */
  matching: number;
  terms: TermFrequency[];
}

/** The `top` terms with the highest document frequency (ties: higher cf, then the term's order), optionally of a prefix. */
export function topTermsByDf(reader: IndexReader, options: { top: number; prefix?: string }): TopTerms {
  const top = checkCount('top', options.top, BROWSE_LIMITS.topTerms);
  const prefix = options.prefix?.toLowerCase() || undefined;
  const better = (a: TermFrequency, b: TermFrequency) => b.df - a.df || b.cf - a.cf || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0);
  // A bounded buffer, sorted when it doubles: O(V log top) time, O(top) memory, for any vocabulary.
  let kept: TermFrequency[] = [];
  let matching = 0;
  for (const term of reader.vocabulary(prefix)) {
    const s = reader.termStats(term);
    if (!s) continue;
    matching++;
    kept.push({ term, df: s.df, cf: s.cf });
    if (kept.length >= 2 * top) kept = kept.sort(better).slice(0, top);
  }
  return { matching, terms: kept.sort(better).slice(0, top) };
}

export interface TermPosting {
  docno: string;
  tf: number;
  /** Token positions (after stopping), the first `maxPositions`. */
  positions: number[];
  /** True when the document has more positions than listed. */
  positionsCut: boolean;
}

export interface TermPostings {
  term: string;
  df: number;
  cf: number;
  /** The first `maxDocs` postings, in index (document) order. */
  postings: TermPosting[];
  /** True when df > the postings listed. */
  cut: boolean;
}

/** The postings of an analysed term, or null when the index does not hold it. */
export function termPostings(reader: IndexReader, term: string, options: { maxDocs: number; maxPositions: number }): TermPostings | null {
  const maxDocs = checkCount('maxDocs', options.maxDocs, BROWSE_LIMITS.postingsDocs);
  const maxPositions = checkCount('maxPositions', options.maxPositions, BROWSE_LIMITS.positions);
  const list = reader.postings(term);
  const stats = reader.termStats(term);
  if (!list || !stats) return null;
  const postings: TermPosting[] = [];
  for (let i = 0; i < list.docs.length && i < maxDocs; i++) {
    const tf = list.tfs[i]!;
    const from = list.posStart[i]!;
    postings.push({ docno: reader.docno(list.docs[i]!), tf, positions: Array.from(list.positions.subarray(from, from + Math.min(tf, maxPositions))), positionsCut: tf > maxPositions });
  }
  return { term, df: stats.df, cf: stats.cf, postings, cut: list.docs.length > postings.length };
}

export interface DocumentView {
  docno: string;
  /** Internal document number (index order). */
  doc: number;
  title: string;
  /** Stored fields as ingested. */
  fields: Record<string, string>;
  /** Indexed tokens (after stopping). */
  length: number;
  /** Indexed fields with their token extents [begin, end). */
  extents: Record<string, [number, number][]>;
  /** The term vector: every analysed term with its tf and positions, most frequent first (then by term). */
  terms: { term: string; tf: number; positions: number[] }[];
  /** Distinct terms in the document (the vector may be cut at maxTerms). */
  distinctTerms: number;
}

function positionsIn(reader: IndexReader, term: string, doc: number): number[] {
  const list = reader.postings(term);
  if (!list) return [];
  // Postings are in document order: binary search for the document.
  let lo = 0;
  let hi = list.docs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const d = list.docs[mid]!;
    if (d === doc) return Array.from(list.positions.subarray(list.posStart[mid]!, list.posStart[mid]! + list.tfs[mid]!));
    if (d < doc) lo = mid + 1;
    else hi = mid - 1;
  }
  return [];
}

/** A document by its docno, or null when the index has none. */
export function documentView(reader: IndexReader, docno: string, options: { maxTerms: number }): DocumentView | null {
  const maxTerms = checkCount('maxTerms', options.maxTerms, BROWSE_LIMITS.vectorTerms);
  const doc = reader.docByDocno(docno);
  if (doc === undefined) return null;
  const stored = reader.document(doc);
  const vector = reader.docVector(doc);
  const order = vector.terms.map((term, i) => ({ term, tf: vector.tfs[i]! }));
  order.sort((a, b) => b.tf - a.tf || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));
  const extents: Record<string, [number, number][]> = {};
  for (const field of reader.fields()) {
    const e = reader.fieldExtents(doc, field);
    if (e.length) extents[field] = e.map((x) => [x.begin, x.end]);
  }
  return {
    docno,
    doc,
    title: stored.title,
    fields: stored.fields,
    length: reader.docLength(doc),
    extents,
    terms: order.slice(0, maxTerms).map((t) => ({ ...t, positions: positionsIn(reader, t.term, doc) })),
    distinctTerms: order.length,
  };
}

export interface AnalyzedWord {
  /** The word as written, and its UTF-16 offsets in the text. */
  surface: string;
  start: number;
  end: number;
  /** The indexed form (lowercased, stemmed), or null for a stopword. */
  term: string | null;
  stopword: boolean;
  /** Token position (stopwords take none), or null for a stopword. */
  position: number | null;
  /** The term's statistics in the index, when one is given and holds it (null: not indexed). */
  df?: number | null;
  cf?: number | null;
}

/** Every word of `text` as the analyser sees it, stopwords included; with a reader, each term's df and cf. */
export function analyzeForDisplay(analyzer: Analyzer, text: string, reader?: IndexReader): AnalyzedWord[] {
  const words: AnalyzedWord[] = [];
  let position = 0;
  forEachToken(text, (surface, start, end) => {
    // One tokeniser match analyses to at most one term (the same call the query side makes).
    const term = analyzer.analyzeTerm(surface)[0] ?? null;
    const word: AnalyzedWord = { surface, start, end, term, stopword: term === null, position: term === null ? null : position++ };
    if (reader) {
      const s = term === null ? undefined : reader.termStats(term);
      word.df = s?.df ?? null;
      word.cf = s?.cf ?? null;
    }
    words.push(word);
  });
  return words;
}
