/**
 * Weighing queries with a term-weighting model (`querylens weigh`, the editor's weights action and
 * comparison): ONE rule for what the model reads and how its weights go back into the query,
 * server/model/structured-weights.ts (planWeighing, then applyWeights).
 */
import type { QueryAst } from '../../grammar/ast.js';
import type { NgramWeights, WeightModel } from '../model/runtime.js';
import { planWeighing, type WeighPlan, type WeighRefusal } from '../model/structured-weights.js';
import { applyWeights } from '../model/weighted-query.js';
import type { SearchBackend } from './backend.js';

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
 * Weighs every query with one batched model call; a query the rule refuses is not sent to the
 * model and comes back with the located refusal. A collection-aware model reads each n-gram's
 * statistics in `backend`'s collection (without a backend it fails with 'needs-statistics').
 * Lets the model's WeightModelError through.
 */
export async function weighQueries(
  model: Pick<WeightModel, 'weigh' | 'readsStatistics'>,
  queries: readonly { ast: QueryAst; text: string }[],
  digits = 4,
  backend?: Pick<SearchBackend, 'ngramStatistics'>,
): Promise<WeighOutcome[]> {
  const plans = queries.map((q) => planWeighing(q.ast, q.text));
  const texts = plans.flatMap((p) => (p.ok ? [p.plan.text] : []));
  const asked = await model.weigh(texts, model.readsStatistics && backend ? texts.map((t) => backend.ngramStatistics(t)) : undefined);
  let k = 0;
  return plans.map((p, i) => {
    if (!p.ok) return p;
    const weights = asked[k++]!;
    return { ok: true, plan: p.plan, weights, weighted: applyWeights(queries[i]!.ast, p.plan, weights, digits) };
  });
}
