import { describe, expect, it, vi } from 'vitest';
import { stripRanges, type QueryNode } from '../../../grammar/ast.js';
import { hasErrors } from '../../../grammar/diagnostics.js';
import { parseLucene, parseLuceneFull } from '../../../grammar/lucene/index.js';
import { luceneParser } from '../../../grammar/lucene/parser.js';
import {
  boost,
  error,
  fuzzy,
  group,
  matchAll,
  must,
  mustNot,
  phrase,
  range,
  regex,
  root,
  should,
  term,
  wild,
  words,
} from './builders.js';

const codes = (text: string, options?: Parameters<typeof parseLucene>[1]) => parseLucene(text, options).diagnostics.map((d) => d.code);

/** Valid queries: input → expected tree; no error diagnostics allowed. SEMANTICS.md §3. */
const constructs: [string, unknown][] = [
  ['a', words('a')],
  ['a b  c', words('a', 'b', 'c')],
  ['title:term', root(should(term('term', 'title')))],
  ['title:The Right Way', root(should(term('The', 'title')), should(term('Right')), should(term('Way')))],
  ['title:(a b)', root(should(group([should(term('a', 'title')), should(term('b', 'title'))], 'title')))],
  ['title:(+return +"pink panther")', root(should(group([must(term('return', 'title')), must(phrase(['pink', 'panther'], 0, false, 'title'))], 'title')))],
  ['title:(a body:b)', root(should(group([should(term('a', 'title')), should(term('b', 'body'))], 'title')))],
  ['title:(a (b c))', root(should(group([should(term('a', 'title')), should(group([should(term('b', 'title')), should(term('c', 'title'))]))], 'title')))],
  ['"hello dolly"', root(should(phrase(['hello', 'dolly'])))],
  ['"hello"', root(should(phrase(['hello'])))],
  ['"jakarta apache"~10', root(should(phrase(['jakarta', 'apache'], 10, true)))],
  ['"a b"~2.7', root(should(phrase(['a', 'b'], 2, true)))],
  ['"a \\"b\\" c"', root(should(phrase(['a', '"b"', 'c'])))],
  ['term^4', root(should(boost(term('term'), 4)))],
  ['term^0.5', root(should(boost(term('term'), 0.5)))],
  ['"a b"^4', root(should(boost(phrase(['a', 'b']), 4)))],
  ['"a b"~3^2', root(should(boost(phrase(['a', 'b'], 3, true), 2)))],
  ['(a b)^2', root(should(boost(group([should(term('a')), should(term('b'))]), 2)))],
  ['title:(a)^1.5', root(should(boost(group([should(term('a', 'title'))], 'title'), 1.5)))],
  ['+a -b c', root(must(term('a')), mustNot(term('b')), should(term('c')))],
  ['a AND b', root(must(term('a'), 'coerced-by-AND'), must(term('b'), 'AND'))],
  ['a && b', root(must(term('a'), 'coerced-by-AND'), must(term('b'), 'AND'))],
  ['a OR b', root(should(term('a')), should(term('b'), 'OR'))],
  ['a || b', root(should(term('a')), should(term('b'), 'OR'))],
  ['a NOT b', root(should(term('a')), mustNot(term('b'), 'NOT'))],
  ['a !b', root(should(term('a')), mustNot(term('b'), 'NOT'))],
  ['a AND NOT b', root(must(term('a'), 'coerced-by-AND'), mustNot(term('b'), 'NOT'))],
  ['-a AND b', root(mustNot(term('a')), must(term('b'), 'AND'))],
  ['+a OR b', root(must(term('a')), should(term('b'), 'OR'))],
  ['roam~', root(should(fuzzy('roam')))],
  ['roam~1', root(should(fuzzy('roam', 1, true)))],
  ['roam~0', root(should(fuzzy('roam', 0, true)))],
  ['roam~0.5', root(should(fuzzy('roam', 2, true)))], // legacy similarity: (1-0.5)*4 = 2 edits
  ['roam~0.8', root(should(fuzzy('roam', 0, true)))], // (1-0.8)*4 = 0.8 → 0
  ['roam~1^2', root(should(boost(fuzzy('roam', 1, true), 2)))],
  ['roam^2~1', root(should(boost(fuzzy('roam', 1, true), 2)))],
  ['title:roam~', root(should(fuzzy('roam', 2, false, 'title')))],
  ['te?t', root(should(wild('te?t')))],
  ['test*', root(should(wild('test*')))],
  ['te*t', root(should(wild('te*t')))],
  ['title:te*', root(should(wild('te*', 'title')))],
  ['f\\*o*', root(should(wild('f\\*o*')))],
  ['/[mb]oat/', root(should(regex('[mb]oat')))],
  ['title:/a\\/b/', root(should(regex('a\\/b', 'title')))],
  ['[a TO b]', root(should(range('a', 'b', true, true)))],
  ['{a TO b}', root(should(range('a', 'b', false, false)))],
  ['[a TO b}', root(should(range('a', 'b', true, false)))],
  ['{a TO b]', root(should(range('a', 'b', false, true)))],
  ['[* TO b]', root(should(range(null, 'b', true, true)))],
  ['{a TO *}', root(should(range('a', null, false, false)))],
  ['date:[20020101 TO 20030101]', root(should(range('20020101', '20030101', true, true, 'date')))],
  ['["a b" TO "*"]', root(should(range('a b', '*', true, true)))],
  ['[a TO b]^3', root(should(boost(range('a', 'b', true, true), 3)))],
  ['*:*', root(should(matchAll()))],
  ['*:*^2 -x', root(should(boost(matchAll(), 2)), mustNot(term('x')))],
  ['\\(1\\+1\\)\\:2', words('(1+1):2')],
  ['\\+ \\- \\&& \\|| \\! \\( \\) \\{ \\} \\[ \\] \\^ \\" \\~ \\* \\? \\: \\\\ \\/', words('+', '-', '&&', '||', '!', '(', ')', '{', '}', '[', ']', '^', '"', '~', '*', '?', ':', '\\', '/')],
  ['foo-bar +x', root(should(term('foo-bar')), must(term('x')))],
  ['ANDY ORACLE NOTE', words('ANDY', 'ORACLE', 'NOTE')],
  ['a&&b', words('a&&b')],
  ['a\u3000b', words('a', 'b')],
  ['café 東京', words('café', '東京')],
];

