/**
 * Which documents a compiled plan matches, and why one is not matched: the walks over the plan
 * (Lucene must/should/mustNot, #filreq/#filrej) that do not depend on the scorer, shared by every
 * scorer's matching and "why not" text (scorer-definition.ts).
 */
import type { Plan } from './compile.js';

/** A concept's frequency in the document being scored (the impact, on an impact index). */
export type TfOf = (concept: number) => number;

export class PlanMatcher {
  /** `labels[c]`: concept c as the query names it (ConceptInfo.label). */
  constructor(private readonly labels: readonly string[]) {}

  matches(plan: Plan, tfOf: TfOf): boolean {
    switch (plan.kind) {
      case 'leaf':
      case 'constant':
        return tfOf(plan.concept) > 0;
      case 'all':
        return true;
      case 'filter':
        return this.matches(plan.filter, tfOf) === (plan.mode === 'require') && this.matches(plan.scored, tfOf);
      case 'group': {
        if (plan.op !== 'bool') return plan.items.some((it) => this.matches(it.plan, tfOf));
        let hasMust = false;
        let anyShould = false;
        for (const it of plan.items) {
          if (it.occur === 'must') {
            hasMust = true;
            if (!this.matches(it.plan, tfOf)) return false;
          } else if (it.occur === 'mustNot') {
            if (this.matches(it.plan, tfOf)) return false;
          } else if (!anyShould && this.matches(it.plan, tfOf)) anyShould = true;
        }
        return hasMust || anyShould;
      }
    }
  }

  /** Every #filreq/#filrej outside prohibited clauses accepts the document. */
  filtersPass(plan: Plan, tfOf: TfOf): boolean {
    switch (plan.kind) {
      case 'filter':
        return this.matches(plan.filter, tfOf) === (plan.mode === 'require') && this.filtersPass(plan.scored, tfOf);
      case 'group':
        return plan.items.every((it) => it.occur === 'mustNot' || this.filtersPass(it.plan, tfOf));
      default:
        return true;
    }
  }

  /** The filter's verdict on a document it rejects, described; null when it accepts it. */
  rejectingFilter(plan: Extract<Plan, { kind: 'filter' }>, tfOf: TfOf): string | null {
    if (this.matches(plan.filter, tfOf) === (plan.mode === 'require')) return null;
    return plan.mode === 'require'
      ? `the ${plan.label} filter ${this.describe(plan.filter)} does not match it`
      : `the ${plan.label} filter ${this.describe(plan.filter)} matches it, so it is rejected`;
  }

  /** The first filter that rejects the document, described. */
  failingFilter(plan: Plan, tfOf: TfOf): string | null {
    switch (plan.kind) {
      case 'filter':
        return this.rejectingFilter(plan, tfOf) ?? this.failingFilter(plan.scored, tfOf);
      case 'group':
        for (const it of plan.items) {
          if (it.occur === 'mustNot') continue;
          const r = this.failingFilter(it.plan, tfOf);
          if (r) return r;
        }
        return null;
      default:
        return null;
    }
  }

  describe(plan: Plan): string {
    switch (plan.kind) {
      case 'leaf':
      case 'constant':
        return this.labels[plan.concept]!;
      case 'all':
        return '*:*';
      case 'filter':
        return `${plan.label}(${this.describe(plan.filter)} ${this.describe(plan.scored)})`;
      case 'group': {
        const inner = plan.items
          .map((it) => `${it.occur === 'must' ? '+' : it.occur === 'mustNot' ? '-' : ''}${this.describe(it.plan)}`)
          .join(' ');
        return plan.op === 'bool' ? `(${inner})` : `${plan.label}(${inner})`;
      }
    }
  }

  /** Why `plan` does not match the document (null when it does), as the matching decides it. */
  reason(plan: Plan, tfOf: TfOf): string | null {
    if (this.matches(plan, tfOf)) return null;
    switch (plan.kind) {
      case 'leaf':
      case 'constant':
        return `it lacks ${this.describe(plan)}`;
      case 'all':
        return null;
      case 'filter':
        return this.rejectingFilter(plan, tfOf) ?? this.reason(plan.scored, tfOf);
      case 'group': {
        if (plan.op === 'bool') {
          for (const it of plan.items) {
            if (it.occur === 'must' && !this.matches(it.plan, tfOf)) return `the required clause ${this.describe(it.plan)} does not match (${this.reason(it.plan, tfOf)})`;
            if (it.occur === 'mustNot' && this.matches(it.plan, tfOf)) return `the prohibited clause ${this.describe(it.plan)} matches`;
          }
          if (plan.items.every((it) => it.occur === 'mustNot')) return 'a query of only prohibited clauses matches no document';
        }
        const names = plan.items.filter((it) => it.occur === 'should').map((it) => this.describe(it.plan));
        return `it contains none of ${names.join(', ')}`;
      }
    }
  }
}

export function planHas(plan: Plan, pred: (p: Plan) => boolean): boolean {
  if (pred(plan)) return true;
  if (plan.kind === 'group') return plan.items.some((it) => planHas(it.plan, pred));
  if (plan.kind === 'filter') return planHas(plan.filter, pred) || planHas(plan.scored, pred);
  return false;
}
