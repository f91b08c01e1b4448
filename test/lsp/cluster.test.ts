/**
 * Issue 12 §2: the editor on a search cluster. A workspace whose querylens.json has a `backend`
 * section ranks on the cluster: the real language server (startLanguageServer with the default
 * LocalEngineProvider) runs in-process on a pair of in-memory streams, and the cluster client's HTTP
 * connection replays recorded responses (test/support/mock-cluster.ts), passed through the provider's
 * test seam (`ProviderOptions.cluster`), so no production code reads a test-only variable.
 *
 * Checked: the status, the preview lens (metrics by querylens's trec_eval code), the results panel
 * search (`querylens/preview`), explain, hover statistics from `_termvectors`, the translation and
 * per-shard diagnostics, dfsQueryThenFetch on the requests, the Bo1 action, and every cluster error
 * (401, 404 index, 429, timeout, shard failures) as an explained state. Compare, run file and
 * weighing on a cluster: cluster-requests.test.ts.
 */
import type { CodeAction, Hover, MarkupContent } from 'vscode-languageserver';
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../server/engine/eval/index.js';
import type { ExplainResult, PreviewResult } from '../../server/lsp/engine/protocol.js';
import {
  closeSessionsAfterEach,
  diagnostics,
  healthy,
  lenses,
  lineOf,
  QUERIES,
  rejection,
  searches,
  start,
  status,
  until,
  withTermVectors,
} from './cluster-harness.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { searchReply, type RecordedRequest, type Reply } from '../support/mock-cluster.js';

