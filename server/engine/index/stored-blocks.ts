/**
 * store.bin (docs/INDEX_FORMAT.md, `store.bin`): the documents' stored records, compressed with
 * raw DEFLATE in blocks of consecutive documents, as Lucene compresses stored fields. Stored text
 * was half of an index's bytes at MS MARCO scale; compressed it is about 0.3–0.45 of that.
 *
 * The records (`[docno, title, fields]` JSON, docs.bin gives each one's offset and length) form one
 * uncompressed stream. It is cut after the record that brings a block to BLOCK_TARGET_BYTES (a record
 * never spans two blocks, so a document needs one block inflated; a record larger than the target is a
 * block of its own). Every block is compressed with the same preset dictionary, the stream's first
 * DICTIONARY_BYTES, when the stream is long enough for it to pay; small blocks then compress almost as
 * well as large ones (measured for the choice: docs/INDEX_FORMAT.md). Block boundaries depend on the
 * records alone, so the bytes do not depend on the memory budget or on which thread analysed.
 */
import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';
import { ByteWriter, DecodeError, f64Column } from './bytes.js';
import { ByteBoundedCache } from './lru.js';
import type { PagedFile } from './paged-file.js';

/** Uncompressed bytes after which a block is closed. */
export const BLOCK_TARGET_BYTES = 16 << 10;
/** zlib's default level: level 9 compressed no better on the collections measured, and level 1 was 4–10 % larger. */
const DEFLATE_LEVEL = 6;
/** The preset dictionary: the first bytes of the stream (DEFLATE's window is 32 KiB, so no more is usable). */
export const DICTIONARY_BYTES = 32 << 10;
/** A stream shorter than this gets no dictionary: it would cost more than it saves. */
export const DICTIONARY_MIN_STREAM = 4 * DICTIONARY_BYTES;
/** Per block: f64 recordsOffset, f64 blockOffset, u32 CRC-32 of the inflated records, u32 zero. */
const DIRECTORY_ENTRY_BYTES = 24;
/** f64 directoryOffset, u32 numBlocks, u32 dictionaryBytes. */
const TRAILER_BYTES = 16;
/** Inflated blocks kept per reader (a ranking's snippets revisit few; verify-index reads in order). */
const BLOCKS_KEPT = 64;
const BLOCK_BYTES_KEPT = 4 << 20;

/** Where the writer puts store.bin's data (disk.ts's streamed index file). */
export interface StoreSink {
  readonly out: ByteWriter;
  readonly length: number;
  append(data: Uint8Array): void;
  maybeFlush(): void;
}

/**
 * Compresses records as they stream in: memory holds the current block, the dictionary and the
 * block directory (24 bytes a block), never the collection.
 */
export class StoredBlockWriter {
  /** Records held until the dictionary is decided (at most DICTIONARY_MIN_STREAM bytes and one record). */
  private held: Uint8Array[] | null = [];
  private heldBytes = 0;
  private dictionary: Buffer | undefined;
  private block: Uint8Array[] = [];
  private blockBytes = 0;
  /** Uncompressed bytes of the records already in closed blocks. */
  private recordsBytes = 0;
  private directory = new ByteWriter(1 << 12);
  private numBlocks = 0;
  private dataStart = 0;

  constructor(private readonly sink: StoreSink) {
    this.dataStart = sink.length;
  }

  /** `records` are back to back, `lengths[i]` bytes each, in document order. */
  add(records: Uint8Array, lengths: Int32Array): void {
    let at = 0;
    for (let i = 0; i < lengths.length; i++) {
      const record = records.subarray(at, at + lengths[i]!);
      at += lengths[i]!;
      if (this.held) {
        this.held.push(record.slice());
        this.heldBytes += record.length;
        if (this.heldBytes >= DICTIONARY_MIN_STREAM) this.releaseHeld();
      } else this.addToBlock(record);
    }
  }

  /** Writes the last block, the directory and the trailer; returns the uncompressed stream's length. */
  finish(): number {
    if (this.held) this.releaseHeld();
    this.closeBlock();
    const data = this.sink;
    this.entry(this.recordsBytes, data.length - this.dataStart, 0);
    data.append(new Uint8Array((8 - ((data.length - this.dataStart) % 8)) % 8));
    const directoryOffset = data.length - this.dataStart;
    data.append(this.directory.view());
    data.out.f64(directoryOffset);
    data.out.u32(this.numBlocks);
    data.out.u32(this.dictionary?.length ?? 0);
    data.maybeFlush();
    return this.recordsBytes;
  }

  /** Decides the dictionary from the records held (none for a short stream), writes it, then blocks them. */
  private releaseHeld(): void {
    const held = this.held!;
    this.held = null;
    if (this.heldBytes >= DICTIONARY_MIN_STREAM) {
      this.dictionary = Buffer.concat(held, this.heldBytes).subarray(0, DICTIONARY_BYTES);
      this.sink.append(this.dictionary);
    }
    for (const record of held) this.addToBlock(record);
  }

  private addToBlock(record: Uint8Array): void {
    this.block.push(record);
    this.blockBytes += record.length;
    if (this.blockBytes >= BLOCK_TARGET_BYTES) this.closeBlock();
  }

  private closeBlock(): void {
    if (this.blockBytes === 0) return;
    const records = Buffer.concat(this.block, this.blockBytes);
    const compressed = deflateRawSync(records, { level: DEFLATE_LEVEL, ...(this.dictionary ? { dictionary: this.dictionary } : {}) });
    this.entry(this.recordsBytes, this.sink.length - this.dataStart, crc32(records) >>> 0);
    this.sink.append(compressed);
    this.sink.maybeFlush();
    this.numBlocks++;
    this.recordsBytes += this.blockBytes;
    this.block = [];
    this.blockBytes = 0;
  }

