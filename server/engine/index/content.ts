/**
 * What an index holds beyond the format's common layout (docs/INDEX_FORMAT.md "What the postings
 * hold"): term frequencies with positions (a corpus indexed here), or integer impacts without
 * positions (Anserini JSON vectors), possibly without stored text (a CIFF import). Recorded in
 * meta.bin as optional keys, absent for an ordinary index, so every format-3 text index reads as
 * before. Scoring checks it (a BM25 score of impacts, or a phrase over no positions, would be a
 * silent wrong answer) and refuses with the reasons given by `contentMismatch`.
 */
export { PRE_TOKENISED_PROFILE } from '../analysis/pretokenised.js';

export interface IndexContent {
  /** `frequencies`: a posting's tf slot counts occurrences; `impacts`: it holds the term's integer impact. */
  postings: 'frequencies' | 'impacts';
  /** Whether postings carry positions (phrases and windows need them). */
  positions: boolean;
  /** Terms were taken as written (analyser "none / pre-tokenised"), not analysed by a profile. */
  preTokenised: boolean;
  /** Whether store.bin holds each document's text (snippets); false for CIFF imports. */
  storedText: boolean;
  /** Where the index came from: `corpus` (querylens index), `jsonvector`, `ciff`. */
  source: 'corpus' | 'jsonvector' | 'ciff';
  /**
   * Where a document's term vector (Bo1's feedback statistics, the document view) comes from:
   * `text`, its stored text analysed again with the index's profile, which gives the counts the
   * postings were built from, so a corpus index that keeps its text keeps no second copy;
   * `stored`, direct.bin (impacts, CIFF imports and `--no-store` indexes, which have no text to
   * analyse).
   */
  docVectors: 'text' | 'stored';
  /**
   * Impacts written as term frequencies by a document model (DeepCT-Index's tf′, server/model/deepct-index.ts):
   * BM25 may read each impact as the term's count (a document's length is the sum of its impacts), with the k1
   * and b chosen for the index. Absent: impacts are scores, ranked by the impact scorer only.
   */
  tfImpacts?: { k1: number; b: number };
}

/** The meta.bin keys (all absent for an ordinary index). */
export interface IndexContentMeta {
  postings?: 'impacts';
  positions?: false;
  analyser?: 'none';
  storedText?: false;
  source?: 'jsonvector' | 'ciff';
  docVectors?: 'stored';
  tfImpacts?: { k1: number; b: number };
}

export const ORDINARY_CONTENT: Readonly<IndexContent> = { postings: 'frequencies', positions: true, preTokenised: false, storedText: true, source: 'corpus', docVectors: 'text' };

export function contentFromMeta(meta: IndexContentMeta): IndexContent {
  return {
    postings: meta.postings === 'impacts' ? 'impacts' : 'frequencies',
    positions: meta.positions !== false,
    preTokenised: meta.analyser === 'none',
    storedText: meta.storedText !== false,
    source: meta.source ?? 'corpus',
    docVectors: meta.docVectors ?? 'text',
    ...(meta.postings === 'impacts' && meta.tfImpacts ? { tfImpacts: { k1: meta.tfImpacts.k1, b: meta.tfImpacts.b } } : {}),
  };
}

export function contentMeta(c: IndexContent): IndexContentMeta {
  return {
    ...(c.postings === 'impacts' ? { postings: 'impacts' as const } : {}),
    ...(c.positions ? {} : { positions: false as const }),
    ...(c.preTokenised ? { analyser: 'none' as const } : {}),
    ...(c.storedText ? {} : { storedText: false as const }),
    ...(c.source !== 'corpus' ? { source: c.source } : {}),
    ...(c.docVectors === 'stored' ? { docVectors: 'stored' as const } : {}),
    ...(c.postings === 'impacts' && c.tfImpacts ? { tfImpacts: { k1: c.tfImpacts.k1, b: c.tfImpacts.b } } : {}),
  };
}

/** An index's content; readers that do not say (the in-memory index) hold an ordinary one. */
export function contentOf(reader: { readonly content?: IndexContent }): IndexContent {
  return reader.content ?? ORDINARY_CONTENT;
}