describe('parseLucene: constructs (SEMANTICS.md §3)', () => {
  it.each(constructs)('%s', (input, expected) => {
    const result = parseLucene(input);
    expect(stripRanges(result.ast.root)).toEqual(expected);
    expect(result.ast.dialect).toBe('lucene');
    expect(hasErrors(result.diagnostics), JSON.stringify(result.diagnostics)).toBe(false);
  });
});

/** SEMANTICS.md §3 "precedence pitfall": QueryParserBase.addClause, default operator OR and AND. */
const pitfalls: [string, 'OR' | 'AND', unknown][] = [
  ['a OR b AND c', 'OR', root(should(term('a')), must(term('b'), 'coerced-by-AND'), must(term('c'), 'AND'))],
  ['a AND b OR c', 'OR', root(must(term('a'), 'coerced-by-AND'), must(term('b'), 'AND'), should(term('c'), 'OR'))],
  ['NOT x', 'OR', root(mustNot(term('x'), 'NOT'))],
  ['a AND -b OR c', 'OR', root(must(term('a'), 'coerced-by-AND'), mustNot(term('b')), should(term('c'), 'OR'))],
  ['a b', 'AND', root(must(term('a'), 'default'), must(term('b'), 'default'))],
  ['a OR b', 'AND', root(should(term('a'), 'coerced-by-OR'), should(term('b'), 'OR'))],
  ['-a OR b', 'AND', root(mustNot(term('a')), should(term('b'), 'OR'))],
  ['a OR b AND c', 'AND', root(should(term('a'), 'coerced-by-OR'), must(term('b'), 'coerced-by-AND'), must(term('c'), 'AND'))],
  // a is already required by default, so the AND changes nothing and via stays 'default'.
  ['a AND b OR c', 'AND', root(must(term('a'), 'default'), should(term('b'), 'coerced-by-OR'), should(term('c'), 'OR'))],
  ['+a OR b', 'AND', root(should(term('a'), 'coerced-by-OR'), should(term('b'), 'OR'))],
  ['(a OR b) AND c', 'OR', root(must(group([should(term('a')), should(term('b'), 'OR')]), 'coerced-by-AND'), must(term('c'), 'AND'))],
];

