/**
 * Result order shared by every scorer, chosen so that a run file evaluates identically in
 * trec_eval v9 (SEMANTICS.md §6.2): score descending compared as float32 (v9 stores `sim` as a
 * float), ties by docno descending, byte-wise.
 */
import { compareDocno } from '../index/docno-order.js';

export interface RankedDoc {
  doc: number;
  docno: string;
  score: number;
}

export { compareDocno };

/** Negative when `a` ranks before `b`. */
export function compareRanked(a: RankedDoc, b: RankedDoc): number {
  const fa = Math.fround(a.score);
  const fb = Math.fround(b.score);
  if (fa !== fb) return fa > fb ? -1 : 1;
  return -compareDocno(a.docno, b.docno);
}

/**
 * Keeps the k best documents seen so far: a binary heap whose root is the worst kept one,
 * so a new document enters only when it beats the root. Ties compare the documents' ranks in
 * docno order (`rankOf`, from the index), so no docno string is built until `sorted`. The heap
 * is held in typed arrays (document, docno rank, score and the score as a float32, which orders
 * them), so offering allocates nothing.
 */
export class TopK {
  private size = 0;
  private docs: Int32Array;
  private ranks: Float64Array;
  private scores: Float64Array;
  private keys: Float32Array;

  constructor(
    readonly k: number,
    private readonly rankOf: (doc: number) => number,
  ) {
    // Small at first (a query matching few documents zeroes little), doubled as documents enter.
    const capacity = Math.max(1, Math.min(k, 64));
    this.docs = new Int32Array(capacity);
    this.ranks = new Float64Array(capacity);
    this.scores = new Float64Array(capacity);
    this.keys = new Float32Array(capacity);
  }

  /** True when `score` could enter (a cheap check before offering). */
  wouldEnter(score: number): boolean {
    if (this.size < this.k) return true;
    return Math.fround(score) >= this.keys[0]!;
  }

  /** The score of the worst kept document once k are kept (a new one must reach it), else undefined. */
  threshold(): number | undefined {
    return this.k > 0 && this.size >= this.k ? this.scores[0]! : undefined;
  }

  offer(doc: number, score: number): void {
    if (this.k <= 0) return;
    const key = Math.fround(score);
    const rank = this.rankOf(doc);
    if (this.size < this.k) {
      if (this.size === this.docs.length) this.grow();
      const i = this.size++;
      this.put(i, doc, rank, score, key);
      this.up(i);
    } else if (key > this.keys[0]! || (key === this.keys[0]! && rank > this.ranks[0]!)) {
      this.put(0, doc, rank, score, key);
      this.down(0);
    }
  }

  /**
   * The kept documents, best first, with their docnos; takes them out (the TopK is empty afterwards).
   * An in-place heapsort over the typed arrays: the worst kept document is the root, so moving the
   * root to the end k times leaves them best first, with no comparator closure per comparison (a
   * third of a small collection's query time went to Array.prototype.sort here).
   */
  sorted(docnoOf: (doc: number) => string): RankedDoc[] {
    const n = this.size;
    for (let end = n - 1; end > 0; end--) {
      this.swap(0, end);
      this.size = end;
      this.down(0);
    }
    this.size = 0;
    const out: RankedDoc[] = new Array(n);
    for (let i = 0; i < n; i++) out[i] = { doc: this.docs[i]!, docno: docnoOf(this.docs[i]!), score: this.scores[i]! };
    return out;
  }

  private grow(): void {
    const capacity = Math.min(this.k, this.docs.length * 2);
    const docs = new Int32Array(capacity);
    const ranks = new Float64Array(capacity);
    const scores = new Float64Array(capacity);
    const keys = new Float32Array(capacity);
    docs.set(this.docs);
    ranks.set(this.ranks);
    scores.set(this.scores);
    keys.set(this.keys);
    this.docs = docs;
    this.ranks = ranks;
    this.scores = scores;
    this.keys = keys;
  }

  private put(i: number, doc: number, rank: number, score: number, key: number): void {
    this.docs[i] = doc;
    this.ranks[i] = rank;
    this.scores[i] = score;
    this.keys[i] = key;
  }

