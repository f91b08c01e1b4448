/**
 * CIFF, the Common Index File Format (Lin et al., "Supporting Interoperability Between
 * Open-Source Search Engines with the Common Index File Format", SIGIR 2020; the message
 * definitions are osirrc/ciff's CommonIndexFileFormat.proto): one file holding a Header, then
 * `num_postings_lists` PostingsList messages (term, df, cf, postings of docid gaps and tfs), then
 * `num_doc_records` DocRecord messages (docid, collection docid, document length), each message
 * preceded by its byte length as a varint (protobuf's length-delimited stream).
 *
 * The codec is hand-written for these three messages (docs/INDEX_FORMAT.md "CIFF"): proto3's
 * wire format is a fixed, documented encoding, an import must stream a multi-gigabyte file a
 * message at a time, and every problem must be reported at its byte offset and message number,
 * which a general protobuf runtime's errors ("index out of range") do not give.
 *
 * Export reads the index's docs parts only (no positions). Import turns the term-major postings
 * into document-major batches (AnalysedBatch, as a corpus read gives them) and builds through the
 * same out-of-core pipeline as `querylens index` (runs, merge, atomic swap, checksums): an import
 * holds no positions and no stored text, and says so in meta.bin (content.ts). The inversion
 * holds at most a budget of postings at a time, re-reading the file once per document range.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { AnalysedBatch } from './analysed-batches.js';
import { ByteWriter } from './bytes.js';
import { contentOf, type IndexContent } from './content.js';
import { buildIndex, type BuildIndexOptions, type BuildSummary } from './disk.js';
import { GrowableInt32 } from './growable.js';
import type { IndexReader } from './reader.js';
import { newBlockView } from './postings-codec.js';

/** The CIFF version this module writes (Header.version). */
export const CIFF_VERSION = 1;
/** Marker in Header.description of a querylens export: what the tf slot holds. */
const IMPACTS_MARKER = 'postings: impacts';
const PROFILE_MARKER = /\bquerylens analyser profile: (terrier|lucene|none)\b/;

/** A malformed or truncated CIFF file, at a byte offset (message `file (byte N): reason`). */
export class CiffError extends Error {
  constructor(
    readonly file: string,
    readonly offset: number,
    readonly reason: string,
  ) {
    super(`${file} (byte ${offset}): ${reason}`);
    this.name = 'CiffError';
  }
}

export interface CiffHeader {
  version: number;
  numPostingsLists: number;
  numDocRecords: number;
  totalPostingsLists: number;
  totalDocs: number;
  totalTermsInCollection: number;
  averageDocLength: number;
  description: string;
}

// ---------------------------------------------------------------------------------------
// Wire format

const VARINT = 0;
const FIXED64 = 1;
const LENGTH_DELIMITED = 2;
const FIXED32 = 5;

function tag(field: number, wire: number): number {
  return field * 8 + wire;
}

/** A varint field, left out when 0 (proto3's default, as protobuf writers do). */
function varintField(out: ByteWriter, field: number, value: number): void {
  if (value === 0) return;
  out.varint(tag(field, VARINT));
  out.varint(value);
}

function stringField(out: ByteWriter, field: number, value: string): void {
  if (value === '') return;
  out.varint(tag(field, LENGTH_DELIMITED));
  out.string(value);
}

function messageField(out: ByteWriter, field: number, message: Uint8Array): void {
  out.varint(tag(field, LENGTH_DELIMITED));
  out.varint(message.length);
  out.bytes(message);
}

/** Appends a length-delimited message. */
function delimited(out: ByteWriter, message: Uint8Array): void {
  out.varint(message.length);
  out.bytes(message);
}

export function encodeHeader(h: CiffHeader): Uint8Array {
  const out = new ByteWriter(256);
  varintField(out, 1, h.version);
  varintField(out, 2, h.numPostingsLists);
  varintField(out, 3, h.numDocRecords);
  varintField(out, 4, h.totalPostingsLists);
  varintField(out, 5, h.totalDocs);
  varintField(out, 6, h.totalTermsInCollection);
  if (h.averageDocLength !== 0) {
    out.varint(tag(7, FIXED64));
    const b = Buffer.alloc(8);
    b.writeDoubleLE(h.averageDocLength);
    out.bytes(b);
  }
  stringField(out, 8, h.description);
  return out.view().slice();
}