describe('parseLucene: clause flags as addClause sets them', () => {
  it.each(pitfalls)('%s (default %s)', (input, op, expected) => {
    expect(stripRanges(parseLucene(input, { defaultOperator: op }).ast.root)).toEqual(expected);
  });

  it('explains the AND/OR pitfall in the warning, in Lucene terms', () => {
    const d = parseLucene('a OR b AND c').diagnostics.find((x) => x.code === 'lucene/mixed-and-or');
    expect(d).toMatchObject({ severity: 'warning', range: { start: 0, end: 12 } });
    expect(d!.message).toBe('"a OR b AND c" means a +b +c in Lucene (b and c required, a optional); add parentheses to say what you mean');
    const d2 = parseLucene('a AND b OR c').diagnostics.find((x) => x.code === 'lucene/mixed-and-or');
    expect(d2!.message).toContain('means +a +b c in Lucene (a and b required, c optional)');
  });

  it('warns about mixing only where the mix is not parenthesised', () => {
    expect(codes('(a OR b) AND c')).not.toContain('lucene/mixed-and-or');
    expect(codes('a || b && c')).toContain('lucene/mixed-and-or');
    const inner = parseLucene('x (a OR b AND c)').diagnostics.filter((d) => d.code === 'lucene/mixed-and-or');
    expect(inner).toHaveLength(1);
    expect(inner[0].range).toEqual({ start: 3, end: 15 });
  });

  it('warns that a purely negative query matches nothing, at any level', () => {
    expect(codes('NOT x')).toContain('lucene/only-negative');
    expect(codes('-a -b')).toContain('lucene/only-negative');
    expect(codes('a (-b)')).toContain('lucene/only-negative');
    expect(codes('a -b')).not.toContain('lucene/only-negative');
    expect(codes('*:* -b')).not.toContain('lucene/only-negative');
  });
});

describe('parseLucene: hints and warnings', () => {
  it('suggests upper case for a lower-case operator between two clauses only', () => {
    const d = parseLucene('cats and dogs').diagnostics;
    expect(d).toEqual([
      {
        code: 'lucene/lowercase-operator',
        severity: 'info',
        message: "'and' is searched as a word; did you mean AND? (Lucene operators must be upper case)",
        range: { start: 5, end: 8 },
        data: { replacement: 'AND' },
      },
    ]);
    expect(parseLucene('cats Or dogs').diagnostics[0].data).toEqual({ replacement: 'OR' });
    expect(codes('and dogs')).toEqual([]);
    expect(codes('cats and')).toEqual([]);
    expect(codes('cats +and dogs')).toEqual([]);
    expect(stripRanges(parseLucene('cats and dogs').ast.root)).toEqual(words('cats', 'and', 'dogs'));
  });

  it.each([
    ['*oo', 'lucene/leading-wildcard', { start: 0, end: 3 }],
    ['title:?oo', 'lucene/leading-wildcard', { start: 6, end: 9 }],
    ['roam~3', 'lucene/fuzzy-too-far', { start: 4, end: 6 }],
    ['te*t~1', 'lucene/ignored-fuzzy', { start: 4, end: 6 }],
    ['roam~1.5x', 'lucene/ignored-fuzzy', { start: 4, end: 9 }],
    ['"a b"~2x', 'lucene/ignored-fuzzy', { start: 5, end: 8 }],
    ['/a/~2', 'lucene/ignored-fuzzy', { start: 3, end: 5 }],
    ['a^0', 'lucene/zero-boost', { start: 1, end: 3 }],
    ['""', 'lucene/empty-phrase', { start: 0, end: 2 }],
    ['"a* b"', 'lucene/wildcard-in-phrase', { start: 1, end: 3 }],
    ['a + b', 'lucene/bare-operator', { start: 2, end: 3 }],
    ['a\u0000b', 'lucene/control-character', { start: 1, end: 2 }],
    ['a\ud800b', 'lucene/lone-surrogate', { start: 1, end: 2 }],
  ])('%s → %s', (input, code, r) => {
    const d = parseLucene(input).diagnostics.find((x) => x.code === code);
    expect(d, JSON.stringify(parseLucene(input).diagnostics)).toBeDefined();
    expect(d!.severity).not.toBe('error');
    expect(d!.range).toEqual(r);
  });

  it('keeps the tree for warned constructs', () => {
    expect(stripRanges(parseLucene('*oo').ast.root)).toEqual(root(should(wild('*oo'))));
    expect(stripRanges(parseLucene('roam~3').ast.root)).toEqual(root(should(fuzzy('roam', 2, true))));
    expect(stripRanges(parseLucene('te*t~1').ast.root)).toEqual(root(should(wild('te*t'))));
    expect(stripRanges(parseLucene('roam~1.5x').ast.root)).toEqual(root(should(fuzzy('roam', 2, false))));
    expect(stripRanges(parseLucene('"a b"~2x').ast.root)).toEqual(root(should(phrase(['a', 'b']))));
    expect(stripRanges(parseLucene('/a/~2^3').ast.root)).toEqual(root(should(boost(regex('a'), 3))));
    expect(stripRanges(parseLucene('a + b').ast.root)).toEqual(words('a', '+', 'b'));
  });
});

