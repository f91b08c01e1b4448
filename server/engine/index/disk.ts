/**
 * The on-disk index: build (streamed ingest → inversion → versioned, checksummed files,
 * moved into place atomically) and open (verify every checksum, decode the small tables,
 * decode postings / document vectors / stored documents on demand). The byte layout is
 * specified in docs/INDEX_FORMAT.md; keep the two in step.
 */
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { createAnalyzer, forEachToken, isAnalyzerProfile, type AnalyzerProfile } from '../analysis/index.js';
import { IngestError } from '../ingest/index.js';
import { listFiles } from '../ingest/folder.js';
import { JSON_VECTOR_EXTENSIONS } from '../ingest/jsonvector.js';
import { streamOrderOfNames } from './accumulator.js';
import { analysedBatches } from './batch-source.js';
import type { AnalysedBatch } from './analysed-batches.js';
import { DEFAULT_MEMORY_BUDGET, forEachRunDocument, mergeRunPostings, RunAccumulator, type AccumulatedRuns } from './runs.js';
import { ByteReader, ByteWriter, DecodeError, decodeUtf8 } from './bytes.js';
import { docnoOrder } from './docno-order.js';
import { openDocumentTable, openLexicon } from './tables.js';
import { contentFromMeta, contentMeta, ORDINARY_CONTENT, PRE_TOKENISED_PROFILE, type IndexContent, type IndexContentMeta } from './content.js';
import type { IndexReader, PostingList, StoredDocument } from './reader.js';
import { SourceIndexReader, type IndexSource } from './source-reader.js';
import { averageLength, DecodedChunkPool, decodeTermPostings, EncodedBlockPostings, encodeTermPostings, type BlockPostings } from './postings-codec.js';
import { ARENA_PAGE_BYTES } from './prefaulted-memory.js';
import { openStoredBlocks, StoredBlockWriter } from './stored-blocks.js';
import { fileLength, PageChecksumError, PageChecksums, PagedFile, pagedPayload, readExactly } from './paged-file.js';

/** Bump on any change to the byte layout (docs/INDEX_FORMAT.md). */
export const FORMAT_VERSION = 7;
/** Terms per front-coded lexicon block, and documents per block of docs.bin records (docs/INDEX_FORMAT.md). */
const TERMS_PER_BLOCK = 32;
const DOCS_PER_BLOCK = 16;

const MAGIC = 'QLIX';
/** Names of a build's temp folder and of a previous index renamed aside (see buildIndex). */
const BUILD_FOLDER = /^\..+\.(tmp|old)-\d+-[0-9a-f]+$/;
/** Header bytes 0–31 are laid out alike in every format version, so any version is recognised. */
const COMMON_HEADER_BYTES = 32;
/** Format 2 adds the build id (bytes 32–47). */
const HEADER_BYTES = 48;
const BUILD_ID_BYTES = 16;
/** How long openIndex waits for another process's build to finish swapping in (see openIndex). */
const OPEN_RETRY_MS = 5000;
/** Below this much input a worker thread costs more to start than it saves (BuildIndexOptions.worker). */
const WORKER_MIN_BYTES = 8 << 20;
/** Index files are written in chunks of this size. */
const STREAM_CHUNK = 4 << 20;
/** Decoded-block arrays of 32 KiB kept for reuse after the block cache lets their lists go (128 MiB: DecodedChunkPool). */
const DECODED_CHUNKS_KEPT = 4096;
/**
 * The arena new decoded-block arrays and long lists' bytes come from (reserved when an index first
 * decodes a block of a long list or reads one, its pages faulted in ahead of use by a worker:
 * PrefaultedArena): at most as much as the
 * block cache holds, and no more than the index's postings decoded (8 bytes a posting, at most one
 * a token); and how far ahead of use the worker faults pages in.
 */
const DECODED_ARENA_MAX_BYTES = 1024 << 20;
const DECODED_ARENA_LEAD_BYTES = 128 << 20;
/**
 * Lists whose docs part is at least this long are read into the arena (up to half of it). Shorter
 * reads come from memory the allocator has already used; a long one from pages new to the process.
 * 8.8 M passages, eleven bench-like runs alternating with reads into new buffers: top 1000 p50
 * ×0.91 (median pair), p95 ×0.90.
 */
const ARENA_READ_MIN_BYTES = 64 << 10;
function decodedArenaBytes(totalTokens: number): number {
  const bytes = Math.min(DECODED_ARENA_MAX_BYTES, totalTokens * 8);
  return Math.ceil(bytes / ARENA_PAGE_BYTES) * ARENA_PAGE_BYTES;
}

/** Index files and the 4-byte kind tag in each header. meta.bin is written last. */
const FILE_KINDS = {
  'store.bin': 'STOR',
  'lexicon.bin': 'LEXI',
  'postings.bin': 'POST',
  'docs.bin': 'DOCS',
  'direct.bin': 'DIRE',
  'meta.bin': 'META',
} as const;
type IndexFileName = keyof typeof FILE_KINDS;
export const INDEX_FILES = Object.keys(FILE_KINDS) as IndexFileName[];
/**
 * Files read lazily, a checked page at a time (paged-file.ts): their header CRC covers the build
 * id and the page table, the page table covers the data. meta.bin is read whole at open.
 */
const PAGED_FILES: ReadonlySet<IndexFileName> = new Set(['postings.bin', 'direct.bin', 'store.bin', 'lexicon.bin', 'docs.bin']);

/** A problem with an index on disk: missing, corrupt, or from another format version. */
export class IndexError extends Error {
  constructor(
    message: string,
    /** Also what an open sees while another process swaps a new build in (openIndex retries). */
    readonly mayBeSwap = false,
  ) {
    super(message);
    this.name = 'IndexError';
  }
}

