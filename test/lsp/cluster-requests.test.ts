/**
 * Issue 12: the rest of the editor on a search cluster, through the language server in-process with
 * recorded / computed cluster responses (cluster-harness.ts, test/support/mock-cluster.ts), on both
 * cluster types: `querylens/runFile` (metrics by querylens's evaluation code), `querylens/compare`
 * (original · Bo1 on the cluster · model weights), and a collection-aware model's statistics read
 * from the cluster (`_count` phrases, `_termvectors`, the first pass's term vectors), with every
 * cluster failure an explained state.
 */
import type { CodeAction } from 'vscode-languageserver';
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../server/engine/eval/index.js';
import { bo1Weight } from '../../server/engine/expansion/bo1.js';
import { STATISTIC_NAMES, type NgramStatistics } from '../../server/model/collection-statistics.js';
import type { CompareResult, RunFileResult, WeighFileResult } from '../../server/lsp/engine/protocol.js';
import { corpusCluster, searchReply, statisticsModel, type MockCorpus, type RecordedRequest, type Reply } from '../support/mock-cluster.js';
import { closeSessionsAfterEach, healthy, rejection, start, withTermVectors, type Session } from './cluster-harness.js';

closeSessionsAfterEach();

const KINDS = ['opensearch', 'elasticsearch'] as const;

/** What search.json ranks (the cluster's first ranking of every query in these tests). */
const FIRST = [
  { docno: '184', score: 7.2153, source: { title: 'transition in hypersonic flow' } },
  { docno: '29', score: 5.0417, source: { title: 'skin friction' } },
  { docno: '1002', score: 1.25, source: {} },
];
/** What the cluster ranks for an expanded or weighted query (any body with a `#weight`'s boosts). */
const REWRITTEN = [
  { docno: '77', score: 9.5, source: { title: 'boundary layer control' } },
  { docno: '184', score: 6.25, source: { title: 'transition in hypersonic flow' } },
];

/** Whether a search body carries a boost (the rewritten queries are the only ones that do). */
function boosted(r: RecordedRequest): boolean {
  return JSON.stringify(r.body).includes('"boost"');
}

/** Searches answered FIRST, rewritten ones REWRITTEN; the rest as `fallback`. */
function rankings(fallback: (r: RecordedRequest) => Reply): (r: RecordedRequest) => Reply {
  return (r) => {
    if (r.path.endsWith('/_search') && (r.body as { size?: number }).size !== 0) return searchReply(boosted(r) ? REWRITTEN : FIRST);
    return fallback(r);
  };
}

const runFile = (s: Session, params: Record<string, unknown> = {}) => s.client.sendRequest('querylens/runFile', { uri: s.uri, ...params }) as Promise<RunFileResult>;
const compare = (s: Session, qid: string) => s.client.sendRequest('querylens/compare', { uri: s.uri, qid }) as Promise<CompareResult>;
const userSearches = (s: Session) => s.requests.filter((r) => r.path.endsWith('/_search') && (r.body as { size?: number }).size !== 0);

const QRELS_1 = new Map([['1', new Map([['184', 1], ['29', 0], ['77', 2]])]]);

