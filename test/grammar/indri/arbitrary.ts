/**
 * fast-check generators of Indri ASTs: every node kind parseIndri can build, in the exact
 * shape it builds them (ranges aside), so that print → parse must give them back.
 */
import fc from 'fast-check';
import type { ExtentRestriction, QueryNode, WeightedItem } from '../../../grammar/ast.js';

const R = { start: 0, end: 0 };

const word = fc.oneof(
  { weight: 8, arbitrary: fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9_]{0,7}$/) },
  { weight: 1, arbitrary: fc.stringMatching(/^[0-9][a-z][a-z0-9]{0,3}$/) },
  { weight: 1, arbitrary: fc.constantFrom('élève', '東京', 'naïve', 'Straße', 'x😀y') },
);
const fieldName = fc.stringMatching(/^[a-z][a-z0-9]{0,5}(-[a-z0-9]{1,3})?$/);
const integerText = fc.stringMatching(/^[0-9]{1,6}$/);
const numberText = fc.oneof(integerText, fc.stringMatching(/^-?[0-9]{1,4}(\.[0-9]{1,3})?$/));
/** Any text without lone surrogates (written as #base64). */
const anyText = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 });

const weight = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(0.5, 1, 2, 0.25, -1, 0.1, 1e-7, 123456.789) },
  { weight: 3, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 1, arbitrary: fc.integer({ min: -1000, max: 1000 }) },
);

const fields = fc.option(fc.array(fieldName, { minLength: 1, maxLength: 2 }), { nil: undefined, freq: 3 });
const contextItem = fc.oneof({ weight: 4, arbitrary: fieldName }, { weight: 1, arbitrary: fieldName.map((f) => `./${f}`) });
const context = fc.option(fc.array(contextItem, { minLength: 1, maxLength: 2 }), { nil: undefined, freq: 4 });

function clean<T extends object>(node: T): T {
  for (const [k, v] of Object.entries(node)) if (v === undefined) delete (node as Record<string, unknown>)[k];
  return node;
}

/** A term as parseIndri builds it; `scored` allows a context. */
function term(scored: boolean): fc.Arbitrary<QueryNode> {
  const ctx = scored ? context : fc.constant(undefined);
  return fc.oneof(
    { weight: 6, arbitrary: fc.record({ text: word, fields, context: ctx }).map(({ text, fields, context }) => clean({ kind: 'term' as const, text, raw: false, fields, context, range: R })) },
    { weight: 2, arbitrary: fc.record({ text: numberText, fields }).map(({ text, fields }) => clean({ kind: 'term' as const, text, raw: false, numeric: true, fields, range: R })) },
    { weight: 2, arbitrary: fc.record({ text: word, fields }).map(({ text, fields }) => clean({ kind: 'term' as const, text, raw: true, fields, range: R })) },
    { weight: 1, arbitrary: numberText.map((text) => ({ kind: 'term' as const, text, raw: true, numeric: true, range: R })) },
    {
      weight: 2,
      arbitrary: fc.record({ text: anyText, quote: fc.boolean() }).map(({ text, quote }) => ({
        kind: 'term' as const,
        text,
        raw: quote,
        encoding: quote ? ('base64quote' as const) : ('base64' as const),
        range: R,
      })),
    },
    {
      weight: 1,
      arbitrary: fc.record({ prefix: fc.oneof(word, integerText), form: fc.constantFrom('suffix-star' as const, 'wildcard-op' as const), fields }).map(
        ({ prefix, form, fields }) => clean({ kind: 'wildcard' as const, pattern: `${prefix}*`, form, fields, range: R }),
      ),
    },
    {
      weight: 1,
      arbitrary: fc
        .record({
          parts: fc.array(fc.oneof(word.filter((w) => /^[A-Za-z0-9_]+$/.test(w)), integerText), { minLength: 2, maxLength: 3 }),
          fields,
          context: ctx,
        })
        .map(({ parts, fields, context }) =>
          clean({
            kind: 'window' as const,
            ordered: true,
            size: 1,
            form: 'hyphen' as const,
            children: parts.map((p) => (/^[0-9]+$/.test(p) ? { kind: 'term' as const, text: p, raw: false, numeric: true, range: R } : { kind: 'term' as const, text: p, raw: false, range: R })),
            fields,
            context,
            range: R,
          }),
        ),
    },
    { weight: 1, arbitrary: fc.record({ field: fieldName, form: fc.constantFrom('colon' as const, 'paren' as const) }).map(({ field, form }) => ({ kind: 'any' as const, field, form, range: R })) },
    {
      weight: 1,
      arbitrary: fc
        .record({ op: fc.constantFrom('less' as const, 'greater' as const, 'equals' as const, 'between' as const), field: fieldName, a: fc.integer({ min: -1e9, max: 1e9 }), b: fc.integer({ min: -1e9, max: 1e9 }) })
        .map(({ op, field, a, b }) => ({ kind: 'numericCompare' as const, op, field, values: op === 'between' ? [a, b] : [a], range: R })),
    },
    {
      weight: 1,
      arbitrary: fc
        .record({ op: fc.constantFrom('after' as const, 'before' as const, 'equals' as const, 'between' as const), a: date, b: date })
        .map(({ op, a, b }) => ({ kind: 'dateCompare' as const, op, dates: op === 'between' ? [a, b] : [a], range: R })),
    },
  );
}

