/**
 * Impact scoring (`impact`, SEMANTICS.md §4.7), for impact indexes: Σ over the present scored
 * concepts of weight × impact, with Terrier's bag matching (the formulas are impact.ts's).
 */
import { collectionProbability } from './dirichlet.js';
import { explainNode, fmt, type ExplainNode } from './explain.js';
import { explainImpactTerm, impactContribution } from './impact.js';
import type { TfOf } from './plan-match.js';
import { impactTermScore, plainTermItems, prunableTermSum, type PrunableQuery } from './pruning.js';
import type { Evaluation, QueryConcept, QueryContext, QueryScorer, ScorerDefinition } from './scorer-definition.js';

function impactConcept(ctx: QueryContext, c: QueryConcept): QueryConcept {
  // Its hover shows the concept's P(c|C), as under ql: impacts have no idf.
  c.info.collectionProbability = collectionProbability(c.info.cf, ctx.totalTokens);
  return c;
}

class ImpactScorer implements QueryScorer {
  constructor(
    private readonly ctx: QueryContext,
    private readonly rt: readonly QueryConcept[],
  ) {}

  /**
   * SEMANTICS.md §4.7: Σ over present scored concepts of weight × impact, in query order (the
   * tf slot of an impact index holds the impact); matching as under bm25.
   */
  evaluate(_doc: number, tfOf: TfOf, explain: boolean): Evaluation {
    let score = 0;
    let present = 0;
    const children: ExplainNode[] = [];
    for (let c = 0; c < this.rt.length; c++) {
      const r = this.rt[c]!;
      if (!r.info.scored || r.missing) continue;
      const impact = tfOf(c);
      if (impact <= 0) {
        if (explain) children.push(explainNode(0, `${r.info.label}: absent from this document (impact 0)`));
        continue;
      }
      const w = impactContribution(r.info.weight, impact);
      score += w;
      present++;
      if (explain) children.push(explainImpactTerm(r.info.label, r.info.weight, impact, w));
    }
    const { ctx } = this;
    const matched = ctx.pureBag ? present > 0 : ctx.matcher.matches(ctx.root!, tfOf) && ctx.matcher.filtersPass(ctx.root!, tfOf);
    if (!explain) return { matched, score };
    return {
      matched,
      score,
      node: explainNode(score, `impact: sum over the ${present} concept${present === 1 ? '' : 's'} present of weight × impact = ${fmt(score)} (no idf, no length normalisation)`, children),
    };
  }

  /** A plain term or an OR of plain terms with weights ≥ 0: weight × impact rises with the impact. */
  prunable(): PrunableQuery | null {
    const root = this.ctx.root;
    const items = root && plainTermItems(root);
    if (!items) return null;
    const terms = prunableTermSum(this.rt, items, 'once', (r, concept, _item, term, df) => {
      const weight = r.info.weight;
      if (!(weight >= 0)) return null;
      return { concept, term, df, score: impactTermScore(weight), boundKey: `impact ${weight}` };
    });
    // impactTermScore is evaluate's impactContribution (weight × impact), added in concept order there too.
    return terms && { terms, plainSum: this.ctx.pureBag };
  }

  whyNot(_doc: number, tfOf: TfOf): string {
    return this.ctx.matcher.reason(this.ctx.root!, tfOf) ?? 'it does not match the query';
  }
}

// For impact indexes only (JSON vectors, CIFF imports of them): Σ weight × impact, no parameters.
export const IMPACT = {
  description: 'sum of query weight × impact, for impact indexes',
  defaults: {},
  readsFieldParams: false,
  conceptStatistic: 'collectionProbability',
  plan: 'bag',
  postings: 'impacts',
  ranksTfImpacts: false,
  prunable: true,
  validate: () => undefined,
  prepare: (ctx) => ctx,
  concept: impactConcept,
  bind: (ctx, concepts) => new ImpactScorer(ctx, concepts),
} as const satisfies ScorerDefinition<QueryContext, QueryConcept>;
