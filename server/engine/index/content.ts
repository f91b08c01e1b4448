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
}

/** The meta.bin keys (all absent for an ordinary index). */
export interface IndexContentMeta {
  postings?: 'impacts';
  positions?: false;
  analyser?: 'none';
  storedText?: false;
  source?: 'jsonvector' | 'ciff';
}

export const ORDINARY_CONTENT: Readonly<IndexContent> = { postings: 'frequencies', positions: true, preTokenised: false, storedText: true, source: 'corpus' };

export function contentFromMeta(meta: IndexContentMeta): IndexContent {
  return {
    postings: meta.postings === 'impacts' ? 'impacts' : 'frequencies',
    positions: meta.positions !== false,
    preTokenised: meta.analyser === 'none',
    storedText: meta.storedText !== false,
    source: meta.source ?? 'corpus',
  };
}

export function contentMeta(c: IndexContent): IndexContentMeta {
  return {
    ...(c.postings === 'impacts' ? { postings: 'impacts' as const } : {}),
    ...(c.positions ? {} : { positions: false as const }),
    ...(c.preTokenised ? { analyser: 'none' as const } : {}),
    ...(c.storedText ? {} : { storedText: false as const }),
    ...(c.source !== 'corpus' ? { source: c.source } : {}),
  };
}

/** An index's content; readers that do not say (the in-memory index) hold an ordinary one. */
export function contentOf(reader: { readonly content?: IndexContent }): IndexContent {
  return reader.content ?? ORDINARY_CONTENT;
}
