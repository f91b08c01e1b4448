import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stripRanges } from '../../../grammar/ast.js';
import { hasErrors } from '../../../grammar/diagnostics.js';
import { formatLucene, formatLuceneAst } from '../../../grammar/format/lucene.js';
import { parseLucene } from '../../../grammar/lucene/index.js';
import { printLucene } from '../../../grammar/print/lucene.js';
import { luceneRoot, separator } from './arbitraries.js';

describe('formatLucene', () => {
  it.each([
    ['a   OR b AND   NOT c', 80, 'a OR b AND NOT c'],
    ['  +a\n-b   c ', 80, '+a -b c'],
    ['title:( a  b )^2.0', 80, 'title:(a b)^2'],
    ['a &&   !b', 80, 'a && !b'],
    ['a && ! b', 80, 'a && \\! b'], // '! ' is Lucene's bare operator: the term "!"

    ['x:"a  b"~2  y', 80, 'x:"a b"~2 y'],
    [
      'title:(alpha beta gamma AND (delta OR eps)^2) +"some phrase here" -x',
      30,
      ['title:(', '  alpha', '  beta', '  gamma', '  AND (delta OR eps)^2', ')', '+"some phrase here"', '-x'].join('\n'),
    ],
    [
      'aaaa (bbbb (cccc dddd eeee) ffff) gggg',
      16,
      ['aaaa', '(', '  bbbb', '  (', '    cccc', '    dddd', '    eeee', '  )', '  ffff', ')', 'gggg'].join('\n'),
    ],
  ])('%s (width %i)', (input, width, expected) => {
    const out = formatLucene(input, { width });
    expect(out.text).toBe(expected);
    expect(formatLucene(out.text, { width }).text).toBe(expected);
  });

  it('uses the indent option', () => {
    expect(formatLucene('(aaaa bbbb)', { width: 5, indent: 4 }).text).toBe('(\n    aaaa\n    bbbb\n)');
  });

  it('returns a text with syntax errors unchanged, with its diagnostics', () => {
    const text = '(a   b  ';
    const out = formatLucene(text);
    expect(out.text).toBe(text);
    expect(out.diagnostics.map((d) => d.code)).toContain('syntax/missing-close');
  });

  it('keeps warnings and still formats', () => {
    const out = formatLucene('a  OR b AND c');
    expect(out.text).toBe('a OR b AND c');
    expect(out.diagnostics.map((d) => d.code)).toEqual(['lucene/mixed-and-or']);
  });

  it('formatLuceneAst without the source prints clause flags as + and -', () => {
    const ast = parseLucene('a OR b AND c').ast;
    expect(formatLuceneAst(ast)).toBe('a +b +c');
    expect(formatLuceneAst(ast, { source: 'a OR b AND c' })).toBe('a OR b AND c');
    expect(formatLuceneAst(parseLucene('').ast)).toBe('');
  });

  it('is idempotent and keeps the meaning (random queries, random operators, random widths)', () => {
    const text = fc.tuple(luceneRoot, fc.array(separator, { minLength: 8, maxLength: 8 })).map(([ast, seps]) => {
      const clauses = printLucene(ast).length ? ast.clauses.map((c) => printLucene({ ...ast, clauses: [c] })) : [];
      return clauses.reduce((acc, c, i) => (i === 0 ? c : acc + seps[i % seps.length] + c), '');
    });
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 120 }), fc.integer({ min: 0, max: 4 }), (input, width, indent) => {
        const before = parseLucene(input);
        const once = formatLucene(input, { width, indent });
        if (hasErrors(before.diagnostics)) {
          expect(once.text).toBe(input);
          return;
        }
        const twice = formatLucene(once.text, { width, indent });
        expect(twice.text, once.text).toBe(once.text);
        const after = parseLucene(once.text);
        expect(hasErrors(after.diagnostics), once.text).toBe(false);
        expect(stripRanges(after.ast.root), `${input}\n---\n${once.text}`).toEqual(stripRanges(before.ast.root));
        for (const line of once.text.split('\n')) {
          // A line may only run over the width when it holds a single unbreakable clause.
          if (line.length > width) expect(parseLucene(line).ast.root).not.toBeNull();
        }
      }),
      { numRuns: 300 },
    );
  });

  it('is idempotent and keeps the meaning on arbitrary strings over the Lucene alphabet', () => {
    const piece = fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom('a', 'b', 'Z9', ' ', ' ', 'x:', 'AND ', 'OR ', ' NOT ', '-', '+', '"a b"', '(', ')') },
      { weight: 2, arbitrary: fc.constantFrom(...'+-!():^[]"{}~*?\\/&|.\t\n\u3000'.split(''), 'TO', 'and', '\u0000', 'é', '2') },
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), fc.integer({ min: 1, max: 60 }), (pieces, width) => {
        const input = pieces.join('');
        const before = parseLucene(input);
        const once = formatLucene(input, { width });
        if (hasErrors(before.diagnostics)) {
          expect(once.text).toBe(input);
          return;
        }
        expect(formatLucene(once.text, { width }).text, once.text).toBe(once.text);
        expect(stripRanges(parseLucene(once.text).ast.root), `${JSON.stringify(input)} → ${JSON.stringify(once.text)}`).toEqual(stripRanges(before.ast.root));
      }),
      { numRuns: 3000 },
    );
  });
});
