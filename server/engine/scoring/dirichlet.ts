/**
 * Indri query likelihood with Dirichlet smoothing and Indri's belief operators
 * (SEMANTICS.md §1.5 and §1.6). Beliefs are log probabilities.
 */
import { explainNode, fmt, type ExplainNode } from './explain.js';
import type { BeliefOp } from '../../../grammar/ast.js';

/** Indri's default (method:dirichlet, mu 2500). */
export const DIRICHLET_DEFAULT_MU = 2500;

export function validateDirichletMu(mu: number): void {
  if (!Number.isFinite(mu) || mu < 0) throw new RangeError(`Dirichlet mu must be a finite number >= 0 (got ${mu})`);
}

/** P(t|C) = cf/|C|; an unseen term (cf = 0) gets 1/(2|C|) as in TermScoreFunctionFactory. */
export function collectionProbability(cf: number, collectionLength: number): number {
  return cf > 0 ? cf / collectionLength : 1 / (2 * collectionLength);
}

/** b(t,D) = log((tf + mu·P(t|C)) / (|D| + mu)). */
export function dirichletBelief(tf: number, docLength: number, pc: number, mu: number): number {
  return Math.log((tf + mu * pc) / (docLength + mu));
}

export function explainDirichlet(tf: number, dl: number, cf: number, C: number, pc: number, mu: number, value: number, label: string): ExplainNode {
  const pcText =
    cf > 0
      ? `P(t|C) = cf/|C| = ${cf}/${C} = ${fmt(pc)}`
      : `P(t|C) = 1/(2·|C|) = 1/(2·${C}) = ${fmt(pc)} (unseen in the collection)`;
  return explainNode(value, `${label}: log((tf + mu·P(t|C))/(|D| + mu)) = log((${fmt(tf)} + ${fmt(mu)}·${fmt(pc)})/(${dl} + ${fmt(mu)})) = ${fmt(value)}`, [
    explainNode(pc, pcText),
  ]);
}

/**
 * Combines child beliefs with one of Indri's belief operators (SEMANTICS.md §1.5). `weights` are
 * the raw weights (1 for #combine/#or/#max); #weight/#wand/#wsum normalise by Σ|w|. Where Indri's
 * formula has no value (all weights 0 give 0/0; negative #wsum weights can make the sum ≤ 0) the
 * result stays finite: an item of weight 0 contributes nothing, all weights 0 give log(1) = 0 (no
 * evidence either way; the grammar warns, `indri/zero-weights`), and every result is clamped by
 * `finiteScore`.
 */
export function combineBeliefs(op: BeliefOp, weights: readonly number[], beliefs: readonly number[]): number {
  switch (op) {
    case 'combine':
    case 'weight':
    case 'wand': {
      const norm = sumAbs(weights);
      if (!(norm > 0)) return 0;
      let s = 0;
      for (let i = 0; i < beliefs.length; i++) if (weights[i] !== 0) s += (weights[i]! / norm) * beliefs[i]!;
      return finiteScore(s);
    }
    case 'wsum': {
      const norm = sumAbs(weights);
      if (!(norm > 0)) return 0;
      let s = 0;
      for (let i = 0; i < beliefs.length; i++) if (weights[i] !== 0) s += (weights[i]! / norm) * Math.exp(beliefs[i]!);
      return finiteScore(Math.log(s));
    }
    case 'or': {
      let prod = 1;
      for (const b of beliefs) prod *= 1 - Math.exp(b);
      return finiteScore(Math.log(1 - prod));
    }
    case 'not':
      return finiteScore(Math.log(1 - Math.exp(beliefs[0]!)));
    case 'max': {
      let m = -Infinity;
      for (const b of beliefs) if (b > m) m = b;
      return finiteScore(m);
    }
  }
}

/**
 * The score a scorer may emit: ±Infinity (log 0, an overflowing weight) becomes ±Number.MAX_VALUE
 * and NaN (no defined value) the lowest finite score, so a run file never holds a non-number and
 * such a document ranks last rather than poisoning the ranking.
 */
export function finiteScore(x: number): number {
  if (Number.isFinite(x)) return x;
  return x === Infinity ? Number.MAX_VALUE : -Number.MAX_VALUE;
}

function sumAbs(ws: readonly number[]): number {
  let s = 0;
  for (const w of ws) s += Math.abs(w);
  return s;
}

export function describeBeliefOp(op: BeliefOp, weights: readonly number[], beliefs: readonly number[], value: number): string {
  const norm = sumAbs(weights);
  switch (op) {
    case 'combine':
      return `#combine = Σ (1/n)·b_i, n = ${beliefs.length} = ${fmt(value)}`;
    case 'weight':
    case 'wand':
      return `#${op} = Σ (w_i/Σ|w|)·b_i, Σ|w| = ${fmt(norm)} = ${fmt(value)}`;
    case 'wsum':
      return `#wsum = log(Σ (w_i/Σ|w|)·exp(b_i)), Σ|w| = ${fmt(norm)} = ${fmt(value)}`;
    case 'or':
      return `#or = log(1 − Π (1 − exp(b_i))) = ${fmt(value)}`;
    case 'not':
      return `#not = log(1 − exp(b)) = log(1 − exp(${fmt(beliefs[0]!)})) = ${fmt(value)}`;
    case 'max':
      return `#max = max_i b_i = ${fmt(value)}`;
  }
}