export interface BuildIndexOptions {
  profile?: AnalyzerProfile;
  /** Skip malformed records (counted in the summary) instead of stopping at the first. */
  skipBad?: boolean;
  /** Called after each indexed document (a front end draws its progress from it: server/cli/progress-bar.ts); throwing from it aborts the build (nothing is left at outDir). */
  onProgress?: (p: BuildProgress) => void;
  /** Called for each skipped record (with skipBad). */
  onBad?: (error: IngestError) => void;
  /**
   * Approximate memory for buffered documents before they are inverted into a sorted run on
   * disk (default 512 MiB); peak memory is about this plus the vocabulary, whatever the corpus size.
   */
  memoryBudgetBytes?: number;
  /** Read and analyse the corpus in a worker thread (default: for inputs of 8 MiB or more; the index is the same either way). */
  worker?: boolean;
  /**
   * `jsonvector`: the inputs are Anserini JSON vectors and the index holds their impacts
   * (docs/INDEX_FORMAT.md "Impact indexes"): terms as written, no positions, `profile` unused.
   */
  input?: 'text' | 'jsonvector';
  /**
   * False: keep no document text (meta `storedText: false`; store.bin holds each docno only), as
   * Anserini keeps none unless told (-storeRaw): results have no snippets and the index is smaller.
   */
  storeText?: boolean;
  /**
   * Instead of reading `inputs`: documents already turned into batches (a CIFF import, ciff.ts),
   * in document order, with what the index will hold and the profile its terms were made with.
   */
  prepared?: { batches: () => AsyncGenerator<AnalysedBatch>; content: IndexContent; profile: AnalyzerProfile | typeof PRE_TOKENISED_PROFILE };
}

export interface BuildProgress {
  docs: number;
  bytesRead: number;
  totalBytes: number;
  /**
   * `reading` while documents stream in; then, with every document read, `merging` (the runs'
   * postings into postings.bin and lexicon.bin) and `writing` (direct.bin and docs.bin).
   */
  phase?: BuildPhase;
  /** In `merging` and `writing`: the share of that phase done, 0 to 1 (postings merged, documents written). */
  phaseDone?: number;
}

export type BuildPhase = 'reading' | 'merging' | 'writing';

export interface BuildSummary {
  outDir: string;
  /** The analyser profile, or `none` for an impact index (terms taken as written). */
  profile: AnalyzerProfile | typeof PRE_TOKENISED_PROFILE;
  docs: number;
  terms: number;
  tokens: number;
  postings: number;
  /** Malformed records skipped (skipBad). */
  skipped: number;
  /** The first few skip messages (file:line: reason). */
  skippedExamples: string[];
  seconds: number;
  /** Total size of the index files in bytes. */
  bytesOnDisk: number;
  /** Sorted runs the documents were inverted into (memoryBudgetBytes) before the merge. */
  runs: number;
  files: Record<string, number>;
}

/** What meta.bin lists for each other file: its whole length and the CRC-32 in its header. */
interface FileManifestEntry {
  bytes: number;
  crc32: number;
}

interface MetaJson extends IndexContentMeta {
  format: 'querylens-index';
  formatVersion: number;
  /** Random id of the build, also in the header of every file (hex). */
  buildId: string;
  /** Every file but meta.bin, as written by this build. */
  files: Record<string, FileManifestEntry>;
  /** `none` when the content says the terms are pre-tokenised (content.ts). */
  profile: AnalyzerProfile | typeof PRE_TOKENISED_PROFILE;
  numDocs: number;
  numTerms: number;
  numPostings: number;
  totalTokens: number;
  fields: string[];
  createdAt: string;
  inputs: string[];
}

// ---------------------------------------------------------------------------------------
// Build

