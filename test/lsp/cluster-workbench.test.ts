/**
 * Issue 12: the workbench on a search cluster, through the language server in-process (cluster-harness.ts):
 * `querylens/sweep` of fbDocs/fbTerms (Bo1 and ranking on the cluster, evaluated by querylens; k1/b/mu an
 * explained refusal), and the index browser (`document`, `analyze`, `indexTerms` where the cluster type lists
 * terms, `postings` explained), on both cluster types, with cluster failures as explained request errors.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../server/engine/eval/index.js';
import type { AnalyzeResult, DocumentResult, IndexTermsResult, JudgeResult, SweepResult } from '../../server/lsp/engine/workbench-protocol.js';
import { corpusCluster, searchReply, type MockCorpus, type RecordedRequest, type Reply } from '../support/mock-cluster.js';
import { closeSessionsAfterEach, healthy, QRELS, rejection, start, withTermVectors, type Session } from './cluster-harness.js';

closeSessionsAfterEach();

const KINDS = ['opensearch', 'elasticsearch'] as const;

const FIRST = [
  { docno: '184', score: 7.2153, source: { title: 'transition in hypersonic flow' } },
  { docno: '29', score: 5.0417, source: { title: 'skin friction' } },
  { docno: '1002', score: 1.25, source: {} },
];
const EXPANDED = [
  { docno: '77', score: 9.5, source: { title: 'boundary layer control' } },
  { docno: '184', score: 6.25, source: { title: 'transition in hypersonic flow' } },
];

/** Expanded queries (the only ones with boosts) rank EXPANDED, every other search FIRST. */
function rankings(fallback: (r: RecordedRequest) => Reply): (r: RecordedRequest) => Reply {
  return (r) => {
    if (r.path.endsWith('/_search') && (r.body as { size?: number }).size !== 0) return searchReply(JSON.stringify(r.body).includes('"boost"') ? EXPANDED : FIRST);
    return fallback(r);
  };
}

const sweep = (s: Session, params: Record<string, unknown>) => s.client.sendRequest('querylens/sweep', { uri: s.uri, ...params }) as Promise<SweepResult>;
const QRELS_1 = new Map([['1', new Map([['184', 1], ['29', 0], ['77', 2]])]]);

describe('cluster failures in the sweep and the browser', () => {
  const failures: { name: string; reply: Reply; code: string }[] = [
    { name: '401', reply: { status: 401, fixture: 'error-401.json' }, code: 'cluster/unauthorized' },
    { name: '404 index', reply: { status: 404, fixture: 'error-404-index.json' }, code: 'cluster/index-missing' },
    { name: '429', reply: { status: 429, fixture: 'error-429.json' }, code: 'cluster/too-many-requests' },
    { name: 'timeout', reply: { fail: 'timeout' }, code: 'cluster/timeout' },
    { name: 'connection refused', reply: { fail: 'refused' }, code: 'cluster/connection-refused' },
  ];

  it.each([...failures, { name: 'shard failures', reply: { status: 200, fixture: 'shard-failures.json' } as Reply, code: 'cluster/shard-failures' }])(
    '$name on a search: the sweep fails with the message and code',
    async ({ reply, code }) => {
      const s = await start(healthy({ search: reply }), { queries: '1\tskin friction\n' });
      const e = await rejection(sweep(s, { fbDocs: [2] }));
      expect(e.message).toContain(`(${code})`);
      expect(e.data).toEqual({ cluster: code });
    },
  );

  // _termvectors and get address one document on one shard: no shard failures there.
  it.each(failures)('$name on _termvectors and get: document and analyze fail with the message and code', async ({ reply, code }) => {
    const answer = corpusCluster(CORPUS, healthy());
    const s = await start((r) => (r.path.includes('/_termvectors') || r.path.includes('/_doc/') ? reply : answer(r)));
    for (const e of [await rejection(s.client.sendRequest('querylens/document', { docno: '29' })), await rejection(s.client.sendRequest('querylens/analyze', { text: 'boundary' }))]) {
      expect(e.message).toContain(`(${code})`);
      expect(e.data).toEqual({ cluster: code });
    }
  });
});

