/**
 * Dynamic pruning for the top k of a weighted sum of single-term scores (bm25, bm25-lucene on
 * bag-of-words queries): MaxScore (Turtle & Flood 1995) over term upper bounds, with each
 * candidate's bound tightened by the block maxima of the lists it has not read yet (block-max
 * bounds, Ding & Suel 2011), from the skip directory of the postings (postings-codec.ts). The
 * essential lists skip too, block-max MaxScore as Mallia et al. (SIGIR 2019) describe it: before a
 * candidate is decoded, the documents from it to the end of the shortest current block of the
 * essential lists are bounded by the sum of those blocks' maxima (and the non-essential lists'
 * maxima over that range); when that cannot enter the top k, the whole range is passed without
 * decoding a block or scoring a document.
 *
 * Exactness: pruning only decides which documents are scored. A document that is scored gets
 * the exhaustive path's own evaluation (the caller's `score`, with every term's tf read), so
 * its score is the same to the last bit, and the top-k heap and its tie order are the same. A
 * document is skipped only when even an upper bound of its score, widened by a relative margin
 * far above floating-point summation error, is below the k-th score as a float32 (the ranking
 * compares float32 scores, ties broken by docno, ranking.ts): such a document could not enter.
 * The bounds hold because each term's score rises with tf and falls with the document length
 * (checked for every parameter setting by the callers' eligibility rules: non-negative idf and
 * weights).
 *
 * Impact scoring (impact.ts) qualifies too: on an impact index the tf slot is the impact, so a
 * block's maximum tf is its maximum impact, and weight × impact (weight ≥ 0) rises with it and
 * ignores the length: `impactTermScore`'s bound over a block is weight × block max impact.
 */
import { END_OF_POSTINGS, PostingCursor, type BlockPostings } from '../index/postings-codec.js';
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
}

/**
 * Scores the documents that could enter `top` and offers them. `tfs[concept]` is set to each
 * term's tf in the document (0 when absent) before `consider(doc)` is called; `consider` must
 * score and offer.
 */
