/**
 * Byte encodings of the on-disk index (docs/INDEX_FORMAT.md): unsigned LEB128 varints
 * (7 bits a byte, low groups first, high bit = more follows) and length-prefixed UTF-8.
 */

export class ByteWriter {
  private buf: Uint8Array;
  length = 0;

  constructor(initialCapacity = 1 << 16) {
    this.buf = new Uint8Array(Math.max(64, initialCapacity));
  }

  private ensure(extra: number): void {
    if (this.length + extra <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.length + extra) size *= 2;
    const bigger = new Uint8Array(size);
    bigger.set(this.buf.subarray(0, this.length));
    this.buf = bigger;
  }

  /** Unsigned varint of a non-negative safe integer. */
  varint(value: number): void {
    this.ensure(8);
    let v = value;
    // Bit operations are 32-bit in JS; divide for the (rare) values past 2^31.
    while (v >= 0x80) {
      this.buf[this.length++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.length++] = v;
  }

  bytes(data: Uint8Array): void {
    this.ensure(data.length);
    this.buf.set(data, this.length);
    this.length += data.length;
  }

  /** Little-endian u32. */
  u32(value: number): void {
    this.ensure(4);
    new DataView(this.buf.buffer, this.buf.byteOffset).setUint32(this.length, value, true);
    this.length += 4;
  }

  /** Little-endian IEEE double (offsets past 2^32 stay exact up to 2^53). */
  f64(value: number): void {
    this.ensure(8);
    new DataView(this.buf.buffer, this.buf.byteOffset).setFloat64(this.length, value, true);
    this.length += 8;
  }

  /** varint byte length, then the UTF-8 bytes. */
  string(s: string): void {
    const data = Buffer.from(s, 'utf8');
    this.varint(data.length);
    this.bytes(data);
  }

  /** The written bytes (a view; copy before writing more if it must outlive the writer). */
  view(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }
}

/** Thrown by ByteReader on data that ends early or is not a valid varint. */
export class DecodeError extends Error {}

export class ByteReader {
  pos: number;

  constructor(
    private readonly buf: Uint8Array,
    start = 0,
    private readonly end = buf.length,
  ) {
    this.pos = start;
  }

  get atEnd(): boolean {
    return this.pos >= this.end;
  }

  varint(): number {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 8; i++) {
      if (this.pos >= this.end) throw new DecodeError('data ends inside a number');
      const byte = this.buf[this.pos++]!;
      result += (byte & 0x7f) * scale;
      if (byte < 0x80) return result;
      scale *= 0x80;
    }
    throw new DecodeError('number too long');
  }

  bytes(n: number): Uint8Array {
    if (this.pos + n > this.end) throw new DecodeError('data ends inside a string');
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  string(): string {
    return utf8.decode(this.bytes(this.varint()));
  }

  skipString(): void {
    this.bytes(this.varint());
  }
}

const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** A column of little-endian u32s: a view of the bytes when they are aligned, else a copy. */
export function u32Column(bytes: Uint8Array): Uint32Array {
  if (bytes.length % 4 !== 0) throw new DecodeError('a u32 column is not a whole number of values');
  if (littleEndian && bytes.byteOffset % 4 === 0) return new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
  const out = new Uint32Array(bytes.length / 4);
  if (littleEndian) new Uint8Array(out.buffer).set(bytes);
  else {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
    for (let i = 0; i < out.length; i++) out[i] = view.getUint32(i * 4, true);
  }
  return out;
}

/** A column of little-endian doubles: a view of the bytes when they are aligned, else a copy. */
export function f64Column(bytes: Uint8Array): Float64Array {
  if (bytes.length % 8 !== 0) throw new DecodeError('a double column is not a whole number of values');
  if (littleEndian && bytes.byteOffset % 8 === 0) return new Float64Array(bytes.buffer, bytes.byteOffset, bytes.length / 8);
  const out = new Float64Array(bytes.length / 8);
  if (littleEndian) new Uint8Array(out.buffer).set(bytes);
  else {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
    for (let i = 0; i < out.length; i++) out[i] = view.getFloat64(i * 8, true);
  }
  return out;
}

const utf8 = new TextDecoder('utf-8');

export function decodeUtf8(data: Uint8Array): string {
  return utf8.decode(data);
}