  private entry(recordsOffset: number, blockOffset: number, crc: number): void {
    this.directory.f64(recordsOffset);
    this.directory.f64(blockOffset);
    this.directory.u32(crc);
    this.directory.u32(0);
  }
}

export interface StoredBlocks {
  /** Length of the uncompressed record stream (docs.bin's store offsets address it). */
  recordsBytes: number;
  numBlocks: number;
  /**
   * Bytes [offset, offset + length) of the record stream, from the one block that holds them. The
   * records tile the stream, so asking for every document's (verify-index) inflates every block.
   */
  record(offset: number, length: number): Uint8Array;
}

/**
 * Opens store.bin reading its trailer and the directory's last entry (the stream's length, checked
 * against docs.bin by the caller); the directory is read whole on the first document, the
 * dictionary with it, and a block when a document in it is first asked for.
 */
export function openStoredBlocks(file: PagedFile): StoredBlocks {
  if (file.dataBytes < TRAILER_BYTES) throw new DecodeError('shorter than its trailer');
  const trailer = file.read(file.dataBytes - TRAILER_BYTES, TRAILER_BYTES);
  const view = new DataView(trailer.buffer, trailer.byteOffset, trailer.byteLength);
  const directoryOffset = view.getFloat64(0, true);
  const numBlocks = view.getUint32(8, true);
  const dictionaryBytes = view.getUint32(12, true);
  if (
    !Number.isInteger(directoryOffset) ||
    directoryOffset % 8 !== 0 ||
    directoryOffset + (numBlocks + 1) * DIRECTORY_ENTRY_BYTES + TRAILER_BYTES !== file.dataBytes ||
    dictionaryBytes > DICTIONARY_BYTES ||
    dictionaryBytes > directoryOffset
  ) {
    throw new DecodeError('bad trailer');
  }
  const entryAt = (b: number) => directoryOffset + b * DIRECTORY_ENTRY_BYTES;
  const last = f64Column(file.read(entryAt(numBlocks), 16));
  const recordsBytes = last[0]!;
  if (!Number.isInteger(recordsBytes) || recordsBytes < 0 || last[1]! > directoryOffset) throw new DecodeError('bad directory end');

  let directory: { recordsStart: Float64Array; blockStart: Float64Array; crcs: Uint32Array; dictionary: Buffer | undefined } | undefined;
  const loadDirectory = () => {
    if (directory) return directory;
    const bytes = file.read(directoryOffset, (numBlocks + 1) * DIRECTORY_ENTRY_BYTES);
    const entries = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const recordsStart = new Float64Array(numBlocks + 1);
    const blockStart = new Float64Array(numBlocks + 1);
    const crcs = new Uint32Array(numBlocks);
    for (let b = 0; b <= numBlocks; b++) {
      recordsStart[b] = entries.getFloat64(b * DIRECTORY_ENTRY_BYTES, true);
      blockStart[b] = entries.getFloat64(b * DIRECTORY_ENTRY_BYTES + 8, true);
      if (b < numBlocks) crcs[b] = entries.getUint32(b * DIRECTORY_ENTRY_BYTES + 16, true);
      const first = b === 0;
      if (first ? recordsStart[0] !== 0 || blockStart[0] !== dictionaryBytes : !(recordsStart[b]! > recordsStart[b - 1]!) || !(blockStart[b]! > blockStart[b - 1]!)) {
        throw new DecodeError(`block directory out of order at block ${b}`);
      }
    }
    const dictionary = dictionaryBytes > 0 ? Buffer.from(file.read(0, dictionaryBytes)) : undefined;
    return (directory = { recordsStart, blockStart, crcs, dictionary });
  };

  const inflated = new ByteBoundedCache<Uint8Array>(BLOCKS_KEPT, BLOCK_BYTES_KEPT, (b) => b.length);
  const block = (b: number): Uint8Array =>
    inflated.get(b, () => {
      const { recordsStart, blockStart, crcs, dictionary } = loadDirectory();
      const expected = recordsStart[b + 1]! - recordsStart[b]!;
      const compressed = file.read(blockStart[b]!, blockStart[b + 1]! - blockStart[b]!);
      let records: Buffer;
      try {
        // maxOutputLength: a block that inflates past its directory size stops there.
        records = inflateRawSync(compressed, { ...(dictionary ? { dictionary } : {}), maxOutputLength: Math.max(1, expected) });
      } catch (err) {
        throw new DecodeError(`block ${b} does not inflate (${(err as Error).message})`);
      }
      if (records.length !== expected) throw new DecodeError(`block ${b} inflates to ${records.length} bytes, its directory says ${expected}`);
      if (crc32(records) >>> 0 !== crcs[b]) throw new DecodeError(`block ${b} inflates to records that fail their checksum`);
      return records;
    });
  /** The block whose records start at or before `offset` (binary search of the directory). */
  const blockOf = (offset: number): number => {
    const { recordsStart } = loadDirectory();
    let lo = 0;
    let hi = numBlocks;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (recordsStart[mid + 1]! <= offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };

  return {
    recordsBytes,
    numBlocks,
    record(offset, length) {
      if (!(offset >= 0) || !(length > 0) || offset + length > recordsBytes) throw new DecodeError(`record bytes ${offset}–${offset + length} lie outside the stored records (${recordsBytes} bytes)`);
      const b = blockOf(offset);
      const { recordsStart } = loadDirectory();
      if (offset + length > recordsStart[b + 1]!) throw new DecodeError(`record bytes ${offset}–${offset + length} cross the end of block ${b}`);
      const start = offset - recordsStart[b]!;
      return block(b).subarray(start, start + length);
    },
  };
}
