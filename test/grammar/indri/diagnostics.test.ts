import { describe, expect, it } from 'vitest';
import { stripRanges } from '../../../grammar/ast.js';
import type { QueryDiagnostic } from '../../../grammar/diagnostics.js';
import { parseIndri } from '../../../grammar/indri/index.js';
import { belief, implicit, num, raw, syn, t, win, type Expected } from './build.js';

interface Reported {
  code: string;
  message: string;
  /** The reported source text (text.slice(range)). */
  at: string;
  data?: unknown;
}

function reported(text: string): Reported[] {
  return parseIndri(text).diagnostics.map((d: QueryDiagnostic) => {
    const r: Reported = { code: d.code, message: d.message, at: text.slice(d.range.start, d.range.end) };
    if (d.data !== undefined) r.data = d.data;
    return r;
  });
}

function tree(text: string): unknown {
  return stripRanges(parseIndri(text).ast.root);
}

const error = (text: string): Expected => ({ kind: 'error', text });

/** Input → the diagnostics it must produce (code, message, reported text, data). */
const DIAGNOSTICS: [string, Reported[]][] = [
  ['#weight( white 1 house )', [
    {
      code: 'indri/weight-expected',
      message: '#weight expects a weight before each item; found the term "white"',
      at: 'white',
      data: { offset: 9, suggestedWeight: 1 },
    },
  ]],
  ['#wsyn(a 1 b)', [
    { code: 'indri/weight-expected', message: '#wsyn expects a weight before each item; found the term "a"', at: 'a', data: { offset: 6, suggestedWeight: 1 } },
  ]],
  // Σ|w| = 0: no weight at all (issue 11: NaN scores under ql); located on the operator.
  ['#weight( 0 heat 0 slab )', [
    { code: 'indri/zero-weights', message: 'every weight of this #weight is 0, so it gives its items no weight at all (Σ|w| = 0); give at least one item a non-zero weight', at: '#weight' },
  ]],
  ['#combine( #wand( 0.0 a ) #wsum( 0 a 0 b ) #wsyn( 0 a 0.00 b ) #weight( 0 a 1 b ) )', [
    { code: 'indri/zero-weights', message: 'every weight of this #wand is 0, so it gives its items no weight at all (Σ|w| = 0); give at least one item a non-zero weight', at: '#wand' },
    { code: 'indri/zero-weights', message: 'every weight of this #wsum is 0, so it gives its items no weight at all (Σ|w| = 0); give at least one item a non-zero weight', at: '#wsum' },
    { code: 'indri/zero-weights', message: 'every weight of this #wsyn is 0, so it gives its items no weight at all (Σ|w| = 0); give at least one item a non-zero weight', at: '#wsyn' },
  ]],
  ['#combine(a b', [
    { code: 'syntax/missing-close', message: 'missing ")" to close #combine opened at 1:1', at: '#combine(', data: { insert: ')', offset: 12, name: '#combine', openedAt: 0 } },
  ]],
  ['#weight(1 #1(a b', [
    { code: 'syntax/missing-close', message: 'missing ")" to close #weight opened at 1:1', at: '#weight(', data: { insert: ')', offset: 16, name: '#weight', openedAt: 0 } },
    { code: 'syntax/missing-close', message: 'missing ")" to close #1 opened at 1:11', at: '#1(', data: { insert: ')', offset: 16, name: '#1', openedAt: 10 } },
  ]],
  ['#combine(\n  a {b c\n)', [
    { code: 'syntax/missing-close', message: 'missing "}" to close "{" opened at 2:5', at: '{', data: { insert: '}', offset: 18, name: '"{"', openedAt: 14 } },
  ]],
  ['#foo(a)', [{ code: 'indri/unknown-operator', message: 'unknown operator #foo', at: '#foo' }]],
  ['#Combine(a)', [
    {
      code: 'indri/unknown-operator',
      message: 'unknown operator #Combine: operators are case-sensitive, did you mean #combine?',
      at: '#Combine',
      data: { suggestion: '#combine' },
    },
  ]],
  ['#combin(a)', [
    { code: 'indri/unknown-operator', message: 'unknown operator #combin, did you mean #combine?', at: '#combin', data: { suggestion: '#combine' } },
  ]],
  ['#uwx(a b)', [{ code: 'indri/window-size', message: '#uw needs a window size or none, found "x"', at: '#uwx' }]],
  ['#od2b(a b)', [{ code: 'indri/window-size', message: '#od needs a window size or none, found "2b"', at: '#od2b' }]],
  ['#sum(a b)', [
    {
      code: 'indri/sum-not-supported',
      message: '#sum is not accepted by Indri as a scored operator; use #combine (equal weights) or #wsum with a weight before each item',
      at: '#sum',
    },
  ]],
  ['#base64(!!x)', [{ code: 'indri/invalid-base64', message: '#base64 body is not valid base64', at: '#base64(!!x)' }]],
  ['#base64quote(A)', [{ code: 'indri/invalid-base64', message: '#base64quote body is not valid base64', at: '#base64quote(A)' }]],
  ['#base64(/w==)', [{ code: 'indri/invalid-base64', message: '#base64 body does not decode to UTF-8 text', at: '#base64(/w==)' }]],
  ['#base64(ZG9n', [{ code: 'syntax/missing-close', message: 'missing ")" to close #base64', at: '#base64(ZG9n', data: { insert: ')', offset: 12 } }]],
  ['c++ rocks', [
    {
      code: 'indri/needs-base64',
      message: "Indri's parser rejects the characters + in \"c++\"; write it as #base64(Yysr)",
      at: 'c++',
      data: { encoded: 'Yysr', quote: false },
    },
  ]],
  ['"at&t"', [
    {
      code: 'indri/needs-base64',
      message: "Indri's parser rejects the characters & in \"at&t\"; write it as #base64quote(YXQmdA==)",
      at: '"at&t"',
      data: { encoded: 'YXQmdA==', quote: true },
    },
  ]],
  ['a\u0000b', [
    {
      code: 'indri/needs-base64',
      message: "Indri's parser rejects the characters U+0000 in \"a\\u0000b\"; write it as #base64(YQBi)",
      at: 'a\u0000b',
      data: { encoded: 'YQBi', quote: false },
    },
  ]],
  ['x\uD800y', [
    {
      code: 'indri/invalid-utf16',
      message: 'the term "x\\ud800y" contains a lone UTF-16 surrogate, which is not a character; remove it',
      at: 'x\uD800y',
    },
  ]],
  ['#not(a b)', [{ code: 'indri/not-arity', message: '#not takes exactly one item, found 2; wrap several in #combine( ... )', at: 'b' }]],
  ['#combine()', [{ code: 'syntax/empty-operator', message: '#combine needs at least one item', at: '#combine()' }]],
  ['#weight()', [{ code: 'syntax/empty-operator', message: '#weight needs a weight and an item', at: '#weight()' }]],
  ['#uw8()', [{ code: 'syntax/empty-operator', message: '#uw8 needs at least one term', at: '#uw8()' }]],
  ['#between(year 5)', [{ code: 'indri/arity', message: '#between takes a field and two numbers, found 1', at: '#between(year 5)' }]],
  ['#dateafter()', [{ code: 'indri/arity', message: '#dateafter takes one date, found 0', at: '#dateafter()' }]],
  ['#1(a #combine(b))', [
    { code: 'indri/scored-in-unscored', message: '#combine cannot be used inside #1: only terms and extent operators (#1, #uw, #syn, ...) can', at: '#combine' },
    { code: 'syntax/unmatched-close', message: '")" has no matching "("', at: ')', data: { close: ')' } },
  ]],
  ['#1(a.(title) b)', [
    {
      code: 'indri/context-not-allowed',
      message: 'a context ".(field)" is only allowed on a scored term, not inside an extent operator or a filter',
      at: '(title)',
    },
  ]],
  ['#combine[p100:50](a)', [
    { code: 'indri/bad-passage', message: 'Indri reads [p100:50] as a passage window; write [passage100:50]', at: '[p100:50]' },
  ]],
  ['"white house"', [
    { code: 'indri/quoted-phrase', message: 'Indri has no quoted phrases: "..." holds one raw term; write #1( ... ) for a phrase', at: 'house' },
  ]],
  ['dog -cat', [
    {
      code: 'indri/no-minus-operator',
      message: 'Indri has no "-" operator to exclude a term; use #not( ... ) to score against it or #filrej( ... ) to drop documents that match it',
      at: '-',
    },
  ]],
  ['(a b)', [
    { code: 'syntax/unexpected-token', message: 'Indri has no "(" grouping; use #combine( ... ) to group items', at: '(' },
    { code: 'syntax/unmatched-close', message: '")" has no matching "("', at: ')', data: { close: ')' } },
  ]],
  [`#weight(1 a ${'9'.repeat(310)} b)`, [
    { code: 'indri/number-out-of-range', message: 'the weight 99999999999999999999… is too large', at: '9'.repeat(310) },
  ]],
  ['#less(year 123456789012345678901)', [
    { code: 'indri/arity', message: '#less takes a field and one number, found 0', at: '#less(year 123456789012345678901)' },
    { code: 'indri/number-out-of-range', message: '123456789012345678901 is too large to compare exactly', at: '123456789012345678901' },
  ]],
];

