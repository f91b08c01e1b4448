/**
 * One term's postings in format 3 (docs/INDEX_FORMAT.md "postings.bin"): blocks of BLOCK_SIZE
 * documents with bit-packed doc-id gaps and tfs, a skip directory in front (each block's last
 * doc, byte length, maximum tf and minimum document length), and the positions after all the
 * blocks, so that scoring without positions reads only the first part.
 *
 * Why bit-packing per block: on Cranfield and SciFact it is smaller than the varint postings of
 * format 2 and decodes faster (figures in docs/INDEX_FORMAT.md), and a block's width byte costs
 * one byte per 128 values.
 *
 * Why maximum tf and minimum length: every BM25 variant the engine has (scoring/terrier-bm25.ts,
 * scoring/lucene-bm25.ts) rises with tf and falls with the document length, so the score at
 * (max tf, min length) bounds every document of the block, whatever k1 and b are. Dynamic pruning
 * (scoring/pruning.ts) reads these bounds through BlockPostings.
 */
import { ByteReader, ByteWriter, DecodeError } from './bytes.js';
import { ARENA_PAGE_BYTES, PrefaultedArena } from './prefaulted-memory.js';
import type { BlockPostings, BlockSaturation, BlockView, PostingList } from './reader.js';

export type { BlockPostings };

/** Documents per block; the last block of a term holds the rest. */
export const BLOCK_SIZE = 128;

/** Bit widths up to this one unpack with 32-bit integer operations. */
const FAST_WIDTH = 24;

/**
 * The parameters of the per-block BM25 saturation maxima an index stores (BlockSaturation): Terrier's
 * BM25 defaults, what most queries run with. The average length is the index's own.
 */
export const SATURATION_K1 = 1.2;
export const SATURATION_B = 0.75;
/** A saturation (in [0, 1)) is stored as ⌈SATURATION_UNITS · saturation⌉. */
export const SATURATION_UNITS = 65535;

/** Terrier's average document length, tokens / documents (0 for an empty index): what BM25 and the saturation maxima read. */
export function averageLength(numDocs: number, totalTokens: number): number {
  return numDocs > 0 ? totalTokens / numDocs : 0;
}

/** ⌈SATURATION_UNITS · tf/(tf + K)⌉ under the stored parameters, widened past float rounding (all units where avgdl is not positive). */
export function saturationUnits(tf: number, dl: number, avgdl: number): number {
  if (!(avgdl > 0)) return SATURATION_UNITS;
  const saturation = tf / (tf + SATURATION_K1 * (1 - SATURATION_B + (SATURATION_B * dl) / avgdl));
  return Math.min(SATURATION_UNITS, Math.ceil(saturation * SATURATION_UNITS * (1 + 1e-12)));
}

/** Bits needed for `max` (0 for 0). */
function bitWidth(max: number): number {
  return max === 0 ? 0 : 32 - Math.clz32(max);
}

/** Appends a width byte and `values[from..from+n)` packed LSB-first at that width. */
function writePacked(out: ByteWriter, values: ArrayLike<number>, from: number, n: number): void {
  let max = 0;
  for (let i = from; i < from + n; i++) if (values[i]! > max) max = values[i]!;
  const width = bitWidth(max);
  const packed = new Uint8Array(1 + ((n * width + 7) >> 3));
  packed[0] = width;
  if (width === 0) {
    out.bytes(packed);
    return;
  }
  let p = 1;
  if (width <= FAST_WIDTH) {
    let acc = 0;
    let bits = 0;
    for (let i = from; i < from + n; i++) {
      acc |= values[i]! << bits;
      bits += width;
      while (bits >= 8) {
        packed[p++] = acc & 0xff;
        acc >>>= 8;
        bits -= 8;
      }
    }
    if (bits > 0) packed[p++] = acc & 0xff;
  } else {
    // Past 24 bits an accumulator of up to width + 7 bits overflows int32: plain arithmetic.
    let acc = 0;
    let scale = 1;
    for (let i = from; i < from + n; i++) {
      acc += values[i]! * scale;
      scale *= 2 ** width;
      while (scale >= 256) {
        packed[p++] = acc % 256;
        acc = Math.floor(acc / 256);
        scale /= 256;
      }
    }
    if (scale > 1) packed[p++] = acc;
  }
  out.bytes(packed);
}

