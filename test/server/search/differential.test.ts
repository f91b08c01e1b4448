// Differential test (after PISA's test_ranked_queries): on random
// queries over a synthetic corpus, search()'s document-at-a-time top k must equal an
// exhaustive scoring of every document with scoreDocument, and explain() must reproduce
// each score exactly.
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { BooleanClause, QueryAst, QueryNode, TermNode } from '../../../grammar/ast.js';
import { buildMemoryIndex } from '../../../server/engine/index/index.js';
import type { IndexReader } from '../../../server/engine/index/reader.js';
import { explain, prepareQuery, scoreDocument, search, type ScorerName } from '../../../server/engine/search.js';
import { parseText } from '../../../grammar/text/index.js';

const R = { start: 0, end: 0 };
// Words that Porter leaves unchanged, so query words and index terms coincide.
const VOCAB = ['wing', 'flow', 'heat', 'lift', 'drag', 'jet', 'air', 'speed', 'shock', 'wave'];
const QUERY_WORDS = [...VOCAB, 'the', 'zeppelin'];

/** Deterministic synthetic corpus with skewed term frequencies and a title field. */
function corpus(n: number): { docno: string; fields: Record<string, string> }[] {
  let seed = 12345;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const pick = () => VOCAB[Math.floor(rnd() * rnd() * VOCAB.length)]!;
  const docs = [];
  for (let i = 0; i < n; i++) {
    const title = Array.from({ length: Math.floor(rnd() * 4) }, pick).join(' ');
    const text = Array.from({ length: Math.floor(rnd() * 30) }, () => (rnd() < 0.1 ? 'the' : pick())).join(' ');
    // Docnos whose order differs from doc ids, with equal-score ties likely.
    docs.push({ docno: `D${(i * 7919) % 1000}`, fields: title ? { title, text } : { text } });
  }
  return docs;
}

const word = fc.constantFrom(...QUERY_WORDS);
const termNode: fc.Arbitrary<TermNode> = fc
  .record({ text: word, title: fc.integer({ min: 0, max: 5 }) })
  .map(({ text, title }) => ({ kind: 'term', text, raw: false, range: R, ...(title === 0 ? { fields: ['title'] } : {}) }));
const weight = fc.double({ min: 0.1, max: 3, noNaN: true });

const extentNode: fc.Arbitrary<QueryNode> = fc.oneof(
  { weight: 4, arbitrary: termNode },
  {
    weight: 2,
    arbitrary: fc
      .record({ ordered: fc.boolean(), size: fc.option(fc.integer({ min: 1, max: 6 }), { nil: null }), children: fc.array(termNode, { minLength: 1, maxLength: 3 }) })
      .map(({ ordered, size, children }) => ({ kind: 'window', ordered, size, children, form: ordered ? 'od' : 'uw', range: R }) as QueryNode),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({ items: fc.array(fc.record({ node: termNode, weight }), { minLength: 1, maxLength: 3 }), weighted: fc.boolean() })
      .map(({ items, weighted }) => ({ kind: 'synonym', form: weighted ? 'wsyn' : 'syn', items: items.map((i) => (weighted ? i : { node: i.node })), range: R }) as QueryNode),
  },
  { weight: 1, arbitrary: fc.array(termNode, { minLength: 1, maxLength: 2 }).map((children) => ({ kind: 'band', children, range: R }) as QueryNode) },
  { weight: 1, arbitrary: fc.constantFrom('w*', 'sh*', 'a?r', 'x*').map((pattern) => ({ kind: 'wildcard', pattern, form: 'lucene', range: R }) as QueryNode) },
);

const indriNode: fc.Arbitrary<QueryNode> = fc.letrec<{ node: QueryNode }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 5, arbitrary: extentNode },
    {
      weight: 2,
      arbitrary: fc
        .record({
          op: fc.constantFrom('combine', 'weight', 'wand', 'wsum', 'or', 'max', 'not' as const),
          items: fc.array(fc.record({ node: tie('node'), weight }), { minLength: 1, maxLength: 4 }),
        })
        .map(({ op, items }) => ({
          kind: 'belief',
          op,
          items: (op === 'not' ? items.slice(0, 1) : items).map((i) => (op === 'weight' || op === 'wand' || op === 'wsum' ? i : { node: i.node })),
          range: R,
        }) as QueryNode),
    },
    {
      weight: 1,
      arbitrary: fc
        .record({ mode: fc.constantFrom('require', 'reject' as const), filter: extentNode, scored: tie('node') })
        .map(({ mode, filter, scored }) => ({ kind: 'filter', mode, form: mode === 'require' ? 'filreq' : 'filrej', filter, scored, range: R }) as QueryNode),
    },
  ),
})).node;