export async function buildIndex(inputs: string[], outDir: string, options: BuildIndexOptions = {}): Promise<BuildSummary> {
  const started = performance.now();
  const profile = options.profile ?? 'terrier';
  if (!isAnalyzerProfile(profile)) throw new IndexError(`unknown profile '${String(profile)}' (expected terrier or lucene)`);
  const target = resolve(outDir);
  const parent = dirname(target);
  mkdirSync(parent, { recursive: true });
  recoverFromDeadBuilds(target);
  checkReplaceable(target);
  const tmp = join(parent, `.${basename(target)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  mkdirSync(tmp);
  const buildId = randomBytes(BUILD_ID_BYTES);

  const impacts = options.input === 'jsonvector';
  const content: IndexContent =
    options.prepared?.content ??
    (impacts
      ? { postings: 'impacts', positions: false, preTokenised: true, storedText: options.storeText !== false, source: 'jsonvector', docVectors: 'stored' }
      : options.storeText === false
        ? { ...ORDINARY_CONTENT, storedText: false, docVectors: 'stored' }
        : ORDINARY_CONTENT);
  const metaProfile = options.prepared?.profile ?? (impacts ? PRE_TOKENISED_PROFILE : profile);
  const totalBytes = await inputBytes(inputs, impacts);
  let skipped = 0;
  const skippedExamples: string[] = [];
  const runsDir = join(tmp, 'runs');
  let numRuns = 0;
  const batches = options.prepared
    ? options.prepared.batches()
    : analysedBatches(inputs, { profile, skipBad: options.skipBad, input: options.input, storeText: options.storeText }, options.worker ?? totalBytes >= WORKER_MIN_BYTES);
  try {
    mkdirSync(runsDir);
    const storeFile = new IndexFileStream(join(tmp, 'store.bin'), 'store.bin', buildId);
    const store = new StoredBlockWriter(storeFile);
    // Without positions the batches' token entries carry counts (impacts, or a CIFF import's tfs).
    const runs = new RunAccumulator(runsDir, options.memoryBudgetBytes ?? DEFAULT_MEMORY_BUDGET, !content.positions);
    let last: BuildProgress = { docs: 0, bytesRead: 0, totalBytes };
    for await (const batch of batches) {
      for (const data of batch.bad) {
        const e = new IngestError(data.file, data.reason, data.line, data.offset);
        skipped++;
        if (skippedExamples.length < 10) skippedExamples.push(e.message);
        options.onBad?.(e);
      }
      store.add(batch.store, batch.storeLengths);
      const before = runs.documents;
      runs.add(batch);
      for (let i = 1; i <= batch.docnos.length; i++) {
        last = { docs: before + i, bytesRead: batch.bytesRead, totalBytes, phase: 'reading' };
        options.onProgress?.(last);
      }
    }
    // One more progress call after an event-loop turn: a cancel that arrived while the last
    // records were read (the language server's $/cancelRequest) is seen before the writing.
    // The merge then pauses the same way as each phase starts and every 65,536 terms or documents.
    const pause = async (phase?: BuildPhase, phaseDone?: number) => {
      await new Promise((r) => setImmediate(r));
      if (phase) last = { ...last, phase, phaseDone: 0 };
      if (phaseDone !== undefined) last = { ...last, phaseDone };
      options.onProgress?.(last);
    };
    await pause();
    store.finish();
    const storeEntry = storeFile.finish();
    const accumulated = runs.finish();
    numRuns = accumulated.runs.length;
    await writeIndexFiles(tmp, buildId, metaProfile, content, accumulated, storeEntry, inputs, pause);
    rmSync(runsDir, { recursive: true, force: true });
    fsyncDir(tmp);
    swapIntoPlace(tmp, target);
  } catch (err) {
    await batches.return(undefined);
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }

  const files: Record<string, number> = {};
  let bytesOnDisk = 0;
  for (const name of INDEX_FILES) {
    files[name] = statSync(join(target, name)).size;
    bytesOnDisk += files[name]!;
  }
  const meta = JSON.parse(decodeUtf8(readFileSync(join(target, 'meta.bin')).subarray(HEADER_BYTES))) as MetaJson;
  return {
    outDir: target,
    profile: meta.profile,
    docs: meta.numDocs,
    terms: meta.numTerms,
    tokens: meta.totalTokens,
    postings: meta.numPostings,
    skipped,
    skippedExamples,
    seconds: (performance.now() - started) / 1000,
    bytesOnDisk,
    runs: numRuns,
    files,
  };
}

/** Refuses to replace a path that exists and is not a querylens index (never delete a user's folder). */
function checkReplaceable(target: string): void {
  if (!existsSync(target)) return;
  const info = statSync(target);
  if (!info.isDirectory()) throw new IndexError(`${target} exists and is not a folder: choose another --out`);
  const entries = readdirSync(target);
  if (entries.length === 0) return;
  const meta = join(target, 'meta.bin');
  let ours = false;
  if (existsSync(meta)) {
    const fd = openSync(meta, 'r');
    try {
      const head = Buffer.alloc(4);
      ours = readFileHead(fd, head) && head.toString('ascii') === MAGIC;
    } finally {
      closeSync(fd);
    }
  }
  if (!ours || entries.some((e) => !(INDEX_FILES as string[]).includes(e))) {
    throw new IndexError(`${target} exists and is not a querylens index: refusing to replace it (choose another --out)`);
  }
}

/** Reads exactly `into.length` bytes from the start of the file; false if it is shorter. */
function readFileHead(fd: number, into: Buffer): boolean {
  let got = 0;
  while (got < into.length) {
    const n = readSync(fd, into, got, into.length - got, got);
    if (n === 0) return false;
    got += n;
  }
  return true;
}

/**
 * Cleans up after earlier builds of the same target whose process is gone: their temp
 * folders are deleted, and a previous index renamed aside by a build killed between its two
 * renames (see swapIntoPlace) is put back if nothing took its place, deleted otherwise.
 */
function recoverFromDeadBuilds(target: string): void {
  const parent = dirname(target);
  const tmpPrefix = `.${basename(target)}.tmp-`;
  const oldPrefix = `.${basename(target)}.old-`;
  for (const name of readdirSync(parent)) {
    const prefix = name.startsWith(tmpPrefix) ? tmpPrefix : name.startsWith(oldPrefix) ? oldPrefix : undefined;
    if (!prefix) continue;
    const pid = Number(name.slice(prefix.length).split('-')[0]);
    if (!Number.isInteger(pid) || processAlive(pid)) continue;
    const path = join(parent, name);
    if (prefix === oldPrefix && !existsSync(target)) renameSync(path, target);
    else rmSync(path, { recursive: true, force: true });
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Puts the finished temp folder at `target`. A rename cannot replace a non-empty folder,
 * so an existing index is first renamed aside, then the new one renamed in, then the old
 * one deleted: at every instant `target` is either the complete old index, absent (for
 * the moment between two renames), or the complete new one — never a partial index.
 */
function swapIntoPlace(tmp: string, target: string): void {
  const parent = dirname(target);
  if (existsSync(target)) {
    const old = join(parent, `.${basename(target)}.old-${process.pid}-${randomBytes(4).toString('hex')}`);
    renameSync(target, old);
    try {
      renameSync(tmp, target);
    } catch (err) {
      renameSync(old, target);
      throw err;
    }
    fsyncDir(parent);
    rmSync(old, { recursive: true, force: true });
  } else {
    renameSync(tmp, target);
    fsyncDir(parent);
  }
}

function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

async function inputBytes(inputs: string[], jsonVectors: boolean): Promise<number> {
  let total = 0;
  for (const path of inputs) {
    try {
      const info = statSync(path);
      if (info.isDirectory()) for (const f of await listFiles(path, jsonVectors ? JSON_VECTOR_EXTENSIONS : undefined)) total += statSync(f).size;
      else total += info.size;
    } catch {
      // A missing path is reported by readCorpus with a proper message.
    }
  }
  return total;
}

/**
 * An index file written as it is produced (store.bin while documents stream in, the others
 * during the merge), so that no file is ever whole in memory; the header goes in last.
 */
class IndexFileStream {
  private readonly fd: number;
  /** Paged files (postings, direct, store) checksum each page; the others the whole payload. */
  private readonly pages: PageChecksums | null;
  private crc: number;
  private payloadBytes = 0;
  /** Staging buffer: callers write into it, and it goes to the file past STREAM_CHUNK bytes. */
  readonly out = new ByteWriter(STREAM_CHUNK * 2);

  constructor(
    path: string,
    private readonly name: IndexFileName,
    private readonly buildId: Buffer,
  ) {
    this.fd = openSync(path, 'w');
    writeAll(this.fd, Buffer.alloc(HEADER_BYTES), 0);
    this.pages = PAGED_FILES.has(name) ? new PageChecksums() : null;
    this.crc = crc32(buildId);
  }

  /** Bytes of payload so far, staged ones included (a paged file's page table not counted). */
  get length(): number {
    return this.payloadBytes + this.out.length;
  }

  append(data: Uint8Array): void {
    this.out.bytes(data);
    this.maybeFlush();
  }

  maybeFlush(): void {
    if (this.out.length >= STREAM_CHUNK) this.flush();
  }

  private flush(): void {
    const chunk = this.out.view();
    if (chunk.length === 0) return;
    if (this.pages) this.pages.add(chunk);
    else this.crc = crc32(chunk, this.crc);
    writeAll(this.fd, chunk, HEADER_BYTES + this.payloadBytes);
    this.payloadBytes += chunk.length;
    this.out.length = 0;
  }

  finish(): FileManifestEntry {
    this.flush();
    let payloadBytes = this.payloadBytes;
    let crc = this.crc >>> 0;
    if (this.pages) {
      // The page table and trailer follow the data; the header's CRC covers the build id and them.
      const tail = this.pages.finish();
      writeAll(this.fd, tail, HEADER_BYTES + payloadBytes);
      payloadBytes += tail.length;
      crc = crc32(tail, crc32(this.buildId)) >>> 0;
    }
    writeAll(this.fd, fileHeader(FILE_KINDS[this.name], payloadBytes, crc, this.buildId), 0);
    fsyncSync(this.fd);
    closeSync(this.fd);
    return { bytes: HEADER_BYTES + payloadBytes, crc32: crc };
  }
}

function writeAll(fd: number, data: Uint8Array, position: number): void {
  let done = 0;
  while (done < data.length) done += writeSync(fd, data, done, data.length - done, position + done);
}

/**
 * `bodyCrc` is the CRC-32 of everything after the common header: the build id, then the payload
 * (for a paged file: the build id, then the page table and trailer that follow its data).
 */
function fileHeader(kind: string, payloadLength: number, bodyCrc: number, buildId: Buffer): Buffer {
  const h = Buffer.alloc(HEADER_BYTES);
  h.write(MAGIC, 0, 'ascii');
  h.writeUInt32LE(FORMAT_VERSION, 4);
  h.write(kind, 8, 'ascii');
  h.writeBigUInt64LE(BigInt(payloadLength), 12);
  h.writeUInt32LE(bodyCrc >>> 0, 20);
  h.writeUInt32LE(crc32(h.subarray(0, 24)) >>> 0, 24);
  buildId.copy(h, COMMON_HEADER_BYTES);
  return h;
}

function writeIndexFile(dir: string, buildId: Buffer, name: IndexFileName, data: Uint8Array): FileManifestEntry {
  let payload = data;
  let bodyCrc: number;
  if (PAGED_FILES.has(name)) {
    const paged = pagedPayload(data);
    payload = paged.payload;
    bodyCrc = crc32(paged.tail, crc32(buildId)) >>> 0;
  } else bodyCrc = crc32(payload, crc32(buildId)) >>> 0;
  const fd = openSync(join(dir, name), 'w');
  try {
    writeAll(fd, fileHeader(FILE_KINDS[name], payload.length, bodyCrc, buildId), 0);
    writeAll(fd, payload, HEADER_BYTES);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return { bytes: HEADER_BYTES + payload.length, crc32: bodyCrc };
}

/**
 * Writes every file but store.bin from the runs: postings.bin and lexicon.bin during the merge
 * (term order), then direct.bin and docs.bin in one pass over the documents, meta.bin last.
 */
async function writeIndexFiles(
  dir: string,
  buildId: Buffer,
  profile: MetaJson['profile'],
  content: IndexContent,
  acc: AccumulatedRuns,
  storeEntry: FileManifestEntry,
  inputs: string[],
  pause: (phase?: BuildPhase, phaseDone?: number) => Promise<void>,
): Promise<void> {
  const files: Record<string, FileManifestEntry> = { 'store.bin': storeEntry };
  const phaseDone = (done: number) => pause(undefined, done);
  await pause('merging');

  const postings = new IndexFileStream(join(dir, 'postings.bin'), 'postings.bin', buildId);
  // lexicon.bin: blocks of TERMS_PER_BLOCK front-coded entries, then their directory (each
  // block's first term, bytes and postings bytes), so that opening reads the directory only.
  const lexicon = new IndexFileStream(join(dir, 'lexicon.bin'), 'lexicon.bin', buildId);
  const lexiconDirectory = new ByteWriter();
  let blockStart = 0;
  let blockPostings = 0;
  const closeTermBlock = (firstTerm: string) => {
    lexiconDirectory.string(firstTerm);
    lexiconDirectory.varint(lexicon.length - blockStart);
    lexiconDirectory.varint(blockPostings);
  };
  let blockFirstTerm = '';
  let numTerms = 0;
  let numPostings = 0;
  let prev = '';
  // The average length the saturation maxima of postings.bin are for: the reader's (numDocs and
  // totalTokens are meta.bin's), to the bit.
  const avgdl = averageLength(acc.numDocs, acc.totalTokens);
  const finalIds = await mergeRunPostings(
    acc,
    ({ term, df, cf, docs, tfs, positions }) => {
      // Where each document's positions start (postings-codec.ts reads them per block).
      const posStart = new Int32Array(docs.length);
      for (let i = 1; i < docs.length; i++) posStart[i] = posStart[i - 1]! + tfs[i - 1]!;
      const sizes = encodeTermPostings(postings.out, { docs, tfs, posStart, positions }, acc.docLengths, avgdl, acc.positions);
      postings.maybeFlush();
      if (numTerms % TERMS_PER_BLOCK === 0) {
        if (numTerms > 0) closeTermBlock(blockFirstTerm);
        blockStart = lexicon.length;
        blockPostings = 0;
        blockFirstTerm = term;
        prev = '';
      }
      // Front coding within the block; never split a surrogate pair: the suffix must be valid UTF-16 to survive UTF-8.
      const lex = lexicon.out;
      let shared = 0;
      const max = Math.min(prev.length, term.length);
      while (shared < max && prev.charCodeAt(shared) === term.charCodeAt(shared)) shared++;
      if (shared > 0 && isHighSurrogate(term.charCodeAt(shared - 1))) shared--;
      lex.varint(shared);
      lex.string(term.slice(shared));
      lex.varint(df);
      lex.varint(cf);
      lex.varint(sizes.docBytes);
      lex.varint(sizes.posBytes);
      lexicon.maybeFlush();
      blockPostings += sizes.docBytes + sizes.posBytes;
      prev = term;
      numTerms++;
      numPostings += df;
    },
    phaseDone,
  );
  if (numTerms > 0) closeTermBlock(blockFirstTerm);
  files['postings.bin'] = postings.finish();
  const lexiconDirectoryOffset = lexicon.length;
  lexicon.append(lexiconDirectory.view());
  lexicon.out.f64(lexiconDirectoryOffset);
  lexicon.out.u32(numTerms);
  lexicon.out.u32(TERMS_PER_BLOCK);
  files['lexicon.bin'] = lexicon.finish();

  // Fields in stream order: title, text, then the others by first appearance.
  const fields = streamOrderOfNames(acc.fieldNames);
  const fieldRank = acc.fieldNames.map((name) => fields.indexOf(name));
  await pause('writing');
  const direct = new IndexFileStream(join(dir, 'direct.bin'), 'direct.bin', buildId);
  // docs.bin: per-document records in blocks of DOCS_PER_BLOCK (read on demand), then the
  // columns opening reads whole (docnos, lengths, docno ranks), then the block directory.
  const docs = new IndexFileStream(join(dir, 'docs.bin'), 'docs.bin', buildId);
  const docnos: string[] = [];
  const blockOffsets = new Float64Array((Math.ceil(acc.numDocs / DOCS_PER_BLOCK) + 1) * 3);
  let directOffset = 0;
  let storeOffset = 0;
  await forEachRunDocument(
    acc,
    finalIds,
    (doc) => {
      const id = docnos.length;
      if (id % DOCS_PER_BLOCK === 0) blockOffsets.set([docs.length, directOffset, storeOffset], (id / DOCS_PER_BLOCK) * 3);
      docnos.push(doc.docno);
      // direct.bin: term-id gaps and tfs, unless the vector is the stored text's (content.docVectors).
      const before = direct.length;
      if (content.docVectors === 'stored') {
        const dv = direct.out;
        dv.varint(doc.termIds.length);
        let prevTerm = 0;
        for (let i = 0; i < doc.termIds.length; i++) {
          dv.varint(doc.termIds[i]! - prevTerm);
          prevTerm = doc.termIds[i]!;
          dv.varint(doc.tfs[i]!);
        }
        direct.maybeFlush();
      }
      const directBytes = direct.length - before;
      const dt = docs.out;
      dt.varint(doc.extField.length);
      let prevEnd = 0;
      for (let e = 0; e < doc.extField.length; e++) {
        dt.varint(fieldRank[doc.extField[e]!]!);
        dt.varint(doc.extBegin[e]! - prevEnd);
        dt.varint(doc.extEnd[e]! - doc.extBegin[e]!);
        prevEnd = doc.extEnd[e]!;
      }
      dt.varint(directBytes);
      dt.varint(doc.storeBytes);
      docs.maybeFlush();
      directOffset += directBytes;
      storeOffset += doc.storeBytes;
    },
    phaseDone,
  );
  files['direct.bin'] = direct.finish();
  const numBlocks = Math.ceil(acc.numDocs / DOCS_PER_BLOCK);
  blockOffsets.set([docs.length, directOffset, storeOffset], numBlocks * 3);
  const columns: number[] = [];
  columns.push(docs.length);
  const docnoEnds = new Float64Array(docnos.length);
  let docnoBytes = 0;
  for (let d = 0; d < docnos.length; d++) {
    const bytes = Buffer.from(docnos[d]!, 'utf8');
    docs.append(bytes);
    docnoBytes += bytes.length;
    docnoEnds[d] = docnoBytes;
  }
  const { ranks, byDocno } = docnoOrder(docnos);
  docnos.length = 0;
  // Each column starts at a multiple of 8 bytes of the data, so a reader can view it in place.
  for (const column of [docnoEnds, Uint32Array.from(acc.docLengths), ranks, byDocno, blockOffsets]) {
    docs.append(new Uint8Array((8 - (docs.length % 8)) % 8));
    columns.push(docs.length);
    appendColumn(docs, column);
  }
  for (const c of columns) docs.out.f64(c);
  docs.out.u32(acc.numDocs);
  docs.out.u32(DOCS_PER_BLOCK);
  files['docs.bin'] = docs.finish();

  // meta.bin last: an index is only complete once it exists.
  const meta: MetaJson = {
    format: 'querylens-index',
    formatVersion: FORMAT_VERSION,
    buildId: buildId.toString('hex'),
    files,
    profile,
    numDocs: acc.numDocs,
    numTerms,
    numPostings,
    totalTokens: acc.totalTokens,
    fields,
    createdAt: new Date().toISOString(),
    inputs: inputs.map((p) => resolve(p)),
    ...contentMeta(content),
  };
  writeIndexFile(dir, buildId, 'meta.bin', Buffer.from(JSON.stringify(meta, null, 2), 'utf8'));
}

/** A typed array's bytes, little-endian, at the end of `into`. */
function appendColumn(into: IndexFileStream, column: Uint32Array | Float64Array): void {
  const bytes = new Uint8Array(column.buffer, column.byteOffset, column.byteLength);
  if (littleEndian) {
    for (let at = 0; at < bytes.length; at += STREAM_CHUNK) into.append(bytes.subarray(at, at + STREAM_CHUNK));
    return;
  }
  for (let i = 0; i < column.length; i++) {
    if (column instanceof Uint32Array) into.out.u32(column[i]!);
    else into.out.f64(column[i]!);
    into.maybeFlush();
  }
}

const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

// ---------------------------------------------------------------------------------------
// Open

/**
 * Opens an index folder written by buildIndex. Throws IndexError with a message to act on.
 *
 * Every file must carry the build id that meta.bin names, with the length and checksum meta.bin
 * lists for it, so files of two builds are never used together. Another process may swap a new
 * build in while this one reads (buildIndex renames folders, it never rewrites a file in
 * place): the files read may then come from both builds, or the folder may be missing for
 * the instant between the two renames. Both are retried — at once, and for up to
 * OPEN_RETRY_MS while another live process has a build of this folder in progress — so an open
 * gives one whole build or a clear error, never a mix.
 */
export function openIndex(dir: string): IndexReader {
  const root = resolve(dir);
  const deadline = performance.now() + OPEN_RETRY_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      return openIndexOnce(dir, root);
    } catch (err) {
      if (!(err instanceof IndexError) || !err.mayBeSwap) throw err;
      const building = otherProcessBuilding(root);
      if (attempt > 0 && (!building || performance.now() > deadline)) throw err;
      if (attempt > 0) sleepMs(10);
    }
  }
}

function openIndexOnce(dir: string, root: string): IndexReader {
  const rebuild = `rebuild with \`querylens index CORPUS… --out ${dir}\``;
  if (!existsSync(root)) {
    throw new IndexError(`no index at ${dir}: build one with \`querylens index CORPUS… --out ${dir}\``, true);
  }
  let isFolder: boolean;
  try {
    isFolder = statSync(root).isDirectory();
  } catch (err) {
    // Gone between the two checks: a rebuild is swapping its folder in (openIndex retries).
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new IndexError(`no index at ${dir}: build one with \`querylens index CORPUS… --out ${dir}\``, true);
    throw err;
  }
  if (!isFolder) throw new IndexError(`${dir} is not an index folder`);
  if (BUILD_FOLDER.test(basename(root))) {
    // Complete or not, a build's working folder is never an index (docs/INDEX_FORMAT.md "Building").
    throw new IndexError(`${dir} is the working folder of an interrupted index build, not an index: delete it`);
  }
  if (!existsSync(join(root, 'meta.bin'))) {
    throw new IndexError(`${dir} is not a querylens index (no meta.bin): build one with \`querylens index CORPUS… --out ${dir}\``, true);
  }

  // meta.bin first, so that a version mismatch is reported as such rather than as damage elsewhere.
  const metaFile = readIndexFile(root, 'meta.bin', rebuild);
  let meta: MetaJson;
  try {
    meta = JSON.parse(decodeUtf8(metaFile.payload!)) as MetaJson;
  } catch (err) {
    throw new IndexError(`index at ${dir} is inconsistent (meta.bin: ${(err as Error).message}): ${rebuild}`);
  }
  if (meta.formatVersion !== FORMAT_VERSION) {
    throw new IndexError(`index built with format ${meta.formatVersion}, this querylens reads format ${FORMAT_VERSION}: ${rebuild}`);
  }
  if (meta.buildId !== metaFile.buildId) throw new IndexError(`index file meta.bin is corrupt (its build id differs from its header): ${rebuild}`);

  const paged = {} as Record<PagedFileName, PagedFile>;
  const opened: PagedFile[] = [];
  try {
    for (const name of INDEX_FILES.filter((n) => n !== 'meta.bin')) {
      // Every file but meta.bin is paged: opened here, read a checked page at a time later.
      const file = openPagedIndexFile(root, name, rebuild);
      opened.push(file.paged!);
      const listed = meta.files?.[name];
      if (file.buildId !== meta.buildId) {
        throw new IndexError(`index file ${name} is from another build than meta.bin (files of two builds mixed): ${rebuild}`, true);
      }
      if (!listed || listed.bytes !== file.bytes || listed.crc32 !== file.crc32) {
        throw new IndexError(`index file ${name} does not match the length and checksum meta.bin lists for it: ${rebuild}`, true);
      }
      paged[name as PagedFileName] = file.paged!;
    }
    const content = contentFromMeta(meta);
    if (content.preTokenised ? meta.profile !== PRE_TOKENISED_PROFILE : !isAnalyzerProfile(meta.profile)) throw new DecodeError(`unknown profile ${meta.profile}`);
    if (content.docVectors === 'text' && (!content.storedText || content.preTokenised || content.postings !== 'frequencies')) {
      throw new DecodeError('document vectors are to come from stored text the index cannot analyse');
    }
    const { source, check } = decodeSource(meta, paged, dir, rebuild, content);
    const reader = new SourceIndexReader(source);
    openFiles.set(reader, { files: paged, check, rebuild });
    // The descriptors live as long as the reader (IndexReader has no close): closed when it is collected.
    closeWhenCollected.register(reader, opened);
    return reader;
  } catch (err) {
    for (const f of opened) f.close();
    if (err instanceof IndexError) throw err;
    // Checksums passed, so this is a writer bug or a hand-made file; still never wrong results.
    const reason = err instanceof Error ? err.message : String(err);
    throw new IndexError(`index at ${dir} is inconsistent (${reason}): ${rebuild}`);
  }
}

type PagedFileName = 'postings.bin' | 'direct.bin' | 'store.bin' | 'lexicon.bin' | 'docs.bin';

/** The paged files of each open reader, for verifyIndex. */
const openFiles = new WeakMap<IndexReader, { files: Record<PagedFileName, PagedFile>; check: () => void; rebuild: string }>();
const closeWhenCollected = new FinalizationRegistry<PagedFile[]>((files) => {
  for (const f of files) f.close();
});

/**
 * Full verification (`querylens verify-index DIR`): opens the index (every check of an open),
 * then checks every page of the lazily read files against its checksum and decodes every posting
 * list, term vector and stored document. Throws the IndexError an open or a read would.
 */
export function verifyIndex(dir: string): { docs: number; terms: number; bytesChecked: number } {
  const reader = openIndex(dir);
  const entry = openFiles.get(reader)!;
  let bytesChecked = 0;
  for (const [name, file] of Object.entries(entry.files) as [PagedFileName, PagedFile][]) {
    try {
      file.verifyAll();
    } catch (err) {
      if (err instanceof PageChecksumError) throw new IndexError(`index file ${name} is corrupt (${err.message}): ${entry.rebuild}`);
      throw err;
    }
    bytesChecked += file.dataBytes;
  }
  entry.check();
  return { docs: reader.stats().numDocs, terms: reader.vocabularySize(), bytesChecked };
}

/** True when a process other than this one has a build of `target` in progress (its temp or aside folder). */
function otherProcessBuilding(target: string): boolean {
  const parent = dirname(target);
  const prefixes = [`.${basename(target)}.tmp-`, `.${basename(target)}.old-`];
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return false;
  }
  return names.some((name) => {
    const prefix = prefixes.find((p) => name.startsWith(p));
    if (!prefix) return false;
    const pid = Number(name.slice(prefix.length).split('-')[0]);
    return Number.isInteger(pid) && pid !== process.pid && processAlive(pid);
  });
}

