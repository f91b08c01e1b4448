// The query-DSL translation (grammar/print/query-dsl.ts): one golden row per construct, the
// weights' proportions against Indri's own effective weights, and totality on random trees.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Dialect, QueryAst, QueryNode } from '../../../grammar/ast.js';
import { parseQuery, printIndri, printLucene, toQueryDsl, type DslOptions, type DslQuery } from '../../../grammar/index.js';
import { indriTrees } from '../indri/arbitrary.js';
import { luceneRoot } from '../lucene/arbitraries.js';

const APPROX = 'translate/approximated';
const DROPPED = 'translate/dropped';

interface Row {
  from: Dialect;
  input: string;
  query: DslQuery | null;
  codes?: string[];
  options?: DslOptions;
}

const m = (query: string, field = 'text'): DslQuery => ({ match: { [field]: { query } } });
const mb = (query: string, boost: number, field = 'text'): DslQuery => ({ match: { [field]: { query, boost } } });

const rows: Row[] = [
  // Terms and weights (Indri: w_i / Σ|w| at every level; the root keeps the weights as written).
  { from: 'indri', input: 'heat', query: m('heat') },
  { from: 'indri', input: '#combine( heat flow )', query: { bool: { should: [m('heat'), m('flow')] } } },
  { from: 'indri', input: '#weight( 2 heat 1 flow )', query: { bool: { should: [mb('heat', 2), m('flow')] } } },
  {
    from: 'indri',
    input: '#weight( 2 a 1 #combine( b c ) )',
    query: { bool: { should: [mb('a', 2), { bool: { should: [mb('b', 0.5), mb('c', 0.5)] } }] } },
  },
  {
    from: 'indri',
    input: '#combine( a #weight( 3 b 1 c ) )',
    query: { bool: { should: [m('a'), { bool: { should: [mb('b', 0.75), mb('c', 0.25)] } }] } },
  },
  { from: 'indri', input: '#weight( 2 a 0 b )', query: mb('a', 2), codes: [DROPPED] },
  { from: 'indri', input: '#max( a b )', query: { dis_max: { queries: [m('a'), m('b')], tie_breaker: 0 } } },
  { from: 'indri', input: '#or( a b )', query: { bool: { should: [m('a'), m('b')] } }, codes: [APPROX] },
  { from: 'indri', input: '#not( a )', query: { bool: { must: [{ match_all: {} }], must_not: [m('a')] } }, codes: [APPROX] },
  { from: 'indri', input: '"heat"', query: m('heat'), codes: [APPROX] },
  { from: 'indri', input: 'heat.title', query: m('heat', 'title') },
  { from: 'indri', input: 'heat.title,abstract', query: { multi_match: { query: 'heat', fields: ['title', 'abstract'], type: 'most_fields' } }, codes: [APPROX] },
  { from: 'indri', input: 'heat.(title)', query: m('heat', 'title'), codes: [APPROX] },
  {
    from: 'indri',
    input: 'heat',
    options: { fields: ['title', 'text'] },
    query: { multi_match: { query: 'heat', fields: ['title', 'text'], type: 'most_fields' } },
    codes: [APPROX],
  },
  // Windows: #1 exact; #odN per gap vs max_gaps total (exact for two terms); #uwN = max_gaps N − k.
  { from: 'indri', input: '#1( heat transfer )', query: { intervals: { text: { match: { query: 'heat transfer', ordered: true, max_gaps: 0 } } } }, codes: [APPROX] },
  { from: 'indri', input: 'real-gas', query: { intervals: { text: { match: { query: 'real gas', ordered: true, max_gaps: 0 } } } }, codes: [APPROX] },
  { from: 'indri', input: '#od3( a b )', query: { intervals: { text: { match: { query: 'a b', ordered: true, max_gaps: 2 } } } }, codes: [APPROX] },
  { from: 'indri', input: '#od3( a b c )', query: { intervals: { text: { match: { query: 'a b c', ordered: true, max_gaps: 2 } } } }, codes: [APPROX, APPROX] },
  { from: 'indri', input: '#uw8( a b )', query: { intervals: { text: { match: { query: 'a b', ordered: false, max_gaps: 6 } } } }, codes: [APPROX] },
  { from: 'indri', input: '#uw( a b )', query: { intervals: { text: { match: { query: 'a b', ordered: false } } } }, codes: [APPROX] },
  {
    from: 'indri',
    input: '#1( #syn( car auto ) wash )',
    query: {
      intervals: {
        text: { all_of: { intervals: [{ any_of: { intervals: [{ match: { query: 'car' } }, { match: { query: 'auto' } }] } }, { match: { query: 'wash' } }], ordered: true, max_gaps: 0 } },
      },
    },
    codes: [APPROX],
  },
  { from: 'indri', input: '#1( heat transfer ).title', query: { intervals: { title: { match: { query: 'heat transfer', ordered: true, max_gaps: 0 } } } }, codes: [APPROX] },
  // Synonyms, #band, filters, numeric and date fields, what has no form.
  { from: 'indri', input: '#syn( car automobile )', query: { bool: { should: [m('car'), m('automobile')] } }, codes: [APPROX] },
  { from: 'indri', input: '#wsyn( 1 car 0.5 automobile )', query: { bool: { should: [m('car'), mb('automobile', 0.5)] } }, codes: [APPROX] },
  { from: 'indri', input: '#band( a b )', query: { bool: { must: [m('a'), m('b')] } }, codes: [APPROX] },
  { from: 'indri', input: '#filreq( a b )', query: { bool: { must: [m('b')], filter: [m('a')] } } },
  { from: 'indri', input: '#filrej( a b )', query: { bool: { must: [m('b')], must_not: [m('a')] } } },
  { from: 'indri', input: '#less( year 2000 )', query: { range: { year: { lt: 2000 } } } },
  { from: 'indri', input: '#between( year 1990 2000 )', query: { range: { year: { gte: 1990, lte: 2000 } } } },
  { from: 'indri', input: '#equals( year 1999 )', query: { term: { year: { value: 1999 } } } },
  { from: 'indri', input: '#dateafter( 1 January 2000 )', query: { range: { date: { gt: '1 January 2000' } } }, codes: [APPROX] },
  { from: 'indri', input: '#combine( a #prior( recency ) )', query: m('a'), codes: [DROPPED] },
  { from: 'indri', input: '#combine( a #any:person )', query: m('a'), codes: [DROPPED] },
  { from: 'indri', input: '#combine[title]( a b )', query: { bool: { should: [m('a', 'title'), m('b', 'title')] } }, codes: [APPROX] },
  { from: 'indri', input: '#combine[passage100:50]( a b )', query: { bool: { should: [m('a'), m('b')] } }, codes: [DROPPED] },
  { from: 'indri', input: 'heat*', query: { prefix: { text: { value: 'heat' } } } },
  { from: 'indri', input: '#combine( a b )', options: { scorer: 'ql' }, query: { bool: { should: [m('a'), m('b')] } }, codes: [APPROX] },
  // Lucene: occur flags, boosts, phrases, multi-term queries.
  { from: 'lucene', input: 'heat flow', query: { bool: { should: [m('heat'), m('flow')] } } },
  { from: 'lucene', input: '+heat -cold flow', query: { bool: { must: [m('heat')], should: [m('flow')], must_not: [m('cold')] } } },
  { from: 'lucene', input: 'heat^2 flow', query: { bool: { should: [mb('heat', 2), m('flow')] } } },
  { from: 'lucene', input: '(a b)^3 c', query: { bool: { should: [{ bool: { should: [m('a'), m('b')], boost: 3 } }, m('c')] } } },
  { from: 'lucene', input: 'title:heat', query: m('heat', 'title') },
  { from: 'lucene', input: 'title:(a b)', query: { bool: { should: [m('a', 'title'), m('b', 'title')] } } },
  { from: 'lucene', input: '"mass flow"', query: { match_phrase: { text: { query: 'mass flow' } } } },
  { from: 'lucene', input: '"mass flow"~2^3', query: { match_phrase: { text: { query: 'mass flow', slop: 2, boost: 3 } } } },
  { from: 'lucene', input: 'wing*', query: { prefix: { text: { value: 'wing' } } } },
  { from: 'lucene', input: 'w?ng*s', query: { wildcard: { text: { value: 'w?ng*s' } } } },
  { from: 'lucene', input: 'Wing*', query: { prefix: { text: { value: 'wing' } } }, codes: [APPROX] },
  { from: 'lucene', input: 'roam~1', query: { fuzzy: { text: { value: 'roam', fuzziness: 1 } } } },
  { from: 'lucene', input: 'roam~', query: { fuzzy: { text: { value: 'roam', fuzziness: 2 } } } },
  { from: 'lucene', input: '/[mb]oat/', query: { regexp: { text: { value: '[mb]oat', flags: 'ALL' } } } },
  { from: 'lucene', input: '[a TO c]', query: { range: { text: { gte: 'a', lte: 'c' } } } },
  { from: 'lucene', input: '{a TO *]', query: { range: { text: { gt: 'a' } } } },
  { from: 'lucene', input: '*:*', query: { match_all: {} } },
  { from: 'lucene', input: '-a -b', query: { match_none: {} }, codes: [DROPPED] },
];

