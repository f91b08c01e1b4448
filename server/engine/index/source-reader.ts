/**
 * One IndexReader implementation for both the in-memory and the on-disk index: they differ
 * only in where postings, document vectors and stored documents come from (an
 * IndexSource), so that they cannot disagree on anything else.
 */
import { createAnalyzer, type AnalyzerProfile } from '../analysis/index.js';
import type { Analyzer } from '../analysis/analyzer.js';
import { preTokenisedAnalyzer, type PRE_TOKENISED_PROFILE } from '../analysis/pretokenised.js';
import { ORDINARY_CONTENT, type IndexContent } from './content.js';
import type {
  CollectionStats,
  Extent,
  IndexReader,
  PostingList,
  StoredDocument,
  TermStats,
} from './reader.js';
import { blockPostingsBytes, type BlockPostings } from './postings-codec.js';
import { ByteBoundedCache } from './lru.js';

/**
 * What an index holds, as the reader needs it. The document lengths and docno ranks are
 * resident (every ranking reads them); docnos, extents, terms and their statistics are looked
 * up one at a time, so that an on-disk index need not decode millions of strings to be opened.
 */
export interface IndexSource {
  profile: AnalyzerProfile | typeof PRE_TOKENISED_PROFILE;
  /** Unset: term frequencies with positions (content.ts). */
  content?: IndexContent;
  fields: string[];
  numDocs: number;
  totalTokens: number;
  /** Length in tokens of each document. */
  /** Every document's length (read on first use). */
  docLengths(): Int32Array;
  /** Each document's position in byte-wise (UTF-8) docno order: the ranking's tie-break without strings. */
  docnoRank(doc: number): number;
  docno(doc: number): string;
  docByDocno(docno: string): number | undefined;
  /** The document's field extents, in stream order, fields by index into `fields`. */
  extents(doc: number): { field: number; begin: number; end: number }[];
  /** Number of distinct terms; term id = rank in JavaScript string order. */
  numTerms: number;
  term(id: number): string;
  termId(term: string): number | undefined;
  termStats(id: number): TermStats;
  /** Terms from the first one ≥ `from`, in order. */
  termsFrom(from: string): Iterable<string>;
  loadPostings(termId: number): PostingList;
  /** The term's documents and tfs block by block, without positions (dynamic pruning). */
  loadBlockPostings(termId: number): BlockPostings;
  loadDocVector(doc: number): { termIds: Int32Array; tfs: Int32Array };
  loadDocument(doc: number): StoredDocument;
}

/**
 * Terms whose lexicon ids a reader remembers (forgotten all at once past this many): a query looks
 * each word up three or four times (compiling, statistics, postings), and a look-up is a binary
 * search over string keys and a block cache's touch, a fifth of compiling a short query.
 */
const TERM_IDS_KEPT = 1 << 16;

/** Posting lists kept decoded: a bound so that a long session does not hold the whole index twice. */
const POSTINGS_CACHE_SIZE = 512;
const POSTINGS_CACHE_BYTES = 256 << 20;
/**
 * Block postings kept (their encoded docs part, and the blocks a query decoded): room for the
 * decoded lists of the common words of most queries of a collection of millions of documents.
 * At 8.8 M passages 512 MiB held about eight of them and a query often read one again (one pass of
 * 300 bench queries: p50 57 → 51 ms with 1 GiB; 1.5 GiB gained nothing more); serving stays well
 * under its 3 GB target. The bound in entries is far above what the bytes allow of common lists:
 * with 256, a query's mid-frequency lists (10^5–10^6 postings) were let go by the rare words of
 * the queries between two that used them, and read and decoded again (8.8 M, the bench's top 10
 * row after its top 1000 row: 105–135 → 134–176 queries/s over five alternating runs with 4,096).
 */
const BLOCK_POSTINGS_CACHE_SIZE = 4096;
const BLOCK_POSTINGS_CACHE_BYTES = 1024 << 20;

const postingListBytes = (p: PostingList) => p.docs.byteLength + p.tfs.byteLength + p.posStart.byteLength + p.positions.byteLength;