/** Reads a width byte and n packed values into out[at..at+n); returns the position after them. */
function readPacked(buf: Uint8Array, pos: number, end: number, n: number, out: Int32Array, at: number): number {
  if (pos >= end) throw new DecodeError('data ends inside a block');
  const width = buf[pos++]!;
  if (width > 31) throw new DecodeError(`bad bit width ${width}`);
  const stop = pos + ((n * width + 7) >> 3);
  if (stop > end) throw new DecodeError('data ends inside a block');
  if (width === 0) {
    out.fill(0, at, at + n);
    return stop;
  }
  if (width <= FAST_WIDTH) {
    // Each value read on its own from the bytes that hold it (no carried accumulator, so the loop
    // pipelines: 1.1–2.4× faster in isolation); a value near the buffer's end is read bit by bit.
    // `bit` counts from pos, so it stays small whatever the buffer's size.
    const mask = (1 << width) - 1;
    const last = buf.length - 1;
    const stopAt = at + n;
    let bit = 0;
    let i = at;
    if (8 % width === 0) {
      // 1, 2, 4 or 8 bits: a value never straddles two bytes.
      for (; i < stopAt; i++, bit += width) out[i] = (buf[pos + (bit >>> 3)]! >>> (bit & 7)) & mask;
    } else if (width <= 9) {
      for (; i < stopAt; i++, bit += width) {
        const q = pos + (bit >>> 3);
        if (q + 1 > last) break;
        out[i] = ((buf[q]! | (buf[q + 1]! << 8)) >>> (bit & 7)) & mask;
      }
    } else if (width <= 17) {
      for (; i < stopAt; i++, bit += width) {
        const q = pos + (bit >>> 3);
        if (q + 2 > last) break;
        out[i] = ((buf[q]! | (buf[q + 1]! << 8) | (buf[q + 2]! << 16)) >>> (bit & 7)) & mask;
      }
    } else {
      for (; i < stopAt; i++, bit += width) {
        const q = pos + (bit >>> 3);
        if (q + 3 > last) break;
        out[i] = ((buf[q]! | (buf[q + 1]! << 8) | (buf[q + 2]! << 16) | (buf[q + 3]! << 24)) >>> (bit & 7)) & mask;
      }
    }
    for (; i < stopAt; i++) {
      let v = 0;
      for (let k = 0; k < width; k++, bit++) v |= ((buf[pos + (bit >>> 3)]! >>> (bit & 7)) & 1) << k;
      out[i] = v;
    }
  } else {
    const unit = 2 ** width;
    let p = pos;
    let acc = 0;
    let bits = 0;
    for (let i = at; i < at + n; i++) {
      while (bits < width) {
        acc += buf[p++]! * 2 ** bits;
        bits += 8;
      }
      out[i] = acc % unit;
      acc = Math.floor(acc / unit);
      bits -= width;
    }
  }
  return stop;
}

/** Byte sizes of one term's record, as the lexicon lists them. */
export interface TermPostingsBytes {
  /** Skip directory and doc/tf blocks. */
  docBytes: number;
  /** Positions, after the blocks. */
  posBytes: number;
}

/**
 * Appends one term's record (docs part, then positions part) to `out`. `list` is the term's
 * postings in doc order (docs strictly increasing, tf ≥ 1, each doc's positions increasing);
 * `docLengths` are the collection's document lengths (for the per-block minimum). Without
 * `withPositions` (an impact index: its tfs are impacts) the positions part is empty.
 */
export function encodeTermPostings(out: ByteWriter, list: PostingList, docLengths: ArrayLike<number>, avgdl: number, withPositions = true): TermPostingsBytes {
  const { docs, tfs, posStart, positions } = list;
  const df = docs.length;
  const blocks = new ByteWriter(Math.max(64, df * 2));
  const posPart = new ByteWriter(Math.max(64, positions.length * 2));
  const skip = new ByteWriter(64);
  const values = new Int32Array(BLOCK_SIZE);
  let prevLast = -1;
  for (let start = 0; start < df; start += BLOCK_SIZE) {
    const n = Math.min(BLOCK_SIZE, df - start);
    const before = blocks.length;
    let maxTf = 0;
    let minLength = Infinity;
    let maxUnits = 0;
    let prev = prevLast;
    for (let i = 0; i < n; i++) {
      const doc = docs[start + i]!;
      values[i] = doc - prev - 1;
      prev = doc;
      const tf = tfs[start + i]!;
      if (tf > maxTf) maxTf = tf;
      const dl = docLengths[doc]!;
      if (dl < minLength) minLength = dl;
      const units = saturationUnits(tf, dl, avgdl);
      if (units > maxUnits) maxUnits = units;
    }
    writePacked(blocks, values, 0, n);
    for (let i = 0; i < n; i++) values[i] = tfs[start + i]! - 1;
    writePacked(blocks, values, 0, n);
    skip.varint(prev - prevLast);
    skip.varint(blocks.length - before);
    skip.varint(maxTf);
    skip.varint(minLength);
    skip.varint(maxUnits);
    prevLast = prev;
    if (!withPositions) continue;
    // Positions of the block: per document the first position, then gaps minus one, packed in
    // runs of BLOCK_SIZE values.
    let total = 0;
    for (let i = start; i < start + n; i++) total += tfs[i]!;
    const posValues = new Int32Array(total);
    let k = 0;
    for (let i = start; i < start + n; i++) {
      const first = posStart[i]!;
      let prevPos = -1;
      for (let j = first; j < first + tfs[i]!; j++) {
        posValues[k++] = positions[j]! - prevPos - 1;
        prevPos = positions[j]!;
      }
    }
    for (let s = 0; s < total; s += BLOCK_SIZE) writePacked(posPart, posValues, s, Math.min(BLOCK_SIZE, total - s));
  }
  out.bytes(skip.view());
  out.bytes(blocks.view());
  out.bytes(posPart.view());
  return { docBytes: skip.length + blocks.length, posBytes: posPart.length };
}