const sleepCell = new Int32Array(new SharedArrayBuffer(4));
/** openIndex is synchronous (its callers are); a short blocking wait between retries. */
function sleepMs(ms: number): void {
  Atomics.wait(sleepCell, 0, 0, ms);
}

interface VerifiedFile {
  /** A whole file's payload, checked. */
  payload?: Uint8Array;
  /** A paged file, its page table checked (pages are checked as they are read). */
  paged?: PagedFile;
  /** Hex build id from the header. */
  buildId: string;
  /** Whole file length. */
  bytes: number;
  /** CRC-32 at header offset 20, as checked. */
  crc32: number;
}

/**
 * The header checks every file gets, in the order docs/INDEX_FORMAT.md gives: `head` is the first
 * min(48, length) bytes of a file `length` bytes long. Returns the payload length.
 */
function checkHeader(head: Buffer, length: number, name: IndexFileName, rebuild: string): number {
  const corrupt = (why: string) => new IndexError(`index file ${name} is corrupt (${why}): ${rebuild}`);
  // The common header first: it is the same in every version, so another version is named as such.
  if (length < COMMON_HEADER_BYTES) throw corrupt(`truncated: ${length} bytes, shorter than its header`);
  if (head.toString('ascii', 0, 4) !== MAGIC) throw corrupt('not a querylens index file');
  if (head.readUInt32LE(24) !== crc32(head.subarray(0, 24)) >>> 0) throw corrupt('header checksum mismatch');
  const version = head.readUInt32LE(4);
  if (version !== FORMAT_VERSION) {
    throw new IndexError(`index built with format ${version}, this querylens reads format ${FORMAT_VERSION}: ${rebuild}`);
  }
  if (length < HEADER_BYTES) throw corrupt(`truncated: ${length} bytes, shorter than its header`);
  if (head.readUInt32LE(28) !== 0) throw corrupt('reserved header bytes are not zero');
  if (head.toString('ascii', 8, 12) !== FILE_KINDS[name]) throw corrupt('wrong file kind');
  const payloadLength = Number(head.readBigUInt64LE(12));
  if (length !== HEADER_BYTES + payloadLength) {
    throw corrupt(
      length < HEADER_BYTES + payloadLength
        ? `truncated: ${length - HEADER_BYTES} of ${payloadLength} payload bytes`
        : `${length - HEADER_BYTES - payloadLength} unexpected bytes at the end`,
    );
  }
  return payloadLength;
}

