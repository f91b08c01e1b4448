/**
 * Dynamic pruning for the top k of a weighted sum of single-term scores (bm25, bm25-lucene and
 * impact on bag-of-words queries): MaxScore (Turtle & Flood 1995) with block-max bounds (Ding &
 * Suel 2011) from the skip directory of the postings (postings-codec.ts), evaluated a window of
 * documents at a time, as Lucene's MaxScoreBulkScorer does (block-max MaxScore, Mallia et al.,
 * SIGIR 2019, with the partition made per window).
 *
 * For each window of documents (WINDOW_DOCS at first; a window where the essential lists held few
 * postings makes the next one longer, up to WINDOW_GROWTH times, and a dense one shorter again), a
 * list's bound over the window is the largest bound of
 * its blocks there. Ordered by these, the weakest lists whose bounds add up to less than the k-th
 * score are the window's non-essential lists: a document found only in them cannot enter, so
 * candidates come from the others. When every list is non-essential, the window is passed without
 * decoding a block. The essential lists are read in a tight loop into per-window arrays (each
 * candidate's contributions so far, looked up by tf and a one-byte code of the length, each the
 * exact contribution or just above it; and its tf in each list). A candidate's bound is those
 * contributions plus the non-essential lists' bounds over the window; the non-essential lists are
 * then read a list at a time, strongest first, over the candidates still standing, each looked-up
 * contribution replacing its list's window bound, and a candidate is dropped as soon as its bound
 * falls below the k-th score. The survivors are scored in document order.
 *
 * Before the first window, the k best documents of the rarest lists by those lists' scores are
 * scored (`seedDocuments`), so the k-th score starts near its final value rather than at the k-th
 * best of the collection's first documents; the windows pass over them.
 *
 * Exactness: pruning only decides which documents are scored. A document that is scored gets
 * the exhaustive path's own evaluation (the caller's `score`, with every term's tf read), so
 * its score is the same to the last bit, and the top-k heap and its tie order are the same (the
 * heap keeps the k best under a total order, whatever order documents are offered in). A document
 * is skipped only when even an upper bound of its score, widened by a relative margin far above
 * floating-point summation error, is below the k-th score as a float32 (the ranking compares
 * float32 scores, ties broken by docno, ranking.ts): such a document could not enter.
 * The bounds hold because each term's score rises with tf and falls with the document length
 * (checked for every parameter setting by the callers' eligibility rules: non-negative idf and
 * weights).
 *
 * Query likelihood (`ql`, Dirichlet) on a flat #combine / #weight of terms qualifies through a split
 * of each document's score (SEMANTICS.md §1.6): with normalised weights w_t,
 *   Σ_t w_t·log((tf_t + μ·p_t)/(dl + μ)) = Σ_{t in D} w_t·log(1 + tf_t/(μ·p_t)) + [Σ_t w_t·log(μ·p_t) − Σ_t w_t·log(dl + μ)],
 * term gains ≥ 0 that rise with tf and ignore the length, plus a length part that falls with dl.
 * The gains are the terms' scores here; the length part is `lengthPart`, bounded over a window by
 * its value at the shortest document of the lists and taken exactly at each candidate. Bounds of a
 * sum with a negative part are widened by the margin of its parts' magnitudes, not of the sum.
 *
 * Impact scoring (impact.ts) qualifies too: on an impact index the tf slot is the impact, so a
 * block's maximum tf is its maximum impact, and weight × impact (weight ≥ 0) rises with it and
 * ignores the length: `impactTermScore`'s bound over a block is weight × block max impact.
 */
import { END_OF_POSTINGS, PostingCursor, SATURATION_UNITS, type BlockPostings } from '../index/postings-codec.js';
import type { Plan, PlanItem } from './compile.js';
import type { ConceptSpec } from './concepts.js';
import type { TopK } from './ranking.js';

