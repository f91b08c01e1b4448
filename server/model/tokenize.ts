/**
 * WordPiece tokenisation with the HF `tokenizers` binding (model/artifacts/tokenizer.json), and the
 * encoder inputs for one query: token ids plus the n-gram pooling mask rows.
 */
import { createRequire } from 'node:module';
import { codePointToUtf16Offsets, ngramTokenIndices, wordTokenIndices, type SegmentedQuery } from './segment.js';

// The binding is CommonJS and its index.d.ts does not describe it faithfully; keep a narrow local type.
export interface HfEncoding {
  getIds(): number[];
  getOffsets(): number[][];
}
export interface HfTokenizer {
  encode(text: string, pair?: string | null, options?: { addSpecialTokens?: boolean }): Promise<HfEncoding>;
  setTruncation(maxLength: number): void;
  disableTruncation(): void;
  tokenToId(token: string): number | null;
  getVocabSize(withAddedTokens?: boolean): number;
}

const require = createRequire(import.meta.url);

export function loadTokenizer(file: string): HfTokenizer {
  const { Tokenizer } = require('tokenizers') as { Tokenizer: { fromFile(f: string): HfTokenizer } };
  return Tokenizer.fromFile(file);
}

export interface EncodedQuery {
  ids: number[];
  /** Token indices pooled for each n-gram (same order as query.ngrams); empty when truncated away. */
  ngramTokens: number[][];
}

/** One encoder input of a query: `[CLS] pieces [SEP]` of at most maxTokens ids, and the n-grams it weighs. */
export interface EncodedWindow {
  ids: number[];
  /** Indices into the query's n-grams (SegmentedQuery.ngrams) that this window weighs. */
  ngrams: number[];
  /** For each of `ngrams`, the token indices (into `ids`) pooled for it. */
  ngramTokens: number[][];
}

/**
 * Encodes a query for the model so that every n-gram is read: a query that fits the encoder's window
 * is one `[CLS] pieces [SEP]` input (exactly encodeQuery's); a longer one is cut into overlapping
 * windows of maxTokens − 2 pieces, each starting half a window after the previous one (the last
 * ending at the query's end), and each n-gram is weighed in the window where it sits furthest from
 * either edge, so it is read with as much context on both sides as the encoder can take. An n-gram
 * longer than any window (a pathological run of pieces) is pooled over its pieces inside the window
 * that holds most of them. No n-gram is left without a model weight.
 */
export async function encodeQueryWindows(tokenizer: HfTokenizer, query: SegmentedQuery, maxTokens: number): Promise<EncodedWindow[]> {
  if (!(maxTokens >= 3)) throw new RangeError(`maxTokens must be at least 3, got ${maxTokens}`);
  const enc = await tokenizer.encode(query.text, null, { addSpecialTokens: true });
  const ids = enc.getIds();
  const cpToU16 = codePointToUtf16Offsets(query.text);
  const offsets = enc.getOffsets().map(([s, e]) => [cpToU16[s] ?? query.text.length, cpToU16[e] ?? query.text.length] as [number, number]);
  const all = query.ngrams.map((_g, i) => i);
  if (ids.length <= maxTokens) {
    return [{ ids, ngrams: all, ngramTokens: ngramTokenIndices(query, wordTokenIndices(query.words, offsets)) }];
  }
  // Pieces without [CLS] and [SEP], indexed from 0.
  const cls = ids[0];
  const sep = ids[ids.length - 1];
  const pieces = ids.slice(1, -1);
  const pieceNgrams = ngramTokenIndices(query, wordTokenIndices(query.words, offsets.slice(1, -1)));
  const width = maxTokens - 2;
  const stride = Math.max(1, Math.floor(width / 2));
  const starts: number[] = [];
  for (let s = 0; s + width < pieces.length; s += stride) starts.push(s);
  starts.push(pieces.length - width);
  const windows: EncodedWindow[] = starts.map((s) => ({ ids: [cls, ...pieces.slice(s, s + width), sep], ngrams: [], ngramTokens: [] }));
  pieceNgrams.forEach((toks, g) => {
    let best = -1;
    let bestScore = -Infinity;
    starts.forEach((s, w) => {
      const inside = toks.filter((t) => t >= s && t < s + width);
      // Whole n-grams first (by their distance from the nearer edge), then the most pieces inside.
      const score =
        inside.length === toks.length && toks.length > 0
          ? Math.min(toks[0] - s, s + width - 1 - toks[toks.length - 1])
          : -width - 1 + inside.length / Math.max(1, toks.length);
      if (score > bestScore) {
        best = w;
        bestScore = score;
      }
    });
    const s = starts[best];
    windows[best].ngrams.push(g);
    windows[best].ngramTokens.push(toks.filter((t) => t >= s && t < s + width).map((t) => t - s + 1));
  });
  return windows;
}

/**
 * Encodes a segmented query as [CLS] pieces [SEP], truncated to `maxTokens` (the tokenizer object
 * must have no truncation set; truncation here keeps [SEP] last).
 */
export async function encodeQuery(tokenizer: HfTokenizer, query: SegmentedQuery, maxTokens: number): Promise<EncodedQuery> {
  const enc = await tokenizer.encode(query.text, null, { addSpecialTokens: true });
  let ids = enc.getIds();
  const cpToU16 = codePointToUtf16Offsets(query.text);
  let offsets = enc.getOffsets().map(([s, e]) => [cpToU16[s] ?? query.text.length, cpToU16[e] ?? query.text.length] as [number, number]);
  if (ids.length > maxTokens) {
    const sep = ids[ids.length - 1];
    ids = [...ids.slice(0, maxTokens - 1), sep];
    offsets = [...offsets.slice(0, maxTokens - 1), [0, 0]];
  }
  const perWord = wordTokenIndices(query.words, offsets);
  return { ids, ngramTokens: ngramTokenIndices(query, perWord) };
}
