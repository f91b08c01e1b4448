/**
 * Differential test of the Indri fast path (grammar/indri/fast.ts): whenever it answers,
 * its result must be exactly the full path's (Chevrotain lexer → recovering parser → CST
 * visitor), compared as JSON so that key order and absent keys count too. It may decline
 * (undefined) anything; the counts below make sure it does answer the queries it is for.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastParseIndri } from '../../../grammar/indri/fast.js';
import { parseIndri, parseIndriFull } from '../../../grammar/indri/index.js';
import { formatIndri } from '../../../grammar/format/indri.js';
import { printIndri } from '../../../grammar/print/indri.js';
import { indriTrees } from './arbitrary.js';

/** Compares the two paths on `text`; returns whether the fast path answered. */
function same(text: string): boolean {
  const fast = fastParseIndri(text);
  const full = parseIndriFull(text);
  if (fast === undefined) return false;
  expect(JSON.stringify(fast), text).toBe(JSON.stringify(full));
  // Sanity: the fast path only ever answers for queries without diagnostics.
  expect(full.diagnostics).toEqual([]);
  return true;
}

const { query } = indriTrees(4);

/** Tokens of the fast subset and tokens just outside it, to build near-valid soups. */
const SOUP = [
  '#combine(', '#weight(', '#wand(', '#wsum(', '#or(', '#max(', '#not(', '#sum(', '#band(', '#syn(',
  '#1(', '#od3(', '#od(', '#uw8(', '#uw(', '#12(', '#', '#Combine(', '#base64(YQ==)', '#foo(',
  '(', ')', '{', '}', '<', '>', '[', ']', '.', ',', ':', '-', '*', '"', '/', '\\',
  'a', 'b1', 'title', 'x_y', 'élève', '東京', '12', '007', '3.5', '0.5', '1.', '.5', '1e5', '0', '0.0',
  '99999999999999999999', '1'.repeat(400), 'c++', 'a\u0000b', '\uD800', '😀', '\u00a0',
  ' ', ' ', ' ', '\t', '\n', '\r\n', '',
];
const soup = fc.array(fc.constantFrom(...SOUP), { minLength: 1, maxLength: 24 }).map((parts) => parts.join(''));