/**
 * Longest list whose decoded blocks are kept (128 MiB of docs and tfs, longer than MS MARCO's
 * longest): the common terms of most queries are then decoded once, not once per query (at
 * 8.8 M passages, decoding them again was a third of a BM25 query's time). The reader's cache
 * counts these bytes (`blockPostingsBytes`), so its byte bound holds.
 */
const MAX_KEPT_POSTINGS = 1 << 24;

/** A kept block's state (EncodedBlockPostings): its documents decoded, or its documents and tfs. */
const DOCS_DECODED = 1;
const BOTH_DECODED = 2;
/** Kept blocks are decoded into arrays of this many blocks each (EncodedBlockPostings.newChunk). */
const CHUNK_BLOCKS_LOG2 = 6;
const CHUNK_BLOCKS = 1 << CHUNK_BLOCKS_LOG2;
const CHUNK_POSTINGS = CHUNK_BLOCKS * BLOCK_SIZE;

/**
 * Decoded-block arrays of lists the reader's cache has let go, handed to the next lists decoded, and
 * beyond them new ones from a `PrefaultedArena` (when the pool was made with one).
 * A fresh array costs more than its decoding here: its pages are new to the process (on the build
 * machine, a virtual machine, about 4–12 µs a 4 KiB page), and every new array is external memory
 * that brings the next garbage collection closer. Arrays of the arena are all kept for reuse (their
 * memory is the arena's whatever happens to them); at most `maxChunks` others are, and the rest go
 * to the collector.
 *
 * The arena also takes the encoded bytes of long lists as they are read (`takeBytes`): reading
 * into fresh memory faulted each page in as the kernel copied into it, about a quarter of the
 * speed of reading into pages already there. Those bytes are not taken back (a list let go may
 * still be read by whoever holds it), so they may use at most half of the arena, and reads past
 * that get new buffers as before.
 */
export class DecodedChunkPool {
  private readonly freeInArena: Int32Array[] = [];
  private readonly free: Int32Array[] = [];
  private arena: PrefaultedArena | undefined;
  private bytesTaken = 0;

  constructor(
    private readonly maxChunks: number,
    /** Bytes of the arena, reserved when the first chunk or bytes are asked for (0: none). */
    private arenaBytes = 0,
    private readonly arenaLeadBytes = 0,
  ) {}

  /** A whole-size chunk (CHUNK_POSTINGS values, contents unspecified), or undefined when none is to be had. */
  take(): Int32Array | undefined {
    const reused = this.freeInArena.pop() ?? this.free.pop();
    if (reused !== undefined) return reused;
    return this.ensureArena()?.take(CHUNK_POSTINGS);
  }

  /**
   * `bytes` bytes of the arena (contents unspecified) for a list's encoded bytes, never given back;
   * undefined when there is no arena or the bytes taken so far would pass half of it.
   */
  takeBytes(bytes: number): Uint8Array | undefined {
    const pages = Math.ceil(bytes / ARENA_PAGE_BYTES);
    if (bytes <= 0 || (this.bytesTaken + pages * ARENA_PAGE_BYTES) * 2 > this.arenaBytes) return undefined;
    const ints = this.ensureArena()?.take(pages * (ARENA_PAGE_BYTES >>> 2));
    if (!ints) return undefined;
    this.bytesTaken += pages * ARENA_PAGE_BYTES;
    return new Uint8Array(ints.buffer, ints.byteOffset, bytes);
  }