/** One field of a message being decoded: its number, and its value (a number or the bytes). */
type Field = { field: number; wire: number; value: number; bytes?: Uint8Array; at: number };

/**
 * Reads the fields of one message. `base` is the message's offset in the file, for errors.
 * Varints past 2^53 (a negative int32/int64 is written as ten bytes) are refused: no CIFF
 * quantity is negative.
 */
function* fields(bytes: Uint8Array, base: number, file: string, what: () => string): Generator<Field> {
  let p = 0;
  const varint = (): number => {
    let result = 0;
    let scale = 1;
    const start = p;
    for (;;) {
      if (p >= bytes.length) throw new CiffError(file, base + start, `${what()}: the message ends inside a number`);
      const byte = bytes[p++]!;
      result += (byte & 0x7f) * scale;
      if (byte < 0x80) break;
      scale *= 0x80;
      if (p - start >= 8) throw new CiffError(file, base + start, `${what()}: a negative or too large number`);
    }
    return result;
  };
  while (p < bytes.length) {
    const at = base + p;
    const key = varint();
    const field = Math.floor(key / 8);
    const wire = key % 8;
    if (field === 0) throw new CiffError(file, at, `${what()}: field number 0 (not a protobuf message)`);
    if (wire === VARINT) {
      yield { field, wire, value: varint(), at };
    } else if (wire === LENGTH_DELIMITED) {
      const n = varint();
      if (p + n > bytes.length) throw new CiffError(file, at, `${what()}: field ${field} runs past the end of its message`);
      yield { field, wire, value: n, bytes: bytes.subarray(p, p + n), at };
      p += n;
    } else if (wire === FIXED64 || wire === FIXED32) {
      const n = wire === FIXED64 ? 8 : 4;
      if (p + n > bytes.length) throw new CiffError(file, at, `${what()}: field ${field} runs past the end of its message`);
      const view = Buffer.from(bytes.buffer, bytes.byteOffset + p, n);
      yield { field, wire, value: n === 8 ? view.readDoubleLE(0) : view.readFloatLE(0), at };
      p += n;
    } else {
      throw new CiffError(file, at, `${what()}: unsupported protobuf wire type ${wire} (field ${field})`);
    }
  }
}