/** Query texts inside the fast subset, with random spacing: the fast path must answer all. */
const sp = fc.constantFrom('', ' ', '  ', '\t', '\n');
const tok = (a: fc.Arbitrary<string>) => fc.tuple(sp, a, sp).map(([x, t, y]) => x + t + y);
const word = fc.oneof(
  fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,6}$/),
  fc.stringMatching(/^[0-9]{1,4}$/),
  fc.stringMatching(/^[0-9]{1,3}\.[0-9]{1,3}$/),
  fc.constantFrom('élève', '東京'),
  // hyphen chains (→ #od1), suffix wildcards, quoted raw terms
  fc.stringMatching(/^[a-z][a-z0-9]{0,3}(-[a-z0-9]{1,3}){1,3}$/),
  fc.stringMatching(/^([a-z][a-z0-9]{0,3}|[0-9]{1,3}(\.[0-9])?)\*$/),
  fc.stringMatching(/^"([a-z][a-z0-9]{0,4}|[0-9]{1,3}(\.[0-9])?)"$/),
);
const fieldName = fc.stringMatching(/^[a-z][a-z0-9]{0,4}$/);
const fields = fc.option(fc.array(fieldName, { minLength: 1, maxLength: 3 }).map((f) => '.' + f.join(',')), { nil: '' });
const subset = fc.letrec<{ scored: string; unscored: string }>((rec) => ({
  unscored: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.tuple(word, fields).map(([w, f]) => w + f),
    fc.tuple(fc.constantFrom('#1', '#od2', '#od', '#uw8', '#uw', '#band', '#syn'), fc.array(tok(rec('unscored')), { minLength: 1, maxLength: 3 }), fields).map(([op, kids, f]) => `${op}(${kids.join(' ')})${f}`),
    fc.tuple(fc.constantFrom(['{', '}'], ['<', '>']), fc.array(tok(rec('unscored')), { minLength: 1, maxLength: 3 })).map(([[o, c], kids]) => `${o}${kids.join(' ')}${c}`),
  ),
  scored: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    rec('unscored'),
    fc.tuple(fc.constantFrom('#combine', '#or', '#max'), fc.array(tok(rec('scored')), { minLength: 1, maxLength: 4 })).map(([op, kids]) => `${op}(${kids.join(' ')})`),
    tok(rec('scored')).map((k) => `#not(${k})`),
    fc
      .tuple(fc.constantFrom('#weight', '#wand', '#wsum'), fc.array(fc.tuple(fc.constantFrom('1', '0.5', '2.0', '10', '0', '0.0'), tok(rec('scored'))), { minLength: 1, maxLength: 4 }))
      // A weight followed by a numeric or quoted term is left to Chevrotain: skip those.
      .filter(([, items]) => items.every(([, k]) => !/^\s*[0-9"]/.test(k)))
      // All-zero weights are reported by the visitor (indri/zero-weights), outside the subset.
      .filter(([, items]) => items.some(([w]) => Number(w) !== 0))
      .map(([op, items]) => `${op}(${items.map(([w, k]) => `${w} ${k}`).join(' ')})`),
  ),
}));

describe('Indri fast path equals the full path', () => {
  it('answers every query of the fast subset, with the full path\'s result', () => {
    fc.assert(
      fc.property(fc.array(tok(subset.scored), { minLength: 1, maxLength: 3 }), (items) => {
        const text = items.join(' ');
        expect(same(text), text).toBe(true);
      }),
      { numRuns: 1500 },
    );
  });

  it('on printed and formatted random trees (and answers most of them)', () => {
    let answered = 0;
    let runs = 0;
    fc.assert(
      fc.property(query, fc.boolean(), (tree, format) => {
        const printed = printIndri(tree);
        const text = format ? formatIndri(printed, { width: 30 }).text : printed;
        runs++;
        if (same(text)) answered++;
      }),
      { numRuns: 600 },
    );
    // Most random trees hold something outside the subset (contexts, restrictions, base64,
    // wildcards, hyphens, quotes, negative weights ...): those are left to the full path.
    expect(answered).toBeGreaterThan(runs / 50);
  });

  it('on random soups of valid and invalid tokens', () => {
    let answered = 0;
    fc.assert(
      fc.property(soup, (text) => {
        if (same(text)) answered++;
      }),
      { numRuns: 4000 },
    );
    expect(answered).toBeGreaterThan(100);
  });

  it('on printed trees with one character deleted, inserted or replaced', () => {
    const edit = fc.tuple(query, fc.nat(), fc.constantFrom('del', 'ins', 'rep'), fc.constantFrom(...'()[]{}<>.,:-*"# a1\t'));
    fc.assert(
      fc.property(edit, ([tree, at, how, ch]) => {
        const text = printIndri(tree);
        const i = at % (text.length + 1);
        const mutated = how === 'del' ? text.slice(0, i) + text.slice(i + 1) : how === 'ins' ? text.slice(0, i) + ch + text.slice(i) : text.slice(0, i) + ch + text.slice(i + 1);
        same(mutated);
      }),
      { numRuns: 1500 },
    );
  });

  it.each([
    // Weights: a number before a term or an operator is a weight; number-number is left to Chevrotain.
    ['#weight( 2.0 #1(a b) 1.0 #combine( c d ) )', true],
    ['#weight( 1 a 2 b.title )', true],
    ['#weight( 1 2 )', false],
    ['#weight( a )', false],
    ['#wand( 0.5 {a b} 0.5 <c d> )', true],
    // Numbers and floats as terms, field lists, implicit #combine.
    ['12 3.5 a.title,body #uw8(x y).h1', true],
    ['2.0abc', true],
    ['a.5', false],
    ['a.title.(body)', false],
    ['a.(body)', false],
    // Things the full path reports or the fast subset lacks.
    ['#combine()', false],
    ['#not( a b )', false],
    ['#sum( a )', false],
    ['#combine( #weight( 1 a ) )', true],
    ['#combine( #weight( 0 a 0.0 b ) )', false],
    ['#wand( 0 a 1 b )', true],
    ['#1( #combine(a) )', false],
    ['#od99999999999999999999( a b )', false],
    ['#combine[title]( a )', false],
    ['a-b', true],
    ['covid-19 a-b-c.title 12-ab', true],
    ['"a"', true],
    ['"12" "1.5".title', true],
    ['a*', true],
    ['1.5* inform*.title', true],
    ['a -b', false],
    ['-1', false],
    ['a-', false],
    ['a-b*', false],
    ['a-1.5', false],
    ['a.title-x', false],
    ['"a b"', false],
    ['"a', false],
    ['#weight( 1 "a" )', false],
    ['#combine( a', false],
    ['a )', false],
    ['', true],
    [' \t\r\n ', true],
  ])('%j (fast path answers: %s)', (text, answers) => {
    expect(same(text)).toBe(answers);
  });

  it('answers every query of the sample files that has no diagnostic', () => {
    const root = join(import.meta.dirname, '../../..');
    const lines = readFileSync(join(root, 'samples/queries.indri'), 'utf8')
      .split('\n')
      .map((l) => (l.includes('\t') ? l.slice(l.indexOf('\t') + 1) : l).trim())
      .filter((l) => l !== '' && !l.startsWith('//'));
    expect(lines.length).toBeGreaterThan(0);
    for (const text of lines) same(text);
  });

  it('parseIndri itself gives the full result on both kinds of query', () => {
    for (const text of ['#combine( a b.title )', '#combine( a b', '#weight( a )', '#od5(a b) c']) {
      expect(JSON.stringify(parseIndri(text))).toBe(JSON.stringify(parseIndriFull(text)));
    }
  });
});