closeSessionsAfterEach();
describe.each(['opensearch', 'elasticsearch'] as const)('the editor on %s', (kind) => {
  it('says in the status that it ranks on the cluster (probe: documents and shards), not on a local index', async () => {
    const s = await start(healthy(), { kind });
    expect(status(s).index.state).toBe('ready');
    expect(status(s).index.message).toMatch(/^Ranking on (OpenSearch|Elasticsearch) index 'docs' at http:\/\/localhost:9200: 1,400 documents, 1 shard, qrels for 1 queries\.$/);
    expect(s.requests[0]!.body).toEqual({ query: { match_all: {} }, size: 0, track_total_hits: true });
  });

  it("says in the status when the index's similarity is not the scorer the queries are written for, or cannot be read", async () => {
    const other = await start(healthy({ settings: { status: 200, text: JSON.stringify({ docs: { settings: { index: { similarity: { default: { type: 'BM25', k1: '0.9', b: '0.4' } } } } } }) } }), { kind });
    expect(status(other).index.state).toBe('ready');
    expect(status(other).index.message).toContain(
      `qrels for 1 queries. Note: the index's BM25 has k1 = 0.9, b = 0.4 (its "index.similarity.default" settings), the queries are written for k1 = 1.2, b = 0.75 (bm25): the cluster ranks with its own;`,
    );
    const forbidden = await start(healthy({ settings: { status: 403, fixture: 'error-403.json' } }), { kind });
    expect(status(forbidden).index.state).toBe('ready');
    expect(status(forbidden).index.message).toMatch(/qrels for 1 queries\. Note: cannot read the index's similarity settings to compare them with the bm25 scorer's: .+ \(403\): .+\.$/);
  });

  it('the preview lens shows the cluster ranking with nDCG@10 by querylens\'s trec_eval code', async () => {
    const s = await start(healthy(), { kind });
    const found = await lenses(s);
    expect(found).toHaveLength(2);
    const run = { runId: 'x', queries: new Map([['1', [{ docno: '184', score: 7.2153 }, { docno: '29', score: 5.0417 }, { docno: '1002', score: 1.25 }]]]) };
    const judged = new Map([['1', new Map([['184', 1], ['29', 0], ['77', 2]])]]);
    const ndcg = evaluate(run, judged, { measures: ['ndcg_cut_10'] }).perQuery.get('1')!.ndcg_cut_10!;
    expect(found[0]!.command!.title).toBe(`▶ 3 results · nDCG@10 ${ndcg.toFixed(2)} · 1 of the top 3 unjudged · top: transition in hypersonic flow · ${kind}`);
    expect(found[0]!.command!.command).toBe('querylens.showResults');
    // Query 2 has no qrels: no metric.
    expect(found[1]!.command!.title).toBe(`▶ 3 results · top: transition in hypersonic flow · ${kind}`);
    // One search of 10 hits per query, cached; once the panel has ranked a query to depth 1000, its lens uses that.
    expect(searches(s).map((r) => (r.body as { size: number }).size)).toEqual([10, 10]);
    await lenses(s);
    expect(searches(s)).toHaveLength(2);
    await s.client.sendRequest('querylens/preview', { uri: s.uri, qid: '1', explain: false });
    expect(searches(s).map((r) => (r.body as { size: number }).size)).toEqual([10, 10, 1000]);
  });

  it('querylens/preview: the top k with snippets from _source, _explain trees and all metrics', async () => {
    const s = await start(healthy(), { kind });
    const result = (await s.client.sendRequest('querylens/preview', { uri: s.uri, qid: '1', k: 2 })) as PreviewResult;
    expect(result.matchedDocs).toBe(3);
    expect(result.hits.map((h) => [h.rank, h.docno, h.title, h.score, h.relevance])).toEqual([
      [1, '184', 'transition in hypersonic flow', 7.2153, 1],
      [2, '29', 'skin friction', 5.0417, 0],
    ]);
    const snippet = result.hits[0]!.snippet;
    expect(snippet.text).toBe('experiments on boundary layer transition at hypersonic speeds');
    expect(snippet.highlights.map(([a, b]) => snippet.text.slice(a, b))).toEqual(['boundary', 'layer', 'hypersonic']);
    expect(result.hits[0]!.explanation!.value).toBe(7.2153);
    expect(result.hits[0]!.explanation!.children.map((c) => c.value)).toEqual([4.1, 3.1153]);
    expect(s.requests.filter((r) => r.path.includes('/_explain/')).map((r) => r.path)).toEqual(['/docs/_explain/184', '/docs/_explain/29']);
    const run = { runId: 'x', queries: new Map([['1', [{ docno: '184', score: 7.2153 }, { docno: '29', score: 5.0417 }, { docno: '1002', score: 1.25 }]]]) };
    const judged = new Map([['1', new Map([['184', 1], ['29', 0], ['77', 2]])]]);
    expect(result.metrics).toEqual(evaluate(run, judged, { measures: ['ndcg_cut_10', 'map', 'P_10', 'recall_100', 'recip_rank'] }).perQuery.get('1'));
    expect(result.relevantNotShown).toEqual([{ docno: '77', title: '', relevance: 2, rank: null }]);
    expect(result.warnings.map((w) => w.code)).toContain('cluster/approximated');
  });

  it('querylens/preview: each hit gets its own _explain tree (requests in groups, answers in rank order)', async () => {
    const answer = healthy();
    const s = await start((r) => {
      const id = /\/_explain\/(.+)$/.exec(r.path)?.[1];
      return id ? { status: 200, text: JSON.stringify({ _id: id, matched: true, explanation: { value: Number(id), description: `doc ${id}`, details: [] } }) } : answer(r);
    }, { kind });
    const result = (await s.client.sendRequest('querylens/preview', { uri: s.uri, qid: '1', k: 3 })) as PreviewResult;
    expect(result.hits.map((h) => [h.docno, h.explanation!.value, h.explanation!.description])).toEqual([
      ['184', 184, 'doc 184'],
      ['29', 29, 'doc 29'],
      ['1002', 1002, 'doc 1002'],
    ]);
  });

  it('querylens/explain: _explain of the document with its rank and title', async () => {
    const s = await start(healthy(), { kind });
    const result = (await s.client.sendRequest('querylens/explain', { uri: s.uri, qid: '1', docno: '29' })) as ExplainResult;
    expect(result).toMatchObject({ qid: '1', docno: '29', title: 'skin friction', rank: 2, score: 7.2153, relevance: 0 });
    expect(result.explanation.children[0]!.description).toMatch(/^weight\(text:boundari/);
  });

  it('hover on a word: df and cf from _termvectors, said to be one shard\'s', async () => {
    const s = await start(healthy(), { kind });
    const hover = (await s.client.sendRequest('textDocument/hover', { textDocument: { uri: s.uri }, position: { line: 0, character: 13 } })) as Hover;
    const text = (hover.contents as MarkupContent).value;
    expect(text).toContain('| text | `boundari` | 312 | 771 |');
    // The recorded response has no title field: said, not shown as zeros.
    expect(text).toContain('No term of it in `title`');
    expect(text).toContain('**one shard** (1,400 documents)');
    const tv = s.requests.filter((r) => r.path === '/docs/_termvectors').at(-1)!;
    const flags = { ...Object.fromEntries(new URLSearchParams(tv.querystring)), ...(tv.body as object) } as Record<string, unknown>;
    expect(flags.doc).toEqual({ text: 'boundary' });
  });

  it('the translation-fidelity diagnostics are published at the construct with cluster codes', async () => {
    const s = await start(healthy(), { kind });
    const found = await diagnostics(s);
    const approximated = found.filter((d) => d.code === 'cluster/approximated');
    const d = approximated.find((x) => lineOf(QUERIES, x.range.start.line, x.range.start.character, x.range.end.character) === '#1( hypersonic flow )')!;
    expect(d).toBeDefined();
    expect(d.message).toMatch(/^On the cluster: /);
    // One shard: no per-shard note.
    expect(found.filter((x) => x.code === 'cluster/per-shard-statistics')).toEqual([]);
  });
});

describe('per-shard statistics', () => {
  it('with several shards, each query says once that shards score with their own statistics and suggests dfsQueryThenFetch', async () => {
    const s = await start(healthy({ probe: { status: 200, fixture: 'count-3-shards.json' } }));
    expect(status(s).index.message).toContain('the index has 3 shards');
    expect(status(s).index.message).toContain('"dfsQueryThenFetch": true');
    const notes = (await diagnostics(s)).filter((d) => d.code === 'cluster/per-shard-statistics');
    expect(notes.map((d) => d.range.start.line)).toEqual([0, 1]);
    expect(notes[0]!.message).toMatch(/3 shards.*search_type=dfs_query_then_fetch/);
    expect(notes[0]!.severity).toBe(3);
  });

  it('the note names the doc_freq differences the explanations show, and dfs_query_then_fetch does not cover _explain', async () => {
    /** An `_explain` answer whose BM25 tree shows `text:boundari` with n of N documents (that document's shard). */
    const explainWith = (docno: string, n: number, N: number): Reply => ({
      status: 200,
      text: JSON.stringify({
        _index: 'docs',
        _id: docno,
        matched: true,
        explanation: {
          value: 4.1,
          description: 'sum of:',
          details: [
            {
              value: 4.1,
              description: `weight(text:boundari in ${docno}) [PerFieldSimilarity], result of:`,
              details: [
                {
                  value: 4.1,
                  description: 'score(freq=2.0), computed as boost * idf * tf from:',
                  details: [
                    {
                      value: 1.5,
                      description: 'idf, computed as log(1 + (N - n + 0.5) / (n + 0.5)) from:',
                      details: [
                        { value: n, description: 'n, number of documents containing term', details: [] },
                        { value: N, description: 'N, total number of documents with field', details: [] },
                      ],
                    },
                  ],
                },
              ],
            },
          ],
        },
      }),
    });
    const hits = [{ docno: '184', score: 7.2, source: { title: 'transition in hypersonic flow' } }, { docno: '29', score: 5.0 }];
    const shards = { probe: { status: 200, fixture: 'count-3-shards.json' } as Reply, search: searchReply(hits, 3) };
    const answer = (r: RecordedRequest, base: (r: RecordedRequest) => Reply): Reply =>
      r.path === '/docs/_explain/184' ? explainWith('184', 312, 467) : r.path === '/docs/_explain/29' ? explainWith('29', 298, 466) : base(r);
    for (const dfs of [false, true]) {
      const base = healthy(shards);
      const s = await start((r) => answer(r, base), { backend: { dfsQueryThenFetch: dfs } });
      const before = (await diagnostics(s)).filter((d) => d.code === 'cluster/per-shard-statistics');
      expect(before).toHaveLength(dfs ? 0 : 2);
      const published = s.diagnostics.get(s.uri)!.length;
      await s.client.sendRequest('querylens/preview', { uri: s.uri, qid: '1', k: 2 });
      await until(() => s.diagnostics.get(s.uri)!.length > published, 'diagnostics republished');
      const notes = (await diagnostics(s)).filter((d) => d.code === 'cluster/per-shard-statistics');
      // Only query 1 was explained: its note cites the values, query 2's (when there is one) does not.
      expect(notes.filter((d) => /explanations show it/.test(d.message)).map((d) => d.range.start.line)).toEqual([0]);
      const note = notes.find((d) => d.range.start.line === 0)!;
      expect(note.message).toContain('`text:boundari` is in 312 of 467 documents on the shard of 184 but 298 of 466 documents on the shard of 29');
      if (dfs) expect(note.message).toMatch(/^_explain scores a document with its own shard's term statistics \(it has no dfs_query_then_fetch\)/);
      else expect(note.message).toMatch(/^The cluster's index has 3 shards/);
    }
  });

  it('"dfsQueryThenFetch": true: no note, and every search carries search_type=dfs_query_then_fetch', async () => {
    const s = await start(healthy({ probe: { status: 200, fixture: 'count-3-shards.json' } }), { backend: { dfsQueryThenFetch: true } });
    expect((await diagnostics(s)).filter((d) => d.code === 'cluster/per-shard-statistics')).toEqual([]);
    await lenses(s);
    const all = s.requests.filter((r) => r.path.endsWith('/_search'));
    expect(all.length).toBe(3);
    expect(all.map((r) => new URLSearchParams(r.querystring).get('search_type'))).toEqual(['dfs_query_then_fetch', 'dfs_query_then_fetch', 'dfs_query_then_fetch']);
  });
});

describe('cluster errors are explained states in the editor', () => {
  const cases: { name: string; reply: Reply; code: string; says: RegExp }[] = [
    { name: '401', reply: { status: 401, fixture: 'error-401.json' }, code: 'cluster/unauthorized', says: /refused the credentials \(401\); set QUERYLENS_OPENSEARCH_USERNAME and QUERYLENS_OPENSEARCH_PASSWORD/ },
    { name: '404 index', reply: { status: 404, fixture: 'error-404-index.json' }, code: 'cluster/index-missing', says: /index 'docs' does not exist .*check "index"/ },
    { name: '429', reply: { status: 429, fixture: 'error-429.json' }, code: 'cluster/too-many-requests', says: /too many \(429\).*wait and retry/ },
    { name: 'timeout', reply: { fail: 'timeout' }, code: 'cluster/timeout', says: /did not answer in time; raise "timeoutMs"/ },
    { name: 'connection refused', reply: { fail: 'refused' }, code: 'cluster/connection-refused', says: /cannot connect to .*connection refused; check "url" and that the cluster is running/ },
    { name: 'shard failures', reply: { status: 200, fixture: 'shard-failures.json' }, code: 'cluster/shard-failures', says: /1 of 5 shards of index 'docs' failed.*ranking would be incomplete/ },
  ];

  it.each(cases)('$name at the probe: the status is an error that says why and what to do; the server keeps serving', async ({ reply, code, says }) => {
    const s = await start(() => reply);
    expect(status(s).index.state).toBe('error');
    expect(status(s).index.message).toMatch(says);
    expect(status(s).index.message).toContain(`(${code})`);
    expect(status(s).index.fix).toBeTruthy();
    expect(s.messages.some((m) => says.test(m.message))).toBe(true);
    // The grammar still works.
    const hover = await s.client.sendRequest('textDocument/hover', { textDocument: { uri: s.uri }, position: { line: 0, character: 3 } });
    expect(hover).not.toBeNull();
  });

  it.each(cases)('$name on a search: the lens says what failed, and querylens/preview fails with the message', async ({ reply, code, says }) => {
    const s = await start(healthy({ search: reply }));
    expect(status(s).index.state).toBe('ready');
    const found = await lenses(s);
    expect(found).toHaveLength(2);
    expect(found[0]!.command!.title).toMatch(/^▷ cluster: /);
    expect(found[0]!.command!.title).toMatch(says);
    expect(found[0]!.command!.title).toContain(`(${code})`);
    expect(found[0]!.command!.command).toBe('');
    const e = await rejection(s.client.sendRequest('querylens/preview', { uri: s.uri, qid: '1' }));
    expect(e.message).toMatch(says);
    expect(e.data).toEqual({ cluster: code });
  });

  // A shard failure is a search response's: _termvectors and _explain address one document on one shard.
  it.each(cases.filter((c) => c.name !== 'shard failures'))('$name on _termvectors and _explain: the hover and querylens/explain say what failed', async ({ reply, code, says }) => {
    const answer = healthy();
    const s = await start((r) => (r.path.includes('/_termvectors') || r.path.includes('/_explain/') ? reply : answer(r)));
    const hover = (await s.client.sendRequest('textDocument/hover', { textDocument: { uri: s.uri }, position: { line: 0, character: 13 } })) as Hover;
    const text = (hover.contents as MarkupContent).value;
    expect(text).toMatch(/Statistics of \*\*boundary\*\* are unavailable: /);
    expect(text).toMatch(says);
    expect(text).toContain(`(${code})`);
    const e = await rejection(s.client.sendRequest('querylens/explain', { uri: s.uri, qid: '1', docno: '29' }));
    expect(e.message).toMatch(says);
    expect(e.data).toEqual({ cluster: code });
  });

  it('a failed search is not cached: the next lens asks again and shows the ranking', async () => {
    let fail = true;
    const answer = healthy();
    const s = await start((r) => (fail && r.path.endsWith('/_search') && (r.body as { size?: number }).size !== 0 ? { status: 429, fixture: 'error-429.json' } : answer(r)));
    expect((await lenses(s))[0]!.command!.title).toMatch(/429/);
    fail = false;
    expect((await lenses(s))[0]!.command!.title).toMatch(/^▶ 3 results/);
  });
});

describe('configuration problems', () => {
  it('a bad backend section is an error status located in querylens.json, and nothing falls back to a local index', async () => {
    const text = '{\n  "backend": {\n    "type": "solr",\n    "url": "http://localhost:9200",\n    "index": "docs"\n  }\n}\n';
    const s = await start(healthy(), { configText: text });
    expect(status(s).index.state).toBe('error');
    expect(status(s).index.message).toMatch(/querylens\.json:3:13: "type" must be "opensearch" or "elasticsearch", not "solr"/);
    expect(status(s).configProblems.map((p) => [p.line, p.column])).toEqual([[3, 13]]);
    expect(s.requests).toEqual([]);
    expect(await lenses(s)).toEqual([]);
  });

  it('a bad backend section is an error diagnostic on querylens.json at its place, cleared once the file is corrected', async () => {
    const text = '{\n  "backend": {\n    "type": "solr",\n    "url": "http://localhost:9200",\n    "index": "docs"\n  }\n}\n';
    const s = await start(healthy(), { configText: text });
    const configUri = pathToFileURL(join(s.root, 'querylens.json')).href;
    const published = await until(() => s.diagnostics.get(configUri)?.at(-1), 'diagnostics on querylens.json');
    expect(published.diagnostics).toHaveLength(1);
    const d = published.diagnostics[0]!;
    expect(d.code).toBe('config/backend');
    expect(d.severity).toBe(1);
    expect(d.range).toEqual({ start: { line: 2, character: 12 }, end: { line: 2, character: 18 } });
    expect(d.message).toMatch(/^The "backend" section cannot be used: "type" must be "opensearch" or "elasticsearch", not "solr"/);
    // Corrected: the next reload clears it and ranks on the cluster.
    writeFileSync(join(s.root, 'querylens.json'), JSON.stringify({ backend: { type: 'opensearch', url: 'http://localhost:9200', index: 'docs', fields: ['text'], maxRetries: 0 } }));
    await s.client.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: configUri, type: 2 }] });
    await until(() => s.diagnostics.get(configUri)!.at(-1)!.diagnostics.length === 0, 'the cleared diagnostics');
    await until(() => status(s).index.state === 'ready', 'the cluster status');
  });

  it('a "caFile" outside the workspace is refused, located, before any request', async () => {
    const s = await start(healthy(), { backend: { caFile: '../../etc/ca.pem' } });
    expect(status(s).index.state).toBe('error');
    expect(status(s).index.message).toMatch(/querylens\.json:\d+:\d+: "caFile" .* is outside the workspace folder/);
    expect(s.requests).toEqual([]);
  });

  it('an untrusted workspace never contacts the cluster its querylens.json names', async () => {
    const s = await start(healthy(), { initializationOptions: { trusted: false } });
    expect(status(s).index.state).toBe('untrusted');
    await new Promise((r) => setTimeout(r, 100));
    expect(s.requests).toEqual([]);
  });

  it('a half-set credential pair is an error status naming the variables', async () => {
    const s = await start(healthy(), { env: { QUERYLENS_OPENSEARCH_USERNAME: 'reader' } });
    expect(status(s).index.state).toBe('error');
    expect(status(s).index.message).toMatch(/QUERYLENS_OPENSEARCH_USERNAME is set but QUERYLENS_OPENSEARCH_PASSWORD is not/);
    expect(s.requests).toEqual([]);
  });

  it('credentials come from the environment: the probe carries them', async () => {
    const s = await start(healthy(), { env: { QUERYLENS_OPENSEARCH_USERNAME: 'reader', QUERYLENS_OPENSEARCH_PASSWORD: 'pw' } });
    expect(status(s).index.state).toBe('ready');
    expect(String(s.requests[0]!.headers.authorization)).toBe(`Basic ${Buffer.from('reader:pw').toString('base64')}`);
  });
});