function readIndexFile(root: string, name: IndexFileName, rebuild: string): VerifiedFile {
  let data: Buffer;
  try {
    data = readFileSync(join(root, name));
  } catch {
    throw new IndexError(`index file ${name} is missing: ${rebuild}`, true);
  }
  checkHeader(data.subarray(0, HEADER_BYTES), data.length, name, rebuild);
  const bodyCrc = crc32(data.subarray(COMMON_HEADER_BYTES)) >>> 0;
  if (bodyCrc !== data.readUInt32LE(20)) throw new IndexError(`index file ${name} is corrupt (checksum mismatch): ${rebuild}`);
  return {
    payload: data.subarray(HEADER_BYTES),
    buildId: data.toString('hex', COMMON_HEADER_BYTES, HEADER_BYTES),
    bytes: data.length,
    crc32: bodyCrc,
  };
}

/** Opens a paged file: its header, page table and trailer are read and checked, its data is not. */
function openPagedIndexFile(root: string, name: IndexFileName, rebuild: string): VerifiedFile {
  let fd: number;
  try {
    fd = openSync(join(root, name), 'r');
  } catch {
    throw new IndexError(`index file ${name} is missing: ${rebuild}`, true);
  }
  try {
    const length = fileLength(fd);
    const head = readExactly(fd, 0, Math.min(length, HEADER_BYTES));
    const payloadLength = checkHeader(head, length, name, rebuild);
    let opened;
    try {
      opened = PagedFile.open(fd, HEADER_BYTES, payloadLength);
    } catch (err) {
      if (err instanceof PageChecksumError) throw new IndexError(`index file ${name} is corrupt (${err.message}): ${rebuild}`);
      throw err;
    }
    const bodyCrc = crc32(opened.tail, crc32(head.subarray(COMMON_HEADER_BYTES, HEADER_BYTES))) >>> 0;
    if (bodyCrc !== head.readUInt32LE(20)) throw new IndexError(`index file ${name} is corrupt (checksum mismatch): ${rebuild}`);
    return { paged: opened.file, buildId: head.toString('hex', COMMON_HEADER_BYTES, HEADER_BYTES), bytes: length, crc32: bodyCrc };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

function decodeSource(
  meta: MetaJson,
  paged: Record<PagedFileName, PagedFile>,
  dir: string,
  rebuild: string,
  content: IndexContent,
): { source: IndexSource; check: () => void } {
  const profile = meta.profile;
  /**
   * Postings, vectors and stored documents are read and decoded later, on demand. A damaged page
   * there is reported as corrupt, a decoding error (only possible in a hand-made file whose
   * checksums were recomputed) as inconsistent: both an IndexError naming the file, the index and
   * what to do, never a bare "data ends inside a number" and never a wrong answer.
   */
  const decoding = <T>(file: PagedFileName, what: () => string, decode: () => T): T => {
    try {
      return decode();
    } catch (err) {
      if (err instanceof PageChecksumError) throw new IndexError(`index file ${file} at ${dir} is corrupt (${what()}: ${err.message}): ${rebuild}`);
      const reason = err instanceof Error ? err.message : String(err);
      throw new IndexError(`index file ${file} at ${dir} is inconsistent (${what()}: ${reason}): ${rebuild}`);
    }
  };

  const lexiconFile = paged['lexicon.bin'];
  const docsFile = paged['docs.bin'];
  const postingsFile = paged['postings.bin'];
  const directFile = paged['direct.bin'];
  const storeFile = paged['store.bin'];
  const lexicon = openLexicon(lexiconFile, meta.numTerms, postingsFile.dataBytes, decoding);
  const table = openDocumentTable(docsFile, meta.numDocs, meta.fields.length, meta.totalTokens, decoding);
  const numDocs = table.numDocs;
  const numTerms = lexicon.numTerms;
  const totalTokens = meta.totalTokens;
  // What postings.bin's saturation maxima were computed for (writeIndexFiles), and BM25 reads.
  const avgdl = averageLength(numDocs, totalTokens);
  if (table.directBytes !== directFile.dataBytes) throw new DecodeError('direct index size differs from document table');
  const stored = decoding('store.bin', () => 'trailer', () => openStoredBlocks(storeFile));
  if (table.storeBytes !== stored.recordsBytes) throw new DecodeError('document store size differs from document table');

  const storedDocument = (doc: number): StoredDocument => {
    const { storeOffset, storeBytes } = table.record(doc);
    const record = stored.record(storeOffset, storeBytes);
    const [docno, title, fields] = JSON.parse(decodeUtf8(record)) as [string, string, Record<string, string>];
    return { docno, title, fields };
  };
  // content.docVectors `text`: the stored fields hold every indexed field's text as read, so
  // analysing them as the build did gives the document's terms and counts; checked against the
  // token count the extents record, so a store that disagrees with the postings is an error.
  const analyzer = content.docVectors === 'text' ? createAnalyzer(profile as AnalyzerProfile) : undefined;
  const vectorOfText = (doc: number): { termIds: Int32Array; tfs: Int32Array } => {
    const { title, fields } = storedDocument(doc);
    const counts = new Map<string, number>();
    let tokens = 0;
    const onToken = (surface: string): void => {
      const term = analyzer!.analyzeWord(surface);
      if (term === null) return;
      counts.set(term, (counts.get(term) ?? 0) + 1);
      tokens++;
    };
    forEachToken(title, onToken);
    for (const text of Object.values(fields)) forEachToken(text, onToken);
    let indexed = 0;
    for (const e of table.record(doc).extents) indexed += e.end - e.begin;
    if (tokens !== indexed) throw new DecodeError(`its text has ${tokens} terms, the index counted ${indexed}`);
    // Each distinct term looked up once; ids ascend as the terms' order does.
    const terms = [...counts.keys()].sort();
    const termIds = new Int32Array(terms.length);
    const tfs = new Int32Array(terms.length);
    for (let i = 0; i < terms.length; i++) {
      const id = lexicon.termId(terms[i]!);
      if (id === undefined) throw new DecodeError(`its text has the term ${JSON.stringify(terms[i])}, which the lexicon lacks`);
      termIds[i] = id;
      tfs[i] = counts.get(terms[i]!)!;
    }
    return { termIds, tfs };
  };

  /** content.docVectors `stored`: the vector's record in direct.bin. */
  const storedVector = (doc: number): { termIds: Int32Array; tfs: Int32Array } => {
    const { directOffset, directBytes } = table.record(doc);
    const r = new ByteReader(directFile.read(directOffset, directBytes));
    const n = r.varint();
    const termIds = new Int32Array(n);
    const tfs = new Int32Array(n);
    let term = 0;
    for (let i = 0; i < n; i++) {
      term += r.varint();
      if (term >= numTerms) throw new DecodeError(`term id ${term} past the lexicon`);
      termIds[i] = term;
      tfs[i] = r.varint();
    }
    return { termIds, tfs };
  };

  const termLabel = (t: number) => () => `postings of term ${JSON.stringify(lexicon.term(t))}`;
  const arenaBytes = decodedArenaBytes(totalTokens);
  const decodedChunks = new DecodedChunkPool(DECODED_CHUNKS_KEPT, arenaBytes, Math.min(DECODED_ARENA_LEAD_BYTES, arenaBytes));
  const source: IndexSource = {
    profile,
    content,
    fields: meta.fields,
    numDocs,
    totalTokens,
    docLengths: table.docLengths,
    docnoRank: table.docnoRank,
    docno: (doc) => table.docno(doc),
    docByDocno: (docno) => table.docByDocno(docno),
    extents: (doc) => table.record(doc).extents,
    numTerms,
    term: (id) => lexicon.term(id),
    termId: (term) => lexicon.termId(term),
    termStats: (id) => lexicon.stats(id),
    termsFrom: (from) => lexicon.termsFrom(from),
    loadPostings: (t: number): PostingList =>
      decoding('postings.bin', termLabel(t), () => {
        const { offset, docBytes, bytes: recordBytes, df, cf } = lexicon.entry(t);
        const bytes = postingsFile.read(offset, recordBytes);
        const list = decodeTermPostings(bytes, 0, docBytes, bytes.length, df, cf, content.positions);
        const last = list.docs[list.docs.length - 1];
        if (last !== undefined && last >= numDocs) throw new DecodeError(`document ${last} past the last document`);
        return list;
      }),
    loadBlockPostings: (t: number): BlockPostings =>
      decoding('postings.bin', termLabel(t), () => {
        const { offset, docBytes, df } = lexicon.entry(t);
        // A long list's bytes are read into the arena's pages (DecodedChunkPool.takeBytes).
        const memory = docBytes >= ARENA_READ_MIN_BYTES ? (n: number) => decodedChunks.takeBytes(n) : undefined;
        const blocks = new EncodedBlockPostings(postingsFile.read(offset, docBytes, memory), 0, docBytes, df, avgdl, decodedChunks);
        if (blocks.numBlocks > 0 && blocks.blockLastDoc[blocks.numBlocks - 1]! >= numDocs) throw new DecodeError('a document past the last document');
        // A block is decoded when the query reaches it: its errors are still this file's.
        return {
          df: blocks.df,
          numBlocks: blocks.numBlocks,
          blockLastDoc: blocks.blockLastDoc,
          blockMaxTf: blocks.blockMaxTf,
          blockMinDocLength: blocks.blockMinDocLength,
          blockSaturation: blocks.blockSaturation,
          decodeBlock: (b, view) => decoding('postings.bin', termLabel(t), () => blocks.decodeBlock(b, view)),
          decodeDocs: (b, view) => decoding('postings.bin', termLabel(t), () => blocks.decodeDocs(b, view)),
          // Reads bytes decodeDocs checked: nothing to report there.
          tfAt: (b, index) => blocks.tfAt(b, index),
          release: () => blocks.release(),
        };
      }),
    loadDocVector: (doc: number) =>
      content.docVectors === 'text'
        ? decoding('store.bin', () => `term vector of document ${JSON.stringify(table.docno(doc))}`, () => vectorOfText(doc))
        : decoding('direct.bin', () => `term vector of document ${JSON.stringify(table.docno(doc))}`, () => storedVector(doc)),
    loadDocument: (doc: number): StoredDocument =>
      decoding('store.bin', () => `stored document ${JSON.stringify(table.docno(doc))}`, () => storedDocument(doc)),
  };
  // verifyIndex: everything decodes, and the postings agree with the lexicon's counts.
  const check = () => {
    for (let t = 0; t < numTerms; t++) {
      const list = source.loadPostings(t);
      let total = 0;
      for (let i = 0; i < list.tfs.length; i++) total += list.tfs[i]!;
      const { cf } = lexicon.stats(t);
      if (total !== cf) throw new IndexError(`index file postings.bin at ${dir} is inconsistent (postings of term ${JSON.stringify(lexicon.term(t))}: tfs add up to ${total}, the lexicon's cf is ${cf}): ${rebuild}`);
      if (t > 0 && !(lexicon.term(t - 1) < lexicon.term(t))) throw new IndexError(`index file lexicon.bin at ${dir} is inconsistent (terms out of order at ${t}): ${rebuild}`);
    }
    table.docLengths();
    for (let d = 0; d < numDocs; d++) {
      // The text first: a vector analysed from it (content.docVectors) fails on the text's damage too.
      source.loadDocument(d);
      source.loadDocVector(d);
      if (table.docByDocno(table.docno(d)) !== d) throw new IndexError(`index file docs.bin at ${dir} is inconsistent (docno order at document ${d}): ${rebuild}`);
    }
  };
  return { source, check };
}