const date = fc.oneof(
  fc.tuple(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 }), fc.integer({ min: 1900, max: 2030 })).map(([m, d, y]) => `${m}/${d}/${y}`),
  fc.tuple(fc.integer({ min: 1, max: 28 }), fc.constantFrom('JAN', 'feb', 'Mar'), fc.integer({ min: 1900, max: 2030 })).map(([d, m, y]) => `${d}-${m}-${y}`),
  fc.tuple(fc.integer({ min: 1, max: 28 }), fc.constantFrom('january', 'May'), fc.integer({ min: 1900, max: 2030 })).map(([d, m, y]) => `${d} ${m} ${y}`),
  fc.tuple(fc.constantFrom('January', 'june'), fc.integer({ min: 1, max: 28 }), fc.integer({ min: 1900, max: 2030 })).map(([m, d, y]) => `${m} ${d} ${y}`),
);

const restriction: fc.Arbitrary<ExtentRestriction | undefined> = fc.option(
  fc.oneof(
    fieldName.map((field) => ({ kind: 'field' as const, field, range: R })),
    fc.record({ width: fc.integer({ min: 1, max: 500 }), increment: fc.integer({ min: 1, max: 500 }) }).map(({ width, increment }) => ({ kind: 'passage' as const, width, increment, range: R })),
    fc.tuple(fc.constantFrom('/', '//', '\\'), fieldName).map(([op, f]) => ({ kind: 'path' as const, path: `.${op}${f}`, range: R })),
  ),
  { nil: undefined, freq: 4 },
);

/** Random Indri trees: `scored(depth)` for scored positions, `unscored(depth)` inside extent operators. */
export function indriTrees(maxDepth = 3): { scored: fc.Arbitrary<QueryNode>; unscored: fc.Arbitrary<QueryNode>; query: fc.Arbitrary<QueryNode> } {
  const unscored = fc.memo<QueryNode>((depth) => {
    if (depth <= 1) return term(false);
    const kids = fc.array(unscored(depth - 1), { minLength: 1, maxLength: 3 });
    return fc.oneof(
      { weight: 4, arbitrary: term(false) },
      {
        weight: 2,
        arbitrary: fc
          .record({ kind: fc.constantFrom('od', 'hash', 'uw'), size: fc.option(fc.integer({ min: 1, max: 50 }), { nil: null }), children: kids, fields })
          .map(({ kind, size, children, fields }) =>
            clean({
              kind: 'window' as const,
              ordered: kind !== 'uw',
              size: kind === 'hash' ? (size ?? 1) : size,
              children,
              form: kind === 'hash' ? ('hash-number' as const) : kind === 'od' ? ('od' as const) : ('uw' as const),
              fields,
              range: R,
            }),
          ),
      },
      { weight: 1, arbitrary: fc.record({ children: kids, fields }).map(({ children, fields }) => clean({ kind: 'band' as const, children, fields, range: R })) },
      {
        weight: 2,
        arbitrary: fc.record({ form: fc.constantFrom('syn' as const, 'braces' as const, 'angle' as const), kids, fields }).map(({ form, kids, fields }) =>
          clean({ kind: 'synonym' as const, items: kids.map((node) => ({ node })), form, fields, range: R }),
        ),
      },
      {
        weight: 1,
        arbitrary: fc.record({ items: fc.array(fc.record({ weight, node: unscored(depth - 1) }), { minLength: 1, maxLength: 3 }), fields }).map(({ items, fields }) =>
          clean({ kind: 'synonym' as const, items: items as WeightedItem[], form: 'wsyn' as const, fields, range: R }),
        ),
      },
    );
  });

  const scored = fc.memo<QueryNode>((depth) => {
    if (depth <= 1) return term(true);
    const sub = scored(depth - 1);
    const withWindowContext = unscored(depth).chain((n) =>
      n.kind === 'window' ? context.map((c) => clean({ ...n, context: c })) : fc.constant(n),
    );
    return fc.oneof(
      { weight: 4, arbitrary: term(true) },
      { weight: 2, arbitrary: withWindowContext },
      {
        weight: 3,
        arbitrary: fc
          .record({ op: fc.constantFrom('combine' as const, 'or' as const, 'max' as const, 'not' as const), items: fc.array(sub, { minLength: 1, maxLength: 3 }), restriction })
          .map(({ op, items, restriction }) =>
            clean({ kind: 'belief' as const, op, items: (op === 'not' ? items.slice(0, 1) : items).map((node) => ({ node })), restriction, range: R }),
          ),
      },
      {
        weight: 3,
        arbitrary: fc
          .record({ op: fc.constantFrom('weight' as const, 'wand' as const, 'wsum' as const), items: fc.array(fc.record({ weight, node: sub }), { minLength: 1, maxLength: 3 }), restriction })
          .map(({ op, items, restriction }) => clean({ kind: 'belief' as const, op, items: items as WeightedItem[], restriction, range: R })),
      },
      {
        weight: 1,
        arbitrary: fc.record({ form: fc.constantFrom('filreq' as const, 'filrej' as const, 'scoreif' as const, 'scoreifnot' as const), filter: unscored(depth - 1), scored: sub }).map(
          ({ form, filter, scored }) => ({
            kind: 'filter' as const,
            mode: form === 'filreq' || form === 'scoreif' ? ('require' as const) : ('reject' as const),
            form,
            filter,
            scored,
            range: R,
          }),
        ),
      },
      { weight: 1, arbitrary: word.filter((w) => /^[A-Za-z0-9_]+$/.test(w) && !/^[0-9]+$/.test(w)).map((name) => ({ kind: 'prior' as const, name, range: R })) },
    );
  });

  const query = fc.oneof(
    { weight: 3, arbitrary: scored(maxDepth) },
    {
      weight: 1,
      arbitrary: fc.array(scored(maxDepth - 1), { minLength: 2, maxLength: 4 }).map((items) => ({
        kind: 'belief' as const,
        op: 'combine' as const,
        items: items.map((node) => ({ node })),
        implicit: true,
        range: R,
      })),
    },
  );
  return { scored: scored(maxDepth), unscored: unscored(maxDepth), query };
}
