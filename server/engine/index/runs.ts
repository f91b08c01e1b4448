/**
 * Out-of-core inversion for the on-disk build: analysed documents (analysed-batches.ts) are
 * buffered up to a memory budget, then inverted into a *run*: two temporary files in the build's
 * folder, one with the run's posting lists in term order and one with its documents (docno,
 * length, extents, stored-record size, term vector) in doc order. At the end a k-way merge
 * streams every term's whole posting list, in term order, to the index writer (disk.ts), and a
 * second pass streams the documents, so that memory holds one run's buffer, the vocabulary and
 * one term's postings at a time, never the whole collection.
 *
 * Runs cover consecutive document ranges, so a term's postings are the concatenation of its
 * postings in run order, already in doc order: the result is the same, byte for byte, whatever
 * the budget (test/server/index/out-of-core.test.ts).
 *
 * Run files are internal to one build and never outlive it (varints as in bytes.ts):
 *   postings: per term in JS string order { string term, varint df, varint cf,
 *             df × { varint docGap, varint tf, tf × varint posGap } } (doc ids global)
 *   docs:     per document { string docno, varint length, varint numExtents,
 *             numExtents × { varint field, varint beginGap, varint length }, varint storeBytes,
 *             varint numTerms, numTerms × { varint localTermGap, varint tf } }
 * where a local term is the rank of the term in the run's own sorted vocabulary.
 *
 * Impact mode (an index of Anserini JSON vectors, docs/INDEX_FORMAT.md "Impact indexes"): a
 * batch's token entries carry a count each (`AnalysedBatch.tokenCounts`, the term's impact), the
 * "tf" written is the sum of the counts, a document's length is the sum of its impacts, and the
 * postings file has no positions (`tf × varint posGap` is left out).
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { AnalysedBatch } from './analysed-batches.js';
import { ByteWriter, DecodeError, decodeUtf8 } from './bytes.js';
import { GrowableInt32 } from './growable.js';

/** Default memory budget of the build's document buffer (BuildIndexOptions.memoryBudgetBytes). */
export const DEFAULT_MEMORY_BUDGET = 512 * 1024 * 1024;
/**
 * Bytes a buffered token costs, counting the inversion at a flush (its term id, then the slot's
 * document and position), and a buffered document (docno, extents, array entries): the budget
 * is compared with this estimate.
 */
const BYTES_PER_TOKEN = 12;
const BYTES_PER_DOC = 160;
const IO_CHUNK = 1 << 20;

interface RunFiles {
  postings: string;
  docs: string;
  /** Distinct terms in the run. */
  numTerms: number;
  numDocs: number;
}

/** What the accumulation hands to the merge. */
export interface AccumulatedRuns {
  runs: RunFiles[];
  /** Field names by id (order of first appearance). */
  fieldNames: string[];
  numDocs: number;
  totalTokens: number;
  /** Document lengths in tokens, by document id. */
  docLengths: Int32Array;
  /** False in impact mode: the run files hold no positions (and the index will have none). */
  positions: boolean;
}

export class RunAccumulator {
  /** Term by id, ids in order of first appearance (analysed-batches.ts). */
  private readonly termNames: string[] = [];
  private readonly fieldNames: string[] = [];
  private readonly runs: RunFiles[] = [];
  private numDocs = 0;
  private totalTokens = 0;
  // The buffer: documents since the last flush.
  private firstDoc = 0;
  private docnos: string[] = [];
  private tokens = new GrowableInt32(1 << 16);
  /** Impact mode: each token entry's count (its impact); null when every entry counts 1. */
  private tokenCounts: GrowableInt32 | null;
  private docTokenEnd = new GrowableInt32(1024);
  private docExtEnd = new GrowableInt32(1024);
  private extField = new GrowableInt32(1024);
  private extBegin = new GrowableInt32(1024);
  private extLength = new GrowableInt32(1024);
  private storeLengths = new GrowableInt32(1024);
  /** Every document's length, kept for the whole build (4 bytes a document): the postings' per-block minimum needs it. */
  private readonly docLengths = new GrowableInt32(1024);

  constructor(
    private readonly dir: string,
    private readonly budgetBytes: number,
    /** Impact mode: batches carry tokenCounts and no positions are kept (see the file comment). */
    private readonly impacts = false,
  ) {
    this.tokenCounts = impacts ? new GrowableInt32(1 << 16) : null;
    // A counted entry also buffers its count.
    this.bytesPerToken = impacts ? BYTES_PER_TOKEN + 4 : BYTES_PER_TOKEN;
  }

  private readonly bytesPerToken: number;