  /** True when entry a ranks after entry b (compareRanked's order, docno ranks for docnos). */
  private worse(a: number, b: number): boolean {
    const ka = this.keys[a]!;
    const kb = this.keys[b]!;
    return ka !== kb ? ka < kb : this.ranks[a]! < this.ranks[b]!;
  }

  private swap(a: number, b: number): void {
    const doc = this.docs[a]!;
    const rank = this.ranks[a]!;
    const score = this.scores[a]!;
    const key = this.keys[a]!;
    this.put(a, this.docs[b]!, this.ranks[b]!, this.scores[b]!, this.keys[b]!);
    this.put(b, doc, rank, score, key);
  }

  // The heap orders "worse" above "better": parent ranks after its children.
  private up(i: number): void {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.worse(i, p)) return;
      this.swap(i, p);
      i = p;
    }
  }

  private down(i: number): void {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < this.size && this.worse(l, worst)) worst = l;
      if (r < this.size && this.worse(r, worst)) worst = r;
      if (worst === i) return;
      this.swap(i, worst);
      i = worst;
    }
  }
}

/** Collections up to this many documents can rank by one packed number per document (rankMatched). */
export const PACKED_RANK_MAX_DOCS = 1 << 20;

const f32 = new Float32Array(1);
const f32Bits = new Uint32Array(f32.buffer);

/**
 * rankMatched's arrays, kept between calls (a query of a small collection spent a tenth of its time
 * allocating and collecting them); they grow to the largest collection ranked.
 */
const scratch = (() => {
  let packed = new Float64Array(1024);
  let docAtRank = new Int32Array(1024);
  return {
    packed(count: number): Float64Array {
      if (packed.length < count) packed = new Float64Array(Math.max(count, packed.length * 2));
      return packed.subarray(0, count);
    },
    docAtRank(numDocs: number): Int32Array {
      if (docAtRank.length < numDocs) docAtRank = new Int32Array(Math.max(numDocs, docAtRank.length * 2));
      return docAtRank;
    },
  };
})();

/**
 * The best k of `count` documents (`docs[0..count)`, each scored once by `scoreOf`), in TopK's order:
 * score as float32 descending, ties by docno rank descending. For a collection of at most
 * PACKED_RANK_MAX_DOCS documents each document becomes one double, its float32 score's bits mapped to an
 * order-preserving unsigned integer times 2^20 plus its docno rank (below 2^52, so exact), and one
 * native numeric sort orders them: no comparator call per comparison and no heap.
 */
export function rankMatched(
  docs: Int32Array,
  count: number,
  k: number,
  numDocs: number,
  scoreOf: (doc: number) => number,
  rankOf: (doc: number) => number,
  docnoOf: (doc: number) => string,
): RankedDoc[] {
  if (numDocs > PACKED_RANK_MAX_DOCS) throw new RangeError(`rankMatched: ${numDocs} documents is more than ${PACKED_RANK_MAX_DOCS}`);
  const packed = scratch.packed(count);
  // Each matched document's entry is written before it is read: stale entries are never read.
  const docAtRank = scratch.docAtRank(numDocs);
  for (let i = 0; i < count; i++) {
    const doc = docs[i]!;
    // +0 for -0: TopK's comparison treats them as equal keys, so ties go to the rank there too.
    f32[0] = Math.fround(scoreOf(doc)) + 0;
    const bits = f32Bits[0]!;
    const ordered = bits & 0x80000000 ? ~bits >>> 0 : (bits | 0x80000000) >>> 0;
    const rank = rankOf(doc);
    docAtRank[rank] = doc;
    packed[i] = ordered * PACKED_RANK_MAX_DOCS + rank;
  }
  packed.sort();
  const n = Math.min(k, count);
  const out: RankedDoc[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const rank = packed[count - 1 - i]! % PACKED_RANK_MAX_DOCS;
    const doc = docAtRank[rank]!;
    out[i] = { doc, docno: docnoOf(doc), score: scoreOf(doc) };
  }
  return out;
}