function parse(input: string, from: Dialect): QueryAst {
  const { ast, diagnostics } = parseQuery(input, from);
  expect(diagnostics.filter((d) => d.severity === 'error'), `${input} parses without errors`).toEqual([]);
  return ast;
}

describe('toQueryDsl: one golden row per construct', () => {
  it.each(rows)('$from $input', ({ from, input, query, codes, options }) => {
    const result = toQueryDsl(parse(input, from), options);
    expect(result.query).toEqual(query);
    expect(result.diagnostics.map((d) => d.code).sort()).toEqual([...(codes ?? [])].sort());
    for (const d of result.diagnostics) {
      expect(d.range.start).toBeGreaterThanOrEqual(0);
      expect(d.range.end).toBeLessThanOrEqual(input.length);
    }
  });
});

/** Each leaf's product of boosts along its path, keyed by the leaf's text. */
function leafWeights(query: DslQuery, factor = 1, out = new Map<string, number>()): Map<string, number> {
  if ('bool' in query) {
    const f = factor * (query.bool.boost ?? 1);
    for (const q of query.bool.should ?? []) leafWeights(q, f, out);
  } else if ('match' in query) {
    const [params] = Object.values(query.match);
    out.set(params.query, (out.get(params.query) ?? 0) + factor * (params.boost ?? 1));
  } else {
    throw new Error(`unexpected ${Object.keys(query)[0]}`);
  }
  return out;
}

