/**
 * Query likelihood with Dirichlet smoothing (`ql`, SEMANTICS.md §1.5–1.6, §4.4): Indri's belief
 * network over the concepts' Dirichlet beliefs (the formulas are dirichlet.ts's).
 */
import type { Plan, PlanItem } from './compile.js';
import { collectionProbability, combineBeliefs, describeBeliefOp, DIRICHLET_DEFAULT_MU, dirichletBelief, explainDirichlet, validateDirichletMu } from './dirichlet.js';
import { explainNode, type ExplainNode } from './explain.js';
import { planHas, type TfOf } from './plan-match.js';
import { prunableConcept, type PrunableQuery, type PrunableQueryTerm } from './pruning.js';
import type { Evaluation, QueryConcept, QueryContext, QueryScorer, ScorerDefinition } from './scorer-definition.js';

interface QlConcept extends QueryConcept {
  /** P(c|C). */
  pc: number;
}

function qlConcept(ctx: QueryContext, c: QueryConcept): QlConcept {
  const pc = collectionProbability(c.info.cf, ctx.totalTokens);
  c.info.collectionProbability = pc;
  return { info: c.info, missing: c.missing, pc };
}

class QlScorer implements QueryScorer {
  /** Concepts whose presence makes Indri consider a document (scored ones and #filreq filters), less the missing. */
  private readonly positiveConcepts: number[];
  private readonly needsEligibility: boolean;
  /** The belief network as closures, for scoring without explanations. */
  private readonly fast: ((tfOf: TfOf, dl: number) => number) | null;

  constructor(
    private readonly ctx: QueryContext,
    private readonly rt: readonly QlConcept[],
  ) {
    const root = ctx.root;
    const positive = rt.map(() => false);
    if (root) markPositive(root, positive, true);
    this.positiveConcepts = positive.flatMap((pos, c) => (pos && !rt[c]!.missing ? [c] : []));
    this.needsEligibility = root !== null && planHas(root, (n) => n.kind === 'filter' || (n.kind === 'group' && n.items.some((it) => it.occur !== 'should')));
    this.fast = root ? this.compileFast(root) : null;
  }

  /**
   * The belief network as nested closures for scoring without explanations: the same
   * functions (dirichletBelief, combineBeliefs) in the same order as `belief`, so the numbers
   * are identical, without per-document allocation.
   */
  private compileFast(plan: Plan): (tfOf: TfOf, dl: number) => number {
    const mu = this.ctx.parameters.mu;
    switch (plan.kind) {
      case 'leaf':
      case 'constant': {
        const c = plan.concept;
        const pc = this.rt[c]!.pc;
        return (tfOf, dl) => dirichletBelief(tfOf(c), dl, pc, mu);
      }
      case 'all':
        return () => 0;
      case 'filter':
        return this.compileFast(plan.scored);
      case 'group': {
        const items = plan.items.filter((it) => it.occur !== 'mustNot');
        const weights = items.map((it) => it.weight);
        const children = items.map((it) => this.compileFast(it.plan));
        const op = plan.op === 'bool' ? 'weight' : plan.op;
        const beliefs = new Array<number>(children.length).fill(0);
        return (tfOf, dl) => {
          for (let i = 0; i < children.length; i++) beliefs[i] = children[i]!(tfOf, dl);
          return combineBeliefs(op, weights, beliefs);
        };
      }
    }
  }

  /** SEMANTICS.md §1.5–1.6: Indri's belief network over Dirichlet term beliefs. */
  evaluate(doc: number, tfOf: TfOf, explain: boolean): Evaluation {
    const dl = this.ctx.reader.docLength(doc);
    let matched = this.ctx.hasMatchAll || this.positiveConcepts.some((c) => tfOf(c) > 0);
    if (matched && this.needsEligibility) matched = this.eligible(this.ctx.root!, tfOf);
    if (!explain) return { matched, score: this.fast!(tfOf, dl) };
    const r = this.belief(this.ctx.root!, tfOf, dl, explain);
    return { matched, score: r.score, node: r.node };
  }

