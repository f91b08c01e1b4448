/**
 * Fuzzing parseIndri: whatever the text, it returns (never throws), in bounded time, with
 * every node and diagnostic range inside the text; and the formatter never changes the
 * meaning of a text it accepts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stripRanges, walk, type QueryNode, type SourceRange } from '../../../grammar/ast.js';
import type { ParseResult } from '../../../grammar/diagnostics.js';
import { formatIndri } from '../../../grammar/format/indri.js';
import { INDRI_OPERATORS, MAX_INDRI_DEPTH, parseIndri } from '../../../grammar/indri/index.js';
import { printIndri } from '../../../grammar/print/indri.js';
import { indriTrees } from './arbitrary.js';

function assertInside(text: string, r: SourceRange | undefined, what: string): void {
  if (!r) return;
  const ok = Number.isInteger(r.start) && Number.isInteger(r.end) && r.start >= 0 && r.start <= r.end && r.end <= text.length;
  if (!ok) throw new Error(`${what} range ${JSON.stringify(r)} outside a text of length ${text.length}`);
}

/** Parse, check the invariants, return the result. */
function check(text: string, limitMs = 2000): ParseResult {
  const started = performance.now();
  let result: ParseResult | undefined;
  expect(() => {
    result = parseIndri(text);
  }).not.toThrow();
  const elapsed = performance.now() - started;
  if (elapsed > limitMs) throw new Error(`parseIndri took ${elapsed.toFixed(0)} ms on a text of length ${text.length}`);
  const { ast, diagnostics } = result!;
  expect(ast.dialect).toBe('indri');
  assertInside(text, ast.range, 'ast');
  walk(ast.root, (n: QueryNode) => {
    assertInside(text, n.range, n.kind);
    if (n.kind === 'belief') {
      assertInside(text, n.restriction?.range, 'restriction');
      for (const i of n.items) assertInside(text, i.weightRange, 'weight');
    }
  });
  for (const d of diagnostics) {
    assertInside(text, d.range, d.code);
    expect(d.message.length).toBeGreaterThan(0);
    expect(d.code).toMatch(/^(indri|syntax|internal)\//);
    expect(d.code).not.toBe('internal/parser-failure');
    const offset = (d.data as { offset?: number } | undefined)?.offset;
    if (offset !== undefined) expect(offset >= 0 && offset <= text.length).toBe(true);
  }
  return result!;
}

/** The formatter keeps the meaning of any text it formats, and is idempotent. */
function checkFormat(text: string): void {
  const once = formatIndri(text, { width: 40 });
  if (once.text === text && once.diagnostics.some((d) => d.severity === 'error')) return;
  expect(stripRanges(parseIndri(once.text).ast.root)).toEqual(stripRanges(parseIndri(text).ast.root));
  expect(formatIndri(once.text, { width: 40 }).text).toBe(once.text);
}

const FRAGMENTS = [
  ...INDRI_OPERATORS,
  '#1', '#od3', '#uw8', '#base64(', '#base64quote(', '#sum', '#Combine', '#', '#foo', '#uwx',
  'a', 'dog', 'élève', '東京', '3d', '42', '1.5', '-', ' -', '-5', '*', '.', ',', ':', '/', '\\', '"', "'",
  '(', ')', '(', ')', '{', '}', '<', '>', '[', ']', 'passage10', 'title', 'ZG9n', '==',
  ' ', ' ', ' ', '\t', '\n', '\r\n', '\u0000', '\uD800', '\uDC00', '😀', '+', '&', '!', '~', '\u00a0',
];
const fragmentText = fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 40 }).map((parts) => parts.join(''));
const anyText = fc.string({ unit: 'binary', maxLength: 60 });

/** A valid query with random edits: deletions, insertions, duplications. */
const mutated = fc
  .tuple(
    indriTrees(3).query.map((ast) => printIndri(ast)),
    fc.array(fc.tuple(fc.nat(), fc.nat({ max: 5 }), fc.constantFrom(...FRAGMENTS, '')), { minLength: 1, maxLength: 4 }),
  )
  .map(([text, edits]) => {
    let out = text;
    for (const [at, del, ins] of edits) {
      const i = out.length ? at % (out.length + 1) : 0;
      out = out.slice(0, i) + ins + out.slice(i + del);
    }
    return out;
  });

