/**
 * Weighing queries with a term-weighting model (`querylens weigh`, the editor's weights action and
 * comparison): ONE rule for what the model reads and how its weights go back into the query,
 * server/model/structured-weights.ts (planWeighing, then applyWeights).
 */
import type { QueryAst } from '../../grammar/ast.js';
import type { NgramWeights, WeightModel } from '../model/runtime.js';
import type { NgramStatistics } from '../model/collection-statistics.js';
import { planWeighing, type WeighPlan, type WeighRefusal } from '../model/structured-weights.js';
import { applyWeights } from '../model/weighted-query.js';

export type WeighOutcome =
  | { ok: false; refusal: WeighRefusal }
  | {
      ok: true;
      plan: WeighPlan;
      /** The model's n-gram weights of `plan.text`. */
      weights: NgramWeights;
      /** The weighted query; root null when the model weighed nothing (stopwords only). */
      weighted: QueryAst;
    };

/**
 * The collection a query runs on, as the weighing needs it: where a collection-aware model's statistics
 * come from (the local index's `LocalBackend.ngramStatistics`, or a cluster's, cluster-session.ts), what
 * its answers are remembered per, and the formatter width its rewrites are laid out to.
 */
export interface CollectionSource {
  /** The session the answers are remembered per. */
  readonly key: object;
  /** querylens.json `formatting.width`. */
  readonly width: number;
  /** One record per n-gram of the model's segmentation of `text`. */
  ngramStatistics(text: string, model: WeightModel): Promise<NgramStatistics[]>;
}

/**
 * Weighs every query with one batched model call; a query the rule refuses is not sent to the
 * model and comes back with the located refusal. A collection-aware model reads each n-gram's
 * statistics in `collection` (a local backend, or a cluster session's statistics; without one it fails
 * with 'needs-statistics').
 * Lets the model's WeightModelError through.
 */
export async function weighQueries(
  model: WeightModel,
  queries: readonly { ast: QueryAst; text: string }[],
  digits = 4,
  collection?: { ngramStatistics(text: string): NgramStatistics[] | Promise<NgramStatistics[]> },
): Promise<WeighOutcome[]> {
  const plans = queries.map((q) => planWeighing(q.ast, q.text));
  const texts = plans.flatMap((p) => (p.ok ? [p.plan.text] : []));
  // One query's statistics at a time: a cluster answers each with a few requests of its own.
  const statistics: NgramStatistics[][] | undefined = model.readsStatistics && collection ? [] : undefined;
  if (statistics) for (const t of texts) statistics.push(await collection!.ngramStatistics(t));
  const asked = await model.weigh(texts, statistics);
  let k = 0;
  return plans.map((p, i) => {
    if (!p.ok) return p;
    const weights = asked[k++]!;
    return { ok: true, plan: p.plan, weights, weighted: applyWeights(queries[i]!.ast, p.plan, weights, digits) };
  });
}
