/**
 * Query segmentation shared by training-data export and inference: one implementation, so the
 * n-grams the model is trained on are exactly the n-grams it weighs at run time.
 *
 * Words are the analyser's tokens (maximal runs of letters/digits, lowercased, stopped, stemmed).
 * Stopwords are dropped by the engine, so they never become an n-gram (they would get a weight the
 * engine cannot use), but they stay in the text the encoder reads, as context. Bigrams join
 * consecutive analysed tokens, i.e. tokens adjacent after stopping: exactly what the engine's
 * `#1(a b)` window matches (a stopword takes no position, so it does not break a phrase).
 * Order: all uni-grams in query order, then all bi-grams (TW-BERT §3.1).
 */

/** The part of the engine's Analyzer that segmentation needs. */
export interface WordAnalyzer {
  analyze(text: string, firstPosition?: number): { term: string; start: number; end: number }[];
}

export interface QueryWord {
  /** Analysed form (the index term). */
  term: string;
  /** UTF-16 offsets of the surface word in the query text. */
  start: number;
  end: number;
}

export interface Ngram {
  /** 1 or 2 analysed terms. */
  terms: string[];
  /** Indices into `words`. */
  wordIndices: number[];
}

export interface SegmentedQuery {
  text: string;
  words: QueryWord[];
  /** Uni-grams (one per word occurrence, in order) followed by bi-grams. */
  ngrams: Ngram[];
}

export function segmentQuery(text: string, analyzer: WordAnalyzer, options: { bigrams?: boolean } = {}): SegmentedQuery {
  const words: QueryWord[] = analyzer.analyze(text).map((t) => ({ term: t.term, start: t.start, end: t.end }));
  const ngrams: Ngram[] = words.map((w, i) => ({ terms: [w.term], wordIndices: [i] }));
  if (options.bigrams !== false) {
    for (let i = 0; i + 1 < words.length; i++) {
      ngrams.push({ terms: [words[i].term, words[i + 1].term], wordIndices: [i, i + 1] });
    }
  }
  return { text, words, ngrams };
}

/** Code-point offsets (what the `tokenizers` binding reports) to UTF-16 offsets (what JS strings use). */
export function codePointToUtf16Offsets(text: string): Int32Array {
  const map = new Int32Array(text.length + 1);
  let cp = 0;
  let u = 0;
  while (u < text.length) {
    map[cp] = u;
    const code = text.codePointAt(u)!;
    u += code > 0xffff ? 2 : 1;
    cp++;
  }
  map[cp] = u;
  return map.subarray(0, cp + 1);
}

/**
 * For each word, the indices of the wordpieces that overlap its surface span.
 * `tokenOffsets` are UTF-16 [start, end) offsets per token; special tokens have start == end and
 * never match.
 */
export function wordTokenIndices(words: QueryWord[], tokenOffsets: [number, number][]): number[][] {
  return words.map((w) => {
    const out: number[] = [];
    for (let t = 0; t < tokenOffsets.length; t++) {
      const [s, e] = tokenOffsets[t];
      if (e > s && s < w.end && e > w.start) out.push(t);
    }
    return out;
  });
}

/** Token indices of each n-gram: the union of its words' wordpieces, in order. */
export function ngramTokenIndices(query: SegmentedQuery, perWord: number[][]): number[][] {
  return query.ngrams.map((g) => {
    const set = new Set<number>();
    for (const w of g.wordIndices) for (const t of perWord[w]) set.add(t);
    return [...set].sort((a, b) => a - b);
  });
}
