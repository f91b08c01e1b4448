import { describe, expect, it } from 'vitest';
import { stripRanges, walk, type QueryNode } from '../../../grammar/ast.js';
import { parseIndri } from '../../../grammar/indri/index.js';
import { belief, implicit, num, raw, syn, t, weighted, wild, win, type Expected } from './build.js';

/** Input → expected root (ranges stripped); every row must parse without diagnostics. */
const CONSTRUCTS: [string, Expected | null][] = [
  ['', null],
  ['   \t\n ', null],
  ['dog', t('dog')],
  ['dog cat', implicit([t('dog'), t('cat')])],
  ['#combine( dog cat )', belief('combine', [t('dog'), t('cat')])],
  ['#combine(dog)', belief('combine', [t('dog')])],
  ['#or(a b)', belief('or', [t('a'), t('b')])],
  ['#max(a b)', belief('max', [t('a'), t('b')])],
  ['#not(a)', belief('not', [t('a')])],
  ['#weight( 1.0 #1(white house) 2.0 #1(easter egg hunt) )', weighted('weight', [
    [1, win('hash-number', true, 1, [t('white'), t('house')])],
    [2, win('hash-number', true, 1, [t('easter'), t('egg'), t('hunt')])],
  ])],
  ['#wand(0.5 a 1 b)', weighted('wand', [[0.5, t('a')], [1, t('b')]])],
  ['#wsum(0.5 a 1 b)', weighted('wsum', [[0.5, t('a')], [1, t('b')]])],
  ['#weight(-0.5 a -2 b)', weighted('weight', [[-0.5, t('a')], [-2, t('b')]])],
  ['#weight(0.25 0.5)', weighted('weight', [[0.25, num('0.5')]])],
  ['#weight(2 -3)', weighted('weight', [[2, num('-3')]])],
  ['#combine(0.5 a)', belief('combine', [num('0.5'), t('a')])],
  // windows
  ['#1(a b)', win('hash-number', true, 1, [t('a'), t('b')])],
  ['#od5(a b)', win('od', true, 5, [t('a'), t('b')])],
  ['#od(a b)', win('od', true, null, [t('a'), t('b')])],
  ['#uw8(a b)', win('uw', false, 8, [t('a'), t('b')])],
  ['#uw(a b)', win('uw', false, null, [t('a'), t('b')])],
  ['#band(a b)', { kind: 'band', children: [t('a'), t('b')] }],
  ['#1(#uw3(a b) c)', win('hash-number', true, 1, [win('uw', false, 3, [t('a'), t('b')]), t('c')])],
  // synonyms
  ['#syn(a b)', syn('syn', [t('a'), t('b')])],
  ['{a b}', syn('braces', [t('a'), t('b')])],
  ['<a b>', syn('angle', [t('a'), t('b')])],
  ['#wsyn(1 a 0.5 b)', syn('wsyn', [t('a'), t('b')], [1, 0.5])],
  ['#syn(a #1(b c))', syn('syn', [t('a'), win('hash-number', true, 1, [t('b'), t('c')])])],
  // filters and priors
  ['#filreq(a b)', { kind: 'filter', mode: 'require', form: 'filreq', filter: t('a'), scored: t('b') }],
  ['#filrej(#band(a b) #combine(c))', {
    kind: 'filter', mode: 'reject', form: 'filrej',
    filter: { kind: 'band', children: [t('a'), t('b')] }, scored: belief('combine', [t('c')]),
  }],
  ['#scoreif(a b)', { kind: 'filter', mode: 'require', form: 'scoreif', filter: t('a'), scored: t('b') }],
  ['#scoreifnot(a b)', { kind: 'filter', mode: 'reject', form: 'scoreifnot', filter: t('a'), scored: t('b') }],
  ['#prior(urlprior)', { kind: 'prior', name: 'urlprior' }],
  // field, numeric and date operators
  ['#any:person', { kind: 'any', field: 'person', form: 'colon' }],
  ['#any(person)', { kind: 'any', field: 'person', form: 'paren' }],
  ['#less(year 2000)', { kind: 'numericCompare', op: 'less', field: 'year', values: [2000] }],
  ['#greater(year -5)', { kind: 'numericCompare', op: 'greater', field: 'year', values: [-5] }],
  ['#between(year 1990 2000)', { kind: 'numericCompare', op: 'between', field: 'year', values: [1990, 2000] }],
  ['#equals(pages 12)', { kind: 'numericCompare', op: 'equals', field: 'pages', values: [12] }],
  ['#dateafter(11/01/2004)', { kind: 'dateCompare', op: 'after', dates: ['11/01/2004'] }],
  ['#datebefore(11-JAN-2004)', { kind: 'dateCompare', op: 'before', dates: ['11-JAN-2004'] }],
  ['#dateequals(11 january 2004)', { kind: 'dateCompare', op: 'equals', dates: ['11 january 2004'] }],
  ['#datebetween(January 11 2004 02/01/2005)', { kind: 'dateCompare', op: 'between', dates: ['January 11 2004', '02/01/2005'] }],
  // wildcards
  ['inform*', wild('inform*', 'suffix-star')],
  ['#wildcard(inform)', wild('inform*', 'wildcard-op')],
  ['12*', wild('12*', 'suffix-star')],
  // term forms
  ['"dogs"', raw('dogs')],
  ['"12"', { kind: 'term', text: '12', raw: true, numeric: true }],
  ['"-3"', { kind: 'term', text: '-3', raw: true, numeric: true }],
  ['#base64(ZG9n)', t('dog', { encoding: 'base64' })],
  ['#base64( YysrKw== )', t('c+++', { encoding: 'base64' })],
  ['#base64quote(ZG9n)', raw('dog', { encoding: 'base64quote' })],
  ['#base64(w6lsw6h2ZQ==)', t('élève', { encoding: 'base64' })],
  ['élève 東京', implicit([t('élève'), t('東京')])],
  ['3d', t('3d')],
  ['42', num('42')],
  ['3.14', num('3.14')],
  ['a -5', implicit([t('a'), num('-5')])],
  ['-2.5', num('-2.5')],
  ['a-b', win('hyphen', true, 1, [t('a'), t('b')])],
  ['a-b-c', win('hyphen', true, 1, [t('a'), t('b'), t('c')])],
  ['covid-19', win('hyphen', true, 1, [t('covid'), num('19')])],
  ['1-2', win('hyphen', true, 1, [num('1'), num('2')])],
  // field restriction and context
  ['dog.title', t('dog', { fields: ['title'] })],
  ['dog.title,h1', t('dog', { fields: ['title', 'h1'] })],
  ['dog.my-field', t('dog', { fields: ['my-field'] })],
  ['dog.(title)', t('dog', { context: ['title'] })],
  ['dog.title.(header)', t('dog', { fields: ['title'], context: ['header'] })],
  ['dog.(title,body)', t('dog', { context: ['title', 'body'] })],
  ['#1(a b).title', win('hash-number', true, 1, [t('a'), t('b')], { fields: ['title'] })],
  ['#1(a b).person(header)', win('hash-number', true, 1, [t('a'), t('b')], { fields: ['person'], context: ['header'] })],
  ['#1(a b).person.(header)', win('hash-number', true, 1, [t('a'), t('b')], { fields: ['person'], context: ['header'] })],
  ['#1(a.title b)', win('hash-number', true, 1, [t('a', { fields: ['title'] }), t('b')])],
  ['{a b}.title', syn('braces', [t('a'), t('b')], undefined, { fields: ['title'] })],
  ['inform*.title', wild('inform*', 'suffix-star', { fields: ['title'] })],
  ['a-b.title', win('hyphen', true, 1, [t('a'), t('b')], { fields: ['title'] })],
  // extent restrictions
  ['#combine[title](a b)', belief('combine', [t('a'), t('b')], { restriction: { kind: 'field', field: 'title' } as never })],
  ['#combine[passage100:50](a b)', belief('combine', [t('a'), t('b')], { restriction: { kind: 'passage', width: 100, increment: 50 } as never })],
  ['#combine[section]( #combine[./title](a) )', belief('combine', [belief('combine', [t('a')], { restriction: { kind: 'path', path: './title' } as never })], {
    restriction: { kind: 'field', field: 'section' } as never,
  })],
  ['#weight[title](1 a)', weighted('weight', [[1, t('a')]], { kind: 'field', field: 'title' })],
  ['#not[title](a)', belief('not', [t('a')], { restriction: { kind: 'field', field: 'title' } as never })],
  // nesting and whitespace
  ['#weight(\n  0.5 #combine(a b)\n  -0.5 c\n)', weighted('weight', [[0.5, belief('combine', [t('a'), t('b')])], [-0.5, t('c')]])],
  ['#combine(#weight(0.3 #uw8(a b) 0.7 c.title) #filreq(#any:person d))', belief('combine', [
    weighted('weight', [[0.3, win('uw', false, 8, [t('a'), t('b')])], [0.7, t('c', { fields: ['title'] })]]),
    { kind: 'filter', mode: 'require', form: 'filreq', filter: { kind: 'any', field: 'person', form: 'colon' }, scored: t('d') },
  ])],
];