describe.each(KINDS)('querylens/runFile on %s', (kind) => {
  it('ranks every query on the cluster into run lines, skips a broken one, and evaluates with querylens\'s trec_eval code', async () => {
    const s = await start(rankings(healthy()), { kind, queries: '1\tboundary layer\n2\tskin friction\n3\t#combine( flow\n' });
    const result = await runFile(s, { tag: 'os1' });
    expect(result.queries).toBe(2);
    expect(result.skipped).toEqual([{ qid: '3', reason: 'the query has syntax errors' }]);
    expect(result.text).toBe(['1 Q0 184 1 7.2153 os1', '1 Q0 29 2 5.0417 os1', '1 Q0 1002 3 1.25 os1', '2 Q0 184 1 7.2153 os1', '2 Q0 29 2 5.0417 os1', '2 Q0 1002 3 1.25 os1', ''].join('\n'));
    expect(result.lines).toBe(6);
    const run = { runId: 'os1', queries: new Map([['1', FIRST.map((h) => ({ docno: h.docno, score: h.score }))]]) };
    const expected = evaluate(run, QRELS_1, { measures: ['ndcg_cut_10', 'map'] }).perQuery.get('1')!;
    expect(result.metrics!.judged).toBe(1);
    expect(result.metrics!.perQuery['1']!.ndcg_cut_10).toBeCloseTo(expected.ndcg_cut_10!, 12);
    expect(result.metrics!.mean.map).toBeCloseTo(expected.map!, 12);
    expect(result.expansion).toBeNull();
    // Depth 1000 per query: the ranking the results panel and compare share.
    expect(userSearches(s).map((r) => (r.body as { size: number }).size)).toEqual([1000, 1000]);
  });

  it('offers no other scorer (the index\'s similarity ranks) and refuses one asked for, saying why', async () => {
    const s = await start(rankings(healthy()), { kind, queries: '1\tboundary layer\n' });
    expect((await runFile(s)).scorers).toEqual([]);
    const e = await rejection(runFile(s, { scorer: 'ql' }));
    expect(e.code).toBe(-32602);
    expect(e.message).toMatch(/scorer cannot be chosen on a cluster backend: the index's similarity on .* ranks every query/);
  });

  it('with "expansion": bo1, each query is expanded on the cluster first and the expanded query is what is ranked', async () => {
    const s = await start(rankings(withTermVectors(healthy())), { kind, queries: '1\tskin friction\n', config: { expansion: { method: 'bo1', fbDocs: 3, fbTerms: 10 } } });
    const result = await runFile(s, { k: 2 });
    expect(result.expansion).toEqual({ method: 'bo1', fbDocs: 3, fbTerms: 10 });
    expect(result.text).toBe('1 Q0 77 1 9.5 querylens\n1 Q0 184 2 6.25 querylens\n');
    // The expanded query carries the added term (the cluster's own term, analysed again by the cluster).
    const expanded = userSearches(s).filter(boosted);
    expect(expanded).toHaveLength(1);
    expect(JSON.stringify(expanded[0]!.body)).toContain('lamin');
  });

  it('a cluster failure fails the request with its one line and code', async () => {
    const s = await start(healthy({ search: { status: 429, fixture: 'error-429.json' } }), { kind });
    const e = await rejection(runFile(s));
    expect(e.message).toMatch(/too many \(429\).*; wait and retry.* \(cluster\/too-many-requests\)$/);
    expect(e.data).toEqual({ cluster: 'cluster/too-many-requests' });
  });
});

/** The cluster's documents for the statistics (fields title and text, one shard). */
const CORPUS: MockCorpus = {
  '184': { title: 'transition in hypersonic flow', text: 'boundary layer transition at hypersonic speeds boundary layer' },
  '29': { title: 'skin friction', text: 'laminar boundary layer heat transfer' },
  '1002': { text: 'flow past a flat plate' },
  '7': { title: 'notes', text: 'layer of boundary' },
};

/**
 * The statistics of "boundary layer" in CORPUS, by hand (collection-statistics.ts's definitions):
 * N = 4 documents; T = 6 title + 18 text tokens = 24; df(boundary) = df(layer) = 3 (184, 29, 7), cf 4 each;
 * df("boundary layer") = 2 (184, 29; 7 has "layer of boundary"), its cf 2 · 4/4 = 2; the first pass is 184, 29,
 * 1002 (search.json), where boundary and layer occur 2 + 1 times and the pair 2 + 1 times, in 2 of the 3.
 */
function expectedStatistics(): NgramStatistics[] {
  const idf = (df: number) => Math.log(1 + (4 - df + 0.5) / (df + 0.5));
  // The feedback statistics without an expansion: the first pass's top 3 (all three) as feedback documents;
  // 184 and 29 hold both words (coverage 4 of 6), each word comes with the other there (co-occurrence 1), a
  // pair has no other word (0); the gap from the first pass's scores 7.2153 … 1.25.
  const feedback = { expansion: 0, bo1Weight: 0, fbShare: 2 / 3, fbGap: 1 - 1.25 / 7.2153, fbCoverage: 4 / 6 };
  const word = { idf: idf(3), ictf: Math.log(24 / 4), pairRatio: 0, topShare: 2 / 3, bo1: bo1Weight(3, 4, 4), ...feedback, fbCooccur: 1 };
  const pair = { idf: idf(2), ictf: Math.log(24 / 2), pairRatio: 2 / 3, topShare: 2 / 3, bo1: bo1Weight(3, 2, 4), ...feedback, fbCooccur: 0 };
  const max = Math.max(word.bo1, pair.bo1);
  return [word, word, pair].map((s) => ({ ...s, bo1: s.bo1 / max }));
}

function expectStatistics(got: readonly NgramStatistics[] | undefined): void {
  const want = expectedStatistics();
  expect(got).toHaveLength(want.length);
  got!.forEach((g, i) => {
    for (const name of STATISTIC_NAMES) expect(g[name], `${name} of n-gram ${i}`).toBeCloseTo(want[i]![name], 12);
  });
}

describe.each(KINDS)('querylens/compare on %s', (kind) => {
  it('original · Bo1 on the cluster · weighted by a collection-aware model reading the cluster\'s statistics', async () => {
    const model = statisticsModel();
    const s = await start(rankings(corpusCluster(CORPUS, withTermVectors(healthy()))), { kind, queries: '1\tboundary layer\n', model });
    const result = await compare(s, '1');
    expect(result.variants.map((v) => v.name)).toEqual(['original', 'bo1', 'weighted']);
    const [original, bo1, weighted] = result.variants;
    expect(original!.hits.map((h) => h.docno)).toEqual(['184', '29', '1002']);
    expect(bo1!.hits.map((h) => h.docno)).toEqual(['77', '184']);
    expect(bo1!.query).toMatch(/^#weight\( [\d.]+ boundary [\d.]+ layer/);
    expect(result.expansionTerms.some((t) => !t.isOriginal)).toBe(true);
    // The model read the statistics of the cluster's collection, by hand above.
    expect(model.given.map((g) => g.query)).toEqual(['boundary layer']);
    expectStatistics(model.given[0]!.statistics);
    const [w1, w2, w3] = expectedStatistics().map((x) => Number(x.idf.toFixed(4)));
    expect(weighted!.query).toBe(`#weight( ${w1} boundary ${w2} layer ${w3} #1(boundary layer) )`);
    expect(weighted!.hits.map((h) => h.docno)).toEqual(['77', '184']);
    // Metrics and deltas by querylens's evaluation code.
    const m = (docnos: string[]) => evaluate({ runId: 'x', queries: new Map([['1', docnos.map((d, i) => ({ docno: d, score: 10 - i }))]]) }, QRELS_1, { measures: ['ndcg_cut_10'] }).perQuery.get('1')!.ndcg_cut_10!;
    expect(original!.metrics!.ndcg_cut_10).toBeCloseTo(m(['184', '29', '1002']), 12);
    expect(result.deltas!.weighted!.ndcg_cut_10).toBeCloseTo(m(['77', '184']) - m(['184', '29', '1002']), 12);
    expect(result.rows.map((r) => r.docno)).toEqual(['184', '77', '29', '1002']);
    expect(result.rows.find((r) => r.docno === '77')!.title).toBe('boundary layer control');
    expect(result.notes.join(' ')).toMatch(/cf is its document count/);
    // The requests that gave the statistics: `_count` of each n-gram as a phrase in any search field.
    const counts = s.requests.filter((r) => r.path === '/docs/_count').map((r) => JSON.stringify(r.body));
    expect(counts).toContain(JSON.stringify({ query: { bool: { should: [{ match_phrase: { title: { query: 'boundary layer' } } }, { match_phrase: { text: { query: 'boundary layer' } } }] } } }));
  });

  it('without a model: two variants and a note that says why', async () => {
    const s = await start(rankings(withTermVectors(healthy())), { kind, queries: '1\tskin friction\n' });
    const result = await compare(s, '1');
    expect(result.variants.map((v) => v.name)).toEqual(['original', 'bo1']);
    expect(result.notes).toContain('No weighted variant: no term-weighting model is loaded (set "model" in querylens.json).');
  });
});

describe('cluster failures in compare and weighing', () => {
  const failures: { name: string; reply: Reply; code: string }[] = [
    { name: '401', reply: { status: 401, fixture: 'error-401.json' }, code: 'cluster/unauthorized' },
    { name: '404 index', reply: { status: 404, fixture: 'error-404-index.json' }, code: 'cluster/index-missing' },
    { name: '429', reply: { status: 429, fixture: 'error-429.json' }, code: 'cluster/too-many-requests' },
    { name: 'timeout', reply: { fail: 'timeout' }, code: 'cluster/timeout' },
    { name: 'connection refused', reply: { fail: 'refused' }, code: 'cluster/connection-refused' },
    { name: 'shard failures', reply: { status: 200, fixture: 'shard-failures.json' }, code: 'cluster/shard-failures' },
  ];

  it.each(failures)('$name on a search: compare and runFile fail with the message and code', async ({ reply, code }) => {
    const s = await start(healthy({ search: reply }));
    for (const e of [await rejection(compare(s, '1')), await rejection(runFile(s))]) {
      expect(e.message).toContain(`(${code})`);
      expect(e.data).toEqual({ cluster: code });
    }
  });

  it.each(failures)('$name on the statistics (_count): the weights action is disabled with the reason, weighFile says why per query', async ({ reply, code }) => {
    const model = statisticsModel();
    const answer = rankings(corpusCluster(CORPUS, healthy()));
    const s = await start((r) => (r.path === '/docs/_count' ? reply : answer(r)), { queries: '1\tboundary layer\n', model });
    const actions = (await s.client.sendRequest('textDocument/codeAction', {
      textDocument: { uri: s.uri },
      range: { start: { line: 0, character: 3 }, end: { line: 0, character: 3 } },
      context: { diagnostics: [] },
    })) as CodeAction[];
    const weights = actions.find((a) => a.title.startsWith('Apply TW-BERT weights'))!;
    expect(weights.disabled?.reason).toMatch(new RegExp(`^TW-BERT weighs by the cluster's statistics: .*\\(${code.replace('/', '\\/')}\\)$`));
    expect(weights.edit).toBeUndefined();
    const file = (await s.client.sendRequest('querylens/weighFile', { uri: s.uri })) as WeighFileResult;
    expect(file.weighed).toEqual([]);
    expect(file.notWeighed).toEqual([{ qid: '1', reason: expect.stringMatching(new RegExp(`^the cluster's statistics the model reads are unavailable: .*\\(${code.replace('/', '\\/')}\\)$`)) }]);
    // Nothing was given to the model without its statistics.
    expect(model.given).toEqual([]);
  });
});

describe.each(KINDS)('weighing on %s', (kind) => {
  it('the weights action and querylens/weighFile weigh by the cluster\'s statistics', async () => {
    const model = statisticsModel();
    const s = await start(rankings(corpusCluster(CORPUS, healthy())), { kind, queries: '1\tboundary layer\n', model });
    // The status says where the model's statistics come from.
    expect(s.statuses.at(-1)!.model.message).toMatch(/It reads each query's statistics from the cluster: df by _count over every shard; cf, ictf and bo1 from _termvectors/);
    const actions = (await s.client.sendRequest('textDocument/codeAction', {
      textDocument: { uri: s.uri },
      range: { start: { line: 0, character: 3 }, end: { line: 0, character: 3 } },
      context: { diagnostics: [] },
    })) as CodeAction[];
    const weights = actions.find((a) => a.title.startsWith('Apply TW-BERT weights'))!;
    expect(weights.disabled).toBeUndefined();
    const [w1, w2, w3] = expectedStatistics().map((x) => Number(x.idf.toPrecision(3)));
    const text = `#weight( ${w1} boundary ${w2} layer ${w3} #1(boundary layer) )`;
    expect(weights.edit!.changes![s.uri]![0]!.newText).toBe(text);
    expectStatistics(model.given[0]!.statistics);
    const file = (await s.client.sendRequest('querylens/weighFile', { uri: s.uri })) as WeighFileResult;
    expect(file.weighed).toEqual([{ qid: '1', text }]);
    // The model's answer is remembered for the session: one weighing, one set of statistics requests.
    expect(model.given).toHaveLength(1);
  });
});
