/**
 * The read side of an index: what scoring, expansion, hover and completion need.
 * Implemented by the on-disk index (server/engine/index/) and by the in-memory index
 * used in tests; both must give identical answers for the same corpus.
 *
 * Conventions
 * - Documents are numbered 0..numDocs-1 in ingest order (`doc`); `docno` is the
 *   external id from the corpus (`_id`, `<DOCNO>`, file path).
 * - A document is one token stream: its fields concatenated in a fixed order (title
 *   first, then text, then any other field), with positions counted after stopping
 *   (positions of removed stopwords are not kept, as in Terrier: a stopword does not
 *   break an adjacent phrase). `docLength` = tokens after stopping (SEMANTICS.md §4.1).
 * - Field restriction (`term.title`, `title:term`) keeps the occurrences whose
 *   position lies inside an extent of that field.
 * - Terms are the analysed forms (after lowercasing, stopping and stemming).
 */
import type { Analyzer } from '../analysis/analyzer.js';
import type { IndexContent } from './content.js';

export interface CollectionStats {
  /** Number of documents (N). */
  numDocs: number;
  /** Sum of document lengths in tokens (|C|). */
  totalTokens: number;
  /** totalTokens / numDocs. */
  avgDocLength: number;
}

export interface TermStats {
  /** Documents containing the term (in the field, when restricted). */
  df: number;
  /** Total occurrences (in the field, when restricted). */
  cf: number;
}

/**
 * A posting list in document order. `positions` holds the positions of doc i at
 * positions[posStart[i] .. posStart[i] + tfs[i]). Arrays are read-only views.
 */
export interface PostingList {
  docs: Int32Array;
  tfs: Int32Array;
  posStart: Int32Array;
  positions: Int32Array;
}

/**
 * One term's documents and tfs, block by block, with the bounds dynamic pruning needs. The
 * blocks are decoded on demand, so a pruned query decodes only the blocks it visits (the encoding and
 * the cursor over it: postings-codec.ts).
 */
export interface BlockPostings {
  readonly df: number;
  readonly numBlocks: number;
  /** Last document of each block (ascending). */
  readonly blockLastDoc: Int32Array;
  /** Largest tf in each block. */
  readonly blockMaxTf: Int32Array;
  /** Smallest document length in each block. */
  readonly blockMinDocLength: Int32Array;
  /** Each block's largest BM25 tf saturation, where the postings have it (postings-codec.ts). */
  readonly blockSaturation?: BlockSaturation;
  /** Decodes block b and says in `view` where its postings are. */
  decodeBlock(b: number, view: BlockView): void;
  /**
   * Optional, for postings that keep their decoded blocks: decodes only block b's documents (a
   * cursor probing for one document reads one tf at most: `tfAt`), saying in `view` where they are;
   * `view.tfs` then points where the block's tfs will be once `decodeBlock` has run.
   */
  decodeDocs?(b: number, view: BlockView): void;
  /** After `decodeDocs(b)`: the tf of posting `index` of block b (0-based in the block), read from the encoding. */
  tfAt?(b: number, index: number): number;
  /**
   * Optional, for postings that keep their decoded blocks: called by the reader when its cache lets
   * the list go, between searches' reads (never while a cursor is inside one of its blocks). The
   * decoded blocks may then be reused for other lists; a later read of this list decodes again.
   */
  release?(): void;
}

/**
 * Each block's largest BM25 tf saturation tf/(tf + k1·(1 − b + b·dl/avgdl)) over its documents, for
 * one k1, b and average length, as ⌈SATURATION_UNITS · saturation⌉ (an upper bound): a block's
 * BM25 bound under those parameters is idf·qtwf·(k1 + 1) times it, tighter than the score at the
 * block's (largest tf, shortest length), which usually come from different documents.
 */
export interface BlockSaturation {
  readonly k1: number;
  readonly b: number;
  readonly avgdl: number;
  readonly units: Uint16Array;
}

/**
 * Where a decoded block's postings are: `docs[start..end)` and `tfs[start..end)`. Postings that keep
 * their decoded blocks point these at their own arrays (read only: a block is not copied each time a
 * cursor enters it); any other decodes into the scratch arrays (at least BLOCK_SIZE long) from 0.
 */
export interface BlockView {
  readonly scratchDocs: Int32Array;
  readonly scratchTfs: Int32Array;
  docs: Int32Array;
  tfs: Int32Array;
  start: number;
  end: number;
}

/** Half-open token interval [begin, end) of one field occurrence within a document. */
export interface Extent {
  begin: number;
  end: number;
}

export interface StoredDocument {
  docno: string;
  title: string;
  /** All non-title fields, as ingested, by name ('text' for BEIR/TREC bodies). */
  fields: Record<string, string>;
}

export interface IndexReader {
  readonly analyzer: Analyzer;
  /** The profile name the index was built with ('terrier' | 'lucene', or 'none': terms as written). */
  readonly profile: string;
  /** What the postings hold (impacts, positions, stored text: content.ts); unset means term frequencies with positions. */
  readonly content?: IndexContent;
  stats(): CollectionStats;
  /** Names of indexed fields, in stream order. */
  fields(): string[];
  docno(doc: number): string;
  /** The document's position in byte-wise docno order (ties between equal scores compare it instead of docnos). */
  docnoRank(doc: number): number;
  /** undefined when no such document. */
  docByDocno(docno: string): number | undefined;
  docLength(doc: number): number;
  /** Every document's length, by doc (read-only): for loops that read one length a posting. */
  docLengthTable(): Int32Array;
  /** Extents of `field` in `doc` (empty when the document has no such field). */
  fieldExtents(doc: number, field: string): Extent[];
  /** Statistics of an analysed term over whole documents, or undefined if absent. */
  termStats(term: string): TermStats | undefined;
  /** Postings of an analysed term over whole documents, or undefined if absent. */
  postings(term: string): PostingList | undefined;
  /**
   * The same postings without positions, block by block, with each block's last document,
   * maximum tf and minimum document length (postings-codec.ts): for dynamic pruning.
   */
  postingBlocks(term: string): BlockPostings | undefined;
  /** Vocabulary terms in lexicographic order, optionally those starting with `prefix`. */
  vocabulary(prefix?: string): Iterable<string>;
  /** Number of distinct terms. */
  vocabularySize(): number;
  /** The document's terms with their frequencies (direct index, for Bo1/RM3). */
  docVector(doc: number): { terms: string[]; tfs: Int32Array };
  /** Stored title and text for snippets. */
  document(doc: number): StoredDocument;
}