  get documents(): number {
    return this.numDocs;
  }

  /** Buffers a batch's documents, inverting the buffer into a run whenever it reaches the budget. */
  add(batch: AnalysedBatch): void {
    for (const t of batch.newTerms) this.termNames.push(t);
    for (const f of batch.newFields) this.fieldNames.push(f);
    const n = batch.docnos.length;
    let from = 0;
    for (let d = 0; d < n; d++) {
      const tokens = this.tokens.length + batch.docTokenEnd[d]! - (from > 0 ? batch.docTokenEnd[from - 1]! : 0);
      const docs = this.docnos.length + d + 1 - from;
      if (tokens * this.bytesPerToken + docs * BYTES_PER_DOC >= this.budgetBytes || d === n - 1) {
        this.append(batch, from, d + 1);
        from = d + 1;
        if (d < n - 1) this.flush();
      }
    }
    if (this.tokens.length * this.bytesPerToken + this.docnos.length * BYTES_PER_DOC >= this.budgetBytes) this.flush();
  }

  /** Buffers documents [from, to) of the batch. */
  private append(batch: AnalysedBatch, from: number, to: number): void {
    const tokenStart = from > 0 ? batch.docTokenEnd[from - 1]! : 0;
    const tokenEnd = to > 0 ? batch.docTokenEnd[to - 1]! : 0;
    const extStart = from > 0 ? batch.docExtEnd[from - 1]! : 0;
    const extEnd = to > 0 ? batch.docExtEnd[to - 1]! : 0;
    this.docTokenEnd.append(batch.docTokenEnd.subarray(from, to), this.tokens.length - tokenStart);
    this.docExtEnd.append(batch.docExtEnd.subarray(from, to), this.extField.length - extStart);
    this.tokens.append(batch.tokens.subarray(tokenStart, tokenEnd));
    const counts = this.tokenCounts;
    if (counts) {
      if (!batch.tokenCounts) throw new Error('an impact build needs token counts in every batch');
      counts.append(batch.tokenCounts.subarray(tokenStart, tokenEnd));
    }
    this.extField.append(batch.extField.subarray(extStart, extEnd));
    this.extBegin.append(batch.extBegin.subarray(extStart, extEnd));
    this.extLength.append(batch.extLength.subarray(extStart, extEnd));
    this.storeLengths.append(batch.storeLengths.subarray(from, to));
    for (let d = from; d < to; d++) {
      this.docnos.push(batch.docnos[d]!);
      const begin = d > 0 ? batch.docTokenEnd[d - 1]! : 0;
      const end = batch.docTokenEnd[d]!;
      let length = end - begin;
      if (batch.docLengths) length = batch.docLengths[d]!;
      else if (counts) {
        length = 0;
        for (let i = begin; i < end; i++) length += batch.tokenCounts![i]!;
      }
      this.docLengths.push(length);
      this.totalTokens += length;
    }
    this.numDocs += to - from;
  }

  /** Flushes what is buffered; the accumulator must not be used afterwards. */
  finish(): AccumulatedRuns {
    this.flush();
    return {
      runs: this.runs,
      fieldNames: this.fieldNames,
      numDocs: this.numDocs,
      totalTokens: this.totalTokens,
      docLengths: this.docLengths.view(),
      positions: !this.impacts,
    };
  }