// What Lucene's own lexer does (checked against Lucene 8's QueryParser by test/oracle/lucene-parser.test.ts):
// the boost state reads one number, `~` takes every term character after it, only `\/` escapes a
// regex's slash, range bounds are the longest of a quoted bound and goop, `\uXXXX` is decoded.
describe("parseLucene: Lucene's lexical rules", () => {
  it.each<[string, ReturnType<typeof root>]>([
    ['a^2b', root(should(boost(term('a'), 2)), should(term('b')))],
    ['a^1.5.5', root(should(boost(term('a'), 1.5)), should(term('.5')))],
    ['roam^2~1', root(should(boost(fuzzy('roam', 1, true), 2)))],
    ['"a b"^2~1', root(should(boost(phrase(['a', 'b'], 1, true), 2)))],
    ['roam~2d', root(should(fuzzy('roam', 2, true)))],
    ['roam~NaN', root(should(fuzzy('roam', 0, true)))],
    ['x1:Z1~123456789.123', root(should(fuzzy('Z1', 2, true, 'x1')))],
    ['"a b"~1e3', root(should(phrase(['a', 'b'], 1000, true)))],
    ['/a\\\\/b/', root(should(regex('a\\\\/b')))],
    ['/ab/i', root(should(regex('ab')), should(term('i')))],
    ['[""x TO b]', root(should(range('""x', 'b', true, true)))],
    ['["abc TO b]', root(should(range('"abc', 'b', true, true)))],
    ['[a\tx TO b]', root(should(range('a\tx', 'b', true, true)))],
    ['a\\u0041b', root(should(term('aAb')))],
  ])('%j', (input, expected) => {
    const r = parseLucene(input);
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(stripRanges(r.ast.root)).toEqual(expected);
  });

  it.each(['tex~t:flow', '*~1title:9xx', 'a^2^3', '(a)^2~1'])('%j is an error, as in Lucene', (input) => {
    expect(hasErrors(parseLucene(input).diagnostics)).toBe(true);
  });
});