describe('parseIndri: every construct', () => {
  it.each(CONSTRUCTS)('%j', (text, expected) => {
    const { ast, diagnostics } = parseIndri(text);
    expect(diagnostics).toEqual([]);
    expect(ast.dialect).toBe('indri');
    expect(ast.range).toEqual({ start: 0, end: text.length });
    expect(stripRanges(ast.root)).toEqual(expected);
  });
});

/** Source text of each node, for a sample of queries: ranges are exact. */
function slices(text: string): string[] {
  const out: string[] = [];
  walk(parseIndri(text).ast.root, (n: QueryNode) => {
    out.push(text.slice(n.range.start, n.range.end));
  });
  return out;
}

describe('parseIndri: ranges', () => {
  it('covers each node exactly', () => {
    expect(slices('#weight( 0.5 dog.title -1 #1(a b) )')).toEqual(['#weight( 0.5 dog.title -1 #1(a b) )', 'dog.title', '#1(a b)', 'a', 'b']);
    expect(slices('a  -5 b-c')).toEqual(['a  -5 b-c', 'a', '-5', 'b-c', 'b', 'c']);
    expect(slices('#1(a b).person(header) "x"')).toEqual(['#1(a b).person(header) "x"', '#1(a b).person(header)', 'a', 'b', '"x"']);
    expect(slices('inform* #base64(ZG9n) #any:f')).toEqual(['inform* #base64(ZG9n) #any:f', 'inform*', '#base64(ZG9n)', '#any:f']);
  });

  it('gives weight and restriction ranges', () => {
    const text = '#weight[passage10:5]( -0.5 a 2 b )';
    const root = parseIndri(text).ast.root;
    if (root?.kind !== 'belief') throw new Error('expected a belief node');
    expect(text.slice(root.restriction!.range.start, root.restriction!.range.end)).toBe('[passage10:5]');
    expect(root.items.map((i) => text.slice(i.weightRange!.start, i.weightRange!.end))).toEqual(['-0.5', '2']);
  });

  it('gives the implicit #combine the span of its items', () => {
    const text = '  a b  ';
    expect(parseIndri(text).ast.root?.range).toEqual({ start: 2, end: 5 });
  });
});

describe('parseIndri: the parser instance is reused', () => {
  it('gives the same result for the same text after other parses', () => {
    const first = stripRanges(parseIndri('#combine(a #1(b c))').ast);
    parseIndri('#weight(broken');
    parseIndri('#combine(x y');
    expect(stripRanges(parseIndri('#combine(a #1(b c))').ast)).toEqual(first);
    expect(parseIndri('#combine(a #1(b c))').diagnostics).toEqual([]);
  });
});
