/**
 * The lexicon and the document table of an on-disk index (docs/INDEX_FORMAT.md, `lexicon.bin`
 * and `docs.bin`), opened without decoding them whole: opening reads each file's trailer, the
 * lexicon's block directory (one term in 32) and the document columns every ranking needs
 * (lengths, docno ranks) plus the docnos as bytes; a term's entry or a document's record is
 * decoded when first asked for, a block at a time, and recent blocks are kept.
 */
import { ByteReader, DecodeError, decodeUtf8, f64Column, u32Column } from './bytes.js';
import { findDocno } from './docno-order.js';
import type { PagedFile } from './paged-file.js';
import type { TermStats } from './reader.js';
import { cached } from './lru.js';

/** Runs `decode`, turning its failures into errors that name the file and what was being read. */
export type Decoding = <T>(file: 'lexicon.bin' | 'docs.bin', what: () => string, decode: () => T) => T;

const LEXICON_TRAILER_BYTES = 16;
const DOCS_TRAILER_BYTES = 6 * 8 + 8;

interface TermBlock {
  terms: string[];
  df: Int32Array;
  cf: Float64Array;
  /** Offset in postings.bin of each term's record, and of the end of the last. */
  offsets: Float64Array;
  docBytes: Float64Array;
}

/** A term's place in postings.bin and its statistics. */
export interface LexiconEntry {
  offset: number;
  bytes: number;
  docBytes: number;
  df: number;
  cf: number;
}

export interface Lexicon {
  numTerms: number;
  term(id: number): string;
  termId(term: string): number | undefined;
  stats(id: number): TermStats;
  entry(id: number): LexiconEntry;
  termsFrom(from: string): Iterable<string>;
}

export function openLexicon(file: PagedFile, numTerms: number, postingsBytes: number, decoding: Decoding): Lexicon {
  const directory = decoding('lexicon.bin', () => 'block directory', () => {
    if (file.dataBytes < LEXICON_TRAILER_BYTES) throw new DecodeError('shorter than its trailer');
    const trailer = view(file.read(file.dataBytes - LEXICON_TRAILER_BYTES, LEXICON_TRAILER_BYTES));
    const directoryOffset = trailer.getFloat64(0, true);
    const count = trailer.getUint32(8, true);
    const perBlock = trailer.getUint32(12, true);
    if (count !== numTerms) throw new DecodeError('lexicon size differs from meta');
    if (perBlock < 1 || !Number.isInteger(directoryOffset) || directoryOffset < 0 || directoryOffset > file.dataBytes - LEXICON_TRAILER_BYTES) {
      throw new DecodeError('bad trailer');
    }
    const numBlocks = Math.ceil(count / perBlock);
    const r = new ByteReader(file.read(directoryOffset, file.dataBytes - LEXICON_TRAILER_BYTES - directoryOffset));
    const firstTerms = new Array<string>(numBlocks);
    const blockStart = new Float64Array(numBlocks + 1);
    const postingsStart = new Float64Array(numBlocks + 1);
    for (let b = 0; b < numBlocks; b++) {
      firstTerms[b] = r.string();
      if (b > 0 && !(firstTerms[b - 1]! < firstTerms[b]!)) throw new DecodeError(`blocks out of term order at block ${b}`);
      blockStart[b + 1] = blockStart[b]! + r.varint();
      postingsStart[b + 1] = postingsStart[b]! + r.varint();
    }
    if (!r.atEnd) throw new DecodeError('trailing bytes in the block directory');
    if (blockStart[numBlocks] !== directoryOffset) throw new DecodeError('blocks do not end where the directory starts');
    if (postingsStart[numBlocks] !== postingsBytes) throw new DecodeError('postings size differs from lexicon');
    return { perBlock, numBlocks, firstTerms, blockStart, postingsStart };
  });
  const { perBlock, numBlocks, firstTerms, blockStart, postingsStart } = directory;
  const cache = new Map<number, TermBlock>();

  const block = (b: number): TermBlock =>
    cached(cache, TERM_BLOCKS_KEPT, b, () =>
      decoding('lexicon.bin', () => `terms ${b * perBlock}–${Math.min(numTerms, (b + 1) * perBlock) - 1}`, () => {
        const n = Math.min(perBlock, numTerms - b * perBlock);
        const r = new ByteReader(file.read(blockStart[b]!, blockStart[b + 1]! - blockStart[b]!));
        const out: TermBlock = { terms: new Array<string>(n), df: new Int32Array(n), cf: new Float64Array(n), offsets: new Float64Array(n + 1), docBytes: new Float64Array(n) };
        out.offsets[0] = postingsStart[b]!;
        let prev = '';
        for (let i = 0; i < n; i++) {
          const shared = r.varint();
          if (shared > prev.length) throw new DecodeError('front coding shares more than the previous term');
          const term = prev.slice(0, shared) + r.string();
          if (i > 0 && !(prev < term)) throw new DecodeError('terms out of order');
          out.terms[i] = term;
          out.df[i] = r.varint();
          out.cf[i] = r.varint();
          out.docBytes[i] = r.varint();
          out.offsets[i + 1] = out.offsets[i]! + out.docBytes[i]! + r.varint();
          prev = term;
        }
        if (!r.atEnd) throw new DecodeError('trailing bytes in a block');
        if (out.terms[0] !== firstTerms[b]) throw new DecodeError('a block does not start with its directory term');
        if (out.offsets[n] !== postingsStart[b + 1]) throw new DecodeError("a block's postings sizes differ from its directory's");
        return out;
      }),
    );

  const checkId = (id: number) => {
    if (!Number.isInteger(id) || id < 0 || id >= numTerms) throw new RangeError(`no term ${id} (the lexicon has ${numTerms})`);
  };
  /** The last block whose first term is ≤ `term`, or -1. */
  const blockOf = (term: string): number => {
    let lo = 0;
    let hi = numBlocks;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (firstTerms[mid]! <= term) lo = mid + 1;
      else hi = mid;
    }
    return lo - 1;
  };

  return {
    numTerms,
    term(id) {
      checkId(id);
      return block(Math.floor(id / perBlock)).terms[id % perBlock]!;
    },
    termId(term) {
      const b = blockOf(term);
      if (b < 0) return undefined;
      const i = block(b).terms.indexOf(term);
      return i < 0 ? undefined : b * perBlock + i;
    },
    stats(id) {
      checkId(id);
      const t = block(Math.floor(id / perBlock));
      const i = id % perBlock;
      return { df: t.df[i]!, cf: t.cf[i]! };
    },
    entry(id) {
      checkId(id);
      const t = block(Math.floor(id / perBlock));
      const i = id % perBlock;
      return { offset: t.offsets[i]!, bytes: t.offsets[i + 1]! - t.offsets[i]!, docBytes: t.docBytes[i]!, df: t.df[i]!, cf: t.cf[i]! };
    },
    *termsFrom(from) {
      for (let b = Math.max(0, blockOf(from)); b < numBlocks; b++) {
        for (const term of block(b).terms) if (term >= from) yield term;
      }
    },
  };
}

