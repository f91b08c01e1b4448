/**
 * The first half of an on-disk build: read the corpus, analyse every document and hand the
 * result on in batches of plain typed arrays. It runs in a worker thread (build-worker.ts) while
 * the main thread accumulates and writes runs (disk.ts), or in the main thread when no worker
 * can be started; either way the batches are the same, in document order, so the index bytes
 * do not depend on where this ran.
 *
 * Term and field ids are numbered here, in order of first appearance; each batch carries the
 * names first seen in it, so the consumer learns the same numbering without a shared table.
 */
import { createAnalyzer, forEachToken, type AnalyzerProfile } from '../analysis/index.js';
import { readCorpus } from '../ingest/index.js';
import type { IngestDocument, IngestError } from '../ingest/types.js';
import { GrowableInt32 } from './growable.js';
import { streamOrder } from './accumulator.js';

/** An IngestError as data, so that it can cross a thread boundary. */
export interface IngestErrorData {
  file: string;
  reason: string;
  line?: number;
  offset?: number;
}

export interface AnalysedBatch {
  /** Term ids numbered from here on: newTerms[i] has id firstNewTerm + i. */
  newTerms: string[];
  newFields: string[];
  docnos: string[];
  /** Term id of every token, the batch's documents one after another. */
  tokens: Int32Array;
  /**
   * Impact builds (AnalyseOptions.input `jsonvector`): each token entry's count, the term's
   * impact in the document (a vector names each term once, so entries are not positions).
   */
  tokenCounts?: Int32Array;
  /** Each document's length when given apart from its tokens (a CIFF import's doclength); else the sum of its token counts. */
  docLengths?: Int32Array;
  /** Document i's tokens are tokens[docTokenEnd[i-1] .. docTokenEnd[i]) (docTokenEnd[-1] = 0). */
  docTokenEnd: Int32Array;
  /** Document i's extents are entries extEnd[i-1] .. extEnd[i] of the ext arrays. */
  docExtEnd: Int32Array;
  extField: Int32Array;
  extBegin: Int32Array;
  extLength: Int32Array;
  /** store.bin records of the documents, back to back, and each one's length. */
  store: Uint8Array;
  storeLengths: Int32Array;
  /** Input bytes read so far (for progress). */
  bytesRead: number;
  /** Records skipped (skipBad) while this batch was read. */
  bad: IngestErrorData[];
}

export interface AnalyseOptions {
  profile: AnalyzerProfile;
  skipBad?: boolean;
  /** A batch is handed on after this many documents or this many bytes of stored text. */
  batchDocs?: number;
  batchBytes?: number;
  /**
   * `jsonvector`: Anserini JSON vectors, indexed as impacts: each vector term, as written (not
   * analysed), is one token entry whose count is its impact; documents have no field extents.
   */
  input?: 'text' | 'jsonvector';
  /** False: store.bin records hold the docno only (`[docno, "", {}]`, as a CIFF import's): no snippets, a smaller index. */
  storeText?: boolean;
}

export function ingestErrorData(e: IngestError): IngestErrorData {
  return { file: e.file, reason: e.reason, line: e.line, offset: e.offset };
}

/** The buffers a batch's arrays live in, for a worker's transfer list. */
export function batchTransferList(b: AnalysedBatch): ArrayBuffer[] {
  const arrays = [b.tokens, ...(b.tokenCounts ? [b.tokenCounts] : []), ...(b.docLengths ? [b.docLengths] : []), b.docTokenEnd, b.docExtEnd, b.extField, b.extBegin, b.extLength, b.store, b.storeLengths];
  return [...new Set(arrays.map((a) => a.buffer as ArrayBuffer))];
}

