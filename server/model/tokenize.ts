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
