/**
 * Differential test of the Lucene fast path (grammar/lucene/fast.ts): parseLucene (fast
 * path first) must give exactly what parseLuceneFull (Chevrotain lexer and recovering
 * parser on every query) gives, AST and diagnostics compared as JSON, on valid and
 * invalid queries alike; and the fast path must answer the queries it is for.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastLuceneAst } from '../../../grammar/lucene/fast.js';
import { LuceneAstBuilder } from '../../../grammar/lucene/visitor.js';
import { parseLucene, parseLuceneFull } from '../../../grammar/lucene/index.js';
import { printLucene } from '../../../grammar/print/lucene.js';
import { luceneRoot } from './arbitraries.js';

const builder = new LuceneAstBuilder();

/** Compares both paths on `text`, in both default-operator modes; returns whether the fast path answered. */
function same(text: string): boolean {
  for (const defaultOperator of ['OR', 'AND'] as const) {
    expect(JSON.stringify(parseLucene(text, { defaultOperator })), text).toBe(JSON.stringify(parseLuceneFull(text, { defaultOperator })));
  }
  return fastLuceneAst(text, builder) !== undefined;
}

/** Tokens of the fast subset and tokens just outside it. */
const SOUP = [
  'a', 'title', 'b1', 'x*', '?y', 'a*b', 'é', '東京', '&&', '||', 'AND', 'OR', 'NOT', 'and', 'or', 'not', 'TO', 'Andy',
  '+', '-', '!', '(', ')', ':', '^', '^2', '^0.5', '^0', '^x', '~', '~1', '~2.5', '~0.5', '~3', '"a b"', '""', '"x', '"a\\"b"',
  '[', '{', ']', '}', '[1 TO 2]', '{a TO *}', '[* TO b}', '[1 TO]', '[TOP TO TO]', '["a" TO b]', '/re/', '/x', '\\', '\\:',
  'a-b', 'c+d', '\u0000', '\ud800', '\u3000', ' ', ' ', ' ', '\t', '\n', '',
];
const soup = fc.array(fc.constantFrom(...SOUP), { minLength: 1, maxLength: 20 }).map((parts) => parts.join(''));

/** Queries inside the fast subset (no escapes, regexes, bare operators, quoted bounds). */
const sp = fc.constantFrom(' ', '  ', '\t', '\n', '\u3000');
const word = fc.oneof(fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9_.*?+-]{0,6}$/), fc.constantFrom('and', 'or', 'Not', 'é', '&x', '*', '*x'));
const numberText = fc.stringMatching(/^[0-9]{1,2}(\.[0-9]{1,2})?$/);
const slop = fc.option(fc.constantFrom('~', '~1', '~2', '~0.5', '~3'), { nil: '' });
/** term [~slop] [^boost [~slop]] with at most one slop (parser.ts wordTerm). */
const suffix = fc
  .tuple(slop, fc.option(numberText.map((n) => '^' + n), { nil: '' }), fc.boolean())
  .map(([s, b, slopAfterBoost]) => (b !== '' && slopAfterBoost ? (['', b + s] as const) : ([s, b] as const)));
const fastClause: fc.Arbitrary<string> = fc.letrec<{ clause: string }>((rec) => ({
  clause: fc
    .tuple(
      fc.constantFrom('', '', 'AND ', 'OR ', '&& ', '|| '),
      fc.constantFrom('', '', '+', '-', '!', 'NOT '),
      fc.option(fc.constantFrom('title:', 'body:', 'year:', 'f.x:'), { nil: '' }),
      fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.tuple(word, suffix).map(([w, [s, b]]) => w + s + b),
        fc.tuple(fc.array(word, { maxLength: 3 }), fc.option(fc.constantFrom('~1', '~5'), { nil: '' })).map(([ws, s]) => `"${ws.join(' ')}"${s}`),
        fc.tuple(fc.constantFrom('[', '{'), fc.oneof(word, numberText), fc.oneof(word, numberText), fc.constantFrom(']', '}')).map(([o, a, b, c]) => `${o}${a} TO ${b}${c}`),
        fc.tuple(fc.array(rec('clause'), { minLength: 1, maxLength: 3 }), fc.option(numberText.map((n) => '^' + n), { nil: '' })).map(([cs, b]) => `(${cs.join(' ')})${b}`),
      ),
    )
    .map(([conj, mod, field, body]) => conj + mod + field + body),
})).clause;

describe('Lucene fast path equals the full path', () => {
  it('on queries of the fast subset (and answers those without a leading AND/OR)', () => {
    let answered = 0;
    fc.assert(
      fc.property(fc.array(fastClause, { minLength: 1, maxLength: 5 }), sp, (clauses, s) => {
        if (same(clauses.join(s))) answered++;
      }),
      { numRuns: 1500 },
    );
    expect(answered).toBeGreaterThan(1000);
  });

  it('on printed random trees', () => {
    fc.assert(
      fc.property(luceneRoot, (root) => {
        same(printLucene(root));
      }),
      { numRuns: 800 },
    );
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

  it('on subset queries with one character deleted, inserted or replaced', () => {
    const edit = fc.tuple(fastClause, fc.nat(), fc.constantFrom('del', 'ins', 'rep'), fc.constantFrom(...'()[]{}:^~"+-!*?\\/ aT'));
    fc.assert(
      fc.property(edit, ([text, at, how, ch]) => {
        const i = at % (text.length + 1);
        same(how === 'del' ? text.slice(0, i) + text.slice(i + 1) : how === 'ins' ? text.slice(0, i) + ch + text.slice(i) : text.slice(0, i) + ch + text.slice(i + 1));
      }),
      { numRuns: 1500 },
    );
  });

  it.each([
    ['title:(a b) AND c OR "d e"~2 f^2', true],
    ['+a +b -"c d" e f', true],
    ['a~1 b* text:c (d OR e)^0.5 NOT f', true],
    ['year:[1950 TO 1970} AND (a OR b)', true],
    ['f~1^2 g^3~2 *:* AND x', true],
    ['f~1^2~3', false],
    ['a^2b c~1x', true],
    ['a and b or c', true],
    ['-a -b', true],
    ['a^0 b~3 c~1.5', true],
    ['a\\:b', false],
    ['/re+gex/', false],
    ['a + b', false],
    ['a^', false],
    ['a^x', false],
    ['(a b', false],
    ['a )', false],
    ['"a b', false],
    ['[a TO b', false],
    ['["a" TO b]', false],
    ['AND a', true],
    ['a AND', false],
  ])('%j (fast path answers: %s)', (text, answers) => {
    expect(same(text)).toBe(answers);
  });

  it('answers every query of the sample file', () => {
    const root = join(import.meta.dirname, '../../..');
    const lines = readFileSync(join(root, 'samples/queries.lucene'), 'utf8')
      .split('\n')
      .map((l) => (l.includes('\t') ? l.slice(l.indexOf('\t') + 1) : l).trim())
      .filter((l) => l !== '' && !l.startsWith('//'));
    expect(lines.length).toBeGreaterThan(0);
    for (const text of lines) expect(same(text), text).toBe(true);
  });
});
