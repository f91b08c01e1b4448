/**
 * Small builders for expected Indri ASTs (ranges left out: compare with stripRanges).
 */
import type {
  BeliefNode,
  BeliefOp,
  ExtentRestriction,
  QueryNode,
  SynonymNode,
  TermNode,
  WeightedItem,
  WildcardNode,
  WindowNode,
} from '../../../grammar/ast.js';

type NoRange<T> = T extends unknown ? Omit<T, 'range'> : never;
export type Expected = NoRange<QueryNode> | Record<string, unknown>;

export function t(text: string, extra: Partial<TermNode> = {}): Expected {
  return { kind: 'term', text, raw: false, ...extra };
}
export function num(text: string): Expected {
  return { kind: 'term', text, raw: false, numeric: true };
}
export function raw(text: string, extra: Partial<TermNode> = {}): Expected {
  return { kind: 'term', text, raw: true, ...extra };
}
export function item(node: Expected, weight?: number): Partial<WeightedItem> {
  return weight === undefined ? { node: node as QueryNode } : { weight, node: node as QueryNode };
}
export function belief(op: BeliefOp, items: Expected[], extra: Partial<BeliefNode> = {}): Expected {
  return { kind: 'belief', op, items: items.map((n) => item(n)), ...extra };
}
export function weighted(op: BeliefOp, pairs: [number, Expected][], restriction?: Omit<ExtentRestriction, 'range'>): Expected {
  const out: Record<string, unknown> = { kind: 'belief', op, items: pairs.map(([w, n]) => item(n, w)) };
  if (restriction) out.restriction = restriction;
  return out;
}
export function implicit(items: Expected[]): Expected {
  return { kind: 'belief', op: 'combine', items: items.map((n) => item(n)), implicit: true };
}
export function win(
  form: WindowNode['form'],
  ordered: boolean,
  size: number | null,
  children: Expected[],
  extra: Partial<WindowNode> = {},
): Expected {
  return { kind: 'window', ordered, size, children, form, ...extra };
}
export function syn(form: SynonymNode['form'], items: Expected[], weights?: number[], extra: Partial<SynonymNode> = {}): Expected {
  return { kind: 'synonym', items: items.map((n, i) => item(n, weights?.[i])), form, ...extra };
}
export function wild(pattern: string, form: WildcardNode['form'], extra: Partial<WildcardNode> = {}): Expected {
  return { kind: 'wildcard', pattern, form, ...extra };
}