describe('Bo1 expansion on a cluster', () => {
  it('expands from the cluster\'s top 3 with term statistics from _termvectors, weights as SEMANTICS.md §4.5', async () => {
    const s = await start(withTermVectors(healthy()));
    const actions = (await s.client.sendRequest('textDocument/codeAction', {
      textDocument: { uri: s.uri },
      range: { start: { line: 1, character: 3 }, end: { line: 1, character: 3 } },
      context: { diagnostics: [] },
    })) as CodeAction[];
    const bo1 = actions.find((a) => a.title.startsWith('Add Bo1'))!;
    expect(bo1.disabled).toBeUndefined();
    // The formula by hand: w = tfx·log2((1+Pn)/Pn) + log2(1+Pn), Pn = F/N; normalised by the weight of a term
    // with F = tfx of the best term over N' = tokens / average length (= N); the two-document filter drops plate.
    const N = 1400;
    const w = (tfx: number, F: number) => tfx * Math.log2((1 + F / N) / (F / N)) + Math.log2(1 + F / N);
    const raw = { skin: w(3, 20), friction: w(1, 40), lamin: w(4, 100) };
    const best = Object.entries({ skin: [3, raw.skin], friction: [1, raw.friction], lamin: [4, raw.lamin] }).sort((a, b) => b[1][1]! - a[1][1]!)[0]![1][0]!;
    const norm = w(best, best);
    const expected = { skin: 1 + raw.skin / norm, friction: 1 + raw.friction / norm, lamin: raw.lamin / norm };
    const data = bo1.data as { terms: { term: string; weight: number; isOriginal: boolean }[]; feedbackDocnos: string[]; statistics: string };
    expect(data.feedbackDocnos).toEqual(['184', '29', '1002']);
    expect(data.statistics).toBe('one-shard');
    expect(Object.fromEntries(data.terms.map((t) => [t.term, t.weight]))).toEqual({ skin: expect.closeTo(expected.skin, 12), friction: expect.closeTo(expected.friction, 12), lamin: expect.closeTo(expected.lamin, 12) });
    expect(data.terms.find((t) => t.term === 'lamin')!.isOriginal).toBe(false);
    // The edit: the user's words for the original terms, the cluster's term for the added one, 3 digits.
    const edit = bo1.edit!.changes![s.uri]![0]!;
    const r3 = (x: number) => String(Number(x.toPrecision(3)));
    expect(edit.newText).toBe(`#weight( ${r3(expected.skin)} skin ${r3(expected.friction)} friction ${r3(expected.lamin)} lamin )`);
    expect(edit.range).toEqual({ start: { line: 1, character: 2 }, end: { line: 1, character: 15 } });
  });

  it('a cluster failure makes the action disabled with the reason', async () => {
    const s = await start(healthy({ search: { status: 429, fixture: 'error-429.json' } }));
    const actions = (await s.client.sendRequest('textDocument/codeAction', {
      textDocument: { uri: s.uri },
      range: { start: { line: 1, character: 3 }, end: { line: 1, character: 3 } },
      context: { diagnostics: [] },
    })) as CodeAction[];
    const bo1 = actions.find((a) => a.title.startsWith('Add Bo1'))!;
    expect(bo1.disabled?.reason).toMatch(/^Bo1 expansion needs the cluster: .*429.*\(cluster\/too-many-requests\)$/);
    expect(bo1.edit).toBeUndefined();
  });
});
