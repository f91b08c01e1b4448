import { describe, expect, it } from 'vitest';
import type { QueryNode } from '../../../grammar/ast.js';
import { formatIndri, formatIndriAst } from '../../../grammar/format/indri.js';
import { parseIndri } from '../../../grammar/indri/index.js';
import { formatIndriNumber, printIndri } from '../../../grammar/print/indri.js';

const R = { start: 0, end: 0 };

/** Query text → canonical text (printIndri of its parse). */
const CANONICAL: [string, string][] = [
  ['#weight(0.5 a 1 #1(b c))', '#weight( 0.5 a 1 #1(b c) )'],
  ['#combine(  a   b )', '#combine( a b )'],
  ['a   b', 'a b'],
  ['#weight(1.50 a 007 b)', '#weight( 1.5 a 7 b )'],
  ['#weight(-0 a)', '#weight( -0 a )'],
  ['#combine[title](a)', '#combine[title]( a )'],
  ['#combine[passage100:50](a)', '#combine[passage100:50]( a )'],
  ['#combine[.//sec](a)', '#combine[.//sec]( a )'],
  ['#filreq(#band(a b) c)', '#filreq( #band(a b) c )'],
  ['#od5( a b )', '#od5(a b)'],
  ['#od( a b )', '#od(a b)'],
  ['#3( a b )', '#3(a b)'],
  ['#uw( a b )', '#uw(a b)'],
  ['{ a b }', '{a b}'],
  ['< a b >', '<a b>'],
  ['#syn( a b )', '#syn(a b)'],
  ['#wsyn( 1.0 a 0.5 b )', '#wsyn(1 a 0.5 b)'],
  ['a-b-c', 'a-b-c'],
  ['a -5 -2.50', 'a -5 -2.50'],
  ['"raw"', '"raw"'],
  ['#base64( ZG9n )', '#base64(ZG9n)'],
  ['#base64quote(ZG9n)', '#base64quote(ZG9n)'],
  ['dog.title,h1', 'dog.title,h1'],
  ['#1(a b).person(header)', '#1(a b).person.(header)'],
  ['dog.(title)', 'dog.(title)'],
  ['#any:person #any( org )', '#any:person #any(org)'],
  ['#less( year 2000 ) #between(year -5 5)', '#less(year 2000) #between(year -5 5)'],
  ['#dateafter( 11/01/2004 ) #datebetween(1-JAN-2004   January 5 2005)', '#dateafter(11/01/2004) #datebetween(1-JAN-2004 January 5 2005)'],
  ['inform* #wildcard( inform )', 'inform* #wildcard(inform)'],
  ['#prior( url )', '#prior(url)'],
];

describe('printIndri: canonical text', () => {
  it.each(CANONICAL)('%j → %j', (text, expected) => {
    const { ast, diagnostics } = parseIndri(text);
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(printIndri(ast)).toBe(expected);
  });

  it('writes a term Indri cannot lex as #base64 / #base64quote', () => {
    const term = (text: string, raw = false): QueryNode => ({ kind: 'term', text, raw, range: R });
    expect(printIndri(term('c++'))).toBe('#base64(Yysr)');
    expect(printIndri(term('at&t', true))).toBe('#base64quote(YXQmdA==)');
    expect(printIndri(term('two words'))).toBe('#base64(dHdvIHdvcmRz)');
    expect(printIndri(term('a.b'))).toBe('#base64(YS5i)');
    expect(printIndri(term('42'))).toBe('#base64(NDI=)'); // digits that are not a numeric term
    expect(printIndri({ kind: 'term', text: '42', raw: false, numeric: true, range: R })).toBe('42');
    expect(printIndri(term('élève'))).toBe('élève');
    // what it prints parses back to the same text
    for (const text of ['c++', 'at&t', 'two words', 'a.b', '42', 'x\u0000y', '#combine(']) {
      const parsed = parseIndri(printIndri(term(text))).ast.root;
      expect(parsed?.kind === 'term' && parsed.text).toBe(text);
    }
  });

  it('prints weights without exponents and so that they parse back exactly', () => {
    const cases: [number, string][] = [
      [0.5, '0.5'],
      [1, '1'],
      [-2.25, '-2.25'],
      [1e-7, '0.0000001'],
      [1.5e-10, '0.00000000015'],
      [1e21, '1000000000000000000000'],
      [-1.2345e22, '-12345000000000000000000'],
      [0.1 + 0.2, '0.30000000000000004'],
      [-0, '-0'],
    ];
    for (const [n, text] of cases) {
      expect(formatIndriNumber(n)).toBe(text);
      const root = parseIndri(`#weight( ${text} a )`).ast.root;
      expect(root?.kind === 'belief' && Object.is(root.items[0].weight, n)).toBe(true);
    }
    expect(() => formatIndriNumber(Number.NaN)).toThrow(/no Indri spelling/);
  });

  it('keeps a whole number apart from a field list that starts with a digit (found by the fuzz suite)', () => {
    // `0.0a` would read as the float 0.0 followed by the term a.
    for (const text of ['0. 0a', '7. 1x,title']) {
      const printed = printIndri(parseIndri(text).ast);
      expect(printed).toBe(text);
      expect(parseIndri(printed).ast.root).toMatchObject({ kind: 'term', numeric: true });
    }
    expect(printIndri(parseIndri('0.title').ast)).toBe('0.title');
  });

  it('prints the implicit #combine without a wrapper and an explicit one with it', () => {
    expect(printIndri(parseIndri('a b').ast)).toBe('a b');
    expect(printIndri(parseIndri('#combine(a b)').ast)).toBe('#combine( a b )');
    expect(printIndri(parseIndri('').ast)).toBe('');
  });
});

