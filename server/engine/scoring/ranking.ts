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
  let ordered = new Float64Array(1024);
  let bucketStarts = new Int32Array(1025);
  let bucketOf = new Int32Array(1024);
  let docAtRank = new Int32Array(1024);
  const grown = <T extends Float64Array | Int32Array>(a: T, n: number, make: (n: number) => T): T => (a.length < n ? make(Math.max(n, a.length * 2)) : a);
  return {
    packed(count: number): Float64Array {
      packed = grown(packed, count, (n) => new Float64Array(n));
      return packed;
    },
    ordered(count: number): Float64Array {
      ordered = grown(ordered, count, (n) => new Float64Array(n));
      return ordered;
    },
    bucketOf(count: number): Int32Array {
      bucketOf = grown(bucketOf, count, (n) => new Int32Array(n));
      return bucketOf;
    },
    bucketStarts(buckets: number): Int32Array {
      bucketStarts = grown(bucketStarts, buckets + 1, (n) => new Int32Array(n));
      return bucketStarts;
    },
    docAtRank(numDocs: number): Int32Array {
      docAtRank = grown(docAtRank, numDocs, (n) => new Int32Array(n));
      return docAtRank;
    },
  };
})();

/** Up to this many values are put in order by one insertion sort. */
const INSERTION_SORT_MAX = 32;
/** A bucket of more values than this (a skewed spread) sends the whole set to the native sort. */
const BUCKET_MAX = 48;

/** values[from..to) in descending order, in place. */
function insertionSortDescending(values: Float64Array, from: number, to: number): void {
  for (let i = from + 1; i < to; i++) {
    const v = values[i]!;
    let j = i - 1;
    while (j >= from && values[j]! < v) {
      values[j + 1] = values[j]!;
      j--;
    }
    values[j + 1] = v;
  }
}

/**
 * The n = min(k, count) largest of values[0..count), largest first, in the first n entries of the
 * array returned (values itself or a scratch array; values may be reordered). The values are not
 * NaN. One pass spreads them over `count` buckets by linear interpolation between their minimum and
 * maximum (a monotone map, so every value of a bucket is at least every value of the buckets after it),
 * then an insertion sort orders only the buckets that hold the first n: linear time for the spread of
 * a query's scores, where a native sort of every matched document took a tenth of a small
 * collection's query. A bucket too full (the values crowd together) falls back to the native sort.
 */
export function largestFirst(values: Float64Array, count: number, k: number): Float64Array {
  const n = Math.min(k, count);
  if (count <= INSERTION_SORT_MAX) {
    insertionSortDescending(values, 0, count);
    return values;
  }
  let min = values[0]!;
  let max = min;
  for (let i = 1; i < count; i++) {
    const v = values[i]!;
    if (v < min) min = v;
    else if (v > max) max = v;
  }
  if (min === max) return values;
  const buckets = count;
  const scale = buckets / (max - min);
  // Each value's bucket, bucket 0 holding the largest: (v − min)·scale lies in [0, buckets], so `| 0`
  // floors it.
  const bucketOf = scratch.bucketOf(count);
  const starts = scratch.bucketStarts(buckets);
  starts.fill(0, 0, buckets + 1);
  for (let i = 0; i < count; i++) {
    const fromLow = ((values[i]! - min) * scale) | 0;
    const b = buckets - 1 - (fromLow < buckets ? fromLow : buckets - 1);
    bucketOf[i] = b;
    starts[b + 1]++;
  }
  // The buckets up to `last` hold the first n values; each must be small enough to insertion-sort.
  let last = 0;
  for (let b = 0, seen = 0; b < buckets; b++) {
    const size = starts[b + 1]!;
    if (size > BUCKET_MAX) {
      const ascending = values.subarray(0, count).sort();
      const out = scratch.ordered(n);
      for (let i = 0; i < n; i++) out[i] = ascending[count - 1 - i]!;
      return out;
    }
    seen += size;
    if (seen >= n) {
      last = b;
      break;
    }
  }
  for (let b = 0; b < buckets; b++) starts[b + 1]! += starts[b]!;
  const end = starts[last + 1]!;
  const out = scratch.ordered(count);
  for (let i = 0; i < count; i++) out[starts[bucketOf[i]!]!++] = values[i]!;
  // starts[b] is now where bucket b ends: sort bucket by bucket up to `end`.
  for (let b = 0, from = 0; from < end; b++) {
    insertionSortDescending(out, from, starts[b]!);
    from = starts[b]!;
  }
  return out;
}

/**
 * The best k of `count` documents (`docs[0..count)`, each scored once by `scoreOf`), in TopK's order:
 * score as float32 descending, ties by docno rank descending. For a collection of at most
 * PACKED_RANK_MAX_DOCS documents each document becomes one double, its float32 score's bits mapped to an
 * order-preserving unsigned integer times 2^20 plus its docno rank (below 2^52, so exact), and
 * largestFirst orders the best k of those numbers: no comparator call per comparison and no heap.
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
  const best = largestFirst(packed, count, k);
  const n = Math.min(k, count);
  const out: RankedDoc[] = new Array(n);
  for (let i = 0; i < n; i++) {
    // The low 20 bits, by exact arithmetic on doubles (a double's % is a library call, a tenth of the ranking).
    const key = best[i]!;
    const rank = key - Math.floor(key / PACKED_RANK_MAX_DOCS) * PACKED_RANK_MAX_DOCS;
    const doc = docAtRank[rank]!;
    out[i] = { doc, docno: docnoOf(doc), score: scoreOf(doc) };
  }
  return out;
}
