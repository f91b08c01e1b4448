/**
 * Inversion shared by the in-memory index and the on-disk build: documents go in one at a
 * time, inverted postings come out in one pass at the end.
 *
 * Why this shape: during ingest only one Int32 per token is kept (the term id, in token
 * order). Positions need no storage because, counted after stopping, a document's
 * positions are exactly 0..docLength-1 in token order (reader.ts conventions). At the end
 * a counting sort by term turns the token stream into posting lists that are already in
 * (doc, position) order.
 */
import { createAnalyzer, forEachToken, type AnalyzerProfile } from '../analysis/index.js';
import type { IngestDocument } from '../ingest/types.js';
import type { StoredDocument } from './reader.js';
import { GrowableInt32 } from './growable.js';

/** The frozen, fully inverted index: the common form of memory.ts and disk.ts. */
export interface InvertedIndex {
  profile: AnalyzerProfile;
  /** Field names in stream order: title, text, then the rest by first appearance. */
  fields: string[];
  docnos: string[];
  docLengths: Int32Array;
  totalTokens: number;
  /** Extents of doc d are entries extStart[d] .. extStart[d+1]-1 (ordered by begin). */
  extStart: Int32Array;
  extField: Int32Array;
  extBegin: Int32Array;
  extEnd: Int32Array;
  /** Vocabulary, sorted (JS string order); term id = index. */
  terms: string[];
  df: Int32Array;
  cf: Float64Array;
  /** Postings of term t: entries termDocStart[t] .. termDocStart[t+1]-1 of pDocs/pTfs/pPosStart. */
  termDocStart: Float64Array;
  pDocs: Int32Array;
  pTfs: Int32Array;
  /** Start of each posting's positions, relative to its term's first position. */
  pPosStart: Int32Array;
  /** Positions of term t: termPosStart[t] .. termPosStart[t+1]-1 of positions. */
  termPosStart: Float64Array;
  positions: Int32Array;
  /** Direct index: doc d has entries dvStart[d] .. dvStart[d+1]-1, term ids ascending. */
  dvStart: Float64Array;
  dvTerms: Int32Array;
  dvTfs: Int32Array;
}

/** Receives each stored document as it is added (memory keeps them; disk streams them out). */
export type StoredDocumentSink = (doc: number, stored: StoredDocument) => void;

export class DuplicateDocnoError extends Error {
  constructor(readonly docno: string) {
    super(`duplicate docno '${docno}'`);
    this.name = 'DuplicateDocnoError';
  }
}

export class IndexAccumulator {
  private readonly analyzer;
  private readonly termIds = new Map<string, number>();
  /**
   * Token as written -> term id, or -1 for a stopword: one Map lookup per token on the hot
   * path instead of two (analyser cache, then term ids).
   */
  private readonly surfaceIds = new Map<string, number>();
  private readonly termNames: string[] = [];
  /** Term id of every token, documents one after another. */
  private readonly tokenTerms = new GrowableInt32(1 << 16);
  private readonly docTokenStart = new GrowableInt32(1024);
  private readonly docnoSet = new Set<string>();
  private readonly docnos: string[] = [];
  private readonly fieldIds = new Map<string, number>();
  private readonly fieldNames: string[] = [];
  private readonly extStart = new GrowableInt32(1024);
  private readonly extField = new GrowableInt32(1024);
  private readonly extBegin = new GrowableInt32(1024);
  private readonly extEnd = new GrowableInt32(1024);

  constructor(
    readonly profile: AnalyzerProfile,
    private readonly sink: StoredDocumentSink,
  ) {
    this.analyzer = createAnalyzer(profile);
    this.docTokenStart.push(0);
    this.extStart.push(0);
  }

  get numDocs(): number {
    return this.docnos.length;
  }

  get numTokens(): number {
    return this.tokenTerms.length;
  }

  /** Adds one document; throws DuplicateDocnoError (and adds nothing) on a repeated docno. */
  add(doc: IngestDocument): number {
    if (this.docnoSet.has(doc.docno)) throw new DuplicateDocnoError(doc.docno);
    this.docnoSet.add(doc.docno);
    const docId = this.docnos.length;
    this.docnos.push(doc.docno);

    const docStart = this.tokenTerms.length;
    for (const name of streamOrder(doc.fields)) {
      const begin = this.tokenTerms.length - docStart;
      forEachToken(doc.fields[name]!, this.onToken);
      const end = this.tokenTerms.length - docStart;
      const fieldId = this.fieldId(name);
      // An empty field has no extent: it can match nothing.
      if (end > begin) {
        this.extField.push(fieldId);
        this.extBegin.push(begin);
        this.extEnd.push(end);
      }
    }
    this.docTokenStart.push(this.tokenTerms.length);
    this.extStart.push(this.extField.length);

    const { title, ...rest } = doc.fields;
    this.sink(docId, { docno: doc.docno, title: title ?? '', fields: rest });
    return docId;
  }

  private readonly onToken = (surface: string): void => {
    let id = this.surfaceIds.get(surface);
    if (id === undefined) {
      const term = this.analyzer.analyzeWord(surface);
      if (term === null) {
        id = -1;
      } else {
        id = this.termIds.get(term);
        if (id === undefined) {
          id = this.termNames.length;
          this.termIds.set(term, id);
          this.termNames.push(term);
        }
      }
      // Bound memory on corpora with huge numbers of surface forms; the cost is a re-analysis.
      if (this.surfaceIds.size >= 1 << 21) this.surfaceIds.clear();
      this.surfaceIds.set(surface, id);
    }
    if (id >= 0) this.tokenTerms.push(id);
  };