/** Indri's effective weight of each term: the product of w_i / Σw along its path (SEMANTICS.md §1.5). */
function indriWeights(node: QueryNode, factor = 1, out = new Map<string, number>()): Map<string, number> {
  if (node.kind === 'term') out.set(node.text, (out.get(node.text) ?? 0) + factor);
  else if (node.kind === 'belief') {
    const ws = node.items.map((i) => i.weight ?? 1);
    const total = ws.reduce((s, w) => s + w, 0);
    node.items.forEach((item, i) => indriWeights(item.node, (factor * ws[i]) / total, out));
  }
  return out;
}

describe('toQueryDsl: weights', () => {
  it('leaf boosts are proportional to Indri effective weights (random #weight/#combine trees, printed and parsed)', () => {
    let counter = 0;
    const leaf = fc.constant(null).map(() => `t${counter++}`);
    const tree = fc.letrec<{ node: string }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf,
        fc.array(fc.tuple(fc.integer({ min: 1, max: 9 }), tie('node')), { minLength: 1, maxLength: 4 }).map((items) => `#weight( ${items.map(([w, n]) => `${w} ${n}`).join(' ')} )`),
        fc.array(tie('node'), { minLength: 1, maxLength: 4 }).map((items) => `#combine( ${items.join(' ')} )`),
      ),
    })).node;
    fc.assert(
      fc.property(tree, (text) => {
        const ast = parse(text, 'indri');
        const expected = indriWeights(ast.root!);
        const got = leafWeights(toQueryDsl(ast).query!);
        expect([...got.keys()].sort()).toEqual([...expected.keys()].sort());
        const ratios = [...expected.keys()].map((k) => got.get(k)! / expected.get(k)!);
        // Boosts are printed with 4 significant digits, so products drift by a few parts in 10^4 per level.
        for (const r of ratios) expect(Math.abs(r / ratios[0] - 1)).toBeLessThan(5e-3);
      }),
      { numRuns: 200, seed: 42 },
    );
  });
});

describe('toQueryDsl: total', () => {
  const { query } = indriTrees(4);
  it('never throws on random Indri trees; the result is JSON and every diagnostic lies inside the text', () => {
    fc.assert(
      fc.property(query, (root) => {
        const text = printIndri({ dialect: 'indri', root, range: { start: 0, end: 0 } });
        const result = toQueryDsl(parseQuery(text, 'indri').ast, { fields: ['title', 'text'] });
        expect(JSON.parse(JSON.stringify(result.query))).toEqual(result.query);
        for (const d of result.diagnostics) expect(d.range.end).toBeLessThanOrEqual(text.length);
      }),
      { numRuns: 300, seed: 7 },
    );
  });
  it('never throws on random Lucene trees', () => {
    fc.assert(
      fc.property(luceneRoot, (root) => {
        const text = printLucene({ dialect: 'lucene', root, range: { start: 0, end: 0 } });
        const result = toQueryDsl(parseQuery(text, 'lucene').ast);
        expect(JSON.parse(JSON.stringify(result.query))).toEqual(result.query);
        expect(result.diagnostics.every((d) => d.code.startsWith('translate/'))).toBe(true);
      }),
      { numRuns: 300, seed: 7 },
    );
  });
  it('a query nested 10,000 deep is a diagnostic, not a crash', () => {
    const text = '#combine( '.repeat(10_000) + 'a' + ' )'.repeat(10_000);
    const result = toQueryDsl(parseQuery(text, 'indri').ast);
    expect(result.diagnostics.length + (result.query ? 1 : 0)).toBeGreaterThan(0);
  });
});
