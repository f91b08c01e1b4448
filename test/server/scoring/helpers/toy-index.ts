/**
 * A tiny IndexReader test double: lowercase alphanumeric tokens, a three-word stoplist, no
 * stemming, fields concatenated in the given order (title first). Only for unit tests of the
 * scorers that must not depend on the real analyser; the differential and golden tests use
 * the real memory index.
 */
import { docnoOrder } from '../../../../server/engine/index/docno-order.js';
import type { Analyzer, AnalyzedToken } from '../../../../server/engine/analysis/analyzer.js';
import type { Extent, IndexReader, PostingList, StoredDocument, TermStats } from '../../../../server/engine/index/reader.js';
import { ListBlockPostings } from '../../../../server/engine/index/postings-codec.js';

const STOP = new Set(['the', 'a', 'of']);

export const toyAnalyzer: Analyzer = {
  profile: 'toy',
  analyze(text: string, firstPosition = 0): AnalyzedToken[] {
    const out: AnalyzedToken[] = [];
    let pos = firstPosition;
    for (const m of text.matchAll(/[A-Za-z0-9]+/g)) {
      const term = m[0].toLowerCase();
      if (STOP.has(term)) continue;
      out.push({ term, position: pos++, start: m.index!, end: m.index! + m[0].length });
    }
    return out;
  },
  analyzeTerm(term: string): string[] {
    return this.analyze(term).map((t) => t.term);
  },
  isStopword(word: string): boolean {
    return STOP.has(word.toLowerCase());
  },
};

export interface ToyDoc {
  docno: string;
  fields: Record<string, string>;
}

export function buildToyIndex(docs: ToyDoc[]): IndexReader {
  const fieldNames: string[] = [];
  for (const d of docs) for (const f of Object.keys(d.fields)) if (!fieldNames.includes(f)) fieldNames.push(f);
  fieldNames.sort((a, b) => (a === 'title' ? -1 : b === 'title' ? 1 : a < b ? -1 : a > b ? 1 : 0));
  const lengths: number[] = [];
  const extents: Map<string, Extent[]>[] = [];
  const occ = new Map<string, Map<number, number[]>>();
  docs.forEach((d, doc) => {
    let pos = 0;
    const ex = new Map<string, Extent[]>();
    for (const f of fieldNames) {
      const text = d.fields[f];
      if (text === undefined) continue;
      const toks = toyAnalyzer.analyze(text, pos);
      if (toks.length) ex.set(f, [{ begin: pos, end: pos + toks.length }]);
      for (const t of toks) {
        let byDoc = occ.get(t.term);
        if (!byDoc) occ.set(t.term, (byDoc = new Map()));
        let ps = byDoc.get(doc);
        if (!ps) byDoc.set(doc, (ps = []));
        ps.push(t.position);
      }
      pos += toks.length;
    }
    lengths.push(pos);
    extents.push(ex);
  });
  const postings = new Map<string, PostingList>();
  for (const [term, byDoc] of occ) {
    const ds = [...byDoc.keys()].sort((a, b) => a - b);
    const positions: number[] = [];
    const posStart: number[] = [];
    for (const d of ds) {
      posStart.push(positions.length);
      positions.push(...byDoc.get(d)!);
    }
    postings.set(term, {
      docs: Int32Array.from(ds),
      tfs: Int32Array.from(ds.map((d) => byDoc.get(d)!.length)),
      posStart: Int32Array.from(posStart),
      positions: Int32Array.from(positions),
    });
  }
  const vocab = [...postings.keys()].sort();
  const { ranks } = docnoOrder(docs.map((d) => d.docno));
  const total = lengths.reduce((a, b) => a + b, 0);
  return {
    analyzer: toyAnalyzer,
    profile: 'toy',
    stats: () => ({ numDocs: docs.length, totalTokens: total, avgDocLength: docs.length ? total / docs.length : 0 }),
    fields: () => fieldNames,
    docno: (doc) => docs[doc]!.docno,
    docnoRank: (doc) => ranks[doc]!,
    docByDocno: (docno) => {
      const i = docs.findIndex((d) => d.docno === docno);
      return i < 0 ? undefined : i;
    },
    docLength: (doc) => lengths[doc]!,
    docLengthTable: () => Int32Array.from(lengths),
    fieldExtents: (doc, field) => extents[doc]?.get(field) ?? [],
    termStats: (term): TermStats | undefined => {
      const p = postings.get(term);
      if (!p) return undefined;
      return { df: p.docs.length, cf: p.tfs.reduce((a, b) => a + b, 0) };
    },
    postings: (term) => postings.get(term),
    postingBlocks: (term) => {
      const p = postings.get(term);
      return p && new ListBlockPostings(p, lengths);
    },
    vocabulary: (prefix = '') => vocab.filter((t) => t.startsWith(prefix)),
    vocabularySize: () => vocab.length,
    docVector: (doc) => {
      const terms: string[] = [];
      const tfs: number[] = [];
      for (const [t, byDoc] of occ) {
        const ps = byDoc.get(doc);
        if (ps) {
          terms.push(t);
          tfs.push(ps.length);
        }
      }
      return { terms, tfs: Int32Array.from(tfs) };
    },
    document: (doc): StoredDocument => ({ docno: docs[doc]!.docno, title: docs[doc]!.fields.title ?? '', fields: docs[doc]!.fields }),
  };
}