/** One term of the sum. */
export interface PrunableTerm {
  /** The concept this term scores (index into the caller's tf array). */
  concept: number;
  postings: BlockPostings;
  /**
   * The term's contribution for a tf in a document of length dl. Unless `neverPositive`, it must be
   * non-decreasing in tf, non-increasing in dl and ≥ 0, so that (max tf, min length) bounds a block.
   */
  score: (tf: number, dl: number) => number;
  /**
   * The contribution is ≤ 0 for every tf and length (Terrier's idf is negative for a term in more
   * than half the documents): 0 bounds it, so it never makes a document a candidate while the k-th
   * score is positive, and is still read for the exact score of every document scored.
   */
  neverPositive?: boolean;
  /**
   * Names the score function with every number it depends on (equal keys: equal scores), so the
   * term's block bounds are computed once per postings object and scorer, not once per query.
   */
  boundKey?: string;
  /**
   * The score is `scale` × tf/(tf + k1·(1 − b + b·dl/avgdl)) (BM25): where the postings hold their
   * blocks' largest saturation for the same k1, b and avgdl (BlockSaturation), a block's bound is
   * `scale` times it when that is lower than the score at (max tf, min length).
   */
  saturation?: SaturationScore;
}

/** A BM25 term score as a multiple of its tf saturation (PrunableTerm.saturation). */
export interface SaturationScore {
  k1: number;
  b: number;
  avgdl: number;
  scale: number;
}

/** A term of a query pruning can evaluate, before its block postings are read. */
export interface PrunableQueryTerm {
  concept: number;
  /**
   * The lexicon term whose block postings are read; unset for a concept the engine computes (a
   * window, a synonym: `prunableConcept`), whose materialised list is read instead.
   */
  term?: string;
  /** Its document frequency (exact). */
  df: number;
  score: PrunableTerm['score'];
  neverPositive?: boolean;
  boundKey?: string;
  saturation?: SaturationScore;
}

/** A query as pruning evaluates it: its terms, and (ql) the part of the score that depends only on the length. */
export interface PrunableQuery {
  terms: PrunableQueryTerm[];
  lengthPart?: (dl: number) => number;
  /**
   * True when a document's score is exactly its terms' scores added from 0 in concept order (what the
   * scorer's evaluate does, operation for operation) and it matches when it holds any term: the search
   * may then add up the lists term at a time instead of document at a time, with the same bits.
   */
  plainSum?: boolean;
}

/** The items of a plain term or of a group whose items are all optional plain terms; null for any other plan. */
export function plainTermItems(root: Plan): PlanItem[] | null {
  if (root.kind === 'leaf') return [{ plan: root, weight: 1, occur: 'should' }];
  if (root.kind === 'group' && root.items.every((it) => it.occur === 'should' && it.plan.kind === 'leaf')) return root.items;
  return null;
}

/**
 * Whether pruning can read a concept as a list of its own: a plain term; with `computed`, also a
 * window, synonym or #band (no field restriction), whose score is the same function of (tf, dl) as
 * a term's and whose materialised list the search reads (checked there to hold whole counts, which
 * block bounds need).
 */
export function prunableConcept(spec: ConceptSpec, computed: boolean): boolean {
  if (spec.kind === 'term') return !spec.fields?.length;
  return computed && (spec.kind === 'window' || spec.kind === 'syn' || spec.kind === 'band') && !spec.fields?.length;
}

/** What the sum rule reads of a concept. */
interface SummedConcept {
  info: { spec: ConceptSpec; scored: boolean; exactDf: number };
  missing: boolean;
}

/**
 * The terms of a score that is a sum of single-term scores over `items` (plainTermItems), or null
 * when one item is not a plain scored term (a window, a synonym, a field restriction) or `termOf`
 * refuses one (a negative weight). Absent terms and terms in no document add nothing. With
 * `computed`, windows and synonyms count as terms (prunableConcept). `repeats`:
 * 'once' where the scorer sums each concept once whatever the plan repeats (its weights
 * accumulated: Terrier, impact), and then every scored concept must be one of the terms;
 * 'refuse' where a repeated concept is scored per clause (Lucene), which pruning does not model.
 */