  private fieldId(name: string): number {
    let id = this.fieldIds.get(name);
    if (id === undefined) {
      id = this.fieldNames.length;
      this.fieldIds.set(name, id);
      this.fieldNames.push(name);
    }
    return id;
  }

  /** Inverts everything added so far. The accumulator should not be used afterwards. */
  finish(): InvertedIndex {
    const numDocs = this.docnos.length;
    const numTerms = this.termNames.length;
    const tokens = this.tokenTerms.view();
    const docTokenStart = this.docTokenStart.view();
    const totalTokens = tokens.length;

    // Vocabulary in sorted order; remap ids so that id order = lexicographic order.
    const order = Array.from({ length: numTerms }, (_, i) => i);
    const names = this.termNames;
    order.sort((a, b) => (names[a]! < names[b]! ? -1 : names[a]! > names[b]! ? 1 : 0));
    const newId = new Int32Array(numTerms);
    const terms: string[] = new Array(numTerms);
    for (let rank = 0; rank < numTerms; rank++) {
      newId[order[rank]!] = rank;
      terms[rank] = names[order[rank]!]!;
    }

    // Counting sort of tokens by term: cf, then slots in (doc, position) order.
    const cf = new Float64Array(numTerms);
    for (let i = 0; i < totalTokens; i++) cf[newId[tokens[i]!]!]!++;
    const termPosStart = new Float64Array(numTerms + 1);
    for (let t = 0; t < numTerms; t++) termPosStart[t + 1] = termPosStart[t]! + cf[t]!;
    const cursor = Float64Array.from(termPosStart.subarray(0, numTerms));
    const slotDoc = new Int32Array(totalTokens);
    const positions = new Int32Array(totalTokens);
    const docLengths = new Int32Array(numDocs);
    for (let d = 0; d < numDocs; d++) {
      const start = docTokenStart[d]!;
      const end = docTokenStart[d + 1]!;
      docLengths[d] = end - start;
      for (let i = start; i < end; i++) {
        const t = newId[tokens[i]!]!;
        const k = cursor[t]!++;
        slotDoc[k] = d;
        positions[k] = i - start;
      }
    }

    // Posting entries: one per (term, doc).
    const df = new Int32Array(numTerms);
    let numPostings = 0;
    for (let t = 0; t < numTerms; t++) {
      let last = -1;
      for (let k = termPosStart[t]!; k < termPosStart[t + 1]!; k++) {
        if (slotDoc[k] !== last) {
          last = slotDoc[k]!;
          df[t]!++;
        }
      }
      numPostings += df[t]!;
    }
    const termDocStart = new Float64Array(numTerms + 1);
    const pDocs = new Int32Array(numPostings);
    const pTfs = new Int32Array(numPostings);
    const pPosStart = new Int32Array(numPostings);
    const dvCount = new Int32Array(numDocs);
    let p = 0;
    for (let t = 0; t < numTerms; t++) {
      termDocStart[t] = p;
      const base = termPosStart[t]!;
      const endK = termPosStart[t + 1]!;
      let k = base;
      while (k < endK) {
        const d = slotDoc[k]!;
        let e = k + 1;
        while (e < endK && slotDoc[e] === d) e++;
        pDocs[p] = d;
        pTfs[p] = e - k;
        pPosStart[p] = k - base;
        dvCount[d]!++;
        p++;
        k = e;
      }
    }
    termDocStart[numTerms] = p;

    // Direct index from the postings: visiting terms in id order keeps each vector sorted.
    const dvStart = new Float64Array(numDocs + 1);
    for (let d = 0; d < numDocs; d++) dvStart[d + 1] = dvStart[d]! + dvCount[d]!;
    const dvCursor = Float64Array.from(dvStart.subarray(0, numDocs));
    const dvTerms = new Int32Array(numPostings);
    const dvTfs = new Int32Array(numPostings);
    for (let t = 0; t < numTerms; t++) {
      for (let q = termDocStart[t]!; q < termDocStart[t + 1]!; q++) {
        const slot = dvCursor[pDocs[q]!]!++;
        dvTerms[slot] = t;
        dvTfs[slot] = pTfs[q]!;
      }
    }

    // Fields in stream order: title, text, then the others by first appearance.
    const fieldOrder = streamOrderOfNames(this.fieldNames);
    const fieldRank = new Int32Array(this.fieldNames.length);
    fieldOrder.forEach((name, rank) => (fieldRank[this.fieldIds.get(name)!] = rank));
    const extField = this.extField.toArray().map((f) => fieldRank[f]!);

    return {
      profile: this.profile,
      fields: fieldOrder,
      docnos: this.docnos,
      docLengths,
      totalTokens,
      extStart: this.extStart.toArray(),
      extField,
      extBegin: this.extBegin.toArray(),
      extEnd: this.extEnd.toArray(),
      terms,
      df,
      cf,
      termDocStart,
      pDocs,
      pTfs,
      pPosStart,
      termPosStart,
      positions,
      dvStart,
      dvTerms,
      dvTfs,
    };
  }
}

/** A document's field names in stream order: title, text, then the rest as inserted. */
export function streamOrder(fields: Record<string, string>): string[] {
  return streamOrderOfNames(Object.keys(fields));
}

export function streamOrderOfNames(names: string[]): string[] {
  const rest = names.filter((n) => n !== 'title' && n !== 'text');
  const head: string[] = [];
  if (names.includes('title')) head.push('title');
  if (names.includes('text')) head.push('text');
  return head.concat(rest);
}