describe('parseIndri: diagnostics in the user\'s words', () => {
  it.each(DIAGNOSTICS)('%j', (text, expected) => {
    expect(reported(text)).toEqual(expected);
  });

  it('reports several errors of one query, in one parse', () => {
    const text = '#weight(white 1 house) #combine(a ] b) #foo(c) #uw8()';
    expect(reported(text).map((d) => [d.code, d.at])).toEqual([
      ['indri/weight-expected', 'white'],
      ['syntax/unmatched-close', ']'],
      ['indri/unknown-operator', '#foo'],
      ['syntax/empty-operator', '#uw8()'],
    ]);
    expect(tree(text)).toEqual(
      implicit([
        { kind: 'belief', op: 'weight', items: [{ node: t('white') }, { weight: 1, node: t('house') }] },
        belief('combine', [t('a'), t('b')]),
        error('#foo(c)'),
        win('uw', false, 8, []),
      ]),
    );
  });

  it('never hands out Chevrotain wording or token type names', () => {
    const texts = ['#combine(a', '#weight(0.5)', '#1(a #weight(1 b))', '#any:)', '#less(1 2)', '#prior()', '[', '#filreq(a)', '"', '#dateafter(x)'];
    for (const text of texts) {
      for (const d of parseIndri(text).diagnostics) {
        expect(d.message).not.toMatch(/-->|<--|Expecting|TokenType|NumberTok|FloatTok|RParen|LParen|Term\b|token of type/);
        expect(d.code).toMatch(/^(indri|syntax)\//);
      }
    }
  });
});

/**
 * Chevrotain's four recovery strategies (see its step4_error_recovery tutorial): each must
 * give a located message and keep the rest of the tree.
 */
describe('parseIndri: error recovery', () => {
  it('single-token insertion: a missing ")" before a token that can follow it', () => {
    const text = '{a #1(b c} d';
    expect(reported(text)).toEqual([
      { code: 'syntax/missing-close', message: 'missing ")" to close #1 opened at 1:4', at: '#1(', data: { insert: ')', offset: 9, name: '#1', openedAt: 3 } },
    ]);
    expect(tree(text)).toEqual(implicit([syn('braces', [t('a'), win('hash-number', true, 1, [t('b'), t('c')])]), t('d')]));
  });

  it('single-token deletion: an extra token before the expected one', () => {
    const text = '#combine(#less(year x) b)';
    expect(reported(text)).toEqual([
      { code: 'indri/arity', message: '#less takes a field and one number, found 0', at: '#less(year x)' },
      { code: 'syntax/unexpected-token', message: 'expected ")" to close #less, found "x"', at: 'x' },
    ]);
    expect(tree(text)).toEqual(belief('combine', [{ kind: 'numericCompare', op: 'less', field: 'year', values: [] }, t('b')]));

    const text2 = '#combine[title]](a)';
    expect(reported(text2)).toEqual([{ code: 'syntax/unexpected-token', message: 'expected "(", found "]"', at: ']' }]);
    expect(tree(text2)).toEqual(belief('combine', [t('a')], { restriction: { kind: 'field', field: 'title' } as never }));
  });

  it('re-sync inside a repetition: a junk token between items is skipped', () => {
    const text = '#combine(a ] b :: c)';
    expect(reported(text)).toEqual([
      { code: 'syntax/unmatched-close', message: '"]" has no matching "["', at: ']', data: { close: ']' } },
      { code: 'syntax/unexpected-token', message: 'expected ")" to close #combine, found ":"', at: ':' },
    ]);
    expect(tree(text)).toEqual(belief('combine', [t('a'), t('b'), t('c')]));
  });

  it('re-sync between rules: a rule that fails gives way to what follows it', () => {
    const text = '#combine(#weight(0.5 a 0.5) b)';
    expect(reported(text)).toEqual([
      { code: 'indri/item-expected', message: 'expected an item after the weight 0.5, found ")"', at: ')' },
    ]);
    expect(tree(text)).toEqual(
      belief('combine', [
        { kind: 'belief', op: 'weight', items: [{ weight: 0.5, node: t('a') }, { weight: 0.5, node: error('') }] },
        t('b'),
      ]),
    );
  });

  it('stray tokens at the top level do not stop the parse', () => {
    const text = ') a ] #1(b c) , d';
    expect(reported(text).map((d) => d.at)).toEqual([')', ']', ',']);
    expect(tree(text)).toEqual(implicit([t('a'), win('hash-number', true, 1, [t('b'), t('c')]), t('d')]));
  });

  it('keeps raw and numeric terms through recovery', () => {
    expect(tree('#combine("x" 5 ] -2')).toEqual(belief('combine', [raw('x'), num('5'), num('-2')]));
  });
});

describe('parseIndri: total', () => {
  it('turns an internal failure into a diagnostic instead of throwing', () => {
    const result = parseIndri(undefined as unknown as string);
    expect(result.ast).toEqual({ dialect: 'indri', root: null, range: { start: 0, end: 0 } });
    expect(result.diagnostics.map((d) => d.code)).toEqual(['internal/parser-failure']);
  });

  it('reports nesting deeper than the limit once, with a partial tree', () => {
    const text = '#combine('.repeat(600) + 'a' + ')'.repeat(600);
    const { ast, diagnostics } = parseIndri(text);
    expect(diagnostics.map((d) => [d.code, text.slice(d.range.start, d.range.end)])).toEqual([['syntax/too-deep', '(']]);
    expect(diagnostics[0].range.start).toBe(500 * 9 + 8);
    expect(ast.root).toEqual({ kind: 'error', text, range: { start: 0, end: text.length } });
  });
});


describe('parseIndri: what a word is for', () => {
  it.each([
    ['#prior()', 'expected a prior name, found ")"'],
    ['#any:', 'expected a field name, found the end of the query'],
    ['#less(1 2)', 'expected a field name, found "1"'],
    ['term.', 'expected a field name or a context "(field)" after ".", found the end of the query'],
    ['#combine[](a)', 'expected a field name, passageN:M or ./path, found "]"'],
  ])('%j', (text, message) => {
    expect(parseIndri(text).diagnostics.map((d) => d.message)).toContain(message);
  });
});
