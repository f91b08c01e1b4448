/**
 * The AST says where every operator, field name, weight and parameter was written (so editors never
 * read the query text again). For random trees printed in either dialect, and for random mutations of
 * them (recovered trees), each recorded range lies inside its node and holds exactly what the node
 * says was written there.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { walk, type QueryAst, type QueryNode, type SourceRange } from '../../grammar/ast.js';
import { parseIndri } from '../../grammar/indri/index.js';
import { parseLucene } from '../../grammar/lucene/index.js';
import { unescapeLucene } from '../../grammar/lucene/visitor.js';
import { printIndri } from '../../grammar/print/indri.js';
import { printLucene } from '../../grammar/print/lucene.js';
import { indriTrees } from './indri/arbitrary.js';
import { luceneRoot } from './lucene/arbitraries.js';

const { query: indriQuery } = indriTrees(4);

function at(text: string, r: SourceRange): string {
  return text.slice(r.start, r.end);
}

function within(outer: SourceRange, inner: SourceRange): boolean {
  return outer.start <= inner.start && inner.start <= inner.end && inner.end <= outer.end;
}

/** Indri operator as written for a node: `#name`, a window `#od3`/`#3`, `#base64quote`, or a synonym bracket. */
const INDRI_OPERATOR = /^(#[A-Za-z0-9]+|\{|<)$/;

function checkIndri(text: string, ast: QueryAst, recovered = false): void {
  // Recovery may join a name's parts across spaces (`z382- m` is the field `z382-m`).
  const written = (r: SourceRange): string => (recovered ? at(text, r).replace(/\s+/g, '') : at(text, r));
  walk(ast.root, (n: QueryNode) => {
    if (n.operatorRange) {
      // Recovery may leave a node's own range short (a pre-existing limit of recovered trees); what is
      // recorded must still be the operator as written.
      if (!recovered) expect(within(n.range, n.operatorRange), text).toBe(true);
      // An unknown operator (an error node) may be as short as `#`.
      expect(at(text, n.operatorRange), text).toMatch(n.kind === 'error' ? /^#/ : INDRI_OPERATOR);
      if (n.kind === 'belief') expect(at(text, n.operatorRange).toLowerCase()).toBe(`#${n.op}`);
      if (n.kind === 'window') expect(at(text, n.operatorRange)).toMatch(n.ordered ? /^#(od)?\d*$/ : /^#uw\d*$/);
    } else if (n.kind === 'belief' && !n.implicit) {
      throw new Error(`${text}: an explicit #${n.op} without its operator range`);
    }
    if ('fields' in n && n.fields && n.fieldRanges) {
      // Recovery may join a field name's parts across spaces (`z382- m` is the field `z382-m`).
      expect(n.fieldRanges.map((r) => at(text, r).replace(/\s+/g, '')), text).toEqual(n.fields);
      if (!recovered) for (const r of n.fieldRanges) expect(within(n.range, r), text).toBe(true);
    }
    if ('context' in n && n.context && n.contextRanges) {
      // A context path is normalised (`./-x` reads `./x`), so only its place is checked.
      expect(n.contextRanges.length, text).toBe(n.context.length);
      if (!recovered) for (const r of n.contextRanges) expect(within(n.range, r), text).toBe(true);
    }
    if (n.kind === 'belief' || n.kind === 'synonym') {
      for (const item of n.items) {
        // The grammar reads a sign set apart from its digits (`- 4`) as one weight; the range covers both.
        if (item.weightRange) expect(Number(at(text, item.weightRange).replace(/\s+/g, '')), text).toBe(item.weight);
      }
    }
    if (n.kind === 'numericCompare') {
      if (n.fieldRange) expect(written(n.fieldRange), text).toBe(n.field);
      // A recovered value may have junk between its sign and its digits (`-(5`).
      // Recovery may also join a lone sign to the next number (`-^3 9` reads -9), so a recovered range
      // need only hold the value's digits.
      if (n.valueRanges && !recovered) expect(n.valueRanges.map((r) => Number(at(text, r).replace(/[^-0-9]/g, '')))).toEqual(n.values);
      if (n.valueRanges && recovered) n.valueRanges.forEach((r, i) => expect(at(text, r).replace(/\s+/g, ''), text).toContain(String(Math.abs(n.values[i]!))));
    }
    if (n.kind === 'any' && n.fieldRange) expect(written(n.fieldRange), text).toBe(n.field);
  });
}

function checkLucene(text: string, ast: QueryAst): void {
  walk(ast.root, (n: QueryNode) => {
    if (n.operatorRange) {
      // A `~` may follow the boost (`y1^2~1`), past the leaf's own range.
      if (n.kind === 'boost') expect(within(n.range, n.operatorRange), text).toBe(true);
      else expect(n.operatorRange.start >= n.range.start && n.operatorRange.end <= text.length, text).toBe(true);
      expect(at(text, n.operatorRange), text).toBe(n.kind === 'boost' ? '^' : '~');
    }
    if ('parameterRange' in n && n.parameterRange) {
      const written = at(text, n.parameterRange);
      if (n.kind === 'boost') expect(Number(written), text).toBe(n.boost);
      // Lucene reads the slop as a 32-bit float and casts it to an int (truncated, saturated).
      if (n.kind === 'phrase' && n.explicitSlop) expect(Math.min(Math.trunc(Math.fround(Number(written))), 2 ** 31 - 1), text).toBe(n.slop);
    }
    if ('fields' in n && n.fields && n.fieldRanges) {
      expect(n.fieldRanges.map((r) => unescapeLucene(at(text, r))), text).toEqual(n.fields);
      expect(text.slice(n.fieldRanges[0]!.end).trimStart()[0], text).toBe(':');
    }
    if (n.kind === 'boolean' && n.field) {
      expect(n.fieldRange, text).toBeDefined();
      expect(unescapeLucene(at(text, n.fieldRange!)), text).toBe(n.field);
    }
  });
}

/** The text with one character deleted, doubled or replaced by a syntax character: recovered trees too. */
function mutations(text: string): fc.Arbitrary<string> {
  return fc.tuple(fc.nat(Math.max(0, text.length)), fc.constantFrom('', '(', ')', '#', '.', ',', ':', '~', '^', '"', ' ', 'x')).map(
    ([i, c]) => text.slice(0, i) + c + text.slice(i + 1),
  );
}

describe('source ranges in the AST (property)', () => {
  it('Indri: operators, field and context lists, weights, numeric comparisons', () => {
    fc.assert(
      fc.property(indriQuery, (tree) => {
        const text = printIndri(tree);
        checkIndri(text, parseIndri(text).ast);
      }),
      { numRuns: Number(process.env.QL_FUZZ_RUNS ?? 300) },
    );
  });

  it('Indri: the same on mutated (recovered) queries', () => {
    fc.assert(
      fc.property(indriQuery.map(printIndri).chain(mutations), (text) => {
        checkIndri(text, parseIndri(text).ast, true);
      }),
      // A sign apart from its weight's digits, once found by a random run.
      { numRuns: Number(process.env.QL_FUZZ_RUNS ?? 300), examples: [['#band({#wsyn(- 4672 #dateequals(9/27/1907) 1 24.m6und-0tv,gob1z)}.rqkjj-3f)']] },
    );
  });

  it('Lucene: boosts, slops, fuzzy distances, fields on leaves and groups', () => {
    fc.assert(
      fc.property(luceneRoot, (tree) => {
        const text = printLucene(tree);
        checkLucene(text, parseLucene(text).ast);
      }),
      { numRuns: Number(process.env.QL_FUZZ_RUNS ?? 300) },
    );
  });

  it('Lucene: the same on mutated (recovered) queries', () => {
    fc.assert(
      fc.property(luceneRoot.map((t) => printLucene(t)).chain(mutations), (text) => {
        checkLucene(text, parseLucene(text).ast);
      }),
      { numRuns: Number(process.env.QL_FUZZ_RUNS ?? 300) },
    );
  });

  it('a field inherited from a Lucene group has no range of its own; written fields do', () => {
    const text = 'title:(cat body:dog)';
    const nodes: QueryNode[] = [];
    walk(parseLucene(text).ast.root, (n) => void nodes.push(n));
    const cat = nodes.find((n) => n.kind === 'term' && n.text === 'cat')!;
    const dog = nodes.find((n) => n.kind === 'term' && n.text === 'dog')!;
    expect('fields' in cat && cat.fields).toEqual(['title']);
    expect('fieldRanges' in cat && cat.fieldRanges).toBeFalsy();
    expect('fieldRanges' in dog && dog.fieldRanges?.map((r) => at(text, r))).toEqual(['body']);
  });

  it('Indri: every explicit operator of a fixed query is recorded where it was written', () => {
    const text = '#weight( 0.5 #od3( a b ).title 0.5 #syn( c { d e } ) ) #less( year -5 ) #base64(YQ==)';
    const ops: string[] = [];
    walk(parseIndri(text).ast.root, (n) => void (n.operatorRange && ops.push(at(text, n.operatorRange))));
    expect(ops.sort()).toEqual(['#base64', '#less', '#od3', '#syn', '#weight', '{'].sort());
  });
});