describe('parseLucene: errors', () => {
  it.each([
    ['(a b', 'syntax/missing-close', { start: 4, end: 4 }, { insert: ')', offset: 4 }],
    ['title:(a', 'syntax/missing-close', { start: 8, end: 8 }, { insert: ')', offset: 8 }],
    ['"a b', 'syntax/missing-close', { start: 0, end: 4 }, { insert: '"', offset: 4 }],
    ['[a TO b', 'syntax/missing-close', { start: 7, end: 7 }, { insert: ']', offset: 7 }],
    ['{a TO b', 'syntax/missing-close', { start: 7, end: 7 }, { insert: '}', offset: 7 }],
    ['/ab', 'syntax/missing-close', { start: 0, end: 3 }, { insert: '/', offset: 3 }],
    ['[a TO "b', 'syntax/missing-close', { start: 8, end: 8 }, { insert: ']', offset: 8 }],
  ])('%s → %s with the text to insert', (input, code, r, data) => {
    const d = parseLucene(input).diagnostics.find((x) => x.code === code);
    expect(d).toMatchObject({ severity: 'error', range: r, data });
  });

  it.each([
    ['a AND', 'syntax/expected-clause', "expected a term, phrase, range or group after 'AND', but the query ends here", { start: 5, end: 5 }],
    ['a ) b', 'syntax/unmatched-close', "unexpected ')': there is no '(' for it to close", { start: 2, end: 3 }],
    ['a ] b', 'syntax/unmatched-close', "unexpected ']': no range is open", { start: 2, end: 3 }],
    ['^2 a', 'syntax/unexpected-token', "'^' must follow a term, phrase or group (as in term^2)", { start: 0, end: 2 }],
    ['roam~1^2~2', 'syntax/unexpected-token', "only one '~' is allowed on a term, before or after its boost: remove '~1' or '~2'", { start: 8, end: 10 }],
    ['"a b"~1^2~3', 'syntax/unexpected-token', "only one '~' is allowed on a phrase, before or after its boost: remove '~1' or '~3'", { start: 9, end: 11 }],
    ['roam~-1', 'lucene/bad-fuzzy', 'a fuzzy term cannot have a negative similarity: use ~1 or ~2, not ~-1', { start: 4, end: 7 }],
    ['roam~1e20', 'lucene/bad-fuzzy', 'fractional edit distances are not allowed: use ~1 or ~2, not ~1e20', { start: 4, end: 9 }],
    ['"a b"~-1', 'lucene/bad-slop', 'a phrase slop cannot be negative: ~-1', { start: 5, end: 8 }],
    ['a\\uZZ', 'lucene/bad-escape', "'\\uZZ' is not a unicode escape: Lucene needs \\u and four hex digits (write \\\\u for a backslash and a u)", { start: 1, end: 5 }],
    ['a^ 2', 'lucene/bad-boost', "expected a number after '^' (for example ^2 or ^0.5)", { start: 1, end: 2 }],
    ['a\\', 'lucene/dangling-escape', "a '\\' at the end escapes nothing; write '\\\\' for a backslash", { start: 1, end: 2 }],
    ['a^x', 'lucene/bad-boost', "expected a number after '^' (for example ^2 or ^0.5)", { start: 1, end: 2 }],
    ['roam~1.5', 'lucene/bad-fuzzy', 'fractional edit distances are not allowed: use ~1 or ~2, not ~1.5', { start: 4, end: 8 }],
    ['()', 'syntax/empty-group', "empty group '()': Lucene needs at least one clause inside parentheses", { start: 0, end: 2 }],
    ['AND a', 'syntax/unexpected-token', "'AND' at the start has nothing before it to join", { start: 0, end: 3 }],
    ['fo*:bar', 'lucene/bad-field', "a field name cannot contain wildcards: 'fo*'", { start: 0, end: 3 }],
  ])('%s → %s', (input, code, message, r) => {
    const d = parseLucene(input).diagnostics.filter((x) => x.code === code);
    expect(d).toEqual([expect.objectContaining({ severity: 'error', message, range: r })]);
  });

  it('reports every unclosed group once, including those recovery re-synced out of', () => {
    const nested = parseLucene('((a').diagnostics.filter((d) => d.code === 'syntax/missing-close');
    expect(nested.map((d) => [d.range, d.data])).toEqual([
      [{ start: 0, end: 1 }, { insert: ')', offset: 3 }],
      [{ start: 3, end: 3 }, { insert: ')', offset: 3 }],
    ]);
    const afterOr = parseLucene('(a OR').diagnostics;
    expect(afterOr.map((d) => d.code)).toEqual(['syntax/missing-close', 'syntax/expected-clause']);
    expect(afterOr[0]).toMatchObject({ message: "missing ')' to close this '('", range: { start: 0, end: 1 }, data: { insert: ')', offset: 5 } });
    expect(parseLucene('(a b').diagnostics).toHaveLength(1);
    const range = parseLucene('{a TO').diagnostics;
    expect(range.map((d) => d.code)).toEqual(['syntax/missing-close', 'lucene/range-bound']);
    expect(range[0]).toMatchObject({ message: "missing '}' to close this '{'", range: { start: 0, end: 1 }, data: { insert: '}', offset: 5 } });
    // The ']' is there but recovery skipped it with the extra bounds: not "missing".
    expect(parseLucene('[a TO b c d] e').diagnostics.map((d) => d.code)).toEqual(['syntax/unexpected-token']);
  });

  it('reports several errors in one query', () => {
    const d = parseLucene('(a ] b) ) c^x "d').diagnostics.filter((x) => x.severity === 'error');
    expect(d.map((x) => x.code)).toEqual(['syntax/unmatched-close', 'syntax/unmatched-close', 'lucene/bad-boost', 'syntax/missing-close']);
  });

  it('is total: empty text has a null root, anything else a BooleanNode root', () => {
    expect(parseLucene('').ast.root).toBeNull();
    expect(parseLucene(' \t\n\u3000').ast.root).toBeNull();
    expect(parseLucene(')').ast.root).toMatchObject({ kind: 'boolean', grouped: false });
    expect(parseLucene('a').ast).toEqual({ dialect: 'lucene', range: { start: 0, end: 1 }, root: expect.objectContaining({ kind: 'boolean', grouped: false }) });
  });
});