  /** Inverts the buffer into a run (counting sort by term, as accumulator.ts) and empties it. */
  private flush(): void {
    const numDocs = this.docnos.length;
    if (numDocs === 0) return;
    const tokens = this.tokens.view();
    const counts = this.tokenCounts?.view() ?? null;
    const docTokenEnd = this.docTokenEnd.view();
    const names = this.termNames;

    // The run's vocabulary in term order; local id = rank in it.
    const localOf = new Int32Array(names.length).fill(-1);
    const distinct = new GrowableInt32(1 << 16);
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i]!;
      if (localOf[t] === -1) {
        localOf[t] = 0;
        distinct.push(t);
      }
    }
    const order = distinct.toArray().sort((a, b) => (names[a]! < names[b]! ? -1 : names[a]! > names[b]! ? 1 : 0));
    const numTerms = order.length;
    for (let l = 0; l < numTerms; l++) localOf[order[l]!] = l;

    // Counting sort of the tokens by local term: slots in (doc, position) order per term.
    // `entries` counts the slots; without counts it is the cf.
    const entries = new Int32Array(numTerms);
    const cf = new Float64Array(numTerms);
    const df = new Int32Array(numTerms);
    const lastDoc = new Int32Array(numTerms).fill(-1);
    let start = 0;
    for (let d = 0; d < numDocs; d++) {
      const end = docTokenEnd[d]!;
      for (let i = start; i < end; i++) {
        const l = localOf[tokens[i]!]!;
        entries[l]!++;
        cf[l]! += counts ? counts[i]! : 1;
        if (lastDoc[l] !== d) {
          lastDoc[l] = d;
          df[l]!++;
        }
      }
      start = end;
    }
    const slotStart = new Float64Array(numTerms + 1);
    for (let l = 0; l < numTerms; l++) slotStart[l + 1] = slotStart[l]! + entries[l]!;
    const cursor = Float64Array.from(slotStart.subarray(0, numTerms));
    const slotDoc = new Int32Array(tokens.length);
    const slotPos = new Int32Array(tokens.length);
    start = 0;
    for (let d = 0; d < numDocs; d++) {
      const end = docTokenEnd[d]!;
      for (let i = start; i < end; i++) {
        const k = cursor[localOf[tokens[i]!]!]!++;
        slotDoc[k] = d;
        // Impact mode: the slot's count (there are no positions).
        slotPos[k] = counts ? counts[i]! : i - start;
      }
      start = end;
    }

    const index = this.runs.length;
    const files: RunFiles = { postings: join(this.dir, `run-${index}.postings`), docs: join(this.dir, `run-${index}.docs`), numTerms, numDocs };
    const post = new RunFileWriter(files.postings);
    for (let l = 0; l < numTerms; l++) {
      const out = post.out;
      out.string(names[order[l]!]!);
      out.varint(df[l]!);
      out.varint(cf[l]!);
      let prevDoc = 0;
      let k = slotStart[l]!;
      const endK = slotStart[l + 1]!;
      while (k < endK) {
        const d = slotDoc[k]!;
        let e = k + 1;
        while (e < endK && slotDoc[e] === d) e++;
        const doc = this.firstDoc + d;
        out.varint(doc - prevDoc);
        prevDoc = doc;
        if (counts) {
          let tf = 0;
          for (let j = k; j < e; j++) tf += slotPos[j]!;
          out.varint(tf);
        } else {
          out.varint(e - k);
          let prevPos = 0;
          for (let j = k; j < e; j++) {
            out.varint(slotPos[j]! - prevPos);
            prevPos = slotPos[j]!;
          }
        }
        k = e;
        post.maybeFlush();
      }
      post.maybeFlush();
    }
    post.close();

    const docs = new RunFileWriter(files.docs);
    const extEnd = this.docExtEnd.view();
    let scratch = new Int32Array(256);
    start = 0;
    let extStart = 0;
    for (let d = 0; d < numDocs; d++) {
      const out = docs.out;
      const end = docTokenEnd[d]!;
      out.string(this.docnos[d]!);
      out.varint(this.docLengths.get(this.firstDoc + d));
      out.varint(extEnd[d]! - extStart);
      let prevEnd = 0;
      for (let e = extStart; e < extEnd[d]!; e++) {
        const begin = this.extBegin.get(e);
        out.varint(this.extField.get(e));
        out.varint(begin - prevEnd);
        out.varint(this.extLength.get(e));
        prevEnd = begin + this.extLength.get(e);
      }
      extStart = extEnd[d]!;
      out.varint(this.storeLengths.get(d));
      // The term vector: local ids ascending (= term order) with their counts.
      const n = end - start;
      if (scratch.length < n) scratch = new Int32Array(n * 2);
      for (let i = 0; i < n; i++) scratch[i] = localOf[tokens[start + i]!]!;
      // Impact mode: entries sorted by term with their counts (a vector names each term once).
      const byTerm = counts ? Array.from({ length: n }, (_, i) => i).sort((a, b) => scratch[a]! - scratch[b]!) : null;
      const sorted = byTerm ? Int32Array.from(byTerm, (i) => scratch[i]!) : scratch.subarray(0, n).sort();
      let distinctTerms = 0;
      for (let i = 0; i < n; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) distinctTerms++;
      out.varint(distinctTerms);
      let prevTerm = 0;
      for (let i = 0; i < n; ) {
        let j = i + 1;
        while (j < n && sorted[j] === sorted[i]) j++;
        out.varint(sorted[i]! - prevTerm);
        prevTerm = sorted[i]!;
        let tf = j - i;
        if (byTerm) {
          tf = 0;
          for (let x = i; x < j; x++) tf += counts![start + byTerm[x]!]!;
        }
        out.varint(tf);
        i = j;
      }
      start = end;
      docs.maybeFlush();
    }
    docs.close();
    this.runs.push(files);

    this.firstDoc += numDocs;
    this.docnos = [];
    this.tokens = new GrowableInt32(1 << 16);
    if (this.tokenCounts) this.tokenCounts = new GrowableInt32(1 << 16);
    this.docTokenEnd = new GrowableInt32(1024);
    this.docExtEnd = new GrowableInt32(1024);
    this.extField = new GrowableInt32(1024);
    this.extBegin = new GrowableInt32(1024);
    this.extLength = new GrowableInt32(1024);
    this.storeLengths = new GrowableInt32(1024);
  }
}

