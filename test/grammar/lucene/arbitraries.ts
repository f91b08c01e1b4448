/**
 * fast-check generators of Lucene ASTs in the canonical form parseLucene gives for printed
 * text: clause `via` is plus / minus / default, leaves carry the field in force, groups have
 * 1..4 clauses. Strings deliberately include Lucene's special characters, escapes,
 * operator words and non-ASCII text, so the printer's escaping is exercised.
 */
import fc from 'fast-check';
import type { BooleanClause, BooleanNode, QueryNode } from '../../../grammar/ast.js';

const R = { start: 0, end: 0 };

/** Characters worth mixing into terms: specials, escapes, operators, spaces, non-ASCII. */
const special = fc.constantFrom(...'+-&|!(){}[]^"~*?:\\/ \t\u3000'.split(''), 'AND', 'OR', 'NOT', 'TO', '&&', '||', 'é', '東', '\u0000', '\ud83d\ude00');
const letter = fc.constantFrom(...'abcxyzAZ019.'.split(''));
const piece = fc.oneof({ weight: 4, arbitrary: letter }, { weight: 1, arbitrary: special });

/** Any non-empty string built from those pieces. */
export const termText = fc.array(piece, { minLength: 1, maxLength: 6 }).map((p) => p.join(''));
/** Phrase words cannot contain Lucene whitespace (the phrase is split on it). */
const phraseWord = termText.map((s) => s.replace(/[ \t\n\r\u3000]/g, '_'));
const fieldName = fc.oneof(fc.constantFrom('title', 'body', 'date', 'f'), termText.filter((s) => s !== '*'));

/** A wildcard pattern: literal pieces (with \*, \?, \\ escaped) and at least one bare wildcard. */
const wildcardPattern = fc
  .tuple(fc.array(piece, { maxLength: 3 }), fc.constantFrom('*', '?'), fc.array(fc.oneof(piece, fc.constantFrom('*', '?')), { maxLength: 3 }))
  .map(([a, w, b]) => {
    const lit = (s: string) => s.replace(/[\\*?]/g, (c) => `\\${c}`);
    return a.map(lit).join('') + w + b.map((x) => (x === '*' || x === '?' ? x : lit(x))).join('');
  });

const regexBody = fc.array(fc.constantFrom('a', 'b', '.', '*', '[mb]', '\\/', '(x|y)', '+', '?', ' '), { maxLength: 5 }).map((p) => p.join(''));
// No empty bound: Lucene's range syntax cannot write one (`""` is the two-character goop `""`).
const rangeBound = fc.option(fc.oneof(fc.constantFrom('a', '2002', 'TO', '*', 'x y', 'a]b', '"q"', '\\', 'a\\'), termText), { nil: null });
const boostValue = fc.oneof(
  fc.integer({ min: 1, max: 10 }),
  fc.double({ min: 1e-7, max: 1e7, noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0.5, 0.1, 1e-7, 123456789.123, 1.5),
);

function withField<T extends object>(node: T, field: string | undefined): T {
  return field === undefined ? node : { ...node, fields: [field] };
}

/** A leaf; `field` is the field in force (undefined = default field). */
function leaf(field: string | undefined): fc.Arbitrary<QueryNode> {
  // Inside a field group a leaf cannot go back to the default field, so it always has one.
  const ownField = field === undefined ? fc.option(fieldName, { nil: undefined }) : fc.oneof(fc.constant(field), fieldName);
  return ownField.chain((f) =>
    fc.oneof(
      { weight: 5, arbitrary: termText.map((text): QueryNode => withField({ kind: 'term', text, raw: false, range: R }, f)) },
      { weight: 1, arbitrary: wildcardPattern.map((pattern): QueryNode => withField({ kind: 'wildcard', pattern, form: 'lucene', range: R }, f)) },
      {
        weight: 1,
        arbitrary: fc
          .tuple(termText, fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 2 })))
          .map(([text, edits]): QueryNode => withField({ kind: 'fuzzy', text, maxEdits: edits ?? 2, explicit: edits !== null, range: R }, f)),
      },
      { weight: 1, arbitrary: regexBody.map((pattern): QueryNode => withField({ kind: 'regex', pattern, range: R }, f)) },
      {
        weight: 1,
        arbitrary: fc
          .tuple(rangeBound, rangeBound, fc.boolean(), fc.boolean())
          .map(([lower, upper, includeLower, includeUpper]): QueryNode => withField({ kind: 'range', lower, upper, includeLower, includeUpper, range: R }, f)),
      },
      {
        weight: 2,
        arbitrary: fc.tuple(fc.array(phraseWord, { maxLength: 3 }), fc.option(fc.integer({ min: 0, max: 20 }), { nil: undefined })).map(
          ([ws, slop]): QueryNode =>
            withField(
              {
                kind: 'phrase',
                terms: ws.map((text) => ({ kind: 'term' as const, text, raw: false, range: R })),
                slop: slop ?? 0,
                explicitSlop: slop !== undefined,
                range: R,
              },
              f,
            ),
        ),
      },
      { weight: 1, arbitrary: fc.constant<QueryNode>({ kind: 'matchAll', range: R }) },
    ),
  );
}

const occur = fc.constantFrom<BooleanClause['occur']>('should', 'must', 'mustNot');
const viaFor = (o: BooleanClause['occur']): BooleanClause['via'] => (o === 'must' ? 'plus' : o === 'mustNot' ? 'minus' : 'default');

function clauses(field: string | undefined, depth: number, min: number): fc.Arbitrary<BooleanClause[]> {
  return fc.array(
    fc.tuple(occur, node(field, depth)).map(([o, n]): BooleanClause => ({ occur: o, via: viaFor(o), node: n })),
    { minLength: min, maxLength: 4 },
  );
}

function groupNode(field: string | undefined, depth: number): fc.Arbitrary<QueryNode> {
  return fc.option(fieldName, { nil: undefined }).chain((own) =>
    clauses(own ?? field, depth - 1, 1).map((cs): QueryNode => {
      const g: BooleanNode = { kind: 'boolean', clauses: cs, grouped: true, range: R };
      if (own !== undefined) g.field = own;
      return g;
    }),
  );
}

function node(field: string | undefined, depth: number): fc.Arbitrary<QueryNode> {
  const unboosted = depth <= 0 ? leaf(field) : fc.oneof({ weight: 3, arbitrary: leaf(field) }, { weight: 1, arbitrary: groupNode(field, depth) });
  return fc.tuple(unboosted, fc.option(boostValue, { nil: undefined, freq: 4 })).map(([child, b]): QueryNode => (b === undefined ? child : { kind: 'boost', boost: b, child, range: R }));
}

/** A whole Lucene query: the ungrouped root BooleanNode. */
export const luceneRoot: fc.Arbitrary<BooleanNode> = clauses(undefined, 3, 1).map((cs) => ({ kind: 'boolean', clauses: cs, grouped: false, range: R }));

/** Separators between printed clauses, including operator words (meaning is whatever Lucene makes of them). */
export const separator = fc.constantFrom(' ', '  ', '\n', ' AND ', ' OR ', ' && ', ' || ', '\t');