describe('parseLucene: ranges', () => {
  it('gives exact ranges for leaves, fields, boosts, groups and operators', () => {
    const text = 'title:foo^2 AND -"a b" (c)';
    const r = parseLucene(text).ast.root as never as { clauses: { node: { range: { start: number; end: number }; child?: unknown }; operatorRange?: unknown }[] };
    const [c1, c2, c3] = r.clauses;
    expect(text.slice(c1.node.range.start, c1.node.range.end)).toBe('title:foo^2');
    expect((c1.node as never as { child: { range: { start: number; end: number } } }).child.range).toEqual({ start: 0, end: 9 });
    expect(c2.operatorRange).toEqual({ start: 12, end: 17 });
    expect(text.slice(c2.node.range.start, c2.node.range.end)).toBe('"a b"');
    expect(text.slice(c3.node.range.start, c3.node.range.end)).toBe('(c)');
    const p = (c2.node as never as { terms: { range: { start: number; end: number } }[] }).terms;
    expect(p.map((t) => text.slice(t.range.start, t.range.end))).toEqual(['a', 'b']);
  });

  it('maps escaped phrase words back to the source', () => {
    const text = '"x\\"y z"';
    const p = (parseLucene(text).ast.root as never as { clauses: { node: { terms: { text: string; range: { start: number; end: number } }[] } }[] }).clauses[0].node.terms;
    expect(p.map((t) => [t.text, text.slice(t.range.start, t.range.end)])).toEqual([
      ['x"y', 'x\\"y'],
      ['z', 'z'],
    ]);
  });
});

describe('parseLucene: limits', () => {
  it('refuses nesting deeper than the limit before parsing', () => {
    const deep = '('.repeat(10_000) + 'a' + ')'.repeat(10_000);
    const r = parseLucene(deep);
    expect(r.diagnostics.map((d) => d.code)).toEqual(['syntax/too-deep']);
    expect(r.ast.root).toMatchObject({ kind: 'boolean', grouped: false });
  });

  it('parses nesting up to the limit', async () => {
    const { MAX_NESTING_DEPTH } = await import('../../../grammar/lucene/index.js');
    const text = '('.repeat(MAX_NESTING_DEPTH) + 'a' + ')'.repeat(MAX_NESTING_DEPTH);
    const r = parseLucene(text);
    expect(r.diagnostics).toEqual([]);
    let node: QueryNode = r.ast.root!;
    let depth = 0;
    while (node.kind === 'boolean') {
      node = node.clauses[0].node;
      depth++;
    }
    expect(depth).toBe(MAX_NESTING_DEPTH + 1);
    expect(node).toMatchObject({ kind: 'term', text: 'a' });
  });

  it('does not count parentheses inside phrases or escapes', () => {
    expect(codes(`"${'('.repeat(2000)}" ${'\\('.repeat(2000)}`)).not.toContain('syntax/too-deep');
  });

  it('keeps an error node when nothing can be built', () => {
    expect(stripRanges(parseLucene('a ^^ b').ast.root)).toEqual(root(should(term('a')), should(error('^')), should(term('b'))));
    expect(stripRanges(parseLucene('a ^x').ast.root)).toEqual(words('a', 'x'));
  });
});

// The Chevrotain parser is mocked to fail: parseLuceneFull, because parseLucene's fast path
// (fast.ts) reads these simple queries without Chevrotain.
describe('parseLucene: never throws', () => {
  it('turns an internal failure into internal/parser-failure with an error-node tree', () => {
    const spy = vi.spyOn(luceneParser, 'topQuery').mockImplementation(() => {
      throw new Error('boom');
    });
    try {
      const r = parseLuceneFull('a b');
      expect(r.diagnostics).toEqual([
        { code: 'internal/parser-failure', severity: 'error', message: 'internal error in the Lucene parser: boom', range: { start: 0, end: 3 } },
      ]);
      expect(stripRanges(r.ast.root)).toEqual(root(should(error('a b'))));
    } finally {
      spy.mockRestore();
    }
    expect(parseLuceneFull('a b').diagnostics).toEqual([]);
  });

  it('turns a stack overflow into syntax/too-deep', () => {
    const spy = vi.spyOn(luceneParser, 'topQuery').mockImplementation(() => {
      throw new RangeError('Maximum call stack size exceeded');
    });
    try {
      expect(parseLuceneFull('(a)').diagnostics.map((d) => d.code)).toEqual(['syntax/too-deep']);
    } finally {
      spy.mockRestore();
    }
  });
});
