/**
 * Tiny AST builders for tests that need ASTs without a parser. Ranges are synthetic but
 * distinct, so a diagnostic can be traced to the node it was reported on.
 */
import type { BeliefOp, BooleanClause, Dialect, Occur, QueryAst, QueryNode, TermNode, WeightedItem } from '../../../grammar/ast.js';

let next = 0;
const r = () => {
  const start = next;
  next += 2;
  return { start, end: start + 1 };
};

export const term = (text: string, extra: Partial<TermNode> = {}): TermNode => ({ kind: 'term', text, raw: false, range: r(), ...extra });
export const field = (text: string, ...fields: string[]): TermNode => term(text, { fields });

export const belief = (op: BeliefOp, ...items: (QueryNode | [number, QueryNode])[]): QueryNode => ({
  kind: 'belief',
  op,
  range: r(),
  items: items.map((i): WeightedItem => (Array.isArray(i) ? { weight: i[0], node: i[1], weightRange: r() } : { node: i })),
});
export const combine = (...items: QueryNode[]) => belief('combine', ...items);
export const weight = (...pairs: [number, QueryNode][]) => belief('weight', ...pairs);

export const od = (size: number | null, ...children: QueryNode[]): QueryNode => ({
  kind: 'window',
  ordered: true,
  size,
  form: size === null ? 'od' : 'hash-number',
  children,
  range: r(),
});
export const uw = (size: number | null, ...children: QueryNode[]): QueryNode => ({ kind: 'window', ordered: false, size, form: 'uw', children, range: r() });
export const syn = (...children: QueryNode[]): QueryNode => ({ kind: 'synonym', form: 'syn', items: children.map((node) => ({ node })), range: r() });
export const band = (...children: QueryNode[]): QueryNode => ({ kind: 'band', children, range: r() });
export const phrase = (words: string[], slop = 0): QueryNode => ({ kind: 'phrase', terms: words.map((w) => term(w)), slop, explicitSlop: slop > 0, range: r() });
export const boost = (b: number, child: QueryNode): QueryNode => ({ kind: 'boost', boost: b, child, range: r() });
export const clause = (occur: Occur, node: QueryNode): BooleanClause => ({
  occur,
  node,
  via: occur === 'must' ? 'plus' : occur === 'mustNot' ? 'minus' : 'default',
});
export const bool = (grouped: boolean, ...clauses: BooleanClause[]): QueryNode => ({ kind: 'boolean', clauses, grouped, range: r() });
export const should = (n: QueryNode) => clause('should', n);
export const must = (n: QueryNode) => clause('must', n);
export const mustNot = (n: QueryNode) => clause('mustNot', n);

export const ast = (dialect: Dialect, root: QueryNode | null): QueryAst => ({ dialect, root, range: { start: 0, end: next } });
