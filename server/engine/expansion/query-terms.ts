/**
 * The original query as expansion sees it: a bag of analysed terms with weights, plus the
 * concepts expansion cannot reweight (windows, synonyms, field-restricted terms, ...),
 * which are carried into the expanded query unchanged with their weights.
 *
 * Weights follow each dialect's own combination rule, so that their ratios are what the
 * scorer would use:
 * - Indri `#combine` / `#weight` / `#wand` give child i the share w_i/Σw of the parent's
 *   weight (SEMANTICS.md §1.5: #combine is the mean, #weight the normalised weighted mean);
 * - a Lucene BooleanQuery sums its clauses, so each clause gets the parent's weight, times
 *   its `^boost` (SEMANTICS.md §3);
 * - a repeated term accumulates (Terrier's MatchingQueryTerms adds the weights up).
 */
import type { BeliefNode, QueryAst, QueryNode, TermNode } from '../../../grammar/ast.js';
import type { Analyzer } from '../analysis/analyzer.js';

export interface WeightedConcept {
  node: QueryNode;
  weight: number;
}

export interface OriginalQuery {
  /** Analysed term → accumulated weight, in first-seen order. */
  terms: Map<string, number>;
  /** Concepts kept as they are (windows, #syn, field-restricted terms, wildcards, ...). */
  others: WeightedConcept[];
  /** Lucene MUST_NOT clauses: documents matching them are excluded (kept as #filrej). */
  rejects: QueryNode[];
}

/** Belief operators whose children are a weighted mean, so shares can be pushed down to terms. */
function isMeanOperator(node: BeliefNode): boolean {
  return node.op === 'combine' || node.op === 'weight' || node.op === 'wand';
}

/** A plain term over the whole document: one that expansion may reweight. */
function isBagTerm(node: QueryNode): node is TermNode {
  return node.kind === 'term' && !node.fields?.length && !node.context?.length;
}

export function originalQuery(ast: QueryAst, analyzer: Analyzer): OriginalQuery {
  const result: OriginalQuery = { terms: new Map(), others: [], rejects: [] };

  const visit = (node: QueryNode, weight: number): void => {
    if (weight === 0) return;
    if (isBagTerm(node)) {
      for (const term of analyzer.analyzeTerm(node.text, { raw: node.raw })) {
        result.terms.set(term, (result.terms.get(term) ?? 0) + weight);
      }
      return;
    }
    switch (node.kind) {
      case 'belief': {
        if (!isMeanOperator(node) || node.restriction) break;
        const weights = node.items.map((item) => (node.op === 'combine' ? 1 : (item.weight ?? 1)));
        const total = weights.reduce((s, w) => s + Math.abs(w), 0);
        if (total === 0) return;
        node.items.forEach((item, i) => visit(item.node, (weight * weights[i]) / total));
        return;
      }
      case 'boolean':
        for (const clause of node.clauses) {
          if (clause.occur === 'mustNot') result.rejects.push(clause.node);
          else visit(clause.node, weight);
        }
        return;
      case 'boost':
        visit(node.child, weight * node.boost);
        return;
      case 'phrase':
        // A one-word Lucene phrase is that word, unstemmed only if the analyser says so.
        if (node.terms.length === 1 && !node.fields?.length) {
          visit({ ...node.terms[0], fields: undefined }, weight);
          return;
        }
        break;
      case 'error':
        return;
      default:
        break;
    }
    result.others.push({ node, weight });
  };

  if (ast.root) visit(ast.root, 1);
  return result;
}

/** The largest weight among terms and other concepts (1 when there is none). */
export function maxWeight(query: OriginalQuery): number {
  let max = 0;
  for (const w of query.terms.values()) max = Math.max(max, w);
  for (const o of query.others) max = Math.max(max, o.weight);
  return max > 0 ? max : 1;
}