export function prunableTermSum<C extends SummedConcept>(
  concepts: readonly C[],
  items: readonly PlanItem[],
  repeats: 'once' | 'refuse',
  termOf: (concept: C, index: number, item: PlanItem, term: string | undefined, df: number) => PrunableQueryTerm | null,
  computed = false,
): PrunableQueryTerm[] | null {
  const terms: PrunableQueryTerm[] = [];
  const seen = new Set<number>();
  for (const it of items) {
    const index = (it.plan as { concept: number }).concept;
    const c = concepts[index]!;
    if (c.missing) continue;
    const spec = c.info.spec;
    if (!prunableConcept(spec, computed) || !c.info.scored) return null;
    if (seen.has(index)) {
      if (repeats === 'once') continue;
      return null;
    }
    seen.add(index);
    const df = c.info.exactDf;
    if (df === 0) continue;
    const term = termOf(c, index, it, spec.kind === 'term' ? spec.term : undefined, df);
    if (!term) return null;
    terms.push(term);
  }
  // Every scored concept must be one of these terms (or missing): the score sums them all.
  if (repeats === 'once') for (let i = 0; i < concepts.length; i++) if (concepts[i]!.info.scored && !concepts[i]!.missing && !seen.has(i)) return null;
  return terms;
}

/** A term's score under `impact`: weight × impact, for a non-negative weight (the caller checks). */
export function impactTermScore(weight: number): PrunableTerm['score'] {
  return (impact) => weight * impact;
}

/** Relative widening of every bound: orders of magnitude above the error of summing a few doubles in another order. */
const BOUND_MARGIN = 1e-9;

/** What a pruned search did (for tests and benches). */
export interface PruningStats {
  /** Documents handed to `consider`. */
  considered: number;
  /** Ranges of documents passed on block maxima alone, without decoding or scoring. */
  skippedRanges: number;
  /** Windows whose essential lists were read. */
  windowsRead: number;
}

/** Documents per window: enough that reading a window is a tight loop, few enough that its arrays stay in cache. */
const WINDOW_DOCS = 4096;
/**
 * How many times longer than `windowDocs` a window may grow. A window whose essential lists held
 * fewer postings than 1/64 of its documents doubles the next one, and one that held more than 1/8
 * halves it (never below `windowDocs`): a sparse query pays the per-window work (the partition, the
 * bounds, the next window's start) fewer times. 8.8 M passages, 300 queries, paired with fixed
 * windows: top 10 total ×0.92–0.95, top 1000 ×0.95–0.98; up to 16 times or 2 times was slower.
 */
const WINDOW_GROWTH = 4;

/** What the caches of block bounds and score tables key a term's score function by (`PrunableTerm.boundKey`). */
function scoreFunctionKey(t: PrunableTerm, boundKey: string): string {
  return `${t.neverPositive ? '-' : '+'}${boundKey}`;
}

/** Block bounds by postings object and score function (`PrunableTerm.boundKey`): the postings objects live in the reader's bounded cache. */
const cachedBlockBounds = new WeakMap<BlockPostings, Map<string, { blocks: Float64Array; max: number }>>();
/** Score functions whose bounds are kept per postings object (a few parameter settings at a time). */
const BOUND_SETTINGS_KEPT = 4;

/**
 * Each block's bound (the score at its maximum tf and minimum length, or the score's multiple of the
 * block's largest saturation when the postings hold it for the score's parameters and it is lower; 0
 * for a term never positive) and their maximum.
 */
function blockBoundsOf(t: PrunableTerm): { blocks: Float64Array; max: number } {
  const p = t.postings;
  const compute = () => {
    const blocks = new Float64Array(p.numBlocks);
    let max = 0;
    if (!t.neverPositive) {
      const s = t.saturation;
      const stored = p.blockSaturation;
      const units = s && stored && stored.k1 === s.k1 && stored.b === s.b && stored.avgdl === s.avgdl ? stored.units : undefined;
      const perUnit = s ? s.scale / SATURATION_UNITS : 0;
      for (let b = 0; b < p.numBlocks; b++) {
        let x = t.score(p.blockMaxTf[b]!, p.blockMinDocLength[b]!);
        if (units) x = Math.min(x, perUnit * units[b]!);
        blocks[b] = x;
        if (x > max) max = x;
      }
    }
    return { blocks, max };
  };
  if (t.boundKey === undefined) return compute();
  let byKey = cachedBlockBounds.get(p);
  if (!byKey) cachedBlockBounds.set(p, (byKey = new Map()));
  const key = scoreFunctionKey(t, t.boundKey);
  let hit = byKey.get(key);
  if (!hit) {
    hit = compute();
    if (byKey.size >= BOUND_SETTINGS_KEPT) byKey.delete(byKey.keys().next().value!);
    byKey.set(key, hit);
  }
  return hit;
}