/** Reads and analyses `inputs` in order. A malformed record without skipBad ends it with an IngestError. */
export async function* analyseCorpus(inputs: string[], options: AnalyseOptions): AsyncGenerator<AnalysedBatch> {
  const analyzer = createAnalyzer(options.profile);
  const batchDocs = options.batchDocs ?? 2048;
  const batchBytes = options.batchBytes ?? 4 << 20;
  const termIds = new Map<string, number>();
  /** Token as written -> term id, or -1 for a stopword (one Map lookup per token on the hot path). */
  const surfaceIds = new Map<string, number>();
  const fieldIds = new Map<string, number>();
  let numTerms = 0;
  let bytesRead = 0;
  let bad: IngestErrorData[] = [];

  let newTerms: string[] = [];
  let newFields: string[] = [];
  let docnos: string[] = [];
  let tokens = new GrowableInt32(1 << 16);
  const impacts = options.input === 'jsonvector';
  let tokenCounts = impacts ? new GrowableInt32(1 << 16) : null;
  let docTokenEnd = new GrowableInt32(batchDocs);
  let docExtEnd = new GrowableInt32(batchDocs);
  let extField = new GrowableInt32(batchDocs * 2);
  let extBegin = new GrowableInt32(batchDocs * 2);
  let extLength = new GrowableInt32(batchDocs * 2);
  let store: Buffer[] = [];
  let storeBytes = 0;
  let storeLengths = new GrowableInt32(batchDocs);

  const onToken = (surface: string): void => {
    let id = surfaceIds.get(surface);
    if (id === undefined) {
      const term = analyzer.analyzeWord(surface);
      if (term === null) {
        id = -1;
      } else {
        id = termIds.get(term);
        if (id === undefined) {
          id = numTerms++;
          termIds.set(term, id);
          newTerms.push(term);
        }
      }
      // Bound memory on corpora with huge numbers of surface forms; the cost is a re-analysis.
      if (surfaceIds.size >= 1 << 21) surfaceIds.clear();
      surfaceIds.set(surface, id);
    }
    if (id >= 0) tokens.push(id);
  };

  /** A vector's terms as written, one entry each with its impact; no field extents. */
  const addVector = (vector: { terms: string[]; impacts: number[] }): void => {
    for (let i = 0; i < vector.terms.length; i++) {
      const term = vector.terms[i]!;
      let id = termIds.get(term);
      if (id === undefined) {
        id = numTerms++;
        termIds.set(term, id);
        newTerms.push(term);
      }
      tokens.push(id);
      tokenCounts!.push(vector.impacts[i]!);
    }
  };

  const add = (doc: IngestDocument): void => {
    docnos.push(doc.docno);
    const docStart = tokens.length;
    if (impacts) addVector(doc.vector ?? { terms: [], impacts: [] });
    for (const name of impacts ? [] : streamOrder(doc.fields)) {
      const begin = tokens.length - docStart;
      forEachToken(doc.fields[name]!, onToken);
      const end = tokens.length - docStart;
      let fieldId = fieldIds.get(name);
      if (fieldId === undefined) {
        fieldId = fieldIds.size;
        fieldIds.set(name, fieldId);
        newFields.push(name);
      }
      // An empty field has no extent: it can match nothing.
      if (end > begin) {
        extField.push(fieldId);
        extBegin.push(begin);
        extLength.push(end - begin);
      }
    }
    docTokenEnd.push(tokens.length);
    docExtEnd.push(extField.length);
    const { title, ...rest } = doc.fields;
    const record = Buffer.from(JSON.stringify(options.storeText === false ? [doc.docno, '', {}] : [doc.docno, title ?? '', rest]), 'utf8');
    store.push(record);
    storeBytes += record.length;
    storeLengths.push(record.length);
  };

  const take = (): AnalysedBatch => {
    const batch: AnalysedBatch = {
      newTerms,
      newFields,
      docnos,
      tokens: tokens.toArray(),
      ...(tokenCounts ? { tokenCounts: tokenCounts.toArray() } : {}),
      docTokenEnd: docTokenEnd.toArray(),
      docExtEnd: docExtEnd.toArray(),
      extField: extField.toArray(),
      extBegin: extBegin.toArray(),
      extLength: extLength.toArray(),
      // A fresh buffer of its own (not Node's shared pool), so that it can be transferred.
      store: new Uint8Array(Buffer.concat(store, storeBytes)),
      storeLengths: storeLengths.toArray(),
      bytesRead,
      bad,
    };
    newTerms = [];
    newFields = [];
    docnos = [];
    tokens = new GrowableInt32(Math.max(1 << 16, batch.tokens.length));
    if (tokenCounts) tokenCounts = new GrowableInt32(Math.max(1 << 16, batch.tokens.length));
    docTokenEnd = new GrowableInt32(batchDocs);
    docExtEnd = new GrowableInt32(batchDocs);
    extField = new GrowableInt32(batchDocs * 2);
    extBegin = new GrowableInt32(batchDocs * 2);
    extLength = new GrowableInt32(batchDocs * 2);
    store = [];
    storeBytes = 0;
    storeLengths = new GrowableInt32(batchDocs);
    bad = [];
    return batch;
  };

  const corpus = readCorpus(inputs, {
    ...(impacts ? { format: 'jsonvector' as const } : {}),
    skipBad: options.skipBad,
    onBad: (e) => bad.push(ingestErrorData(e)),
    onRead: (n) => (bytesRead += n),
  });
  for await (const doc of corpus) {
    add(doc);
    if (docnos.length >= batchDocs || storeBytes >= batchBytes) yield take();
  }
  if (docnos.length > 0 || bad.length > 0) yield take();
}
