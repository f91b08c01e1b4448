/**
 * Dynamic pruning for the top k of a weighted sum of single-term scores (bm25, bm25-lucene on
 * bag-of-words queries): MaxScore (Turtle & Flood 1995) over term upper bounds, with each
 * candidate's bound tightened by the block maxima of the lists it has not read yet (block-max
 * bounds, Ding & Suel 2011), from the skip directory of index format 3 (postings-codec.ts).
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

/**
 * Scores the documents that could enter `top` and offers them. `tfs[concept]` is set to each
 * term's tf in the document (0 when absent) before `consider(doc)` is called; `consider` must
 * score and offer. Returns the number of documents considered.
 */
export function maxScoreSearch(
  terms: PrunableTerm[],
  tfs: Float64Array,
  top: TopK,
  docLength: (doc: number) => number,
  consider: (doc: number) => void,
): number {
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
  let firstEssential = 0;
  let considered = 0;

  /** True when a document whose score is at most `bound` ranks after the k-th kept one. */
  const below = (bound: number, threshold: number): boolean => Math.fround(bound + Math.abs(bound) * BOUND_MARGIN) < Math.fround(threshold);

  for (;;) {
    let doc = END_OF_POSTINGS;
    for (let i = firstEssential; i < m; i++) if (cursors[i]!.doc < doc) doc = cursors[i]!.doc;
    if (doc === END_OF_POSTINGS) break;
    // Until k documents are kept every one may enter: no bound to compute.
    const threshold = top.threshold();
    let skip = false;
    if (threshold !== undefined) {
      const dl = docLength(doc);
      // Bound: exact contributions of the essential terms present, block maxima of the others.
      let bound = 0;
      for (let i = firstEssential; i < m; i++) if (cursors[i]!.doc === doc) bound += sorted[i]!.score(cursors[i]!.tf, dl);
      // (Once the bound can enter, more terms cannot change that: stop adding.)
      for (let i = firstEssential - 1; i >= 0 && below(bound, threshold); i--) {
        const b = cursors[i]!.blockFor(doc);
        if (b < bounds[i]!.length) bound += bounds[i]![b]!;
      }
      skip = below(bound, threshold);
    }
    if (!skip) {
      for (let i = 0; i < m; i++) {
        const c = cursors[i]!;
        if (i < firstEssential) c.advance(doc);
        tfs[sorted[i]!.concept] = c.doc === doc ? c.tf : 0;
      }
      consider(doc);
      considered++;
      const after = top.threshold();
      if (after !== undefined) while (firstEssential < m && below(prefixBound[firstEssential + 1]!, after)) firstEssential++;
    }
    for (let i = firstEssential; i < m; i++) if (cursors[i]!.doc === doc) cursors[i]!.next();
  }
  return considered;
}