  private belief(plan: Plan, tfOf: TfOf, dl: number, explain: boolean): { score: number; node?: ExplainNode } {
    const mu = this.ctx.parameters.mu;
    switch (plan.kind) {
      case 'leaf':
      case 'constant': {
        const r = this.rt[plan.concept]!;
        const tf = tfOf(plan.concept);
        const score = dirichletBelief(tf, dl, r.pc, mu);
        return {
          score,
          node: explain ? explainDirichlet(tf, dl, r.info.cf, this.ctx.totalTokens, r.pc, mu, score, r.missing ? `${r.info.label} (matches nothing: scored as unseen)` : r.info.label) : undefined,
        };
      }
      case 'all':
        return { score: 0, node: explain ? explainNode(0, '*:* belief log(1) = 0') : undefined };
      case 'filter': {
        const s = this.belief(plan.scored, tfOf, dl, explain);
        if (explain) s.node = explainNode(s.score, `${plan.label}: belief of the scored part`, [s.node!]);
        return s;
      }
      case 'group': {
        const items = plan.items.filter((it) => it.occur !== 'mustNot');
        const weights = items.map((it) => it.weight);
        const beliefs: number[] = [];
        const children: ExplainNode[] = [];
        for (const it of items) {
          const s = this.belief(it.plan, tfOf, dl, explain);
          beliefs.push(s.score);
          if (explain) children.push(s.node!);
        }
        // A Lucene boolean is read as #weight over its scored clauses (= #combine without boosts).
        const op = plan.op === 'bool' ? 'weight' : plan.op;
        const score = combineBeliefs(op, weights, beliefs);
        return { score, node: explain ? explainNode(score, describeBeliefOp(op, weights, beliefs, score), children) : undefined };
      }
    }
  }

  /** Filters and Lucene must/mustNot exclude documents anywhere in the tree. */
  private eligible(plan: Plan, tfOf: TfOf): boolean {
    const matcher = this.ctx.matcher;
    switch (plan.kind) {
      case 'leaf':
      case 'constant':
      case 'all':
        return true;
      case 'filter':
        return matcher.matches(plan.filter, tfOf) === (plan.mode === 'require') && this.eligible(plan.scored, tfOf);
      case 'group':
        for (const it of plan.items) {
          if (it.occur === 'must' && !matcher.matches(it.plan, tfOf)) return false;
          if (it.occur === 'mustNot' && matcher.matches(it.plan, tfOf)) return false;
          if (it.occur !== 'mustNot' && !this.eligible(it.plan, tfOf)) return false;
        }
        return true;
    }
  }

