import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stripRanges, walk, type QueryNode } from '../../../grammar/ast.js';
import { formatIndri, formatIndriAst } from '../../../grammar/format/indri.js';
import { parseIndri } from '../../../grammar/indri/index.js';
import { printIndri } from '../../../grammar/print/indri.js';
import { indriTrees } from './arbitrary.js';

const { query } = indriTrees(4);
const layout = fc.record({ width: fc.integer({ min: 8, max: 120 }), indent: fc.integer({ min: 0, max: 4 }) });

/** The diagnostics a well-formed tree may not have: all but the warning for all-zero weights, which random trees draw. */
function syntaxProblems(diagnostics: readonly { code: string }[]): { code: string }[] {
  return diagnostics.filter((d) => d.code !== 'indri/zero-weights');
}

function inside(text: string, n: { range: { start: number; end: number } }): boolean {
  return n.range.start >= 0 && n.range.start <= n.range.end && n.range.end <= text.length;
}

describe('Indri print/parse round trip (property)', () => {
  it('parseIndri(printIndri(ast)) gives ast back, without diagnostics', () => {
    fc.assert(
      fc.property(query, (ast) => {
        const text = printIndri(ast);
        const { ast: parsed, diagnostics } = parseIndri(text);
        expect(syntaxProblems(diagnostics)).toEqual([]);
        expect(stripRanges(parsed.root)).toEqual(stripRanges(ast));
        walk(parsed.root, (n: QueryNode) => {
          expect(inside(text, n)).toBe(true);
        });
      }),
      { numRuns: 400 },
    );
  });

  it('printing is stable: print(parse(print(ast))) == print(ast)', () => {
    fc.assert(
      fc.property(query, (ast) => {
        const text = printIndri(ast);
        expect(printIndri(parseIndri(text).ast)).toBe(text);
      }),
      { numRuns: 200 },
    );
  });
});

describe('Indri formatter (property)', () => {
  it('keeps the meaning and is idempotent', () => {
    fc.assert(
      fc.property(query, layout, (ast, options) => {
        const source = printIndri(ast);
        const once = formatIndri(source, options);
        expect(syntaxProblems(once.diagnostics)).toEqual([]);
        expect(stripRanges(parseIndri(once.text).ast.root)).toEqual(stripRanges(parseIndri(source).ast.root));
        expect(formatIndri(once.text, options).text).toBe(once.text);
        expect(formatIndriAst(ast, options)).toBe(once.text);
      }),
      { numRuns: 300 },
    );
  });

  it('respects the width wherever a line can be broken', () => {
    fc.assert(
      fc.property(query, layout, (ast, options) => {
        const text = formatIndriAst(ast, options);
        const lines = text.split('\n');
        if (lines.length === 1) return;
        // A line longer than the width cannot be broken further: an operator's opening line,
        // a closing line, or a leaf (or hyphen chain) on its own.
        for (const line of lines) {
          if (line.length <= options.width) continue;
          const body = line.trimStart().replace(/^-?[0-9.]+ (?=.)/, '');
          if (/[({<]$/.test(body) || /^[)}>]/.test(body)) continue;
          const { ast: item, diagnostics } = parseIndri(body);
          expect(syntaxProblems(diagnostics)).toEqual([]);
          const root = item.root;
          const breakable =
            root?.kind === 'belief' ||
            root?.kind === 'filter' ||
            root?.kind === 'band' ||
            root?.kind === 'synonym' ||
            (root?.kind === 'window' && root.form !== 'hyphen');
          expect(breakable).toBe(false);
        }
      }),
      { numRuns: 200 },
    );
  });
});