  /** The arena, reserved on first use; undefined when there is none (or no memory for it). */
  private ensureArena(): PrefaultedArena | undefined {
    if (this.arena === undefined && this.arenaBytes > 0) {
      try {
        this.arena = new PrefaultedArena(this.arenaBytes, this.arenaLeadBytes, this);
      } catch {
        // No memory to reserve: arrays are made one by one, as without an arena.
        this.arenaBytes = 0;
      }
    }
    return this.arena;
  }

  give(chunk: Int32Array): void {
    if (chunk.length !== CHUNK_POSTINGS) return;
    if (this.arena?.holds(chunk)) this.freeInArena.push(chunk);
    else if (this.free.length < this.maxChunks) this.free.push(chunk);
  }

  /** Chunks held now (for tests). */
  get size(): number {
    return this.freeInArena.length + this.free.length;
  }
}

/**
 * Bytes a term's block postings may hold: the skip directory's arrays, the encoded docs part (about
 * two bytes a posting) and the decoded blocks of a list short enough to keep them (counted whether
 * or not the query reached them: an upper bound).
 */
export function blockPostingsBytes(b: BlockPostings): number {
  return b.numBlocks * 18 + b.df * 2 + (b.df <= MAX_KEPT_POSTINGS ? b.df * 8 : 0);
}

/** The skip directory and blocks of a term's docs part (format 7), decoded lazily. */
export class EncodedBlockPostings implements BlockPostings {
  readonly numBlocks: number;
  readonly blockLastDoc: Int32Array;
  readonly blockMaxTf: Int32Array;
  readonly blockMinDocLength: Int32Array;
  readonly blockSaturation: BlockSaturation;
  private readonly blockStart: Int32Array;

  /**
   * `bytes[start..end)` is the term's docs part; `avgdl` the index's average document length (its
   * saturation maxima's). Throws DecodeError when it does not parse.
   */
  constructor(
    private readonly bytes: Uint8Array,
    start: number,
    private readonly end: number,
    readonly df: number,
    avgdl: number,
    private readonly pool?: DecodedChunkPool,
  ) {
    const numBlocks = Math.ceil(df / BLOCK_SIZE);
    this.numBlocks = numBlocks;
    this.blockLastDoc = new Int32Array(numBlocks);
    this.blockMaxTf = new Int32Array(numBlocks);
    this.blockMinDocLength = new Int32Array(numBlocks);
    const units = new Uint16Array(numBlocks);
    this.blockSaturation = { k1: SATURATION_K1, b: SATURATION_B, avgdl, units };
    this.blockStart = new Int32Array(numBlocks + 1);
    this.decoded = new Uint8Array(numBlocks);
    this.tfStart = new Int32Array(numBlocks);
    const r = new ByteReader(bytes, start, end);
    const lengths = new Int32Array(numBlocks);
    let last = -1;
    for (let b = 0; b < numBlocks; b++) {
      last += r.varint();
      this.blockLastDoc[b] = last;
      lengths[b] = r.varint();
      this.blockMaxTf[b] = r.varint();
      this.blockMinDocLength[b] = r.varint();
      const u = r.varint();
      if (u > SATURATION_UNITS) throw new DecodeError(`block ${b}'s saturation ${u} is past ${SATURATION_UNITS}`);
      units[b] = u;
    }
    let at = r.pos;
    for (let b = 0; b < numBlocks; b++) {
      this.blockStart[b] = at;
      at += lengths[b]!;
    }
    this.blockStart[numBlocks] = at;
    if (at !== end) throw new DecodeError(`block lengths add up to ${at - start} bytes, the lexicon says ${end - start}`);
  }

  /**
   * Decodes block b and points `view` at it. A block once decoded is kept (the object lives in the
   * reader's small cache of recently used terms), so repeated queries on a term decode it once and
   * read it in place; a list too long to keep is decoded into the view's scratch arrays.
   */
  decodeBlock(b: number, view: BlockView): void {
    const n = this.blockLength(b);
    if (this.df > MAX_KEPT_POSTINGS) {
      this.decodeInto(b, n, view.scratchDocs, view.scratchTfs, 0);
      view.docs = view.scratchDocs;
      view.tfs = view.scratchTfs;
      view.start = 0;
      view.end = n;
      return;
    }
    const c = b >>> CHUNK_BLOCKS_LOG2;
    const at = (b & (CHUNK_BLOCKS - 1)) * BLOCK_SIZE;
    const docs = this.docChunks[c] ?? this.newChunk(this.docChunks, c);
    const tfs = this.tfChunks[c] ?? this.newChunk(this.tfChunks, c);
    const state = this.decoded[b]!;
    if (state !== BOTH_DECODED) {
      if (state === 0) this.decodeDocsInto(b, n, docs, at);
      this.decodeTfsInto(b, n, tfs, at);
      this.decoded[b] = BOTH_DECODED;
    }
    view.docs = docs;
    view.tfs = tfs;
    view.start = at;
    view.end = at + n;
  }