describe.each(KINDS)('querylens/sweep on %s', (kind) => {
  it('sweeps fbDocs × fbTerms with Bo1 and ranking on the cluster, evaluated by querylens; the edit writes only the expansion', async () => {
    const s = await start(rankings(withTermVectors(healthy())), { kind, queries: '1\tskin friction\n2\t#combine( flow\n' });
    const result = await sweep(s, { fbDocs: [1, 3], fbTerms: [5], measures: ['ndcg_cut_10', 'map'] });
    expect(result.rows.map((r) => r.setting)).toEqual([
      { scorer: 'bm25', bo1: { fbDocs: 1, fbTerms: 5 } },
      { scorer: 'bm25', bo1: { fbDocs: 3, fbTerms: 5 } },
    ]);
    const expected = evaluate({ runId: 'x', queries: new Map([['1', EXPANDED.map((h) => ({ docno: h.docno, score: h.score }))]]) }, QRELS_1, { measures: ['ndcg_cut_10', 'map'] }).mean;
    for (const row of result.rows) {
      expect(row.mean.ndcg_cut_10).toBeCloseTo(expected.ndcg_cut_10!, 12);
      expect(row.queries).toBe(1);
    }
    expect(result.skipped).toEqual([{ qid: '2', reason: 'the query has syntax errors' }]);
    // fbDocs 1 read one feedback document's term vectors, fbDocs 3 the top three (per search field).
    const docVectors = s.requests.filter((r) => /^\/docs\/_termvectors\/./.test(r.path)).map((r) => r.path.split('/')[3]);
    expect([...new Set(docVectors)]).toEqual(['184', '29', '1002']);
    expect(docVectors.filter((d) => d === '184')).toHaveLength(4);
    expect(result.note).toMatch(/whose own similarity scores every setting; only Bo1's fbDocs and fbTerms vary/);
    const edits = Object.values(result.configEdit!.changes)[0]!.map((e) => e.newText).join('');
    expect(edits).toContain('"expansion"');
    expect(edits).not.toMatch(/k1|"b"|scorer/);
  });

  it('k1, b or mu is refused with the reason (the index\'s similarity settings) and what to do', async () => {
    const s = await start(rankings(healthy()), { kind, queries: '1\tskin friction\n' });
    const e = await rejection(sweep(s, { k1: [0.9, 1.2], b: [0.4] }));
    expect(e.message).toMatch(/cannot sweep k1 and b on (opensearch|elasticsearch) http:\/\/localhost:9200\/docs: on a cluster they are the index's similarity settings/);
    expect(e.message).toMatch(/querylens never does to a user's cluster\. Sweep fbDocs and fbTerms here/);
    expect(e.data).toEqual({ backend: 'cluster', refused: ['k1', 'b'] });
    expect((await rejection(sweep(s, { mu: [1000] }))).data).toEqual({ backend: 'cluster', refused: ['mu'] });
    // Nothing was ranked for a refused sweep.
    expect(s.requests.filter((r) => r.path.endsWith('/_search') && (r.body as { size?: number }).size !== 0)).toEqual([]);
  });

  it('a cluster failure during the sweep fails it with the one line and code', async () => {
    const s = await start(healthy({ search: { status: 429, fixture: 'error-429.json' } }), { kind, queries: '1\tskin friction\n' });
    const e = await rejection(sweep(s, { fbDocs: [2] }));
    expect(e.data).toEqual({ cluster: 'cluster/too-many-requests' });
    expect(e.message).toMatch(/\(429\).*\(cluster\/too-many-requests\)$/);
  });
});

const CORPUS: MockCorpus = {
  '184': { title: 'transition in hypersonic flow', text: 'boundary layer transition at hypersonic speeds boundary layer' },
  '29': { title: 'skin friction', text: 'laminar boundary layer heat transfer' },
  '7': { text: 'layer of boundary' },
};

describe.each(KINDS)('the index browser on %s', (kind) => {
  it('querylens/document: _source fields and each search field\'s term vector with positions', async () => {
    const s = await start(corpusCluster(CORPUS, healthy()), { kind });
    const d = (await s.client.sendRequest('querylens/document', { docno: '29', maxTerms: 3 })) as DocumentResult;
    expect(d.docno).toBe('29');
    expect(d.doc).toBeNull();
    expect(d.title).toBe('skin friction');
    expect(d.fields).toEqual({ text: 'laminar boundary layer heat transfer' });
    expect(d.distinctTerms).toBe(7);
    expect(d.length).toBe(7);
    expect(d.terms).toEqual([
      { term: 'boundary', tf: 1, positions: [1], field: 'text' },
      { term: 'friction', tf: 1, positions: [1], field: 'title' },
      { term: 'heat', tf: 1, positions: [3], field: 'text' },
    ]);
    expect(d.note).toMatch(/_source and the term vector of each search field \(title, text\)/);
    const missing = await rejection(s.client.sendRequest('querylens/document', { docno: 'nope' }));
    expect(missing.data).toEqual({ cluster: 'cluster/document-missing' });
  });

  it('querylens/analyze: the cluster\'s analysis of the text with one shard\'s df and cf', async () => {
    const s = await start(corpusCluster(CORPUS, healthy()), { kind });
    const a = (await s.client.sendRequest('querylens/analyze', { text: 'Boundary of the layer' })) as AnalyzeResult;
    expect(a.indexed).toBe(true);
    expect(a.words).toEqual([
      { surface: 'Boundary', start: 0, end: 8, term: 'boundary', stopword: false, position: 0, df: 0, cf: 0 },
      { surface: 'layer', start: 16, end: 21, term: 'layer', stopword: false, position: 3, df: 0, cf: 0 },
    ]);
    expect(a.note).toMatch(/as the field "title" analyses it .*one shard's/);
  });

  it('querylens/postings is explained: no cluster lists postings; the df from _count is given', async () => {
    const s = await start(corpusCluster(CORPUS, healthy()), { kind, backend: { fields: ['text'] } });
    const e = await rejection(s.client.sendRequest('querylens/postings', { term: 'boundary' }));
    expect(e.message).toMatch(/cannot list the postings of 'boundary': a cluster gives no term's list of documents with positions\. 3 documents hold it in "text" \(_count\)/);
    expect(e.data).toEqual({ backend: 'cluster' });
  });
});

describe('querylens/indexTerms on a cluster', () => {
  it('Elasticsearch: _terms_enum lists terms in term order, df counted per term by _count, and the note says what is shown', async () => {
    const s = await start(corpusCluster(CORPUS, healthy()), { kind: 'elasticsearch', backend: { fields: ['text'] } });
    const t = (await s.client.sendRequest('querylens/indexTerms', { prefix: 'B', top: 5 })) as IndexTermsResult;
    expect(t.terms).toEqual([{ term: 'boundary', df: 3, cf: null }]);
    expect(t.numDocs).toBe(3);
    expect(t.note).toMatch(/^Terms of the field "text" starting with "b" as Elasticsearch's _terms_enum lists them: in term order, not by df, at most 5/);
    const all = (await s.client.sendRequest('querylens/indexTerms', { top: 3 })) as IndexTermsResult;
    expect(all.terms.map((x) => [x.term, x.df])).toEqual([['boundary', 3], ['heat', 1], ['hypersonic', 1]]);
  });

  it('OpenSearch has no API that lists terms: explained refusal', async () => {
    const s = await start(corpusCluster(CORPUS, healthy()), { kind: 'opensearch' });
    const e = await rejection(s.client.sendRequest('querylens/indexTerms', {}));
    expect(e.message).toMatch(/cannot list the index's terms: OpenSearch has no API that does \(no `_terms_enum`\)/);
    expect(e.data).toEqual({ backend: 'cluster' });
  });

  it('a cluster failure on _terms_enum is the request\'s error with its code', async () => {
    const answer = corpusCluster(CORPUS, healthy());
    const s = await start((r) => (r.path === '/docs/_terms_enum' ? { status: 401, fixture: 'error-401.json' } : answer(r)), { kind: 'elasticsearch' });
    const e = await rejection(s.client.sendRequest('querylens/indexTerms', {}));
    expect(e.data).toEqual({ cluster: 'cluster/unauthorized' });
  });
});

describe.each(KINDS)('judging in place on %s', (kind) => {
  it('writes the grade to the workspace\'s qrels file once the cluster has the document; a missing one or a failure writes nothing', async () => {
    const s = await start(corpusCluster(CORPUS, healthy()), { kind });
    const qrels = join(s.root, 'qrels.txt');
    const judged = (await s.client.sendRequest('querylens/judge', { uri: s.uri, qid: '2', docno: '29', grade: 2 })) as JudgeResult;
    expect(judged).toMatchObject({ line: 4, action: 'appended', previous: null });
    expect(readFileSync(qrels, 'utf8')).toBe(`${QRELS}2 0 29 2\n`);
    expect(s.requests.some((r) => r.path.endsWith('/_doc/29'))).toBe(true);
    const missing = await rejection(s.client.sendRequest('querylens/judge', { uri: s.uri, qid: '2', docno: 'nope', grade: 1 }));
    expect(missing.code).toBe(-32602);
    expect(missing.message).toContain('no document "nope" in the index');
    expect(readFileSync(qrels, 'utf8')).toBe(`${QRELS}2 0 29 2\n`);

    const answer = corpusCluster(CORPUS, healthy());
    const failing = await start((r) => (r.path.includes('/_doc/') ? { status: 429, fixture: 'error-429.json' } : answer(r)), { kind });
    const e = await rejection(failing.client.sendRequest('querylens/judge', { uri: failing.uri, qid: '2', docno: '29', grade: 1 }));
    expect(e.data).toEqual({ cluster: 'cluster/too-many-requests' });
    expect(readFileSync(join(failing.root, 'qrels.txt'), 'utf8')).toBe(QRELS);
  });
});