  /**
   * A plain term or a #combine / #weight / #wand (or Lucene OR) of plain terms, windows and
   * synonyms (each a Dirichlet belief of its own tf) with weights ≥ 0 and mu > 0: the score splits
   * into concept gains w·log(1 + tf/(mu·P(c|C))) (the lists pruned) and a length part
   * Σ w·log(mu·P(c|C)) − Σ w·log(|D| + mu) over every item, absent and stopped terms included
   * (scoring/pruning.ts). Null for anything else (fields, nested operators, #or, #wsum, #max, #not,
   * filters, required or prohibited clauses, negative weights, mu = 0).
   * Documents without a query term stay unscored, as on the exhaustive path.
   */
  prunable(): PrunableQuery | null {
    const root = this.ctx.root;
    const mu = this.ctx.parameters.mu;
    if (!root || !(mu > 0) || !Number.isFinite(mu)) return null;
    let items: PlanItem[];
    if (root.kind === 'leaf') items = [{ plan: root, weight: 1, occur: 'should' }];
    else if (
      root.kind === 'group' &&
      (root.op === 'combine' || root.op === 'weight' || root.op === 'wand' || root.op === 'bool') &&
      root.items.every((it) => it.occur === 'should' && it.plan.kind === 'leaf')
    )
      items = root.items;
    else return null;
    let norm = 0;
    for (const it of items) {
      if (!(it.weight >= 0) || !Number.isFinite(it.weight)) return null;
      norm += it.weight;
    }
    if (!(norm > 0)) return null;
    // Each concept's gain weight (an item repeated adds its weights), and the length part's constants.
    const gainWeight = new Map<number, number>();
    let constant = 0;
    let lengthWeight = 0;
    for (const it of items) {
      const concept = (it.plan as { concept: number }).concept;
      const r = this.rt[concept]!;
      const w = it.weight / norm;
      if (!r.missing) {
        const spec = r.info.spec;
        if (!prunableConcept(spec, true) || !r.info.scored) return null;
        // A term of weight 0 adds nothing, but its list still brings its documents (their score is the length part's).
        if (r.info.exactDf > 0) gainWeight.set(concept, (gainWeight.get(concept) ?? 0) + w);
      }
      constant += w * Math.log(mu * r.pc);
      lengthWeight += w;
    }
    const terms: PrunableQueryTerm[] = [];
    for (const [concept, w] of gainWeight) {
      const r = this.rt[concept]!;
      const mup = mu * r.pc;
      terms.push({
        concept,
        ...(r.info.spec.kind === 'term' ? { term: r.info.spec.term } : {}),
        df: r.info.exactDf,
        score: (tf) => w * Math.log1p(tf / mup),
        boundKey: `ql ${w} ${mup}`,
      });
    }
    if (!Number.isFinite(constant)) return null;
    return { terms, lengthPart: (dl) => constant - lengthWeight * Math.log(dl + mu) };
  }

  whyNot(doc: number, tfOf: TfOf): string {
    const r = this.reason(this.ctx.root!, tfOf);
    if (r) return r;
    return `document ${this.ctx.reader.docno(doc)} contains none of the query's concepts (Indri scores only documents containing at least one)`;
  }

  private reason(plan: Plan, tfOf: TfOf): string | null {
    const matcher = this.ctx.matcher;
    switch (plan.kind) {
      case 'leaf':
      case 'constant':
      case 'all':
        return null;
      case 'filter':
        return matcher.rejectingFilter(plan, tfOf) ?? this.reason(plan.scored, tfOf);
      case 'group':
        for (const it of plan.items) {
          if (it.occur === 'must' && !matcher.matches(it.plan, tfOf)) return `the required clause ${matcher.describe(it.plan)} does not match`;
          if (it.occur === 'mustNot' && matcher.matches(it.plan, tfOf)) return `the prohibited clause ${matcher.describe(it.plan)} matches`;
          if (it.occur !== 'mustNot') {
            const r = this.reason(it.plan, tfOf);
            if (r) return r;
          }
        }
        return null;
    }
  }
}

/** Concepts whose presence makes Indri consider a document: scored ones and #filreq filters. */
function markPositive(plan: Plan, out: boolean[], positive: boolean): void {
  switch (plan.kind) {
    case 'leaf':
    case 'constant':
      if (positive) out[plan.concept] = true;
      return;
    case 'all':
      return;
    case 'filter':
      markPositive(plan.filter, out, positive && plan.mode === 'require');
      markPositive(plan.scored, out, positive);
      return;
    case 'group':
      for (const it of plan.items) markPositive(it.plan, out, positive && it.occur !== 'mustNot');
      return;
  }
}

export const QUERY_LIKELIHOOD = {
  description: 'Indri query likelihood, Dirichlet smoothing',
  defaults: { mu: DIRICHLET_DEFAULT_MU },
  readsFieldParams: false,
  conceptStatistic: 'collectionProbability',
  plan: 'belief',
  postings: 'counts',
  ranksTfImpacts: false,
  prunable: true,
  validate: (p) => validateDirichletMu(p.mu),
  prepare: (ctx) => ctx,
  concept: qlConcept,
  bind: (ctx, concepts) => new QlScorer(ctx, concepts),
} as const satisfies ScorerDefinition<QueryContext, QlConcept>;
