/**
 * Small builders for expected Lucene ASTs (ranges left out: tests compare with stripRanges).
 * `c.should(x)` etc. build clauses with the `via` the parser is expected to record.
 */
import type { BooleanClause, BooleanNode, QueryNode } from '../../../grammar/ast.js';

type NoRange<T> = T extends unknown ? Omit<T, 'range'> : never;
export type Bare = NoRange<QueryNode>;
type Via = BooleanClause['via'];

const fieldsOf = (field?: string) => (field === undefined ? {} : { fields: [field] });

export const term = (text: string, field?: string): Bare => ({ kind: 'term', text, raw: false, ...fieldsOf(field) });
export const wild = (pattern: string, field?: string): Bare => ({ kind: 'wildcard', pattern, form: 'lucene', ...fieldsOf(field) });
export const fuzzy = (text: string, maxEdits = 2, explicit = false, field?: string): Bare => ({ kind: 'fuzzy', text, maxEdits, explicit, ...fieldsOf(field) });
export const regex = (pattern: string, field?: string): Bare => ({ kind: 'regex', pattern, ...fieldsOf(field) });
export const range = (lower: string | null, upper: string | null, includeLower: boolean, includeUpper: boolean, field?: string): Bare => ({
  kind: 'range',
  lower,
  upper,
  includeLower,
  includeUpper,
  ...fieldsOf(field),
});
export const matchAll = (): Bare => ({ kind: 'matchAll' });
export const phrase = (words: string[], slop = 0, explicitSlop = false, field?: string): Bare => ({
  kind: 'phrase',
  terms: words.map((w) => term(w)) as never,
  slop,
  explicitSlop,
  ...fieldsOf(field),
});
export const boost = (child: Bare, b: number): Bare => ({ kind: 'boost', boost: b, child: child as QueryNode });
export const error = (text: string): Bare => ({ kind: 'error', text });

export interface BareClause {
  occur: BooleanClause['occur'];
  via: Via;
  node: Bare;
}

const clause = (occur: BooleanClause['occur']) => (node: Bare, via: Via = occur === 'must' ? 'plus' : occur === 'mustNot' ? 'minus' : 'default'): BareClause => ({
  occur,
  node,
  via,
});
export const should = clause('should');
export const must = clause('must');
export const mustNot = clause('mustNot');

export const group = (clauses: BareClause[], field?: string): Bare =>
  ({ kind: 'boolean', clauses, grouped: true, ...(field === undefined ? {} : { field }) }) as unknown as Bare;
export const root = (...clauses: BareClause[]): NoRange<BooleanNode> => ({ kind: 'boolean', clauses, grouped: false }) as never;
/** Shorthand: a root of should/default terms. */
export const words = (...ws: string[]) => root(...ws.map((w) => should(term(w))));
