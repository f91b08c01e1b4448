import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stripRanges, type BooleanNode, type QueryNode } from '../../../grammar/ast.js';
import { hasErrors } from '../../../grammar/diagnostics.js';
import { parseLucene } from '../../../grammar/lucene/index.js';
import { escapeLuceneTerm, formatLuceneNumber, printLucene } from '../../../grammar/print/lucene.js';
import { luceneRoot } from './arbitraries.js';

const R = { start: 0, end: 0 };

/** Clause flags as the printer writes them: via plus / minus / default. */
function canonicalVia<T>(value: T): T {
  if (Array.isArray(value)) return value.map(canonicalVia) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = canonicalVia(v);
    if ('occur' in out && 'via' in out) out.via = out.occur === 'must' ? 'plus' : out.occur === 'mustNot' ? 'minus' : 'default';
    return out as T;
  }
  return value;
}

describe('printLucene: canonical text', () => {
  it.each([
    ['a OR b AND c', 'a +b +c'],
    ['a AND b OR c', '+a +b c'],
    ['NOT x', '-x'],
    ['a && !b', '+a -b'],
    ['title:(a body:b)^2', 'title:(a body:b)^2'],
    ['title:(a (b c))', 'title:(a (b c))'],
    ['"a b"~3^2.50', '"a b"~3^2.5'],
    ['roam~ roam~1 roam~0.5', 'roam~ roam~1 roam~2'],
    ['te?t* *:*', 'te?t* *:*'],
    ['\\(1\\+1\\)\\:2', '\\(1+1\\)\\:2'],
    ['\\AND \\&& foo-bar \\-x', '\\AND \\&& foo-bar \\-x'],
    ['[a TO "x y"} {* TO *]', '[a TO "x y"} {* TO *]'],
    ['["TO" TO "*"]', '["TO" TO "*"]'],
    ['/a\\/b/', '/a\\/b/'],
    ['a\\ b', 'a\\ b'],
    ['"a \\"q\\" b"', '"a \\"q\\" b"'],
    ['a^0.0000001 b^1000000000000000000000', 'a^0.0000001 b^1000000000000000000000'],
    ['', ''],
  ])('%s → %s', (input, expected) => {
    const ast = parseLucene(input).ast;
    expect(printLucene(ast)).toBe(expected);
  });

  it('prints single nodes and escapes the characters Lucene reserves', () => {
    expect(printLucene({ kind: 'term', text: 'a:b (c)', raw: false, range: R })).toBe('a\\:b\\ \\(c\\)');
    expect(printLucene({ kind: 'term', text: '-x+y', raw: false, range: R })).toBe('\\-x+y');
    expect(escapeLuceneTerm('+ - && || ! ( ) { } [ ] ^ " ~ * ? : \\ /'.replace(/ /g, ''))).toBe('\\+-&&||\\!\\(\\)\\{\\}\\[\\]\\^\\"\\~\\*\\?\\:\\\\\\/');
    const boosted: QueryNode = { kind: 'boost', boost: 2, child: { kind: 'boost', boost: 3, child: { kind: 'term', text: 'a', raw: false, range: R }, range: R }, range: R };
    expect(printLucene(boosted)).toBe('(a^3)^2');
  });

  it('writes numbers without exponents that read back to the same double', () => {
    for (const n of [1, 0.5, 1e-7, 1.5e-10, 123e20, 1e21, 2.5e25, 0.1 + 0.2, Number.MIN_VALUE, Number.MAX_VALUE]) {
      const s = formatLuceneNumber(n);
      expect(s).toMatch(/^[0-9]+(\.[0-9]+)?$/);
      expect(Number(s)).toBe(n);
    }
  });
});

describe('printLucene: Indri-only shapes print as parseable Lucene', () => {
  const term = (text: string): QueryNode => ({ kind: 'term', text, raw: false, range: R });
  it.each<[string, QueryNode, string]>([
    ['#combine', { kind: 'belief', op: 'combine', items: [{ node: term('a') }, { node: term('b') }], range: R }, '(a b)'],
    ['#weight', { kind: 'belief', op: 'weight', items: [{ weight: 2, node: term('a') }, { weight: 0.5, node: term('b') }], range: R }, '(a^2 b^0.5)'],
    ['#not', { kind: 'belief', op: 'not', items: [{ node: term('a') }], range: R }, '(*:* -a)'],
    ['#1', { kind: 'window', ordered: true, size: 1, form: 'hash-number', children: [term('a'), term('b')], range: R }, '"a b"'],
    ['#uw8', { kind: 'window', ordered: false, size: 8, form: 'uw', children: [term('a'), term('b')], range: R }, '"a b"~8'],
    ['#syn', { kind: 'synonym', form: 'syn', items: [{ node: term('a') }, { node: term('b') }], range: R }, '(a b)'],
    ['#band', { kind: 'band', children: [term('a'), term('b')], range: R }, '(+a +b)'],
    ['#filreq', { kind: 'filter', mode: 'require', form: 'filreq', filter: term('a'), scored: term('b'), range: R }, '(+a^0 b)'],
    ['#less', { kind: 'numericCompare', op: 'less', field: 'year', values: [1990], range: R }, 'year:{* TO 1990}'],
  ])('%s', (_name, node, expected) => {
    expect(printLucene(node)).toBe(expected);
    expect(hasErrors(parseLucene(expected).diagnostics)).toBe(false);
  });
});

describe('printLucene: round trip', () => {
  it('random ASTs print to text that parses back to the same AST', () => {
    fc.assert(
      fc.property(luceneRoot, (ast: BooleanNode) => {
        const text = printLucene(ast);
        const back = parseLucene(text);
        expect(hasErrors(back.diagnostics), `${text}\n${JSON.stringify(back.diagnostics)}`).toBe(false);
        expect(stripRanges(back.ast.root), text).toEqual(stripRanges(ast));
      }),
      { numRuns: 400 },
    );
  });

  it('parsed queries keep their meaning through print (clause flags become + / -)', () => {
    for (const input of [
      'a OR b AND c',
      'a AND b OR c',
      'title:(+return +"pink panther") -x^2',
      '(a OR b) AND NOT c',
      'x:[1 TO 5} y:{* TO "b c"] /r.e/ roam~1 te?t',
      'a && b || !c',
    ]) {
      const first = parseLucene(input).ast;
      const printed = printLucene(first);
      expect(canonicalVia(stripRanges(parseLucene(printed).ast.root)), printed).toEqual(canonicalVia(stripRanges(first.root)));
      expect(printLucene(parseLucene(printed).ast)).toBe(printed);
    }
  });
});