const luceneNode: fc.Arbitrary<QueryNode> = fc.letrec<{ node: QueryNode }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 5, arbitrary: termNode },
    {
      weight: 2,
      arbitrary: fc
        .record({ terms: fc.array(termNode.map((t) => ({ ...t, fields: undefined })), { minLength: 2, maxLength: 3 }), slop: fc.integer({ min: 0, max: 3 }) })
        .map(({ terms, slop }) => ({ kind: 'phrase', terms, slop, explicitSlop: slop > 0, range: R }) as QueryNode),
    },
    { weight: 1, arbitrary: fc.constantFrom('w*', 'sp??d', 'zz*').map((pattern) => ({ kind: 'wildcard', pattern, form: 'lucene', range: R }) as QueryNode) },
    { weight: 1, arbitrary: fc.constantFrom('wnig', 'flwo', 'hat').map((text) => ({ kind: 'fuzzy', text, maxEdits: 2, explicit: false, range: R }) as QueryNode) },
    { weight: 1, arbitrary: fc.constant({ kind: 'range', lower: 'f', upper: 'l', includeLower: true, includeUpper: false, range: R } as QueryNode) },
    { weight: 1, arbitrary: fc.tuple(tie('node'), fc.double({ min: 0.25, max: 4, noNaN: true })).map(([child, boost]) => ({ kind: 'boost', boost, child, range: R }) as QueryNode) },
    {
      weight: 2,
      arbitrary: fc
        .array(fc.record({ occur: fc.constantFrom('should', 'should', 'must', 'mustNot' as const), node: tie('node') }), { minLength: 1, maxLength: 4 })
        .map((clauses) => ({ kind: 'boolean', grouped: true, clauses: clauses.map((c) => ({ ...c, via: 'default' }) as BooleanClause), range: R }) as QueryNode),
    },
  ),
})).node;

const scorer = fc.constantFrom<ScorerName>('bm25', 'bm25-lucene', 'ql', 'bm25f');
const windowStats = fc.constantFrom('exact' as const, 'terrier-heuristic' as const);

let reader: IndexReader;
beforeAll(() => {
  reader = buildMemoryIndex(corpus(120), { profile: 'terrier' });
});

function checkAgainstExhaustive(ast: QueryAst, options: { scorer: ScorerName; windowStats: 'exact' | 'terrier-heuristic' }, k: number): void {
  const result = search(reader, ast, { ...options, k });
  const reference = prepareQuery(reader, ast, options).exhaustive();
  // A pruned search (bm25 / bm25-lucene bags of terms) counts only the documents it scored.
  if (result.pruned) expect(result.matchedDocs).toBeLessThanOrEqual(reference.length);
  else expect(result.matchedDocs).toBe(reference.length);
  const want = reference.slice(0, k);
  expect(result.hits.map((h) => h.docno)).toEqual(want.map((h) => h.docno));
  result.hits.forEach((h, i) => {
    expect(Math.abs(h.score - want[i]!.score)).toBeLessThanOrEqual(1e-12);
    expect(scoreDocument(reader, ast, h.doc, options)).toBe(h.score);
  });
}

describe('search() equals exhaustive scoreDocument()', () => {
  it('Indri queries: terms, windows, syn/wsyn, band, fields, belief operators, filters', () => {
    fc.assert(
      fc.property(indriNode, scorer, windowStats, fc.integer({ min: 1, max: 130 }), (root, s, ws, k) => {
        checkAgainstExhaustive({ dialect: 'indri', root, range: R }, { scorer: s, windowStats: ws }, k);
      }),
      { numRuns: 250 },
    );
  });
  it('Lucene queries: must/should/mustNot, boosts, phrases with slop, multi-term queries', () => {
    fc.assert(
      fc.property(luceneNode, scorer, windowStats, fc.integer({ min: 1, max: 130 }), (root, s, ws, k) => {
        checkAgainstExhaustive({ dialect: 'lucene', root, range: R }, { scorer: s, windowStats: ws }, k);
      }),
      { numRuns: 250 },
    );
  });
  it('text topics with repeated words', () => {
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 8 }), scorer, fc.integer({ min: 1, max: 130 }), (words, s, k) => {
        checkAgainstExhaustive(parseText(words.join(' ')).ast, { scorer: s, windowStats: 'exact' }, k);
      }),
      { numRuns: 150 },
    );
  });
});

describe('explain() reproduces every score', () => {
  it('value equals scoreDocument for random documents, matched or not', () => {
    fc.assert(
      fc.property(fc.oneof(indriNode, luceneNode), scorer, fc.integer({ min: 0, max: 119 }), (root, s, doc) => {
        const ast: QueryAst = { dialect: 'indri', root, range: R };
        const score = scoreDocument(reader, ast, doc, { scorer: s });
        const node = explain(reader, ast, doc, { scorer: s });
        expect(node.matched).toBe(score !== null);
        if (score !== null) expect(node.value).toBe(score);
        expect(node.description.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });
});
