/**
 * The Bo1 feedback pool of TW-BERT + Bo1 (paper §5.3): how many first-pass documents Bo1 reads and how
 * many expansion words it offers the model. Plain Bo1 keeps Terrier's 3 documents and 10 words; a model
 * that weighs the words itself (a gate per query, a factor per word) might do better with a larger pool,
 * so the pool is a knob to choose by leave-one-collection-out (`chooseFeedbackPools`, which
 * model/select-feedback-pool.mjs runs through the engine), never on the figure reported. Measured
 * 2026-11-28 and not kept (model/MODEL_CARD.md): the shipped model reads 3/10 unless the user asks for
 * another pool (`search --fb-docs/--fb-terms`).
 */
import { DEFAULT_FEEDBACK_DOCS } from '../engine/expansion/feedback.js';

/** Documents read and expansion words offered. */
export interface FeedbackPool {
  docs: number;
  terms: number;
}

/** Terrier's Bo1 defaults (the engine's), what plain Bo1 and TW-BERT + Bo1 read unless told otherwise. */
export const DEFAULT_FEEDBACK_POOL: FeedbackPool = { docs: DEFAULT_FEEDBACK_DOCS.bo1, terms: 10 };

/** `5/20` → { docs: 5, terms: 20 }: whole numbers from 1 to 1000; null for anything else. */
export function parseFeedbackPool(text: string): FeedbackPool | null {
  const m = /^\s*(\d{1,4})\s*\/\s*(\d{1,4})\s*$/.exec(text);
  if (!m) return null;
  const pool = { docs: Number(m[1]), terms: Number(m[2]) };
  const ok = (n: number) => n >= 1 && n <= 1000;
  return ok(pool.docs) && ok(pool.terms) ? pool : null;
}

export function formatFeedbackPool(pool: FeedbackPool): string {
  return `${pool.docs}/${pool.terms}`;
}

export interface PoolChoice {
  /** For each collection left out: the pool with the best mean gain over the other collections. */
  perFold: Record<string, FeedbackPool>;
  /** The pool with the best mean gain over all collections: what the model trained on all of them would read. */
  shipped: FeedbackPool;
}

/**
 * Leave-one-collection-out choice of the pool. `gains[c][i]` is collection c's gain at `pools[i]` when
 * ranked by the model that did not train or select on c. The pool reported for c is the best on the
 * mean over the others (c's own figure is never read for it); ties go to the earlier pool, so list
 * the smaller pools first.
 */
export function chooseFeedbackPools(pools: readonly FeedbackPool[], gains: Record<string, readonly number[]>): PoolChoice {
  const collections = Object.keys(gains);
  if (pools.length === 0) throw new RangeError('no feedback pool to choose from');
  if (collections.length < 2) throw new RangeError('leave-one-collection-out needs at least two collections');
  for (const c of collections) {
    if (gains[c]!.length !== pools.length) throw new RangeError(`${c}: ${gains[c]!.length} gains for ${pools.length} pools`);
    if (gains[c]!.some((g) => !Number.isFinite(g))) throw new RangeError(`${c}: a gain is not a finite number`);
  }
  const best = (over: readonly string[]): FeedbackPool => {
    let at = 0;
    let top = -Infinity;
    for (let i = 0; i < pools.length; i++) {
      const mean = over.reduce((s, c) => s + gains[c]![i]!, 0) / over.length;
      if (mean > top) {
        top = mean;
        at = i;
      }
    }
    return pools[at]!;
  };
  const perFold: Record<string, FeedbackPool> = {};
  for (const c of collections) perFold[c] = best(collections.filter((o) => o !== c));
  return { perFold, shipped: best(collections) };
}