export class SourceIndexReader implements IndexReader {
  readonly analyzer: Analyzer;
  readonly profile: string;
  readonly content: IndexContent;
  private readonly postingsCache = new ByteBoundedCache<PostingList>(POSTINGS_CACHE_SIZE, POSTINGS_CACHE_BYTES, postingListBytes);
  private lengths: Int32Array | undefined;
  /** Lexicon ids by term, -1 for a term the index lacks (termId). */
  private readonly termIds = new Map<string, number>();
  // A list let go hands its decoded blocks back for reuse (BlockPostings.release): the cache lets
  // go of lists only here, while a search gathers its lists, before any cursor reads them.
  private readonly blocksCache = new ByteBoundedCache<BlockPostings>(BLOCK_POSTINGS_CACHE_SIZE, BLOCK_POSTINGS_CACHE_BYTES, blockPostingsBytes, (b) => b.release?.());

  constructor(private readonly source: IndexSource) {
    this.content = source.content ?? ORDINARY_CONTENT;
    this.analyzer = this.content.preTokenised || source.profile === 'none' ? preTokenisedAnalyzer : createAnalyzer(source.profile);
    this.profile = source.profile;
  }

  stats(): CollectionStats {
    const numDocs = this.source.numDocs;
    const totalTokens = this.source.totalTokens;
    return { numDocs, totalTokens, avgDocLength: numDocs === 0 ? 0 : totalTokens / numDocs };
  }

  fields(): string[] {
    return this.source.fields.slice();
  }

  docno(doc: number): string {
    this.checkDoc(doc);
    return this.source.docno(doc);
  }

  docnoRank(doc: number): number {
    this.checkDoc(doc);
    return this.source.docnoRank(doc);
  }

  docByDocno(docno: string): number | undefined {
    return this.source.docByDocno(docno);
  }

  docLength(doc: number): number {
    this.checkDoc(doc);
    return (this.lengths ??= this.source.docLengths())[doc]!;
  }

  docLengthTable(): Int32Array {
    return (this.lengths ??= this.source.docLengths());
  }

  fieldExtents(doc: number, field: string): Extent[] {
    this.checkDoc(doc);
    const fieldId = this.source.fields.indexOf(field);
    if (fieldId < 0) return [];
    const out: Extent[] = [];
    for (const e of this.source.extents(doc)) if (e.field === fieldId) out.push({ begin: e.begin, end: e.end });
    return out;
  }

  /** The term's lexicon id (remembered: TERM_IDS_KEPT), or undefined when the index lacks it. */
  private termId(term: string): number | undefined {
    let id = this.termIds.get(term);
    if (id === undefined) {
      id = this.source.termId(term) ?? -1;
      if (this.termIds.size >= TERM_IDS_KEPT) this.termIds.clear();
      this.termIds.set(term, id);
    }
    return id < 0 ? undefined : id;
  }

  termStats(term: string): TermStats | undefined {
    const id = this.termId(term);
    if (id === undefined) return undefined;
    return this.source.termStats(id);
  }

  postings(term: string): PostingList | undefined {
    const id = this.termId(term);
    if (id === undefined) return undefined;
    return this.postingsCache.get(id, () => this.source.loadPostings(id));
  }

  postingBlocks(term: string): BlockPostings | undefined {
    const id = this.termId(term);
    if (id === undefined) return undefined;
    return this.blocksCache.get(id, () => this.source.loadBlockPostings(id));
  }

  *vocabulary(prefix?: string): Iterable<string> {
    if (!prefix) {
      for (let i = 0; i < this.source.numTerms; i++) yield this.source.term(i);
      return;
    }
    for (const term of this.source.termsFrom(prefix)) {
      if (!term.startsWith(prefix)) return;
      yield term;
    }
  }

  vocabularySize(): number {
    return this.source.numTerms;
  }

  docVector(doc: number): { terms: string[]; tfs: Int32Array } {
    this.checkDoc(doc);
    const { termIds, tfs } = this.source.loadDocVector(doc);
    const terms = new Array<string>(termIds.length);
    for (let i = 0; i < termIds.length; i++) terms[i] = this.source.term(termIds[i]!);
    return { terms, tfs };
  }

  document(doc: number): StoredDocument {
    this.checkDoc(doc);
    return this.source.loadDocument(doc);
  }

  private checkDoc(doc: number): void {
    if (!Number.isInteger(doc) || doc < 0 || doc >= this.source.numDocs) {
      throw new RangeError(`no document ${doc} (the index has ${this.source.numDocs})`);
    }
  }
}

/** First index i with sorted[i] >= key (JS string order). */
export function lowerBound(sorted: readonly string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