  /**
   * Decodes only block b's documents (BlockPostings.decodeDocs): a probe for one document in a
   * common word's list reads its block's documents, and one tf where the document is there; unpacking
   * every tf of every block probed was a third of the decoding (8.8 M passages, BM25 top 10). A list
   * too long to keep is decoded whole, as by decodeBlock (its tfs are still read by tfAt).
   */
  decodeDocs(b: number, view: BlockView): void {
    if (this.df > MAX_KEPT_POSTINGS) return this.decodeBlock(b, view);
    const n = this.blockLength(b);
    const c = b >>> CHUNK_BLOCKS_LOG2;
    const at = (b & (CHUNK_BLOCKS - 1)) * BLOCK_SIZE;
    const docs = this.docChunks[c] ?? this.newChunk(this.docChunks, c);
    if (this.decoded[b] === 0) {
      this.decodeDocsInto(b, n, docs, at);
      this.decoded[b] = DOCS_DECODED;
    }
    view.docs = docs;
    // Not read until decodeBlock has decoded the tfs (PostingCursor reads tfAt until then).
    view.tfs = this.tfChunks[c] ?? view.scratchTfs;
    view.start = at;
    view.end = at + n;
  }

  /** The tf of posting `index` of block b, whose documents are decoded (so its tfs' width byte was checked). */
  tfAt(b: number, index: number): number {
    if (this.decoded[b] === BOTH_DECODED) return this.tfChunks[b >>> CHUNK_BLOCKS_LOG2]![(b & (CHUNK_BLOCKS - 1)) * BLOCK_SIZE + index]!;
    const pos = this.tfStart[b]!;
    const width = this.bytes[pos]!;
    if (width === 0) return 1;
    // The value's bits (little-endian, as readPacked reads them), from the at most 5 bytes that hold it.
    const bit = index * width;
    const q = pos + 1 + (bit >>> 3);
    const shift = bit & 7;
    const bytes = (shift + width + 7) >>> 3;
    let value = 0;
    let scale = 1;
    for (let j = 0; j < bytes; j++, scale *= 256) value += this.bytes[q + j]! * scale;
    return (Math.floor(value / 2 ** shift) % 2 ** width) + 1;
  }

  /**
   * A chunk of CHUNK_BLOCKS blocks' decoded documents or tfs, made when a block of it is first decoded:
   * a query that reads a few blocks of a long list allocates (and zeroes) those chunks, not the list
   * (allocating whole lists was 5 % of a BM25 top-10 query at 8.8 M passages).
   */
  private newChunk(chunks: Int32Array[], c: number): Int32Array {
    const length = Math.min(CHUNK_POSTINGS, this.df - c * CHUNK_POSTINGS);
    // A reused chunk holds another list's values: nothing reads a block's range before it is decoded.
    return (chunks[c] = (length === CHUNK_POSTINGS ? this.pool?.take() : undefined) ?? new Int32Array(length));
  }

  /**
   * The reader no longer keeps this list (BlockPostings.release): its decoded blocks go to the pool
   * and are forgotten, so a holder that reads the list again decodes it again, into new arrays.
   */
  release(): void {
    if (this.pool !== undefined) {
      for (const chunk of this.docChunks) if (chunk !== undefined) this.pool.give(chunk);
      for (const chunk of this.tfChunks) if (chunk !== undefined) this.pool.give(chunk);
    }
    this.docChunks.length = 0;
    this.tfChunks.length = 0;
    this.decoded.fill(0);
  }

  /** Per block: 0, DOCS_DECODED or BOTH_DECODED (kept lists; a list too long to keep stays 0). */
  private readonly decoded: Uint8Array;
  /** Where each block's tfs start (set when its documents are decoded). */
  private readonly tfStart: Int32Array;
  /** Kept decoded blocks, CHUNK_BLOCKS to an array. */
  private readonly docChunks: Int32Array[] = [];
  private readonly tfChunks: Int32Array[] = [];

  /** Postings in block b (the last block holds the rest). */
  private blockLength(b: number): number {
    return b === this.numBlocks - 1 ? this.df - b * BLOCK_SIZE : BLOCK_SIZE;
  }

