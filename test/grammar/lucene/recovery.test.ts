/**
 * One test per Chevrotain recovery strategy (as in Chevrotain's step4_error_recovery spec):
 * each checks the message the user sees, the recovered AST, and — on the CST — that the
 * named strategy is what actually ran.
 */
import type { CstNode, IToken } from 'chevrotain';
import { describe, expect, it } from 'vitest';
import { stripRanges } from '../../../grammar/ast.js';
import { parseLucene } from '../../../grammar/lucene/index.js';
import { lexLucene } from '../../../grammar/lucene/lexer.js';
import { luceneParser } from '../../../grammar/lucene/parser.js';
import { group, range, root, should, term } from './builders.js';

function cstOf(text: string): { cst: CstNode; errors: string[]; skipped: number[] } {
  luceneParser.skippedTokens.clear();
  luceneParser.input = lexLucene(text).tokens;
  const cst = luceneParser.topQuery();
  return { cst, errors: luceneParser.errors.map((e) => e.name), skipped: [...luceneParser.skippedTokens] };
}

function allTokens(node: CstNode): IToken[] {
  return Object.values(node.children).flatMap((list) => list.flatMap((c) => ('tokenType' in c ? [c as IToken] : allTokens(c as CstNode))));
}

function anyRecovered(node: CstNode): boolean {
  return !!node.recoveredNode || Object.values(node.children).some((list) => list.some((c) => !('tokenType' in c) && anyRecovered(c as CstNode)));
}

const errorsOf = (text: string) => parseLucene(text).diagnostics.filter((d) => d.severity === 'error').map(({ code, message, range }) => ({ code, message, range }));

describe('error recovery', () => {
  it('single-token insertion: a missing TO is inserted and the range is kept', () => {
    const text = '[a b] c';
    const { cst, skipped } = cstOf(text);
    const inserted = allTokens(cst).filter((t) => t.isInsertedInRecovery);
    expect(inserted.map((t) => t.tokenType.name)).toEqual(['RangeTo']);
    expect(skipped).toEqual([]);
    expect(errorsOf(text)).toEqual([
      { code: 'lucene/range-expected-to', message: "expected 'TO' between the two bounds of the range, but found 'b'", range: { start: 3, end: 4 } },
    ]);
    expect(stripRanges(parseLucene(text).ast.root)).toEqual(root(should(range('a', 'b', true, true)), should(term('c'))));
  });

  it('single-token deletion: an extra bound before the closing bracket is skipped', () => {
    const text = '[a TO b "c"] d';
    const { cst, skipped } = cstOf(text);
    expect(skipped).toEqual([8]);
    expect(anyRecovered(cst)).toBe(false); // the rule finished normally after the deletion
    expect(errorsOf(text)).toEqual([{ code: 'syntax/unexpected-token', message: 'unexpected \'"c"\' here; it was skipped', range: { start: 8, end: 11 } }]);
    expect(stripRanges(parseLucene(text).ast.root)).toEqual(root(should(range('a', 'b', true, true)), should(term('d'))));
  });

  it('re-sync inside a repetition: a stray ")" is skipped and the clauses after it are parsed', () => {
    const text = 'a ) b (c)';
    const { cst, skipped } = cstOf(text);
    expect(skipped).toEqual([2]);
    expect(anyRecovered(cst)).toBe(false);
    expect(errorsOf(text)).toEqual([{ code: 'syntax/unmatched-close', message: "unexpected ')': there is no '(' for it to close", range: { start: 2, end: 3 } }]);
    expect(stripRanges(parseLucene(text).ast.root)).toEqual(root(should(term('a')), should(term('b')), should(group([should(term('c'))]))));
  });

  it('re-sync between rules: a range that never closes gives up at the next clause', () => {
    const text = '[a TO b c d] e';
    const { cst, skipped } = cstOf(text);
    expect(anyRecovered(cst)).toBe(true);
    expect(skipped).toEqual([8, 10, 11]); // c, d and ] were skipped to reach e
    expect(errorsOf(text)).toEqual([{ code: 'syntax/unexpected-token', message: "unexpected 'c d]' here; it was skipped", range: { start: 8, end: 12 } }]);
    expect(stripRanges(parseLucene(text).ast.root)).toEqual(root(should(range('a', 'b', true, true)), should(term('e'))));
  });

  it('a clause missing after AND is re-synced, and the group still closes', () => {
    const text = 'title:(a AND ] b) c';
    const { cst } = cstOf(text);
    expect(anyRecovered(cst)).toBe(true);
    const errors = errorsOf(text);
    expect(errors).toEqual([
      { code: 'syntax/expected-clause', message: "expected a term, phrase, range or group after 'AND', but found ']'", range: { start: 13, end: 14 } },
      { code: 'syntax/unmatched-close', message: "unexpected ']': no range is open", range: { start: 13, end: 14 } },
    ]);
    const tree = stripRanges(parseLucene(text).ast.root) as unknown as { clauses: { node: { clauses: { node: { kind: string } }[] } }[] };
    expect(tree.clauses[0].node.clauses.map((c) => c.node.kind)).toEqual(['term', 'error', 'error', 'term']);
    expect(tree.clauses).toHaveLength(2);
  });
});