/** One document's record: its field extents and where its term vector and stored text are. */
export interface DocumentRecord {
  extents: { field: number; begin: number; end: number }[];
  directOffset: number;
  directBytes: number;
  storeOffset: number;
  storeBytes: number;
}

export interface DocumentTable {
  numDocs: number;
  docLengths: Int32Array;
  /** The document lengths added up. */
  totalTokens: number;
  docnoRanks: Uint32Array;
  /** Sizes of direct.bin's and store.bin's data, as the records add them up. */
  directBytes: number;
  storeBytes: number;
  docno(doc: number): string;
  docByDocno(docno: string): number | undefined;
  record(doc: number): DocumentRecord;
}

export function openDocumentTable(file: PagedFile, numDocs: number, numFields: number, decoding: Decoding): DocumentTable {
  const opened = decoding('docs.bin', () => 'document columns', () => {
    if (file.dataBytes < DOCS_TRAILER_BYTES) throw new DecodeError('shorter than its trailer');
    const trailer = view(file.read(file.dataBytes - DOCS_TRAILER_BYTES, DOCS_TRAILER_BYTES));
    // Where each region starts: docno bytes, docno ends, lengths, ranks, docs by docno, block directory.
    const starts = Array.from({ length: 6 }, (_, i) => trailer.getFloat64(i * 8, true));
    const count = trailer.getUint32(48, true);
    const perBlock = trailer.getUint32(52, true);
    if (count !== numDocs) throw new DecodeError('document table size differs from meta');
    const numBlocks = Math.ceil(count / perBlock);
    // Sizes of the columns (each padded to start at a multiple of 8).
    const expected = [count * 8, count * 4, count * 4, count * 4, (numBlocks + 1) * 24];
    const ends = [...starts.slice(1), file.dataBytes - DOCS_TRAILER_BYTES];
    const fits = (i: number) => ends[i + 1]! - starts[i + 1]! === expected[i]! + (i < 4 ? (8 - ((starts[i + 1]! + expected[i]!) % 8)) % 8 : 0);
    if (perBlock < 1 || starts.some((x, i) => !Number.isInteger(x) || x < 0 || x > ends[i]! || (i > 0 && x % 8 !== 0)) || !expected.every((_, i) => fits(i))) {
      throw new DecodeError('bad trailer');
    }
    const lengths = u32Column(file.read(starts[2]!, count * 4));
    const ranks = u32Column(file.read(starts[3]!, count * 4));
    const directory = f64Column(file.read(starts[5]!, (numBlocks + 1) * 24));
    // One pass over the columns at open: ranks in range, lengths that fit, and their sum.
    let totalTokens = 0;
    for (let d = 0; d < count; d++) {
      if (ranks[d]! >= count) throw new DecodeError(`docno rank ${ranks[d]} past the last document`);
      if (lengths[d]! > 0x7fffffff) throw new DecodeError('a document length past 2^31');
      totalTokens += lengths[d]!;
    }
    if (directory[0] !== 0 || directory[numBlocks * 3] !== starts[0]) throw new DecodeError('records do not end where the docnos start');
    return { starts, perBlock, numBlocks, lengths, ranks, directory, totalTokens };
  });
  const { starts, perBlock, ranks, directory } = opened;
  const docLengths = new Int32Array(opened.lengths.buffer, opened.lengths.byteOffset, opened.lengths.length);
  // The docnos are read when first needed (a ranking's results), not at open.
  let docnos: { bytes: Uint8Array; ends: Float64Array } | undefined;
  const loadDocnos = () =>
    (docnos ??= decoding('docs.bin', () => 'docnos', () => {
      const bytes = file.read(starts[0]!, starts[1]! - starts[0]!);
      const ends = f64Column(file.read(starts[1]!, numDocs * 8));
      for (let d = 0; d < numDocs; d++) if (!(ends[d]! >= (d > 0 ? ends[d - 1]! : 0))) throw new DecodeError('docno ends out of order');
      // The docnos region is followed by padding to the next multiple of 8.
      if (numDocs > 0 && (ends[numDocs - 1]! > bytes.length || bytes.length - ends[numDocs - 1]! >= 8)) throw new DecodeError('docno ends differ from the docno bytes');
      return { bytes, ends };
    }));
  let byDocno: Uint32Array | undefined;
  const cache = new Map<number, DocumentRecord[]>();

  const checkDoc = (doc: number) => {
    if (!Number.isInteger(doc) || doc < 0 || doc >= numDocs) throw new RangeError(`no document ${doc} (the index has ${numDocs})`);
  };
  const docno = (doc: number): string => {
    checkDoc(doc);
    const { bytes, ends } = loadDocnos();
    return decodeUtf8(bytes.subarray(doc === 0 ? 0 : ends[doc - 1]!, ends[doc]!));
  };
  const block = (b: number): DocumentRecord[] =>
    cached(cache, DOC_BLOCKS_KEPT, b, () =>
      decoding('docs.bin', () => `records of documents ${b * perBlock}–${Math.min(numDocs, (b + 1) * perBlock) - 1}`, () => {
        const n = Math.min(perBlock, numDocs - b * perBlock);
        const from = directory[b * 3]!;
        const r = new ByteReader(file.read(from, directory[(b + 1) * 3]! - from));
        let directOffset = directory[b * 3 + 1]!;
        let storeOffset = directory[b * 3 + 2]!;
        const out: DocumentRecord[] = [];
        for (let i = 0; i < n; i++) {
          const numExtents = r.varint();
          const extents: DocumentRecord['extents'] = [];
          let prevEnd = 0;
          for (let e = 0; e < numExtents; e++) {
            const field = r.varint();
            if (field >= numFields) throw new DecodeError(`field ${field} past the field list`);
            const begin = prevEnd + r.varint();
            const end = begin + r.varint();
            extents.push({ field, begin, end });
            prevEnd = end;
          }
          const directBytes = r.varint();
          const storeBytes = r.varint();
          out.push({ extents, directOffset, directBytes, storeOffset, storeBytes });
          directOffset += directBytes;
          storeOffset += storeBytes;
        }
        if (!r.atEnd) throw new DecodeError('trailing bytes in a block of records');
        if (directOffset !== directory[(b + 1) * 3 + 1] || storeOffset !== directory[(b + 1) * 3 + 2]) throw new DecodeError("a block's sizes differ from its directory's");
        return out;
      }),
    );

  return {
    numDocs,
    docLengths,
    totalTokens: opened.totalTokens,
    docnoRanks: ranks,
    directBytes: directory[opened.numBlocks * 3 + 1]!,
    storeBytes: directory[opened.numBlocks * 3 + 2]!,
    docno,
    docByDocno(wanted) {
      // Read on the first look-up by docno (judgements, "why not"), not at open.
      byDocno ??= decoding('docs.bin', () => 'documents in docno order', () => {
        const column = u32Column(file.read(starts[4]!, numDocs * 4));
        for (let r = 0; r < numDocs; r++) if (column[r]! >= numDocs || ranks[column[r]!] !== r) throw new DecodeError('docno order differs from the ranks');
        return column;
      });
      const order = byDocno;
      return findDocno(wanted, (r) => order[r]!, docno, numDocs);
    },
    record(doc) {
      checkDoc(doc);
      return block(Math.floor(doc / perBlock))[doc % perBlock]!;
    },
  };
}

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

const TERM_BLOCKS_KEPT = 4096;
const DOC_BLOCKS_KEPT = 1024;