/**
 * In the essential lists' loop, the hot loop of a search, a posting's score is looked up by its tf
 * (1..TABLE_TFS) and a one-byte code of its document's length instead of computed from the length:
 * the codes of a large collection fit in the processor's cache where the lengths (four bytes a
 * document) do not, and a sparse list reads one length per posting at random. A code stands for the
 * shortest length it covers, so a looked-up score is the exact score or above it (scores fall with
 * the length): the essential sums bound, they do not decide, a document's score (every document
 * scored is scored again by the caller from its tfs).
 */
const TABLE_TFS = 8;
/** Lengths below this have a code of their own; longer ones share geometric buckets. */
const EXACT_LENGTHS = 128;
/** Buckets per doubling of the length past EXACT_LENGTHS (each ≈ 4.4 % wide). */
const BUCKETS_PER_DOUBLING = 16;
/** The shortest length of each code (256 codes). */
export const CODE_LENGTHS = (() => {
  const lengths = new Float64Array(256);
  for (let c = 0; c < 256; c++) lengths[c] = c < EXACT_LENGTHS ? c : Math.ceil(EXACT_LENGTHS * 2 ** ((c - EXACT_LENGTHS) / BUCKETS_PER_DOUBLING));
  return lengths;
})();

/** The one-byte code of every document's length, made once per length table. */
const lengthCodeTables = new WeakMap<Int32Array, Uint8Array>();
function lengthCodesOf(docLengths: Int32Array): Uint8Array {
  let codes = lengthCodeTables.get(docLengths);
  if (!codes) {
    codes = new Uint8Array(docLengths.length);
    for (let d = 0; d < docLengths.length; d++) codes[d] = lengthCode(docLengths[d]!);
    lengthCodeTables.set(docLengths, codes);
  }
  return codes;
}

