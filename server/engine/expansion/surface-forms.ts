/**
 * Words a person can read for analysed terms. The index keeps stems (`superson`, `recoveri`), not
 * the words they came from; a rewrite that adds expansion terms shows, for each stem, the word of
 * the feedback documents' stored text that the analyser turned into it most often (`supersonic`).
 * Only the feedback documents are read: they are where the expansion terms came from, so every
 * stem has a form there, and a few documents cost a few milliseconds.
 */
import type { Analyzer } from '../analysis/analyzer.js';
import type { IndexReader } from '../index/reader.js';

export interface SurfaceForm {
  /** The word to write (lowercased as the analyser sees it), or the stem itself when no word maps back. */
  text: string;
  /**
   * True when `text` must be written raw (Indri `"…"`): the analyser would not turn the word back
   * into the stem (no word of the documents did, or the most frequent one analyses differently
   * as a lone query term), so the stem itself is written and matched unstemmed.
   */
  raw: boolean;
}

/** The stored text of a document, title first, as the indexer reads it. */
function storedText(reader: IndexReader, doc: number): string[] {
  const stored = reader.document(doc);
  return [stored.title, ...Object.values(stored.fields)];
}

/** True when `word`, analysed as a query term, is exactly `stem`. */
export function mapsBackTo(analyzer: Analyzer, word: string, stem: string): boolean {
  const analysed = analyzer.analyzeTerm(word);
  return analysed.length === 1 && analysed[0] === stem;
}

/**
 * For each stem of `stems`, its most frequent word in the documents' stored text (ties: the
 * shorter, then the first in alphabetical order), checked to analyse back to the stem; a stem
 * without such a word is itself, raw.
 */
export function surfaceForms(reader: IndexReader, docs: readonly number[], stems: Iterable<string>): Map<string, SurfaceForm> {
  const wanted = new Set(stems);
  const counts = new Map<string, Map<string, number>>();
  for (const doc of new Set(docs)) {
    for (const text of storedText(reader, doc)) {
      if (!text) continue;
      for (const token of reader.analyzer.analyze(text)) {
        if (!wanted.has(token.term)) continue;
        const word = text.slice(token.start, token.end).toLowerCase();
        let byWord = counts.get(token.term);
        if (!byWord) counts.set(token.term, (byWord = new Map()));
        byWord.set(word, (byWord.get(word) ?? 0) + 1);
      }
    }
  }
  const out = new Map<string, SurfaceForm>();
  for (const stem of wanted) {
    const ranked = [...(counts.get(stem) ?? new Map<string, number>())].sort(
      ([a, ca], [b, cb]) => cb - ca || a.length - b.length || (a < b ? -1 : a > b ? 1 : 0),
    );
    const word = ranked.find(([w]) => mapsBackTo(reader.analyzer, w, stem))?.[0];
    out.set(stem, word !== undefined ? { text: word, raw: false } : { text: stem, raw: !mapsBackTo(reader.analyzer, stem, stem) });
  }
  return out;
}

/**
 * A word for one index term, read from the first `maxDocs` documents of its posting list (the
 * vocabulary completion's insert text): the most frequent word there that analyses back to the term.
 */
export function representativeWord(reader: IndexReader, stem: string, maxDocs = 3): SurfaceForm {
  // A reader's index does not change, so each term's word is read from the stored text once.
  let known = representatives.get(reader);
  if (!known) representatives.set(reader, (known = new Map()));
  const key = `${maxDocs} ${stem}`;
  let form = known.get(key);
  if (!form) {
    const postings = reader.postings(stem);
    const docs = postings ? Array.from(postings.docs.subarray(0, maxDocs)) : [];
    known.set(key, (form = surfaceForms(reader, docs, [stem]).get(stem)!));
  }
  return form;
}

const representatives = new WeakMap<IndexReader, Map<string, SurfaceForm>>();
