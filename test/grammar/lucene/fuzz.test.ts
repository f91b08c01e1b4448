/**
 * Fuzzing parseLucene: random strings over the Lucene alphabet, mutations of valid
 * queries, and the pathological inputs (deep nesting, a 1 MB line, NUL, lone surrogates).
 * Every input must parse without throwing, in bounded time, with an AST whose ranges and
 * diagnostic ranges all lie inside the text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { walk, type QueryAst, type SourceRange } from '../../../grammar/ast.js';
import type { ParseResult } from '../../../grammar/diagnostics.js';
import { parseLucene } from '../../../grammar/lucene/index.js';
import { printLucene } from '../../../grammar/print/lucene.js';
import { luceneRoot } from './arbitraries.js';

// Generous bounds that only catch runaway (quadratic, exponential) behaviour on a shared,
// loaded machine; bench/parse-lucene.bench.ts measures the real speed.
const SMALL_LIMIT_MS = 1_000;
const LARGE_LIMIT_MS = 45_000;

function inside(r: SourceRange, length: number, what: string): void {
  expect(Number.isInteger(r.start) && Number.isInteger(r.end), `${what} ${JSON.stringify(r)}`).toBe(true);
  expect(r.start >= 0 && r.start <= r.end && r.end <= length, `${what} ${JSON.stringify(r)} outside 0..${length}`).toBe(true);
}

function checkResult(text: string, result: ParseResult): void {
  const ast: QueryAst = result.ast;
  inside(ast.range, text.length, 'ast');
  if (ast.root === null) expect(text.trim().replace(/\u3000/g, '')).toBe('');
  walk(ast.root, (n) => {
    inside(n.range, text.length, n.kind);
    if (n.kind === 'boolean') for (const c of n.clauses) if (c.operatorRange) inside(c.operatorRange, text.length, 'operator');
  });
  for (const d of result.diagnostics) {
    inside(d.range, text.length, d.code);
    expect(d.code).toMatch(/^(syntax|lucene|internal)\/[a-z-]+$/);
    expect(d.code).not.toBe('internal/parser-failure');
    expect(d.message.length).toBeGreaterThan(0);
  }
}

function timed(text: string, limitMs: number): ParseResult {
  const t0 = performance.now();
  const result = parseLucene(text);
  const ms = performance.now() - t0;
  expect(ms, `parse took ${ms.toFixed(1)} ms for ${JSON.stringify(text.slice(0, 80))}`).toBeLessThan(limitMs);
  return result;
}

const alphabet = fc.constantFrom(
  ...'ab Z9+-!():^[]"{}~*?\\/&|.\t\n\u3000'.split(''),
  'AND',
  'OR',
  'NOT',
  'TO',
  ' ',
  '\u0000',
  '\ud800',
  '\udc00',
  'é',
);
const luceneish = fc.array(alphabet, { maxLength: 40 }).map((a) => a.join(''));

/** A valid query with a few characters inserted, deleted or replaced. */
const mutated = fc
  .tuple(luceneRoot, fc.array(fc.tuple(fc.nat(), fc.constantFrom('insert', 'delete', 'replace'), alphabet), { minLength: 1, maxLength: 4 }))
  .map(([ast, edits]) => {
    let s = printLucene(ast);
    for (const [pos, op, ch] of edits) {
      const i = s.length ? pos % (s.length + 1) : 0;
      if (op === 'insert') s = s.slice(0, i) + ch + s.slice(i);
      else if (op === 'delete') s = s.slice(0, i) + s.slice(i + 1);
      else s = s.slice(0, i) + ch + s.slice(i + 1);
    }
    return s;
  });

describe('parseLucene fuzzing', () => {
  it('random strings over the Lucene alphabet', () => {
    fc.assert(fc.property(luceneish, (s) => checkResult(s, timed(s, SMALL_LIMIT_MS))), { numRuns: 1500 });
  });

  it('mutations of valid queries', () => {
    fc.assert(fc.property(mutated, (s) => checkResult(s, timed(s, SMALL_LIMIT_MS))), { numRuns: 800 });
  });

  it('any string at all', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (s) => checkResult(s, timed(s, SMALL_LIMIT_MS))), { numRuns: 500 });
  });

  it.each([
    ['10,000 open parentheses', '('.repeat(10_000)],
    ['depth 10,000 balanced', '('.repeat(10_000) + 'a' + ')'.repeat(10_000)],
    ['10,000 close parentheses', ')'.repeat(10_000)],
    ['10,000 brackets', '['.repeat(10_000)],
    ['alternating quotes and groups', '("('.repeat(3000)],
    ['NUL bytes', 'a\u0000b \u0000 "\u0000" title:\u0000'],
    ['lone surrogates', '\ud800 a\udc00b "\udbff" [\ud800 TO \udfff]'],
    ['trailing backslash', 'a \\'],
  ])('%s', (_name, text) => {
    const r = timed(text, SMALL_LIMIT_MS);
    checkResult(text, r);
    expect(r.ast.root).not.toBeNull();
  });

  it('a 1 MB line of terms and operators', () => {
    const unit = 'alpha AND (beta OR "gamma delta"~2) -title:eps* ';
    const text = unit.repeat(Math.ceil(1_048_576 / unit.length)).slice(0, 1_048_576);
    const r = timed(text, LARGE_LIMIT_MS);
    checkResult(text, r);
    expect(r.ast.root).toMatchObject({ kind: 'boolean', grouped: false });
  });

  it.each([
    ['every special character', '()[]{}"^~:\\/+-! aZ*?'],
    ['no parentheses, no quotes', '[]{}^~:+-! aZ*?)'],
    ['operators and strays', ']}^~:+-! aZ*?)AND '],
    ['parentheses only', '(a) b'],
  ])('a 1 MB line of garbage: %s', (_name, chars) => {
    let seed = 7;
    let text = '';
    while (text.length < 1_048_576) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      text += chars[seed % chars.length];
    }
    const r = timed(text, LARGE_LIMIT_MS);
    checkResult(text, r);
    expect(r.diagnostics.length).toBeGreaterThan(0);
    expect(r.diagnostics.length).toBeLessThanOrEqual(150);
  });

  it('stops after 50 syntax errors and says where', () => {
    const text = ') a '.repeat(100_000);
    const r = timed(text, LARGE_LIMIT_MS);
    checkResult(text, r);
    const stop = r.diagnostics.find((d) => d.code === 'syntax/too-many-errors');
    expect(stop).toBeDefined();
    expect(stop!.range.end).toBe(text.length);
    expect(r.diagnostics.filter((d) => d.code === 'syntax/unexpected-token').length).toBeLessThanOrEqual(50);
    // The part before the stop still has its clauses.
    expect((r.ast.root as { clauses: unknown[] }).clauses.length).toBeGreaterThan(40);
  });
});