  /** Decodes block b's n documents into docs from `at`, and notes where its tfs start (tfStart). */
  private decodeDocsInto(b: number, n: number, docs: Int32Array, at: number): void {
    const blockEnd = this.blockStart[b + 1]!;
    const p = readPacked(this.bytes, this.blockStart[b]!, blockEnd, n, docs, at);
    let doc = b === 0 ? -1 : this.blockLastDoc[b - 1]!;
    for (let i = at; i < at + n; i++) {
      doc += docs[i]! + 1;
      docs[i] = doc;
    }
    if (doc !== this.blockLastDoc[b]) throw new DecodeError(`block ${b} ends at document ${doc}, its skip entry says ${this.blockLastDoc[b]}`);
    // The tfs' width and length, checked here so that tfAt reads them unchecked.
    if (p >= blockEnd) throw new DecodeError('data ends inside a block');
    const width = this.bytes[p]!;
    if (width > 31) throw new DecodeError(`bad bit width ${width}`);
    if (p + 1 + ((n * width + 7) >> 3) !== blockEnd) throw new DecodeError(`block ${b} has ${blockEnd - p - 1 - ((n * width + 7) >> 3)} unexpected bytes`);
    this.tfStart[b] = p;
  }

  /** Decodes block b's n tfs into tfs from `at` (its documents decoded, so where they start is known and checked). */
  private decodeTfsInto(b: number, n: number, tfs: Int32Array, at: number): void {
    readPacked(this.bytes, this.tfStart[b]!, this.blockStart[b + 1]!, n, tfs, at);
    for (let i = at; i < at + n; i++) tfs[i]! += 1;
  }

  /** Decodes block b's n postings into docs and tfs from `at`. */
  private decodeInto(b: number, n: number, docs: Int32Array, tfs: Int32Array, at: number): void {
    this.decodeDocsInto(b, n, docs, at);
    this.decodeTfsInto(b, n, tfs, at);
  }

  /** Where the positions part starts (the docs part's end). */
  get docsEnd(): number {
    return this.end;
  }
}

/**
 * The whole posting list of a term from its record: `bytes[start..docsEnd)` the docs part,
 * `bytes[docsEnd..end)` the positions. `cf` is the lexicon's count (the number of positions,
 * the sum of the tfs). Without `withPositions` (an impact index) there is no positions part,
 * and the list's `positions` is empty (every posStart 0).
 */
export function decodeTermPostings(bytes: Uint8Array, start: number, docsEnd: number, end: number, df: number, cf: number, withPositions = true): PostingList {
  const numBlocks = Math.ceil(df / BLOCK_SIZE);
  const docs = new Int32Array(df);
  const tfs = new Int32Array(df);
  const posStart = new Int32Array(df);
  const positions = new Int32Array(withPositions ? cf : 0);
  // The skip directory is read in step with the blocks: each entry gives the block's length and
  // last document, both checked.
  const skip = new ByteReader(bytes, start, docsEnd);
  const lastDocs = new Float64Array(numBlocks);
  const lengths = new Float64Array(numBlocks);
  let last = -1;
  for (let b = 0; b < numBlocks; b++) {
    last += skip.varint();
    lastDocs[b] = last;
    lengths[b] = skip.varint();
    skip.varint();
    skip.varint();
    skip.varint();
  }
  let p = skip.pos;
  let q = docsEnd;
  let k = 0;
  let doc = -1;
  for (let b = 0; b < numBlocks; b++) {
    const at = b * BLOCK_SIZE;
    const n = Math.min(BLOCK_SIZE, df - at);
    const blockEnd = p + lengths[b]!;
    if (blockEnd > docsEnd) throw new DecodeError(`block ${b} runs past the docs part`);
    p = readPacked(bytes, p, blockEnd, n, docs, at);
    p = readPacked(bytes, p, blockEnd, n, tfs, at);
    if (p !== blockEnd) throw new DecodeError(`block ${b} has ${blockEnd - p} unexpected bytes`);
    let total = 0;
    for (let i = at; i < at + n; i++) {
      doc += docs[i]! + 1;
      docs[i] = doc;
      const tf = tfs[i]! + 1;
      tfs[i] = tf;
      if (withPositions) posStart[i] = k + total;
      total += tf;
    }
    if (doc !== lastDocs[b]) throw new DecodeError(`block ${b} ends at document ${doc}, its skip entry says ${lastDocs[b]}`);
    if (k + total > cf) throw new DecodeError(`more positions than the lexicon's cf ${cf}`);
    if (!withPositions) {
      k += total;
      continue;
    }
    for (let s = 0; s < total; s += BLOCK_SIZE) q = readPacked(bytes, q, end, Math.min(BLOCK_SIZE, total - s), positions, k + s);
    // Gaps back to positions, document by document.
    for (let i = at; i < at + n; i++) {
      let pos = -1;
      const first = posStart[i]!;
      const stop = first + tfs[i]!;
      for (let j = first; j < stop; j++) {
        pos += positions[j]! + 1;
        positions[j] = pos;
      }
    }
    k += total;
  }
  if (p !== docsEnd) throw new DecodeError(`${docsEnd - p} unexpected bytes after the blocks`);
  if (k !== cf) throw new DecodeError(`${k} positions, the lexicon's cf is ${cf}`);
  if (q !== end) throw new DecodeError(`${end - q} unexpected bytes after the positions`);
  return { docs, tfs, posStart, positions };
}