/** The largest code whose shortest length is at most `dl`. */
export function lengthCode(dl: number): number {
  if (dl < EXACT_LENGTHS) return dl < 0 ? 0 : dl;
  let lo = EXACT_LENGTHS;
  let hi = 255;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (CODE_LENGTHS[mid]! <= dl) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

interface ScoreTable {
  table: Float64Array;
  /** Entries for tf 1..tfs (0: no table, every posting computed). */
  tfs: number;
  /** Entries for codes below this. */
  codes: number;
}

const NO_TABLE: ScoreTable = { table: new Float64Array(0), tfs: 0, codes: 0 };
/** Tables by score function (`PrunableTerm.boundKey`), the most recent kept: a common word's table is made once. */
const cachedScoreTables = new Map<string, ScoreTable>();
const SCORE_TABLES_KEPT = 256;

/**
 * A term's looked-up contributions, `table[(tf − 1)·256 + code]` for tf 1..tfs and codes below
 * `codes`: the term's score at the code's shortest length (the exact score where the code is the
 * length, else above it). A term never positive, whose score may rise with the length, has entries
 * only for the codes that are lengths. Elsewhere the score is computed from the length, and so is
 * every score of a list shorter than the table (a small collection's query would spend more on
 * tables than on its postings).
 */
function scoreTableOf(t: PrunableTerm): ScoreTable {
  if (t.postings.df < TABLE_TFS * 256) return NO_TABLE;
  const key = t.boundKey === undefined ? undefined : scoreFunctionKey(t, t.boundKey);
  const hit = key === undefined ? undefined : cachedScoreTables.get(key);
  if (hit) return hit;
  const codes = t.neverPositive ? EXACT_LENGTHS : 256;
  const table = new Float64Array(TABLE_TFS * 256);
  for (let tf = 1; tf <= TABLE_TFS; tf++) for (let c = 0; c < codes; c++) table[((tf - 1) << 8) | c] = t.score(tf, CODE_LENGTHS[c]!);
  const made = { table, tfs: TABLE_TFS, codes };
  if (key !== undefined) {
    if (cachedScoreTables.size >= SCORE_TABLES_KEPT) cachedScoreTables.delete(cachedScoreTables.keys().next().value!);
    cachedScoreTables.set(key, made);
  }
  return made;
}

/** Seeding reads the rarest lists while their postings add up to at most SEED_PER_K·k + SEED_EXTRA. */
const SEED_PER_K = 2;
const SEED_EXTRA = 1024;

/**
 * The k documents of the query's rarest lists (ascending df, while their postings add up to at most
 * SEED_PER_K·k + SEED_EXTRA) whose scores from those lists alone are highest, in document order;
 * none when those lists are all the lists. Scored before the windows, they set the k-th score near
 * its final value from the start: otherwise it is the k-th best of the collection's first documents,
 * and while it is not positive a list bounded by 0 (a negative Terrier idf) cannot be passed over.
 * Only k are taken, because scoring one reads every other list at that document.
 */
function seedDocuments(terms: readonly PrunableTerm[], k: number, docLengths: Int32Array): Int32Array {
  const byDf = terms.map((_, i) => i).sort((a, b) => terms[a]!.postings.df - terms[b]!.postings.df);
  const budget = SEED_PER_K * k + SEED_EXTRA;
  let total = 0;
  let taken = 0;
  while (taken < byDf.length && total + terms[byDf[taken]!]!.postings.df <= budget) total += terms[byDf[taken++]!]!.postings.df;
  if (taken === 0 || taken === byDf.length) return new Int32Array(0);
  const partial = new Map<number, number>();
  for (let j = 0; j < taken; j++) {
    const t = terms[byDf[j]!]!;
    const c = new PostingCursor(t.postings);
    for (; c.doc !== END_OF_POSTINGS; c.next()) partial.set(c.doc, (partial.get(c.doc) ?? 0) + t.score(c.tf, docLengths[c.doc]!));
  }
  const best = [...partial].sort((a, b) => b[1] - a[1]).slice(0, k);
  return Int32Array.from(best, ([doc]) => doc).sort();
}

/**
 * Scores the documents that could enter `top` and offers them. `tfs[concept]` is set to each
 * term's tf in the document (0 when absent) before `consider(doc)` is called; `consider` must
 * score and offer. `windowDocs` is the window's size (tests vary it).
 */
export function maxScoreSearch(
  terms: PrunableTerm[],
  tfs: Float64Array,
  top: TopK,
  docLengths: Int32Array,
  consider: (doc: number) => void,
  windowDocs = WINDOW_DOCS,
  lengthPart?: (dl: number) => number,
): PruningStats {
  const m = terms.length;
  const stats: PruningStats = { considered: 0, skippedRanges: 0, windowsRead: 0 };
  if (m === 0) return stats;
  const boundsOf = terms.map(blockBoundsOf);
  const bounds = boundsOf.map((b) => b.blocks);
  const cursors = terms.map((t) => new PostingCursor(t.postings));
  const lengthCodes = lengthCodesOf(docLengths);
  const scoreTables = terms.map(scoreTableOf);
  const lastDocs = terms.map((t) => t.postings.blockLastDoc);
  // The length part's largest value: at the shortest document any list holds.
  let lengthMax = 0;
  if (lengthPart) {
    let minLength = Infinity;
    for (const t of terms) {
      const lengths = t.postings.blockMinDocLength;
      for (let b = 0; b < t.postings.numBlocks; b++) if (lengths[b]! < minLength) minLength = lengths[b]!;
    }
    lengthMax = lengthPart(minLength);
  }

  // Each list's block at the latest document asked about: documents asked about only increase,
  // so it moves forward a block at a time (cheaper than a binary search).
  const shallow = new Int32Array(m);
  const blockAt = (i: number, doc: number): number => {
    const last = lastDocs[i]!;
    const n = last.length;
    let b = Math.max(shallow[i]!, cursors[i]!.block);
    while (b < n && last[b]! < doc) b++;
    shallow[i] = b;
    return b;
  };
  /** The largest block bound of list i over documents from..to. */
  const rangeBound = (i: number, from: number, to: number): number => {
    const last = lastDocs[i]!;
    const bb = bounds[i]!;
    let max = 0;
    for (let b = blockAt(i, from); b < bb.length; b++) {
      if (bb[b]! > max) max = bb[b]!;
      if (last[b]! >= to) break;
    }
    return max;
  };

  /** The length part of a document's score (0 without one). */
  const lengthAt = (doc: number): number => (lengthPart === undefined ? 0 : lengthPart(docLengths[doc]!));

  /**
   * True when a document whose terms' bounds add up to `gains`, plus the length part `length`,
   * ranks after the k-th kept one, whose score as a float32 is `threshold32` (the ranking compares
   * float32 scores). The margin comes from both magnitudes: the sum may cancel.
   */
  const belowWith = (gains: number, length: number, threshold32: number): boolean =>
    lengthPart === undefined
      ? Math.fround(gains + Math.abs(gains) * BOUND_MARGIN) < threshold32
      : Math.fround(gains + length + (Math.abs(gains) + Math.abs(length)) * BOUND_MARGIN) < threshold32;

  // The window's arrays, by offset from its first document, no larger than the documents the lists
  // span (a small collection allocates little a query).
  let lastDoc = 0;
  for (const last of lastDocs) if (last.length > 0) lastDoc = Math.max(lastDoc, last[last.length - 1]!);
  const W = Math.max(1, Math.min(windowDocs * WINDOW_GROWTH, lastDoc + 1));
  let windowLength = Math.min(W, windowDocs);
  // Offsets some essential list holds (a bit each, cleared as they are read back in document
  // order), and each one's essential contributions (zeroed as read back).
  const matched = new Int32Array((W + 31) >>> 5);
  // A bit for each word of `matched` that holds one (cleared as read back), so that a sparse
  // window's candidates are found without reading every word of `matched`. The range of words
  // the essential postings spanned, read instead, was most of the window for two rare words:
  // 8.8 M passages, 200 queries, warm, paired, BM25 top 10 total ×0.86 with this; top 1000 ×1.00.
  const matchedWords = new Int32Array((matched.length + 31) >>> 5);
  const essentialSum = new Float64Array(W);
  // The window's candidates in document order, and the bound of each one's contributions so far.
  const candidates = new Int32Array(W);
  const candidateSum = new Float64Array(W);
  // A list's tf at an offset, valid where `windowTfStamp` holds the window's number (0 elsewhere):
  // nothing is cleared per document or per window.
  const windowTf = terms.map(() => new Int32Array(W));
  const windowTfStamp = terms.map(() => new Int32Array(W));
  // Lists by ascending window bound; prefix[e] adds up the bounds of order[0..e-1].
  const order = new Int32Array(m);
  const windowBound = new Float64Array(m);
  const prefix = new Float64Array(m + 1);
  let windowNumber = 0;

  const seeds = seedDocuments(terms, top.k, docLengths);
  if (seeds.length > 0) {
    // Scored first, each with every list's tf, through cursors of their own.
    const seedCursors = terms.map((t) => new PostingCursor(t.postings));
    for (let s = 0; s < seeds.length; s++) {
      const doc = seeds[s]!;
      for (let i = 0; i < m; i++) {
        const c = seedCursors[i]!;
        c.advance(doc);
        tfs[terms[i]!.concept] = c.doc === doc ? c.tf : 0;
      }
      consider(doc);
      stats.considered++;
    }
  }
  /** The next seed at or after the candidate being looked at (candidates come in document order when there are seeds). */
  let seedAt = 0;

  // Lists by ascending largest bound over the whole list; globalPrefix[e] adds up those of globalOrder[0..e-1].
  const globalOrder = Int32Array.from(terms.keys()).sort((a, b) => boundsOf[a]!.max - boundsOf[b]!.max);
  const globalPrefix = new Float64Array(m + 1);
  for (let e = 0; e < m; e++) globalPrefix[e + 1] = globalPrefix[e]! + boundsOf[globalOrder[e]!]!.max;

  let base = END_OF_POSTINGS;
  for (const c of cursors) base = Math.min(base, c.doc);
  while (base < END_OF_POSTINGS) {
    const end = base + windowLength - 1;
    let essentialRead = 0;
    const threshold = top.threshold();
    // The window's partition. Until k documents are kept every list is essential.
    for (let i = 0; i < m; i++) {
      windowBound[i] = threshold === undefined ? 0 : rangeBound(i, base, end);
      let j = i;
      while (j > 0 && windowBound[order[j - 1]!]! > windowBound[i]!) {
        order[j] = order[j - 1]!;
        j--;
      }
      order[j] = i;
    }
    for (let e = 0; e < m; e++) prefix[e + 1] = prefix[e]! + windowBound[order[e]!]!;
    let firstEssential = 0;
    if (threshold !== undefined) {
      const threshold32 = Math.fround(threshold);
      while (firstEssential < m && belowWith(prefix[firstEssential + 1]!, lengthMax, threshold32)) firstEssential++;
    }

    if (firstEssential === m) {
      // No document of the window can enter: nothing decoded, nothing scored.
      stats.skippedRanges++;
    } else {
      windowNumber++;
      stats.windowsRead++;
      for (let e = firstEssential; e < m; e++) {
        const i = order[e]!;
        const c = cursors[i]!;
        const score = terms[i]!.score;
        const { table, tfs: tableTfs, codes: tableCodes } = scoreTables[i]!;
        const tfHere = windowTf[i]!;
        const stampHere = windowTfStamp[i]!;
        c.skipTo(base);
        for (;;) {
          if (c.doc > end) break;
          if (!c.decoded) {
            c.decode();
            continue;
          }
          const docs = c.blockDocs;
          const blockTfs = c.blockTfs;
          const n = c.blockEnd;
          const first = c.blockIndex;
          let j = first;
          for (; j < n; j++) {
            const doc = docs[j]!;
            if (doc > end) break;
            const o = doc - base;
            matched[o >>> 5]! |= 1 << (o & 31);
            matchedWords[o >>> 10]! |= 1 << ((o >>> 5) & 31);
            const tf = blockTfs[j]!;
            tfHere[o] = tf;
            stampHere[o] = windowNumber;
            essentialSum[o]! += tf - 1 < tableTfs && tf >= 1 && lengthCodes[doc]! < tableCodes ? table[((tf - 1) << 8) | lengthCodes[doc]!]! : score(tf, docLengths[doc]!);
          }
          essentialRead += j - first;
          c.seekInBlock(j);
        }
      }
      // The candidates, in document order. Most cannot enter even with every non-essential list at
      // its window bound: they are dropped here, against the k-th score as the window starts (it
      // only rises).
      const windowKth = top.threshold();
      const windowKth32 = windowKth === undefined ? 0 : Math.fround(windowKth);
      const nonEssential = prefix[firstEssential]!;
      let n = 0;
      for (let v = 0; v < matchedWords.length; v++) {
        let words = matchedWords[v]!;
        if (words === 0) continue;
        matchedWords[v] = 0;
        do {
          const wordBit = words & -words;
          words ^= wordBit;
          const w = (v << 5) + 31 - Math.clz32(wordBit);
          let bits = matched[w]!;
          matched[w] = 0;
          do {
            const low = bits & -bits;
            bits ^= low;
            const o = (w << 5) + 31 - Math.clz32(low);
            const sum = essentialSum[o]!;
            essentialSum[o] = 0;
            if (windowKth !== undefined && belowWith(sum + nonEssential, lengthAt(base + o), windowKth32)) continue;
            candidates[n] = o;
            candidateSum[n++] = sum;
          } while (bits !== 0);
        } while (words !== 0);
      }
      if (windowKth !== undefined && firstEssential > 0) {
        // The non-essential lists are read a list at a time over the window's candidates, strongest
        // first (a tight loop on one cursor), dropping each candidate as soon as its bound falls
        // below the k-th score as the window started: its contributions so far, plus the window
        // bounds of the lists not read yet (prefix[e] adds up those of order[0..e-1]). Bounding by
        // each candidate's block maxima instead pruned too little to pay for looking them up per
        // candidate and list: a dense list's blocks in one window nearly all share its largest
        // bound (8.8 M passages, 200 queries, warm, paired, BM25 total time without them: top
        // 1000 ×0.84, top 10 ×0.78).
        // A list bounded by 0 is read only for a document scored: it cannot lower a bound of
        // non-negative parts.
        for (let e = firstEssential - 1; e >= 0 && n > 0; e--) {
          const i = order[e]!;
          if (terms[i]!.neverPositive) continue;
          const c = cursors[i]!;
          const score = terms[i]!.score;
          const { table, tfs: tableTfs, codes: tableCodes } = scoreTables[i]!;
          const rest = prefix[e]!;
          const tfHere = windowTf[i]!;
          const stampHere = windowTfStamp[i]!;
          let kept = 0;
          for (let t = 0; t < n; t++) {
            const o = candidates[t]!;
            const doc = base + o;
            c.advance(doc);
            let sum = candidateSum[t]!;
            if (c.doc === doc) {
              const tf = c.tf;
              sum += tf - 1 < tableTfs && tf >= 1 && lengthCodes[doc]! < tableCodes ? table[((tf - 1) << 8) | lengthCodes[doc]!]! : score(tf, docLengths[doc]!);
              tfHere[o] = tf;
              stampHere[o] = windowNumber;
            }
            if (belowWith(sum + rest, lengthAt(doc), windowKth32)) continue;
            candidates[kept] = o;
            candidateSum[kept++] = sum;
          }
          n = kept;
        }
      }
      // The survivors, in document order, scored with every list's tf (each positive list's read
      // above; a list bounded by 0 read now), unless the k-th score has risen past them.
      for (let t = 0; t < n; t++) {
        const o = candidates[t]!;
        const doc = base + o;
        if (seedAt < seeds.length) {
          while (seedAt < seeds.length && seeds[seedAt]! < doc) seedAt++;
          // Offered already.
          if (seeds[seedAt] === doc) continue;
        }
        const kth = top.threshold();
        if (kth !== undefined && belowWith(candidateSum[t]!, lengthAt(doc), Math.fround(kth))) continue;
        for (let e = 0; e < m; e++) {
          const i = order[e]!;
          if (e >= firstEssential || !terms[i]!.neverPositive) tfs[terms[i]!.concept] = windowTfStamp[i]![o] === windowNumber ? windowTf[i]![o]! : 0;
          else {
            const c = cursors[i]!;
            c.advance(doc);
            tfs[terms[i]!.concept] = c.doc === doc ? c.tf : 0;
          }
        }
        consider(doc);
        stats.considered++;
      }
    }

    // The next window starts at the first document after this one that some list may hold, among
    // the lists that could bring a document in without the others: the weakest lists whose largest
    // bounds add up to less than the k-th score cannot (classic MaxScore), so ranges that only they
    // hold are passed over whole. Without this a sparse query walked every window of the collection
    // (two rare words spread over 8.8 M documents: 2,159 windows for 2,817 postings).
    let next = END_OF_POSTINGS;
    const kthNow = top.threshold();
    let globallyNonEssential = 0;
    if (kthNow !== undefined) {
      const kth32 = Math.fround(kthNow);
      while (globallyNonEssential < m && belowWith(globalPrefix[globallyNonEssential + 1]!, lengthMax, kth32)) globallyNonEssential++;
    }
    for (let e = globallyNonEssential; e < m; e++) {
      const i = globalOrder[e]!;
      const b = blockAt(i, end + 1);
      if (b >= lastDocs[i]!.length) continue;
      let from = end + 1;
      if (b > 0 && lastDocs[i]![b - 1]! + 1 > from) from = lastDocs[i]![b - 1]! + 1;
      const c = cursors[i]!;
      if (c.block === b && c.doc > from) from = c.doc;
      if (from < next) next = from;
    }
    if (essentialRead < windowLength >>> 6) windowLength = Math.min(W, windowLength * 2);
    else if (essentialRead > windowLength >>> 3) windowLength = Math.max(Math.min(W, windowDocs), windowLength >>> 1);
    base = next;
  }
  return stats;
}