function expectWire(f: Field, wire: number, file: string, what: () => string, name: string): void {
  if (f.wire !== wire) throw new CiffError(file, f.at, `${what()}: ${name} has wire type ${f.wire}, expected ${wire}`);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function text(f: Field, file: string, what: () => string, name: string): string {
  expectWire(f, LENGTH_DELIMITED, file, what, name);
  try {
    return utf8.decode(f.bytes!);
  } catch {
    throw new CiffError(file, f.at, `${what()}: ${name} is not valid UTF-8`);
  }
}

export function decodeHeader(bytes: Uint8Array, base: number, file: string): CiffHeader {
  const what = () => 'Header';
  const h: CiffHeader = { version: 0, numPostingsLists: 0, numDocRecords: 0, totalPostingsLists: 0, totalDocs: 0, totalTermsInCollection: 0, averageDocLength: 0, description: '' };
  for (const f of fields(bytes, base, file, what)) {
    if (f.field === 8) h.description = text(f, file, what, 'description');
    else if (f.field === 7) {
      expectWire(f, FIXED64, file, what, 'average_doclength');
      h.averageDocLength = f.value;
    } else if (f.field >= 1 && f.field <= 6) {
      expectWire(f, VARINT, file, what, `field ${f.field}`);
      const key = (['version', 'numPostingsLists', 'numDocRecords', 'totalPostingsLists', 'totalDocs', 'totalTermsInCollection'] as const)[f.field - 1]!;
      h[key] = f.value;
    }
    // Unknown fields are skipped, as protobuf readers do.
  }
  return h;
}

// ---------------------------------------------------------------------------------------
// Export

/** Where the CIFF bytes go (the CLI's safe output file). */
export interface CiffSink {
  write(data: Uint8Array): void;
}

/**
 * Writes the whole index as CIFF: every term's postings (docids gap-encoded, tf = the index's tf
 * slot: counts, or impacts for an impact index), then every document's docno and length. Docids
 * are the index's document numbers, 0..N-1.
 */
export function exportCiff(reader: IndexReader, sink: CiffSink): CiffHeader {
  const stats = reader.stats();
  const content = contentOf(reader);
  const terms = [...reader.vocabulary()];
  const header: CiffHeader = {
    version: CIFF_VERSION,
    numPostingsLists: terms.length,
    numDocRecords: stats.numDocs,
    totalPostingsLists: terms.length,
    totalDocs: stats.numDocs,
    totalTermsInCollection: stats.totalTokens,
    averageDocLength: stats.avgDocLength,
    description: describeExport(reader.profile, content),
  };
  const out = new ByteWriter(1 << 20);
  const flush = () => {
    if (out.length >= 1 << 20) {
      sink.write(out.view().slice());
      out.length = 0;
    }
  };
  delimited(out, encodeHeader(header));
  const view = newBlockView();
  const list = new ByteWriter(1 << 16);
  const posting = new ByteWriter(32);
  for (const term of terms) {
    const blocks = reader.postingBlocks(term)!;
    const s = reader.termStats(term)!;
    list.length = 0;
    stringField(list, 1, term);
    varintField(list, 2, s.df);
    varintField(list, 3, s.cf);
    let prev = 0;
    for (let b = 0; b < blocks.numBlocks; b++) {
      blocks.decodeBlock(b, view);
      const { docs, tfs } = view;
      for (let i = view.start; i < view.end; i++) {
        posting.length = 0;
        varintField(posting, 1, docs[i]! - prev);
        varintField(posting, 2, tfs[i]!);
        prev = docs[i]!;
        messageField(list, 4, posting.view());
      }
    }
    delimited(out, list.view());
    flush();
  }
  const record = new ByteWriter(256);
  for (let d = 0; d < stats.numDocs; d++) {
    record.length = 0;
    varintField(record, 1, d);
    stringField(record, 2, reader.docno(d));
    varintField(record, 3, reader.docLength(d));
    delimited(out, record.view());
    flush();
  }
  if (out.length > 0) sink.write(out.view().slice());
  return header;
}

function describeExport(profile: string, content: IndexContent): string {
  const postings = content.postings === 'impacts' ? `${IMPACTS_MARKER} (integer impacts in the tf field)` : 'postings: term frequencies';
  return `exported by querylens; querylens analyser profile: ${content.preTokenised ? 'none' : profile}; ${postings}`;
}

// ---------------------------------------------------------------------------------------
// Import

/** Reads length-delimited messages from a file, tracking the byte offset. */
class MessageReader {
  private readonly fd: number;
  private buf = Buffer.alloc(1 << 20);
  private pos = 0;
  private end = 0;
  /** File offset of buf[0]. */
  private bufAt = 0;
  readonly size: number;

  constructor(readonly file: string) {
    this.fd = openSync(file, 'r');
    this.size = fstatSync(this.fd).size;
  }

  /** Offset in the file of the next unread byte. */
  get offset(): number {
    return this.bufAt + this.pos;
  }

  /** Moves to a file offset (a later pass over the same messages). */
  seek(offset: number): void {
    this.bufAt = offset;
    this.pos = 0;
    this.end = 0;
  }

  private fill(n: number): boolean {
    if (this.end - this.pos >= n) return true;
    const keep = this.end - this.pos;
    const size = Math.max(this.buf.length, n);
    const next = size > this.buf.length ? Buffer.alloc(size) : this.buf;
    this.buf.copy(next, 0, this.pos, this.end);
    this.buf = next;
    this.bufAt += this.pos;
    this.pos = 0;
    this.end = keep;
    while (this.end < n) {
      const got = readSync(this.fd, this.buf, this.end, this.buf.length - this.end, this.bufAt + this.end);
      if (got === 0) return false;
      this.end += got;
    }
    return true;
  }

  atEnd(): boolean {
    return !this.fill(1);
  }

  /** The next message's bytes (valid until the next call) and its offset; `what` names it in errors. */
  next(what: () => string): { bytes: Uint8Array; at: number } {
    const at = this.offset;
    let length = 0;
    let scale = 1;
    for (let i = 0; ; i++) {
      if (!this.fill(1)) throw new CiffError(this.file, this.offset, `truncated: the file ends ${i === 0 ? 'where' : 'inside the length of'} ${what()} ${i === 0 ? 'should start' : ''}`.trim());
      const byte = this.buf[this.pos++]!;
      length += (byte & 0x7f) * scale;
      if (byte < 0x80) break;
      scale *= 0x80;
      if (i >= 7) throw new CiffError(this.file, at, `${what()}: its length is not a valid varint`);
    }
    const start = this.offset;
    if (!this.fill(length)) throw new CiffError(this.file, start, `truncated: ${what()} is ${length} bytes long, the file ends after ${this.size - start}`);
    const bytes = this.buf.subarray(this.pos, this.pos + length);
    this.pos += length;
    return { bytes, at: start };
  }

  close(): void {
    closeSync(this.fd);
  }
}

export interface CiffImportPlan {
  header: CiffHeader;
  /** What the import holds (no positions, no stored text; impacts or frequencies). */
  content: IndexContent;
  /** The analyser profile the terms were made with, when the file says (a querylens export), else `none`. */
  profile: 'terrier' | 'lucene' | 'none';
  /** Batches in document order for buildIndex (BuildIndexOptions.prepared). */
  batches: () => AsyncGenerator<AnalysedBatch>;
}

export interface CiffImportOptions {
  /** What the tf field holds; default: impacts when the description says so (a querylens export of an impact index), else frequencies. */
  postings?: 'impacts' | 'frequencies';
  /** The analyser the terms were made with; default: the one a querylens export names, else none (terms as written). */
  profile?: 'terrier' | 'lucene' | 'none';
  /** Postings held in memory at a time while inverting (default 16 M: 128 MiB); one more pass over the file per such range of documents. */
  postingsPerPass?: number;
  /** Documents per batch handed to the build. */
  batchDocs?: number;
}

/**
 * A Posting message (docid gap = field 1, tf = field 2): the hot path of an import, so read
 * without the generic field reader when it holds only one-byte keys and varints, as writers
 * produce; anything else goes through `fields` (unknown fields, other wire types, its errors).
 */
function readPosting(bytes: Uint8Array, base: number, file: string, what: () => string): { gap: number; tf: number } {
  let gap = 0;
  let tf = 0;
  let p = 0;
  while (p < bytes.length) {
    const key = bytes[p]!;
    if (key !== 8 && key !== 16) return readPostingSlowly(bytes, base, file, what);
    p++;
    let value = 0;
    let scale = 1;
    for (let i = 0; ; i++) {
      if (p >= bytes.length || i >= 7) return readPostingSlowly(bytes, base, file, what);
      const byte = bytes[p++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) break;
      scale *= 0x80;
    }
    if (key === 8) gap = value;
    else tf = value;
  }
  return { gap, tf };
}

function readPostingSlowly(bytes: Uint8Array, base: number, file: string, what: () => string): { gap: number; tf: number } {
  let gap = 0;
  let tf = 0;
  for (const g of fields(bytes, base, file, what)) {
    if (g.field === 1) {
      expectWire(g, VARINT, file, what, 'docid');
      gap = g.value;
    } else if (g.field === 2) {
      expectWire(g, VARINT, file, what, 'tf');
      tf = g.value;
    }
  }
  return { gap, tf };
}

/**
 * Decodes one PostingsList message, checking it (docids ascending and below numDocs, tf ≥ 1, df
 * and cf as stated), and calls `visit` for each posting. Returns the term.
 */
function readPostingsList(
  m: { bytes: Uint8Array; at: number },
  file: string,
  what: () => string,
  numDocs: number,
  visit: (doc: number, tf: number) => void,
): string {
  let term = '';
  let df = 0;
  let cf = 0;
  let count = 0;
  let sumTf = 0;
  let doc = 0;
  for (const f of fields(m.bytes, m.at, file, what)) {
    if (f.field === 1) term = text(f, file, what, 'term');
    else if (f.field === 2) {
      expectWire(f, VARINT, file, what, 'df');
      df = f.value;
    } else if (f.field === 3) {
      expectWire(f, VARINT, file, what, 'cf');
      cf = f.value;
    } else if (f.field === 4) {
      expectWire(f, LENGTH_DELIMITED, file, what, 'a posting');
      const { gap, tf } = readPosting(f.bytes!, m.at + (f.bytes!.byteOffset - m.bytes.byteOffset), file, what);
      if (count > 0 && gap === 0) throw new CiffError(file, f.at, `${what()}: posting ${count + 1} repeats document ${doc} (docid gap 0)`);
      doc += gap;
      if (doc >= numDocs) throw new CiffError(file, f.at, `${what()}: posting ${count + 1} names document ${doc}, past the last of the ${numDocs} DocRecords`);
      if (tf < 1 || tf > 0x7fffffff) throw new CiffError(file, f.at, `${what()}: posting ${count + 1} has tf ${tf} (expected 1 to ${0x7fffffff})`);
      count++;
      sumTf += tf;
      visit(doc, tf);
    }
  }
  if (term === '') throw new CiffError(file, m.at, `${what()}: no term`);
  if (df !== count) throw new CiffError(file, m.at, `${what()}: df ${df}, but ${count} postings`);
  if (cf !== sumTf) throw new CiffError(file, m.at, `${what()}: cf ${cf}, but the tfs add up to ${sumTf}`);
  return term;
}

/**
 * Checks a whole CIFF file (header, every postings list, every document record) and plans its
 * import; every problem is a CiffError at its byte offset, before anything is built.
 */
export function planCiffImport(file: string, options: CiffImportOptions = {}): CiffImportPlan {
  const r = new MessageReader(file);
  try {
    const h = r.next(() => 'the Header');
    const header = decodeHeader(h.bytes, h.at, file);
    if (header.numPostingsLists !== header.totalPostingsLists || header.numDocRecords !== header.totalDocs) {
      throw new CiffError(
        file,
        h.at,
        `Header: a partial export (${header.numPostingsLists} of ${header.totalPostingsLists} postings lists, ${header.numDocRecords} of ${header.totalDocs} documents): its statistics would be wrong, so it is not imported`,
      );
    }
    const numDocs = header.numDocRecords;
    if (numDocs > 0x7fffffff) throw new CiffError(file, h.at, `Header: ${numDocs} documents, more than an index holds`);
    const postingsStart = r.offset;
    /** Postings of each document (to cut the inversion into passes), 4 bytes a document. */
    const perDoc = new Int32Array(numDocs);
    const terms: string[] = [];
    const seen = new Set<string>();
    for (let t = 0; t < header.numPostingsLists; t++) {
      const what = () => `PostingsList ${t + 1} of ${header.numPostingsLists}`;
      const m = r.next(what);
      const term = readPostingsList(m, file, what, numDocs, (doc) => perDoc[doc]!++);
      if (seen.has(term)) throw new CiffError(file, m.at, `${what()}: term ${JSON.stringify(term)} has a PostingsList already`);
      seen.add(term);
      terms.push(term);
    }
    const docnos: string[] = new Array(numDocs);
    const docLengths = new Int32Array(numDocs);
    const docnosSeen = new Set<string>();
    for (let d = 0; d < numDocs; d++) {
      const what = () => `DocRecord ${d + 1} of ${numDocs}`;
      const m = r.next(what);
      let docid = 0;
      let docno = '';
      let length = 0;
      for (const f of fields(m.bytes, m.at, file, what)) {
        if (f.field === 1) {
          expectWire(f, VARINT, file, what, 'docid');
          docid = f.value;
        } else if (f.field === 2) docno = text(f, file, what, 'collection_docid');
        else if (f.field === 3) {
          expectWire(f, VARINT, file, what, 'doclength');
          length = f.value;
        }
      }
      if (docid !== d) throw new CiffError(file, m.at, `${what()}: docid ${docid}, expected ${d} (records must number the documents 0..N-1 in order)`);
      if (docno === '') throw new CiffError(file, m.at, `${what()}: no collection_docid`);
      if (docnosSeen.has(docno)) throw new CiffError(file, m.at, `${what()}: duplicate collection_docid '${docno}'`);
      if (length > 0x7fffffff) throw new CiffError(file, m.at, `${what()}: doclength ${length} is too large`);
      docnosSeen.add(docno);
      docnos[d] = docno;
      docLengths[d] = length;
    }
    if (!r.atEnd()) throw new CiffError(file, r.offset, `${r.size - r.offset} bytes after the last DocRecord (the Header announces ${numDocs})`);
    const postings = options.postings ?? (header.description.includes(IMPACTS_MARKER) ? 'impacts' : 'frequencies');
    const profile = options.profile ?? ((PROFILE_MARKER.exec(header.description)?.[1] as 'terrier' | 'lucene' | 'none' | undefined) ?? 'none');
    const content: IndexContent = { postings, positions: false, preTokenised: profile === 'none', storedText: false, source: 'ciff', docVectors: 'stored' };
    return { header, content, profile, batches: () => ciffBatches(file, header, postingsStart, terms, perDoc, docnos, docLengths, options) };
  } finally {
    r.close();
  }
}

/**
 * The documents in order, each with its terms (ids: the lists' order in the file, announced in the
 * first batch) and tfs as token entries with counts. The documents are cut into ranges of about
 * `postingsPerPass` postings; each range is one pass over the (already checked) postings lists.
 */
async function* ciffBatches(
  file: string,
  header: CiffHeader,
  postingsStart: number,
  terms: string[],
  perDoc: Int32Array,
  docnos: string[],
  docLengths: Int32Array,
  options: CiffImportOptions,
): AsyncGenerator<AnalysedBatch> {
  const numDocs = header.numDocRecords;
  const numLists = header.numPostingsLists;
  const perPass = Math.max(1, options.postingsPerPass ?? 16 << 20);
  const batchDocs = options.batchDocs ?? 2048;
  const r = new MessageReader(file);
  try {
    for (let first = 0; first < numDocs; ) {
      // The range [first, last): whole documents up to the budget (at least one).
      let last = first;
      let rows = 0;
      while (last < numDocs && (last === first || rows + perDoc[last]! <= perPass)) rows += perDoc[last++]!;
      // Counting sort by document: each document's slots, filled in list (= term id) order.
      const slot = new Float64Array(last - first + 1);
      for (let d = first; d < last; d++) slot[d - first + 1] = slot[d - first]! + perDoc[d]!;
      const ends = Float64Array.from(slot);
      const termOf = new Int32Array(rows);
      const tfOf = new Int32Array(rows);
      r.seek(postingsStart);
      for (let t = 0; t < numLists; t++) {
        const what = () => `PostingsList ${t + 1} of ${numLists}`;
        readPostingsList(r.next(what), file, what, numDocs, (doc, tf) => {
          if (doc < first || doc >= last) return;
          const k = slot[doc - first]!++;
          termOf[k] = t;
          tfOf[k] = tf;
        });
      }
      for (let b = first; b < last; b += batchDocs) {
        const e = Math.min(last, b + batchDocs);
        const from = ends[b - first]!;
        const to = ends[e - first]!;
        const docTokenEnd = new Int32Array(e - b);
        for (let d = b; d < e; d++) docTokenEnd[d - b] = ends[d - first + 1]! - from;
        // No stored text: each stored record is [docno, "", {}].
        const storeRecords = docnos.slice(b, e).map((docno) => Buffer.from(JSON.stringify([docno, '', {}]), 'utf8'));
        yield {
          newTerms: b === 0 ? terms : [],
          newFields: [],
          docnos: docnos.slice(b, e),
          tokens: termOf.slice(from, to),
          tokenCounts: tfOf.slice(from, to),
          docLengths: docLengths.slice(b, e),
          docTokenEnd,
          docExtEnd: new Int32Array(e - b),
          extField: new Int32Array(0),
          extBegin: new Int32Array(0),
          extLength: new Int32Array(0),
          store: new Uint8Array(Buffer.concat(storeRecords)),
          storeLengths: Int32Array.from(storeRecords, (x) => x.length),
          bytesRead: Math.round((r.size * e) / numDocs),
          bad: [],
        };
      }
      first = last;
    }
  } finally {
    r.close();
  }
}

/**
 * Imports a CIFF file as an index at `outDir` (built and swapped in like `querylens index`; a
 * CiffError, with nothing written, when the file is malformed).
 */
export async function importCiff(
  file: string,
  outDir: string,
  options: CiffImportOptions & Pick<BuildIndexOptions, 'onProgress' | 'memoryBudgetBytes'> = {},
): Promise<BuildSummary & { header: CiffHeader; content: IndexContent }> {
  const plan = planCiffImport(file, options);
  const summary = await buildIndex([file], outDir, {
    prepared: { batches: plan.batches, content: plan.content, profile: plan.profile },
    onProgress: options.onProgress,
    memoryBudgetBytes: options.memoryBudgetBytes,
  });
  return { ...summary, header: plan.header, content: plan.content };
}