/**
 * Block postings over a decoded posting list (the in-memory index, a query's computed lists), with
 * the same bounds; the saturation maxima too when `avgdl` is given.
 */
export class ListBlockPostings implements BlockPostings {
  readonly df: number;
  readonly numBlocks: number;
  readonly blockLastDoc: Int32Array;
  readonly blockMaxTf: Int32Array;
  readonly blockMinDocLength: Int32Array;
  readonly blockSaturation?: BlockSaturation;

  constructor(
    private readonly list: PostingList,
    docLengths: ArrayLike<number>,
    avgdl?: number,
  ) {
    const { docs, tfs } = list;
    this.df = docs.length;
    this.numBlocks = Math.ceil(this.df / BLOCK_SIZE);
    this.blockLastDoc = new Int32Array(this.numBlocks);
    this.blockMaxTf = new Int32Array(this.numBlocks);
    this.blockMinDocLength = new Int32Array(this.numBlocks);
    const units = avgdl === undefined ? undefined : new Uint16Array(this.numBlocks);
    if (units) this.blockSaturation = { k1: SATURATION_K1, b: SATURATION_B, avgdl: avgdl!, units };
    for (let b = 0; b < this.numBlocks; b++) {
      const end = Math.min(this.df, (b + 1) * BLOCK_SIZE);
      let maxTf = 0;
      let minLength = Infinity;
      let maxUnits = 0;
      for (let i = b * BLOCK_SIZE; i < end; i++) {
        if (tfs[i]! > maxTf) maxTf = tfs[i]!;
        const dl = docLengths[docs[i]!]!;
        if (dl < minLength) minLength = dl;
        if (units) maxUnits = Math.max(maxUnits, saturationUnits(tfs[i]!, dl, avgdl!));
      }
      this.blockLastDoc[b] = docs[end - 1]!;
      this.blockMaxTf[b] = maxTf;
      this.blockMinDocLength[b] = minLength;
      if (units) units[b] = maxUnits;
    }
  }

  decodeBlock(b: number, view: BlockView): void {
    view.docs = this.list.docs;
    view.tfs = this.list.tfs;
    view.start = b * BLOCK_SIZE;
    view.end = Math.min(this.df, view.start + BLOCK_SIZE);
  }
}

/** A view for `decodeBlock` outside a cursor, with scratch arrays of its own. */
export function newBlockView(): BlockView {
  const scratchDocs = new Int32Array(BLOCK_SIZE);
  const scratchTfs = new Int32Array(BLOCK_SIZE);
  return { scratchDocs, scratchTfs, docs: scratchDocs, tfs: scratchTfs, start: 0, end: 0 };
}

/** Past every document id. */
export const END_OF_POSTINGS = 0x7fffffff;

/**
 * A position in one term's postings for document-at-a-time evaluation: `doc` and `tf` of the
 * current posting (doc = END_OF_POSTINGS after the last), decoding one block at a time.
 *
 * `skipTo` moves without decoding (block-max pruning skips whole regions of documents): until
 * `decode()`, or any other move, `doc` is only a lower bound of the current posting's document
 * and `tf` is not read.
 */
export class PostingCursor implements BlockView {
  doc = -1;
  /** The block the cursor is in (numBlocks when exhausted). */
  block = -1;
  /** False after `skipTo` moved into a block that is not decoded yet. */
  decoded = true;
  // The decoded block is docs[start..end) (BlockView, which the postings set); i is the current posting.
  private i = 0;
  readonly scratchDocs = new Int32Array(BLOCK_SIZE);
  readonly scratchTfs = new Int32Array(BLOCK_SIZE);
  docs = this.scratchDocs;
  tfs = this.scratchTfs;
  start = 0;
  end = 0;
  /** False while only the block's documents are decoded (a probe's `advance`): `tf` then reads one tf from the encoding. */
  private tfsReady = true;

  constructor(readonly postings: BlockPostings) {
    this.next();
  }

  /** The current posting's tf (0 after the last posting, and while `skipTo` left the block undecoded). */
  get tf(): number {
    if (!this.decoded || this.doc === END_OF_POSTINGS) return 0;
    return this.tfsReady ? this.tfs[this.i]! : this.postings.tfAt!(this.block, this.i - this.start);
  }

