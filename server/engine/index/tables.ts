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
  // Opening reads the trailer; the block directory (one term in 32, megabytes at MS MARCO scale)
  // is read and checked when a term is first looked up.
  const { directoryOffset, perBlock } = decoding('lexicon.bin', () => 'trailer', () => {
    if (file.dataBytes < LEXICON_TRAILER_BYTES) throw new DecodeError('shorter than its trailer');
    const trailer = view(file.read(file.dataBytes - LEXICON_TRAILER_BYTES, LEXICON_TRAILER_BYTES));
    const directoryOffset = trailer.getFloat64(0, true);
    const count = trailer.getUint32(8, true);
    const perBlock = trailer.getUint32(12, true);
    if (count !== numTerms) throw new DecodeError('lexicon size differs from meta');
    if (perBlock < 1 || !Number.isInteger(directoryOffset) || directoryOffset < 0 || directoryOffset > file.dataBytes - LEXICON_TRAILER_BYTES) {
      throw new DecodeError('bad trailer');
    }
    return { directoryOffset, perBlock };
  });
  const numBlocks = Math.ceil(numTerms / perBlock);
  let directory: { firstTerms: string[]; blockStart: Float64Array; postingsStart: Float64Array } | undefined;
  const readDirectory = () => decoding('lexicon.bin', () => 'block directory', () => {
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
    return { firstTerms, blockStart, postingsStart };
  });
  const dir = () => (directory ??= readDirectory());
  const cache = new Map<number, TermBlock>();

  const block = (b: number): TermBlock =>
    cached(cache, TERM_BLOCKS_KEPT, b, () =>
      decoding('lexicon.bin', () => `terms ${b * perBlock}–${Math.min(numTerms, (b + 1) * perBlock) - 1}`, () => {
        const { firstTerms, blockStart, postingsStart } = dir();
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
    const { firstTerms } = dir();
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
  /** Every document's length (read and checked against `totalTokens` on first use). */
  docLengths(): Int32Array;
  /** The document's position in byte-wise docno order (read a chunk of documents at a time). */
  docnoRank(doc: number): number;
  /** Sizes of direct.bin's and store.bin's data, as the records add them up. */
  directBytes: number;
  storeBytes: number;
  docno(doc: number): string;
  docByDocno(docno: string): number | undefined;
  record(doc: number): DocumentRecord;
}

/** Collections up to this many documents keep their docno strings once decoded. */
const DOCNO_STRINGS_KEPT_UP_TO = 1 << 18;

/** Docno ranks read at a time: 64 KiB of the column. */
const RANK_CHUNK_DOCS = 1 << 14;

/**
 * Opens the document table reading its trailer and the first and last entries of the block
 * directory (the sizes the other files are checked against). The columns are read when first
 * used, so opening an index of millions of documents reads a few pages: the lengths whole, on the
 * first ranking (checked then to add up to `totalTokens`, meta.bin's count); the docno ranks a chunk
 * at a time, as ties are broken; a block's directory entries with its records.
 */
export function openDocumentTable(file: PagedFile, numDocs: number, numFields: number, totalTokens: number, decoding: Decoding): DocumentTable {
  const opened = decoding('docs.bin', () => 'document table trailer', () => {
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
    const first = f64Column(file.read(starts[5]!, 24));
    const last = f64Column(file.read(starts[5]! + numBlocks * 24, 24));
    if (first[0] !== 0 || first[1] !== 0 || first[2] !== 0 || last[0] !== starts[0]) throw new DecodeError('records do not end where the docnos start');
    return { starts, perBlock, numBlocks, directBytes: last[1]!, storeBytes: last[2]! };
  });
  const { starts, perBlock } = opened;
  let lengths: Int32Array | undefined;
  const docLengths = () =>
    (lengths ??= decoding('docs.bin', () => 'document lengths', () => {
      const column = u32Column(file.read(starts[2]!, numDocs * 4));
      let total = 0;
      for (let d = 0; d < numDocs; d++) {
        if (column[d]! > 0x7fffffff) throw new DecodeError('a document length past 2^31');
        total += column[d]!;
      }
      if (total !== totalTokens) throw new DecodeError('document lengths do not add up to the token count');
      return new Int32Array(column.buffer, column.byteOffset, column.length);
    }));
  const rankChunks: (Uint32Array | undefined)[] = new Array(Math.ceil(numDocs / RANK_CHUNK_DOCS));
  const rankChunk = (c: number): Uint32Array =>
    (rankChunks[c] ??= decoding('docs.bin', () => `docno ranks of documents ${c * RANK_CHUNK_DOCS}–${Math.min(numDocs, (c + 1) * RANK_CHUNK_DOCS) - 1}`, () => {
      const from = c * RANK_CHUNK_DOCS;
      const column = u32Column(file.read(starts[3]! + from * 4, Math.min(RANK_CHUNK_DOCS, numDocs - from) * 4));
      for (let i = 0; i < column.length; i++) if (column[i]! >= numDocs) throw new DecodeError(`docno rank ${column[i]} past the last document`);
      return column;
    }));
  const docnoRank = (doc: number): number => rankChunk(Math.floor(doc / RANK_CHUNK_DOCS))[doc % RANK_CHUNK_DOCS]!;
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
  // A small collection keeps each docno string once made: a ranking returns the same ones again and again
  // (at most 2^18 strings; a large collection decodes them each time instead of holding millions).
  const docnoStrings: (string | undefined)[] | null = numDocs <= DOCNO_STRINGS_KEPT_UP_TO ? new Array<string | undefined>(numDocs) : null;
  const docno = (doc: number): string => {
    const kept = docnoStrings?.[doc];
    if (kept !== undefined) return kept;
    checkDoc(doc);
    const text = decodeDocno(doc);
    if (docnoStrings) docnoStrings[doc] = text;
    return text;
  };
  const decodeDocno = (doc: number): string => {
    const { bytes, ends } = loadDocnos();
    const start = doc === 0 ? 0 : ends[doc - 1]!;
    const end = ends[doc]!;
    // A short ASCII docno (the usual kind) is built directly: TextDecoder's per-call cost dominated the
    // docnos of a ranking's 1000 hits on small collections.
    if (end - start <= 32) {
      let text = '';
      for (let i = start; i < end; i++) {
        const c = bytes[i]!;
        if (c >= 0x80) return decodeUtf8(bytes.subarray(start, end));
        text += String.fromCharCode(c);
      }
      return text;
    }
    return decodeUtf8(bytes.subarray(start, end));
  };
  const block = (b: number): DocumentRecord[] =>
    cached(cache, DOC_BLOCKS_KEPT, b, () =>
      decoding('docs.bin', () => `records of documents ${b * perBlock}–${Math.min(numDocs, (b + 1) * perBlock) - 1}`, () => {
        const n = Math.min(perBlock, numDocs - b * perBlock);
        // The block's directory entry and the next one (where its records end).
        const directory = f64Column(file.read(starts[5]! + b * 24, 48));
        const from = directory[0]!;
        if (!(directory[3]! >= from) || directory[3]! > starts[0]!) throw new DecodeError(`block ${b}'s records lie outside the records region`);
        const r = new ByteReader(file.read(from, directory[3]! - from));
        let directOffset = directory[1]!;
        let storeOffset = directory[2]!;
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
        if (directOffset !== directory[4] || storeOffset !== directory[5]) throw new DecodeError("a block's sizes differ from its directory's");
        return out;
      }),
    );

  return {
    numDocs,
    docLengths,
    docnoRank,
    directBytes: opened.directBytes,
    storeBytes: opened.storeBytes,
    docno,
    docByDocno(wanted) {
      // Read on the first look-up by docno (judgements, "why not"), not at open.
      byDocno ??= decoding('docs.bin', () => 'documents in docno order', () => {
        const column = u32Column(file.read(starts[4]!, numDocs * 4));
        for (let r = 0; r < numDocs; r++) if (column[r]! >= numDocs || docnoRank(column[r]!) !== r) throw new DecodeError('docno order differs from the ranks');
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
