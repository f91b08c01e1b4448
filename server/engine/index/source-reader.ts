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
import type { BlockPostings } from './postings-codec.js';

/** The eagerly held part of an index plus loaders for the bulky parts. */
export interface IndexSource {
  profile: AnalyzerProfile | typeof PRE_TOKENISED_PROFILE;
  /** Unset: term frequencies with positions (content.ts). */
  content?: IndexContent;
  fields: string[];
  docnos: string[];
  docLengths: Int32Array;
  totalTokens: number;
  extStart: Int32Array;
  extField: Int32Array;
  extBegin: Int32Array;
  extEnd: Int32Array;
  /** Sorted vocabulary; term id = index. */
  terms: string[];
  df: Int32Array;
  cf: Float64Array;
  loadPostings(termId: number): PostingList;
  /** The term's documents and tfs block by block, without positions (dynamic pruning). */
  loadBlockPostings(termId: number): BlockPostings;
  loadDocVector(doc: number): { termIds: Int32Array; tfs: Int32Array };
  loadDocument(doc: number): StoredDocument;
}

/** Posting lists kept decoded; a bound so that a long session does not hold the whole index twice. */
const POSTINGS_CACHE_SIZE = 512;
/** Block postings kept (their encoded docs part; blocks are decoded as a query reaches them). */
const BLOCK_POSTINGS_CACHE_SIZE = 256;

export class SourceIndexReader implements IndexReader {
  readonly analyzer: Analyzer;
  readonly profile: string;
  readonly content: IndexContent;
  private docnoMap: Map<string, number> | undefined;
  private readonly postingsCache = new Map<number, PostingList>();
  private readonly blocksCache = new Map<number, BlockPostings>();

  constructor(private readonly source: IndexSource) {
    this.content = source.content ?? ORDINARY_CONTENT;
    this.analyzer = this.content.preTokenised || source.profile === 'none' ? preTokenisedAnalyzer : createAnalyzer(source.profile);
    this.profile = source.profile;
  }

  stats(): CollectionStats {
    const numDocs = this.source.docnos.length;
    const totalTokens = this.source.totalTokens;
    return { numDocs, totalTokens, avgDocLength: numDocs === 0 ? 0 : totalTokens / numDocs };
  }

  fields(): string[] {
    return this.source.fields.slice();
  }

  docno(doc: number): string {
    this.checkDoc(doc);
    return this.source.docnos[doc]!;
  }

  docByDocno(docno: string): number | undefined {
    if (!this.docnoMap) {
      this.docnoMap = new Map();
      this.source.docnos.forEach((d, i) => this.docnoMap!.set(d, i));
    }
    return this.docnoMap.get(docno);
  }

  docLength(doc: number): number {
    this.checkDoc(doc);
    return this.source.docLengths[doc]!;
  }

  fieldExtents(doc: number, field: string): Extent[] {
    this.checkDoc(doc);
    const fieldId = this.source.fields.indexOf(field);
    if (fieldId < 0) return [];
    const out: Extent[] = [];
    const { extStart, extField, extBegin, extEnd } = this.source;
    for (let e = extStart[doc]!; e < extStart[doc + 1]!; e++) {
      if (extField[e] === fieldId) out.push({ begin: extBegin[e]!, end: extEnd[e]! });
    }
    return out;
  }

  termStats(term: string): TermStats | undefined {
    const id = this.termId(term);
    if (id === undefined) return undefined;
    return { df: this.source.df[id]!, cf: this.source.cf[id]! };
  }

  postings(term: string): PostingList | undefined {
    const id = this.termId(term);
    if (id === undefined) return undefined;
    return cached(this.postingsCache, POSTINGS_CACHE_SIZE, id, () => this.source.loadPostings(id));
  }

  postingBlocks(term: string): BlockPostings | undefined {
    const id = this.termId(term);
    if (id === undefined) return undefined;
    return cached(this.blocksCache, BLOCK_POSTINGS_CACHE_SIZE, id, () => this.source.loadBlockPostings(id));
  }

  *vocabulary(prefix?: string): Iterable<string> {
    const terms = this.source.terms;
    if (!prefix) {
      yield* terms;
      return;
    }
    for (let i = lowerBound(terms, prefix); i < terms.length && terms[i]!.startsWith(prefix); i++) {
      yield terms[i]!;
    }
  }

  vocabularySize(): number {
    return this.source.terms.length;
  }

  docVector(doc: number): { terms: string[]; tfs: Int32Array } {
    this.checkDoc(doc);
    const { termIds, tfs } = this.source.loadDocVector(doc);
    const terms = new Array<string>(termIds.length);
    for (let i = 0; i < termIds.length; i++) terms[i] = this.source.terms[termIds[i]!]!;
    return { terms, tfs };
  }

  document(doc: number): StoredDocument {
    this.checkDoc(doc);
    return this.source.loadDocument(doc);
  }

  /** Binary search of the sorted vocabulary: no second table of millions of strings at scale. */
  private termId(term: string): number | undefined {
    const terms = this.source.terms;
    const i = lowerBound(terms, term);
    return i < terms.length && terms[i] === term ? i : undefined;
  }

  private checkDoc(doc: number): void {
    if (!Number.isInteger(doc) || doc < 0 || doc >= this.source.docnos.length) {
      throw new RangeError(`no document ${doc} (the index has ${this.source.docnos.length})`);
    }
  }
}

/** A least-recently-used cache over a Map (iteration order is insertion order: the first key is the oldest). */
function cached<T>(cache: Map<number, T>, size: number, id: number, load: () => T): T {
  const hit = cache.get(id);
  if (hit !== undefined) {
    cache.delete(id);
    cache.set(id, hit);
    return hit;
  }
  const value = load();
  if (cache.size >= size) cache.delete(cache.keys().next().value!);
  cache.set(id, value);
  return value;
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