  /** Moves to the next posting. */
  next(): void {
    if (!this.decoded) this.decode();
    if (++this.i < this.end) {
      this.doc = this.docs[this.i]!;
      return;
    }
    this.load(this.block + 1, false);
  }

  /** Moves to the first posting whose doc is ≥ target (never backwards). */
  advance(target: number): void {
    if (!this.decoded) this.decode();
    if (this.doc >= target) return;
    const last = this.postings.blockLastDoc;
    if (this.block < this.postings.numBlocks && last[this.block]! < target) {
      this.load(this.blockFor(target, this.block + 1), true);
      if (this.doc >= target) return;
    }
    this.seekInDecoded(target);
  }

  /**
   * Moves to the first posting ≥ target in the decoded block, which holds one (its last doc is ≥
   * target): the next posting when it is there, else by bisection (a sparse caller jumps far into a
   * dense list, where stepping a posting at a time was most of the cost).
   */
  private seekInDecoded(target: number): void {
    const docs = this.docs;
    let lo = this.i + 1;
    if (docs[lo]! < target) {
      let hi = this.end - 1;
      lo++;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (docs[mid]! < target) lo = mid + 1;
        else hi = mid;
      }
    }
    this.i = lo;
    this.doc = docs[lo]!;
  }

  /**
   * Moves towards the first posting whose doc is ≥ target, decoding nothing: into the block that
   * holds it, with `doc` = target as a lower bound (a decoded block is scanned as by `advance`).
   */
  skipTo(target: number): void {
    if (this.doc >= target) return;
    const numBlocks = this.postings.numBlocks;
    if (this.block < numBlocks && this.postings.blockLastDoc[this.block]! >= target) {
      if (this.decoded) this.seekInDecoded(target);
      else this.doc = target;
      return;
    }
    const b = this.blockFor(target, this.block + 1);
    if (b >= numBlocks) {
      this.load(b, false);
      return;
    }
    this.block = b;
    this.decoded = false;
    this.doc = target;
  }

  /**
   * Decodes the block `skipTo` left undecoded (its documents: `blockTfs` decodes the tfs when read)
   * and moves to its first posting ≥ the lower bound.
   */
  decode(): void {
    if (this.decoded) return;
    const bound = this.doc;
    this.load(this.block, true);
    if (this.doc < bound) this.seekInDecoded(bound);
  }

  /**
   * The decoded block's documents and tfs, and where the cursor is in them: the block is
   * `blockDocs[i]` for i from `blockIndex` (the current posting) to before `blockEnd` (the arrays may
   * hold other blocks around it). A window of documents can be read in a tight loop, then
   * `seekInBlock` moves past it.
   * Valid while `decoded`.
   */
  get blockDocs(): Int32Array {
    return this.docs;
  }
  get blockTfs(): Int32Array {
    if (!this.tfsReady) {
      this.postings.decodeBlock(this.block, this);
      this.tfsReady = true;
    }
    return this.tfs;
  }
  get blockIndex(): number {
    return this.i;
  }
  get blockEnd(): number {
    return this.end;
  }

  /**
   * Moves to posting `index` of the decoded block (not before the current one); at `blockEnd`,
   * into the next block without decoding it (as `skipTo` leaves a cursor: `doc` a lower bound).
   */
  seekInBlock(index: number): void {
    if (index < this.end) {
      this.i = index;
      this.doc = this.docs[index]!;
      return;
    }
    const next = this.block + 1;
    if (next >= this.postings.numBlocks) {
      this.load(next, false);
      return;
    }
    this.doc = this.postings.blockLastDoc[this.block]! + 1;
    this.block = next;
    this.decoded = false;
  }

  /** The first block from `from` on whose last doc is ≥ target (numBlocks when none): no decoding. */
  blockFor(target: number, from = Math.max(0, this.block)): number {
    const last = this.postings.blockLastDoc;
    let lo = from;
    let hi = this.postings.numBlocks;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (last[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Enters a block: its documents only with `docsOnly` where the postings can (decodeDocs). */
  private load(block: number, docsOnly: boolean): void {
    this.block = block;
    this.decoded = true;
    this.tfsReady = true;
    if (block >= this.postings.numBlocks) {
      this.block = this.postings.numBlocks;
      this.doc = END_OF_POSTINGS;
      this.start = 0;
      this.end = 0;
      this.i = 0;
      return;
    }
    if (docsOnly && this.postings.decodeDocs) {
      this.postings.decodeDocs(block, this);
      this.tfsReady = false;
    } else this.postings.decodeBlock(block, this);
    this.i = this.start;
    this.doc = this.docs[this.i]!;
  }
}