/** Appends to a new file through a ByteWriter that is written out whenever it passes IO_CHUNK. */
class RunFileWriter {
  readonly out = new ByteWriter(IO_CHUNK * 2);
  private readonly fd: number;
  private position = 0;

  constructor(path: string) {
    this.fd = openSync(path, 'w');
  }

  maybeFlush(): void {
    if (this.out.length >= IO_CHUNK) this.flush();
  }

  private flush(): void {
    const data = this.out.view();
    let done = 0;
    while (done < data.length) done += writeSync(this.fd, data, done, data.length - done, this.position + done);
    this.position += data.length;
    this.out.length = 0;
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

/** Sequential varint reader over a file, IO_CHUNK at a time. */
class RunFileReader {
  private buf = Buffer.alloc(IO_CHUNK);
  private pos = 0;
  private end = 0;
  private filePos = 0;
  private readonly fd: number;

  constructor(path: string) {
    this.fd = openSync(path, 'r');
  }

  /** Makes at least `n` bytes available from `pos`; false at the end of the file. */
  private fill(n: number): boolean {
    if (this.end - this.pos >= n) return true;
    if (this.buf.length < n) {
      const bigger = Buffer.alloc(Math.max(n, this.buf.length * 2));
      this.buf.copy(bigger, 0, this.pos, this.end);
      this.buf = bigger;
    } else {
      this.buf.copy(this.buf, 0, this.pos, this.end);
    }
    this.end -= this.pos;
    this.pos = 0;
    while (this.end < n) {
      const got = readSync(this.fd, this.buf, this.end, this.buf.length - this.end, this.filePos);
      if (got === 0) return false;
      this.end += got;
      this.filePos += got;
    }
    return true;
  }

  atEnd(): boolean {
    return !this.fill(1);
  }

  varint(): number {
    let result = 0;
    let scale = 1;
    for (;;) {
      if (this.pos >= this.end && !this.fill(1)) throw new DecodeError('run file ends inside a number');
      const byte = this.buf[this.pos++]!;
      result += (byte & 0x7f) * scale;
      if (byte < 0x80) return result;
      scale *= 0x80;
    }
  }

  string(): string {
    const n = this.varint();
    if (!this.fill(n)) throw new DecodeError('run file ends inside a string');
    const s = decodeUtf8(this.buf.subarray(this.pos, this.pos + n));
    this.pos += n;
    return s;
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** One term's whole posting list; the arrays are views reused for the next term. */
export interface MergedTerm {
  term: string;
  df: number;
  cf: number;
  docs: Int32Array;
  tfs: Int32Array;
  /** Positions of all postings back to back (posting i has tfs[i] of them); empty without positions (AccumulatedRuns.positions). */
  positions: Int32Array;
}

/** The head of one run's postings file during the merge. */
class RunCursor {
  private readonly reader: RunFileReader;
  term: string | null = null;
  df = 0;
  cf = 0;
  /** Local id of the current term. */
  local = -1;

  constructor(
    readonly run: number,
    path: string,
    private readonly positions: boolean,
  ) {
    this.reader = new RunFileReader(path);
    this.advance();
  }

  advance(): void {
    if (this.reader.atEnd()) {
      this.term = null;
      this.reader.close();
      return;
    }
    this.term = this.reader.string();
    this.df = this.reader.varint();
    this.cf = this.reader.varint();
    this.local++;
  }

  /** Appends the current term's postings, then moves to the next term. */
  readInto(docs: GrowableInt32, tfs: GrowableInt32, positions: GrowableInt32): void {
    const r = this.reader;
    let doc = 0;
    for (let i = 0; i < this.df; i++) {
      doc += r.varint();
      docs.push(doc);
      const tf = r.varint();
      tfs.push(tf);
      if (!this.positions) continue;
      let pos = 0;
      for (let j = 0; j < tf; j++) {
        pos += r.varint();
        positions.push(pos);
      }
    }
    this.advance();
  }
}

/**
 * Merges the runs' postings: calls `write` once per term, in term order (JS string order),
 * with its whole posting list, and returns, for each run, its local term ids mapped to the
 * final ones (the term's rank in the merged vocabulary). `pause` is awaited every so many terms
 * (a long merge stays cancellable) and each time another 1% of the postings is merged, with the
 * share merged (positions, or impacts, merged out of the collection's: Σ cf = the token count).
 */
export async function mergeRunPostings(
  acc: AccumulatedRuns,
  write: (term: MergedTerm) => void,
  pause: (done: number) => Promise<void>,
): Promise<Int32Array[]> {
  const cursors = acc.runs.map((r, i) => new RunCursor(i, r.postings, acc.positions));
  const finalIds = acc.runs.map((r) => new Int32Array(r.numTerms));
  const docs = new GrowableInt32(1 << 16);
  const tfs = new GrowableInt32(1 << 16);
  const positions = new GrowableInt32(1 << 16);
  const progress = new PhaseProgress(acc.totalTokens);
  let merged = 0;
  for (let t = 0; ; t++) {
    let term: string | null = null;
    for (const c of cursors) if (c.term !== null && (term === null || c.term < term)) term = c.term;
    if (term === null) break;
    docs.length = 0;
    tfs.length = 0;
    positions.length = 0;
    let df = 0;
    let cf = 0;
    // Runs in order: their doc ranges ascend, so the concatenation is in doc order.
    for (const c of cursors) {
      if (c.term !== term) continue;
      df += c.df;
      cf += c.cf;
      finalIds[c.run]![c.local] = t;
      c.readInto(docs, tfs, positions);
    }
    write({ term, df, cf, docs: docs.view(), tfs: tfs.view(), positions: positions.view() });
    merged += cf;
    if (progress.due(merged, (t + 1) % 65536 === 0)) await pause(progress.done);
  }
  if (progress.due(acc.totalTokens, true)) await pause(progress.done);
  return finalIds;
}

/** The share of a phase done, reported (`due`) each time it passes another 1%, or when asked. */
class PhaseProgress {
  /** The share last reported. */
  done = -1;

  constructor(private readonly total: number) {}

  /** True when `count` is worth reporting (a synchronous check: the loops call it for every term or document). */
  due(count: number, always: boolean): boolean {
    const done = this.total > 0 ? Math.min(1, count / this.total) : 1;
    if (!always && done < this.done + 0.01) return false;
    this.done = done;
    return true;
  }
}

export interface MergedDocument {
  docno: string;
  length: number;
  /** Extents as (field id by first appearance, begin, end). */
  extField: number[];
  extBegin: number[];
  extEnd: number[];
  storeBytes: number;
  /** Final term ids ascending and their counts (views reused for the next document). */
  termIds: Int32Array;
  tfs: Int32Array;
}

/** Streams every document in doc order, its term vector in final term ids (see mergeRunPostings). */
export async function forEachRunDocument(
  acc: AccumulatedRuns,
  finalIds: Int32Array[],
  visit: (doc: MergedDocument) => void,
  pause: (done: number) => Promise<void>,
): Promise<void> {
  const progress = new PhaseProgress(acc.numDocs);
  let termIds = new Int32Array(256);
  let tfs = new Int32Array(256);
  let doc = 0;
  for (let r = 0; r < acc.runs.length; r++) {
    const map = finalIds[r]!;
    const reader = new RunFileReader(acc.runs[r]!.docs);
    try {
      for (let i = 0; i < acc.runs[r]!.numDocs; i++) {
        const docno = reader.string();
        const length = reader.varint();
        const numExt = reader.varint();
        const extField: number[] = [];
        const extBegin: number[] = [];
        const extEnd: number[] = [];
        let prevEnd = 0;
        for (let e = 0; e < numExt; e++) {
          extField.push(reader.varint());
          const begin = prevEnd + reader.varint();
          prevEnd = begin + reader.varint();
          extBegin.push(begin);
          extEnd.push(prevEnd);
        }
        const storeBytes = reader.varint();
        const n = reader.varint();
        if (termIds.length < n) {
          termIds = new Int32Array(n * 2);
          tfs = new Int32Array(n * 2);
        }
        let local = 0;
        for (let j = 0; j < n; j++) {
          local += reader.varint();
          // Final ids keep the local order (both are term order), so the vector stays sorted.
          termIds[j] = map[local]!;
          tfs[j] = reader.varint();
        }
        visit({ docno, length, extField, extBegin, extEnd, storeBytes, termIds: termIds.subarray(0, n), tfs: tfs.subarray(0, n) });
        ++doc;
        if (progress.due(doc, doc % 65536 === 0)) await pause(progress.done);
      }
    } finally {
      reader.close();
    }
  }
  if (progress.due(acc.numDocs, true)) await pause(progress.done);
}