describe('formatIndri: layout', () => {
  it('keeps a query that fits on one line', () => {
    expect(formatIndri('#weight(0.5   a 1 #1(b c))').text).toBe('#weight( 0.5 a 1 #1(b c) )');
  });

  it('puts one weighted item per line, nested, closing ")" aligned with its line', () => {
    const text =
      '#weight( 0.6 #combine( international organized crime ) 0.3 #combine( #1(organized crime) #uw8(crime international) ) 0.1 #combine( mafia.title ) )';
    expect(formatIndri(text, { width: 40 }).text).toBe(
      [
        '#weight(',
        '  0.6 #combine(',
        '    international',
        '    organized',
        '    crime',
        '  )',
        '  0.3 #combine(',
        '    #1(organized crime)',
        '    #uw8(crime international)',
        '  )',
        '  0.1 #combine( mafia.title )',
        ')',
      ].join('\n'),
    );
    expect(formatIndri(text, { width: 70, indent: 4 }).text).toBe(
      [
        '#weight(',
        '    0.6 #combine( international organized crime )',
        '    0.3 #combine( #1(organized crime) #uw8(crime international) )',
        '    0.1 #combine( mafia.title )',
        ')',
      ].join('\n'),
    );
  });

  it('breaks extent operators and keeps their field suffix on the closing line', () => {
    expect(formatIndri('#uw20(alpha bravo charlie delta echo).title', { width: 20 }).text).toBe(
      ['#uw20(', '  alpha', '  bravo', '  charlie', '  delta', '  echo', ').title'].join('\n'),
    );
    expect(formatIndri('{alpha bravo charlie delta}', { width: 10 }).text).toBe(['{', '  alpha', '  bravo', '  charlie', '  delta', '}'].join('\n'));
  });

  it('puts the items of a long implicit #combine on their own lines', () => {
    expect(formatIndri('alpha bravo #1(charlie delta)', { width: 17 }).text).toBe(['alpha', 'bravo', '#1(charlie delta)'].join('\n'));
  });

  it('returns a text with errors unchanged, with its diagnostics', () => {
    const text = '#weight( 0.5 a   b';
    const result = formatIndri(text);
    expect(result.text).toBe(text);
    expect(result.diagnostics.map((d) => d.code)).toEqual(['syntax/missing-close', 'indri/weight-expected']);
    expect(formatIndri('').text).toBe('');
    expect(formatIndri('  \n').text).toBe('  \n');
  });

  it('formats despite warnings and reports them', () => {
    const result = formatIndri('#combine[p10:5](a   b)');
    expect(result.text).toBe('#combine[passage10:5]( a b )');
    expect(result.diagnostics.map((d) => [d.code, d.severity])).toEqual([['indri/bad-passage', 'warning']]);
  });

  it('formats an AST directly', () => {
    const { ast } = parseIndri('#combine(a b)');
    expect(formatIndriAst(ast)).toBe('#combine( a b )');
    expect(formatIndriAst(ast.root!, { width: 5 })).toBe('#combine(\n  a\n  b\n)');
  });
});

describe('printIndri: Lucene-only nodes print as their nearest Indri shape', () => {
  const term = (text: string): QueryNode => ({ kind: 'term', text, raw: false, range: R });
  it.each<[QueryNode, string]>([
    [{ kind: 'phrase', terms: [term('a') as never, term('b') as never], slop: 0, explicitSlop: false, range: R }, '#1(a b)'],
    [{ kind: 'phrase', terms: [term('a') as never, term('b') as never], slop: 2, explicitSlop: true, fields: ['title'], range: R }, '#uw4(a b).title'],
    [{ kind: 'boost', boost: 2, child: term('a'), range: R }, '#weight( 2 a )'],
    [
      {
        kind: 'boolean',
        grouped: false,
        clauses: [
          { occur: 'should', via: 'default', node: term('a') },
          { occur: 'mustNot', via: 'minus', node: term('b') },
        ],
        range: R,
      },
      '#combine( a #not( b ) )',
    ],
    [{ kind: 'fuzzy', text: 'roam', maxEdits: 1, explicit: true, range: R }, 'roam'],
    [{ kind: 'matchAll', range: R }, '#any:document'],
  ])('%j', (node, text) => {
    expect(printIndri(node)).toBe(text);
    expect(parseIndri(text).diagnostics).toEqual([]);
  });
});

describe('printing error-recovered trees', () => {
  // Found by the CLI fuzz test: a hyphen chain cut short by recovery (`shock-(`) has one word.
  it('prints a one-word hyphen window as #od1 instead of throwing', () => {
    const { ast } = parseIndri('#combine( shock-(0.5sound #uw8(wave #1(interaction) )');
    const text = printIndri(ast);
    expect(text).toContain('#od1(shock)');
    expect(parseIndri(text).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });
});