describe('parseIndri fuzz', () => {
  it('random strings over the Indri alphabet', () => {
    fc.assert(
      fc.property(fragmentText, (text) => {
        check(text);
        checkFormat(text);
      }),
      { numRuns: 1500 },
    );
  });

  it('arbitrary UTF-16 strings (lone surrogates, controls, NUL)', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        check(text);
      }),
      { numRuns: 1000 },
    );
  });

  it('mutations of valid queries', () => {
    fc.assert(
      fc.property(mutated, (text) => {
        check(text);
        checkFormat(text);
      }),
      { numRuns: 1500 },
    );
  });

  it('every operator with missing or partial arguments', () => {
    const ops = [...INDRI_OPERATORS, '#1', '#od2', '#uw5', '#base64', '#base64quote', '#sum', '#foo', '#'];
    const shapes = [
      (op: string) => op,
      (op: string) => `${op}(`,
      (op: string) => `${op}()`,
      (op: string) => `${op}( )`,
      (op: string) => `${op}(a`,
      (op: string) => `${op}(1`,
      (op: string) => `${op}(a b c d)`,
      (op: string) => `${op}[title](`,
      (op: string) => `${op}:`,
      (op: string) => `#combine(${op})`,
      (op: string) => `#weight(1 ${op}( 2`,
      (op: string) => `#1(a ${op}(b) c)`,
      (op: string) => `{${op}}`,
      (op: string) => `${op}(a).`,
      (op: string) => `${op}(a).(`,
    ];
    for (const op of ops) {
      for (const shape of shapes) {
        const text = shape(op);
        const { diagnostics } = check(text);
        // Only complete, well-formed uses may be silent.
        if (/\($|\(\s*\)$|\(a$|\(1$|:$|\.$|\.\($/.test(text) || op === '#foo' || op === '#' || op === '#sum') {
          expect(diagnostics.length, text).toBeGreaterThan(0);
        }
      }
    }
  });

  it('unbalanced brackets', () => {
    for (const text of ['((((', '))))', '#combine(((a', 'a)))))', '{{{<<<[[[', ']]]>>>}}}', '#1(a]', '#combine(a}', '<a)', '{a>', '#combine[title(a)', '#combine[(a)]']) {
      const { diagnostics } = check(text);
      expect(diagnostics.length, text).toBeGreaterThan(0);
    }
  });

  it('nesting 10,000 deep is reported, not recursed into', () => {
    for (const open of ['#combine(', '#1(', '{', '<', '#weight( 1 ', '#filreq( a ', '#combine[title](']) {
      const close = open === '{' ? '}' : open === '<' ? '>' : ')';
      for (const depth of [MAX_INDRI_DEPTH, MAX_INDRI_DEPTH + 1, 10_000]) {
        const text = open.repeat(depth) + 'a' + close.repeat(depth);
        const { diagnostics, ast } = check(text, 10_000);
        const tooDeep = diagnostics.some((d) => d.code === 'syntax/too-deep');
        expect(tooDeep, `${open} x ${depth}`).toBe(depth > MAX_INDRI_DEPTH);
        if (!tooDeep) expect(diagnostics, `${open} x ${depth}`).toEqual([]);
        expect(ast.root).not.toBeNull();
      }
      check(open.repeat(10_000), 10_000);
    }
  });

  it('a 1 MB line, NUL bytes and lone surrogates', () => {
    const mb = 1 << 20;
    const cases = [
      'a '.repeat(mb / 2),
      'x'.repeat(mb),
      '#combine( a #1(b c) ) '.repeat(Math.floor(mb / 22)),
      ')'.repeat(mb),
      '#weight( '.repeat(20) + '0.5 a '.repeat(mb / 6),
      `#base64(${'QUJD'.repeat(mb / 4)})`,
      '\u0000'.repeat(mb),
      'a\uD800 '.repeat(mb / 3),
    ];
    for (const text of cases) {
      const { diagnostics } = check(text, 60_000);
      expect(diagnostics.length).toBeLessThanOrEqual(250);
    }
  }, 300_000);
});
