/**
 * The in-memory index: the same inversion as the on-disk build (accumulator.ts), held as
 * typed arrays. For tests, small corpora and the other engine parts' fixtures.
 */
import type { AnalyzerProfile } from '../analysis/index.js';
import type { IngestDocument } from '../ingest/types.js';
import { IndexAccumulator, type InvertedIndex } from './accumulator.js';
import type { IndexReader, PostingList, StoredDocument } from './reader.js';
import { docnoOrder, findDocno } from './docno-order.js';
import { lowerBound, SourceIndexReader, type IndexSource } from './source-reader.js';
import { averageLength, ListBlockPostings } from './postings-codec.js';

export interface MemoryIndexOptions {
  profile?: AnalyzerProfile;
}

/**
 * Indexes `docs` in order (doc ids 0..n-1) and returns a reader.
 * Throws on a repeated docno (DuplicateDocnoError).
 */
export function buildMemoryIndex(docs: Iterable<IngestDocument>, options: MemoryIndexOptions = {}): IndexReader {
  const stored: StoredDocument[] = [];
  const acc = new IndexAccumulator(options.profile ?? 'terrier', (doc, s) => (stored[doc] = s));
  for (const doc of docs) acc.add(doc);
  return new SourceIndexReader(memorySource(acc.finish(), stored));
}

/** Async variant for streamed ingest (readCorpus). */
export async function buildMemoryIndexAsync(
  docs: AsyncIterable<IngestDocument> | Iterable<IngestDocument>,
  options: MemoryIndexOptions = {},
): Promise<IndexReader> {
  const stored: StoredDocument[] = [];
  const acc = new IndexAccumulator(options.profile ?? 'terrier', (doc, s) => (stored[doc] = s));
  for await (const doc of docs) acc.add(doc);
  return new SourceIndexReader(memorySource(acc.finish(), stored));
}

export function memorySource(inv: InvertedIndex, stored: StoredDocument[]): IndexSource {
  const { ranks, byDocno } = docnoOrder(inv.docnos);
  return {
    profile: inv.profile,
    fields: inv.fields,
    numDocs: inv.docnos.length,
    totalTokens: inv.totalTokens,
    docLengths: () => inv.docLengths,
    docnoRank: (doc) => ranks[doc]!,
    docno: (doc) => inv.docnos[doc]!,
    docByDocno: (docno) => findDocno(docno, (r) => byDocno[r]!, (d) => inv.docnos[d]!, inv.docnos.length),
    extents(doc) {
      const out: { field: number; begin: number; end: number }[] = [];
      for (let e = inv.extStart[doc]!; e < inv.extStart[doc + 1]!; e++) out.push({ field: inv.extField[e]!, begin: inv.extBegin[e]!, end: inv.extEnd[e]! });
      return out;
    },
    numTerms: inv.terms.length,
    term: (id) => inv.terms[id]!,
    termId(term) {
      const i = lowerBound(inv.terms, term);
      return i < inv.terms.length && inv.terms[i] === term ? i : undefined;
    },
    termStats: (id) => ({ df: inv.df[id]!, cf: inv.cf[id]! }),
    *termsFrom(from) {
      for (let i = lowerBound(inv.terms, from); i < inv.terms.length; i++) yield inv.terms[i]!;
    },
    loadPostings(t: number): PostingList {
      const a = inv.termDocStart[t]!;
      const b = inv.termDocStart[t + 1]!;
      return {
        docs: inv.pDocs.subarray(a, b),
        tfs: inv.pTfs.subarray(a, b),
        posStart: inv.pPosStart.subarray(a, b),
        positions: inv.positions.subarray(inv.termPosStart[t]!, inv.termPosStart[t + 1]!),
      };
    },
    loadBlockPostings(t: number) {
      return new ListBlockPostings(this.loadPostings(t), inv.docLengths, averageLength(inv.docnos.length, inv.totalTokens));
    },
    loadDocVector(doc: number) {
      const a = inv.dvStart[doc]!;
      const b = inv.dvStart[doc + 1]!;
      return { termIds: inv.dvTerms.subarray(a, b), tfs: inv.dvTfs.subarray(a, b) };
    },
    loadDocument(doc: number): StoredDocument {
      const s = stored[doc]!;
      return { docno: s.docno, title: s.title, fields: { ...s.fields } };
    },
  };
}