export function maxScoreSearch(
  terms: PrunableTerm[],
  tfs: Float64Array,
  top: TopK,
  docLength: (doc: number) => number,
  consider: (doc: number) => void,
): PruningStats {
  const m = terms.length;
  // Block bounds and term bounds.
  const blockBounds = terms.map((t) => {
    const p = t.postings;
    const out = new Float64Array(p.numBlocks);
    if (!t.neverPositive) for (let b = 0; b < p.numBlocks; b++) out[b] = t.score(p.blockMaxTf[b]!, p.blockMinDocLength[b]!);
    return out;
  });
  const termBound = blockBounds.map((bb) => bb.reduce((a, x) => Math.max(a, x), 0));
  // Ascending bounds: the first `firstEssential` terms are non-essential (together they cannot
  // lift a document into the top k), so candidates come from the others only.
  const order = [...terms.keys()].sort((a, b) => termBound[a]! - termBound[b]! || a - b);
  const sorted = order.map((j) => terms[j]!);
  const bounds = order.map((j) => blockBounds[j]!);
  const prefixBound = new Float64Array(m + 1);
  for (let i = 0; i < m; i++) prefixBound[i + 1] = prefixBound[i]! + termBound[order[i]!]!;
  const cursors = sorted.map((t) => new PostingCursor(t.postings));
  const rest = new Float64Array(m + 1);
  // Each list's block at the latest document asked about: candidates only increase, so it moves
  // forward a block at a time (cheaper than a binary search from the cursor's decoded block).
  const shallow = new Int32Array(m);
  const blockAt = (i: number, doc: number): number => {
    const last = sorted[i]!.postings.blockLastDoc;
    const n = last.length;
    let b = Math.max(shallow[i]!, cursors[i]!.block);
    while (b < n && last[b]! < doc) b++;
    shallow[i] = b;
    return b;
  };
  let firstEssential = 0;
  const stats: PruningStats = { considered: 0, skippedRanges: 0 };

  /** True when a document whose score is at most `bound` ranks after the k-th kept one. */
  const below = (bound: number, threshold: number): boolean => Math.fround(bound + Math.abs(bound) * BOUND_MARGIN) < Math.fround(threshold);

  /** The largest block bound of list i over documents from..to (its term bound past a few blocks). */
  const rangeBound = (i: number, from: number, to: number): number => {
    const last = sorted[i]!.postings.blockLastDoc;
    const bb = bounds[i]!;
    let b = blockAt(i, from);
    let max = 0;
    for (let seen = 0; b < bb.length; b++, seen++) {
      if (seen === 8) return termBound[order[i]!]!;
      if (bb[b]! > max) max = bb[b]!;
      if (last[b]! >= to) break;
    }
    return max;
  };

  // A range where nothing could be passed is not examined again for the same k-th score and
  // partition (it would only pass more as lists leave it): the check stays off the hot loop.
  let rangeEnd = -1;
  let checkedUntil = -1;
  let checkedThreshold = NaN;
  let checkedFirstEssential = -1;
  // Scratch for the essential lists present in a range, by ascending block bound.
  const inRange = new Int32Array(m);
  const inRangeBound = new Float64Array(m);

  /**
   * The first document from `doc` on that could enter the top k, as far as the block maxima of
   * the range that ends with the shortest current block of the essential lists can tell (`doc`
   * itself when they cannot rule it out). Within the range every essential list's documents are
   * in its current block (its cursor is at or past `doc`), and a list whose cursor is past the
   * range has none there. Ordering the lists present by their block maxima, the weakest ones
   * whose maxima with the non-essential lists' stay below the k-th score cannot lift a document
   * alone (block-max MaxScore's local partition): documents found only in them are passed.
   */
  const nextCandidate = (doc: number, threshold: number): number => {
    let end = END_OF_POSTINGS - 1;
    for (let i = firstEssential; i < m; i++) {
      const c = cursors[i]!;
      if (c.block < bounds[i]!.length) end = Math.min(end, sorted[i]!.postings.blockLastDoc[c.block]!);
    }
    rangeEnd = end;
    let present = 0;
    let bound = 0;
    for (let i = firstEssential; i < m; i++) {
      const c = cursors[i]!;
      if (c.doc > end) continue;
      const bb = bounds[i]![c.block]!;
      bound += bb;
      // Insertion by ascending block bound (a handful of lists).
      let j = present++;
      while (j > 0 && inRangeBound[j - 1]! > bb) {
        inRange[j] = inRange[j - 1]!;
        inRangeBound[j] = inRangeBound[j - 1]!;
        j--;
      }
      inRange[j] = i;
      inRangeBound[j] = bb;
    }
    let rest = prefixBound[firstEssential]!;
    if (!below(bound + rest, threshold)) {
      if (!below(bound, threshold)) return localCandidate(doc, threshold, present, rest);
      // Tighter: the non-essential lists' block maxima over the range, the strongest first.
      rest = 0;
      for (let i = firstEssential - 1; i >= 0; i--) {
        rest += rangeBound(i, doc, end);
        if (!below(bound + rest, threshold)) return localCandidate(doc, threshold, present, rest + prefixBound[i]!);
        if (below(bound + rest + prefixBound[i]!, threshold)) break;
      }
    }
    return end + 1;
  };

  /** The range's first document in a list that, with the weaker ones, could lift a document (see nextCandidate). */
  const localCandidate = (doc: number, threshold: number, present: number, rest: number): number => {
    let weak = 0;
    let acc = rest;
    while (weak < present && below(acc + inRangeBound[weak]!, threshold)) acc += inRangeBound[weak++]!;
    if (weak === 0) return doc;
    // Rounding aside, not every list present is weak (the range's whole bound was not below); if all
    // are, no document of the range can enter.
    if (weak === present) return rangeEnd + 1;
    let next = END_OF_POSTINGS;
    for (let j = weak; j < present; j++) next = Math.min(next, cursors[inRange[j]!]!.doc);
    return next;
  };

  for (;;) {
    let doc = END_OF_POSTINGS;
    for (let i = firstEssential; i < m; i++) if (cursors[i]!.doc < doc) doc = cursors[i]!.doc;
    if (doc === END_OF_POSTINGS) break;
    // Until k documents are kept every one may enter: no bound to compute.
    const threshold = top.threshold();
    if (threshold !== undefined && !(doc <= checkedUntil && threshold === checkedThreshold && firstEssential === checkedFirstEssential)) {
      const next = nextCandidate(doc, threshold);
      if (next > doc) {
        for (let i = firstEssential; i < m; i++) cursors[i]!.skipTo(next);
        stats.skippedRanges++;
        continue;
      }
      checkedUntil = rangeEnd;
      checkedThreshold = threshold;
      checkedFirstEssential = firstEssential;
    }
    // A candidate: the essential lists' blocks are decoded, and the smallest document is a real one.
    let undecoded = false;
    for (let i = firstEssential; i < m; i++) {
      const c = cursors[i]!;
      if (!c.decoded) {
        c.decode();
        undecoded = true;
      }
    }
    if (undecoded) continue;
    let skip = false;
    if (threshold !== undefined) {
      const dl = docLength(doc);
      // Bound: exact contributions of the essential terms present, block maxima of the others.
      let exact = 0;
      for (let i = firstEssential; i < m; i++) if (cursors[i]!.doc === doc) exact += sorted[i]!.score(cursors[i]!.tf, dl);
      // The non-essential lists' term bounds first (no block to find), then their block maxima
      // at this document: rest[i] is the sum of those of lists 0..i-1.
      skip = below(exact + prefixBound[firstEssential]!, threshold);
      if (!skip) {
        rest[0] = 0;
        for (let i = 0; i < firstEssential; i++) {
          const b = blockAt(i, doc);
          rest[i + 1] = rest[i]! + (b < bounds[i]!.length ? bounds[i]![b]! : 0);
        }
        skip = below(exact + rest[firstEssential]!, threshold);
      }
      // Then the non-essential lists' exact contributions, strongest first, while the bound can
      // still enter (a list bounded by 0 is read only for a document scored: it cannot lower a
      // bound of non-negative parts).
      for (let i = firstEssential - 1; i >= 0 && !skip; i--) {
        if (sorted[i]!.neverPositive) continue;
        const c = cursors[i]!;
        c.advance(doc);
        if (c.doc === doc) exact += sorted[i]!.score(c.tf, dl);
        skip = below(exact + rest[i]!, threshold);
      }
    }
    if (!skip) {
      for (let i = 0; i < m; i++) {
        const c = cursors[i]!;
        if (i < firstEssential) c.advance(doc);
        tfs[sorted[i]!.concept] = c.doc === doc ? c.tf : 0;
      }
      consider(doc);
      stats.considered++;
      const after = top.threshold();
      if (after !== undefined) while (firstEssential < m && below(prefixBound[firstEssential + 1]!, after)) firstEssential++;
    }
    for (let i = firstEssential; i < m; i++) if (cursors[i]!.doc === doc) cursors[i]!.next();
  }
  return stats;
}
