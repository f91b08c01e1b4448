/**
 * Index files read lazily (postings.bin, direct.bin, store.bin; docs/INDEX_FORMAT.md "Paged
 * files"): the payload is the data, then a CRC-32 per PAGE_BYTES page of it, then a 12-byte
 * trailer (page size, data length). Opening reads only the header, the trailer and the page
 * table; every later read checks the pages it touches, so a damaged page is refused where it is
 * read instead of being decoded into wrong answers, and an index is never read whole to be opened.
 */
import { closeSync, fstatSync, readSync } from 'node:fs';
import { crc32 } from 'node:zlib';

export const PAGE_BYTES = 4096;
/** u32 page size, u64 data length. */
export const PAGED_TRAILER_BYTES = 12;

/** Accumulates the page checksums of data written in chunks of any size. */
export class PageChecksums {
  private readonly crcs: number[] = [];
  private pageCrc = 0;
  private pageFill = 0;
  private total = 0;

  add(chunk: Uint8Array): void {
    let at = 0;
    while (at < chunk.length) {
      const take = Math.min(PAGE_BYTES - this.pageFill, chunk.length - at);
      this.pageCrc = crc32(chunk.subarray(at, at + take), this.pageCrc);
      this.pageFill += take;
      at += take;
      if (this.pageFill === PAGE_BYTES) {
        this.crcs.push(this.pageCrc >>> 0);
        this.pageCrc = 0;
        this.pageFill = 0;
      }
    }
    this.total += chunk.length;
  }

  /** The page table and trailer that follow the data. */
  finish(): Buffer {
    if (this.pageFill > 0) this.crcs.push(this.pageCrc >>> 0);
    this.pageFill = 0;
    const out = Buffer.alloc(this.crcs.length * 4 + PAGED_TRAILER_BYTES);
    this.crcs.forEach((c, i) => out.writeUInt32LE(c, i * 4));
    out.writeUInt32LE(PAGE_BYTES, this.crcs.length * 4);
    out.writeBigUInt64LE(BigInt(this.total), this.crcs.length * 4 + 4);
    return out;
  }
}

/** The data followed by its page table and trailer (for files built in memory). */
export function pagedPayload(data: Uint8Array): { payload: Buffer; tail: Buffer } {
  const sums = new PageChecksums();
  sums.add(data);
  const tail = sums.finish();
  return { payload: Buffer.concat([data, tail]), tail };
}

/** Thrown when a page does not match its checksum or the page table does not fit the file. */
export class PageChecksumError extends Error {}

/**
 * An open paged file: holds its descriptor (so that a rebuild swapping a new index into the
 * folder never mixes files of two builds into one reader) and reads checked byte ranges.
 */
export class PagedFile {
  private constructor(
    private fd: number,
    /** Offset of the data in the file (after the header). */
    private readonly base: number,
    readonly dataBytes: number,
    private readonly pageCrcs: Uint32Array,
  ) {}

  /**
   * Reads the trailer and page table of the file open at `fd`, whose payload (after `base`
   * header bytes) is `payloadBytes` long, and returns them with the file; `tailCrc` is the
   * CRC-32 the header must hold for (build id, page table, trailer), computed by the caller.
   */
  static open(fd: number, base: number, payloadBytes: number): { file: PagedFile; tail: Buffer } {
    if (payloadBytes < PAGED_TRAILER_BYTES) throw new PageChecksumError('payload shorter than its trailer');
    const trailer = readExactly(fd, base + payloadBytes - PAGED_TRAILER_BYTES, PAGED_TRAILER_BYTES);
    const pageBytes = trailer.readUInt32LE(0);
    if (pageBytes !== PAGE_BYTES) throw new PageChecksumError(`page size ${pageBytes}, expected ${PAGE_BYTES}`);
    const dataBytes = Number(trailer.readBigUInt64LE(4));
    const pages = Math.ceil(dataBytes / PAGE_BYTES);
    if (dataBytes + pages * 4 + PAGED_TRAILER_BYTES !== payloadBytes) throw new PageChecksumError('page table does not fit the payload length');
    const tail = readExactly(fd, base + dataBytes, pages * 4 + PAGED_TRAILER_BYTES);
    const pageCrcs = new Uint32Array(pages);
    for (let i = 0; i < pages; i++) pageCrcs[i] = tail.readUInt32LE(i * 4);
    return { file: new PagedFile(fd, base, dataBytes, pageCrcs), tail };
  }

  /**
   * Bytes [offset, offset + length) of the data, every page they touch checked. `memory`, when
   * given, may supply the bytes to read the pages into (their length: whole pages from `offset`'s);
   * undefined from it means a new buffer.
   */
  read(offset: number, length: number, memory?: (bytes: number) => Uint8Array | undefined): Uint8Array {
    if (offset < 0 || length < 0 || offset + length > this.dataBytes) throw new PageChecksumError(`bytes ${offset}–${offset + length} lie outside the data (${this.dataBytes} bytes)`);
    if (length === 0) return new Uint8Array(0);
    const first = Math.floor(offset / PAGE_BYTES);
    const last = Math.floor((offset + length - 1) / PAGE_BYTES);
    const start = first * PAGE_BYTES;
    const end = Math.min(this.dataBytes, (last + 1) * PAGE_BYTES);
    const pages = readExactly(this.fd, this.base + start, end - start, memory?.(end - start));
    for (let p = first; p <= last; p++) this.checkPage(p, pages.subarray((p - first) * PAGE_BYTES, Math.min(pages.length, (p - first + 1) * PAGE_BYTES)));
    return pages.subarray(offset - start, offset - start + length);
  }

  /** Checks every page (`querylens verify-index`), reading a megabyte at a time. */
  verifyAll(): void {
    const chunkPages = 256;
    for (let p = 0; p < this.pageCrcs.length; p += chunkPages) {
      const start = p * PAGE_BYTES;
      const end = Math.min(this.dataBytes, (p + chunkPages) * PAGE_BYTES);
      const data = readExactly(this.fd, this.base + start, end - start);
      for (let q = p; q < Math.min(this.pageCrcs.length, p + chunkPages); q++) {
        this.checkPage(q, data.subarray((q - p) * PAGE_BYTES, Math.min(data.length, (q - p + 1) * PAGE_BYTES)));
      }
    }
  }

  close(): void {
    if (this.fd < 0) return;
    closeSync(this.fd);
    this.fd = -1;
  }

  private checkPage(page: number, bytes: Uint8Array): void {
    if (crc32(bytes) >>> 0 !== this.pageCrcs[page]) {
      throw new PageChecksumError(`checksum mismatch in page ${page}, bytes ${page * PAGE_BYTES}–${page * PAGE_BYTES + bytes.length} of the data`);
    }
  }
}

/** Whole length of the file open at fd. */
export function fileLength(fd: number): number {
  return fstatSync(fd).size;
}

/** Exactly `length` bytes at `position`; a shorter file is a PageChecksumError (it was truncated after opening). */
export function readExactly(fd: number, position: number, length: number, into?: Uint8Array): Buffer {
  const out = into && into.length === length ? Buffer.from(into.buffer, into.byteOffset, length) : Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, out, got, length - got, position + got);
    if (n === 0) throw new PageChecksumError(`file ends at byte ${position + got}, before ${position + length}`);
    got += n;
  }
  return out;
}
