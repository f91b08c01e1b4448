/**
 * The custom requests querylens/preview, querylens/explain and querylens/compare through the
 * real server, and their staleness rule: a request for an old document version fails with
 * ContentModified instead of describing text the user no longer sees.
 */
import { CancellationTokenSource } from 'vscode-languageserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompareResult, ExplainResult, PreviewResult } from '../../../server/lsp/engine/protocol.js';
import { freshUri, type TestClient } from '../harness.js';
import { makeWorkspace, startIn, type Workspace, failure } from './fixture.js';

let ws: Workspace;
let client: TestClient;
const uri = freshUri('indri');
const TEXT = ['1\t#combine( boundary layer flow )', '2\t#combine( heat conduction )', '3\t#combine( broken '].join('\n');

beforeAll(async () => {
  ws = await makeWorkspace();
  client = (await startIn(ws.root)).client;
  client.open(uri, 'indri', TEXT);
  await client.diagnosticsFor(uri);
});
afterAll(async () => {
  await client?.stop();
  ws?.dispose();
});

describe('querylens/preview', () => {
  it('returns the ranked list with titles, highlighted snippets, scores, explanations, relevance and metrics', async () => {
    const r = await client.request<PreviewResult>('querylens/preview', { uri, qid: '1', version: 1 });
    expect(r.qid).toBe('1');
    expect(r.matchedDocs).toBe(4);
    expect(r.hits.map((h) => h.rank)).toEqual([1, 2, 3, 4]);
    expect(r.hits[0]!.docno).toBe('d3');
    expect(r.hits[0]!.title).toBe('Boundary layer transition');
    for (let i = 1; i < r.hits.length; i++) expect(r.hits[i]!.score).toBeLessThanOrEqual(r.hits[i - 1]!.score);
    // The explanation's root is the score, bit for bit.
    for (const h of r.hits) expect(h.explanation!.value).toBe(h.score);
    // Highlights cover words that analyse to query terms.
    const snippet = r.hits[0]!.snippet;
    const marked = snippet.highlights.map(([s, e]) => snippet.text.slice(s, e).toLowerCase());
    expect(marked).toEqual(['boundary', 'layer', 'flow']);
    expect(r.hits.find((h) => h.docno === 'd1')!.relevance).toBe(2);
    expect(r.hits.find((h) => h.docno === 'd5')!.relevance).toBeNull();
    expect(Object.keys(r.metrics!)).toEqual(expect.arrayContaining(['ndcg_cut_10', 'map', 'P_10', 'recall_100']));
    // Judged relevant: d1 (2), d3 (1); both retrieved → recall 1.
    expect(r.metrics!.recall_100).toBe(1);
    expect(r.warnings).toEqual([]);
    expect(r.scorer).toEqual({ name: 'bm25', k1: 1.2, b: 0.75, mu: 2500 });
  });

  it('honours k and explain: false; no metrics for a query the qrels do not judge', async () => {
    const other = freshUri('indri');
    client.open(other, 'indri', '7\tflow');
    const r = await client.request<PreviewResult>('querylens/preview', { uri: other, qid: '7', k: 2, explain: false });
    expect(r.hits).toHaveLength(2);
    expect(r.hits[0]!.explanation).toBeUndefined();
    expect(r.metrics).toBeNull();
  });

  it('refuses a query with syntax errors, an unknown qid and a bad k', async () => {
    expect((await failure(client.request('querylens/preview', { uri, qid: '3' }))).message).toMatch(/syntax errors/);
    expect((await failure(client.request('querylens/preview', { uri, qid: '42' }))).message).toMatch(/no query with qid "42"/);
    expect((await failure(client.request('querylens/preview', { uri, qid: '1', k: 0 }))).code).toBe(-32602);
  });
});

describe('querylens/explain', () => {
  it('explains a retrieved document with its rank and score', async () => {
    const preview = await client.request<PreviewResult>('querylens/preview', { uri, qid: '1' });
    const second = preview.hits[1]!;
    const r = await client.request<ExplainResult>('querylens/explain', { uri, qid: '1', docno: second.docno });
    expect(r.rank).toBe(2);
    expect(r.score).toBe(second.score);
    expect(r.explanation.value).toBe(second.score);
    expect(r.explanation.children.length).toBeGreaterThan(0);
  });

  it('explains a document the query does not retrieve', async () => {
    const r = await client.request<ExplainResult>('querylens/explain', { uri, qid: '1', docno: 'd4' });
    expect(r.rank).toBeNull();
    expect(r.score).toBeNull();
    expect(r.explanation.matched).toBe(false);
    expect(r.title).toBe('Wing flutter');
  });

  it('refuses an unknown docno', async () => {
    expect((await failure(client.request('querylens/explain', { uri, qid: '1', docno: 'nope' }))).message).toMatch(/no document "nope"/);
  });
});

describe('querylens/compare', () => {
  it('puts the original and the Bo1-expanded lists side by side with rank changes and metric deltas', async () => {
    const doc = freshUri('indri');
    client.open(doc, 'indri', '1\t#combine( boundary layer )');
    const r = await client.request<CompareResult>('querylens/compare', { uri: doc, qid: '1', k: 5 });
    expect(r.variants.map((v) => v.name)).toEqual(['original', 'bo1']);
    expect(r.variants[0]!.query).toBe('#combine( boundary layer )');
    expect(r.variants[1]!.query).toMatch(/^#weight\( /);
    expect(r.expansionTerms.some((t) => !t.isOriginal)).toBe(true);
    for (const row of r.rows) {
      const o = row.ranks.original;
      const b = row.ranks.bo1;
      expect(row.change.bo1).toBe(o != null && b != null ? o - b : null);
    }
    // Every document of either top 5 is a row.
    const listed = new Set(r.variants.flatMap((v) => v.hits.map((h) => h.docno)));
    expect(new Set(r.rows.map((x) => x.docno))).toEqual(listed);
    const original = r.variants[0]!.metrics!;
    const bo1 = r.variants[1]!.metrics!;
    expect(r.deltas!.bo1!.map).toBeCloseTo(bo1.map! - original.map!, 12);
    expect(r.notes.join(' ')).toMatch(/No weighted variant/);
  });
});

describe('stale requests', () => {
  it('fail with ContentModified once the document has moved on', async () => {
    const doc = freshUri('indri');
    client.open(doc, 'indri', '1\tflow');
    await client.diagnosticsFor(doc);
    client.change(doc, '1\tflow plate');
    await client.diagnosticsFor(doc);
    const err = await failure(client.request('querylens/preview', { uri: doc, qid: '1', version: 1 }));
    expect(err.code).toBe(-32801);
    const ok = await client.request<PreviewResult>('querylens/preview', { uri: doc, qid: '1', version: 2 });
    expect(ok.query).toBe('flow plate');
  });

  it('answer for the version the client names even before the server validated it', async () => {
    const doc = freshUri('indri');
    client.open(doc, 'indri', '1\tflow');
    client.change(doc, '1\theat');
    const r = await client.request<PreviewResult>('querylens/preview', { uri: doc, qid: '1', version: 2 });
    expect(r.query).toBe('heat');
  });

  it('are cancelled when the client cancels them', async () => {
    const doc = freshUri('indri');
    client.open(doc, 'indri', '1\tflow');
    await client.diagnosticsFor(doc);
    // Version 9 never comes: the server waits for it, checking for cancellation.
    const source = new CancellationTokenSource();
    const pending = client.connection.sendRequest('querylens/preview', { uri: doc, qid: '1', version: 9 }, source.token);
    setTimeout(() => source.cancel(), 100);
    const err = await failure(pending);
    expect(err.code).toBe(-32800);
  });

  it('for a version that never arrives fail with an explanation', async () => {
    const doc = freshUri('indri');
    client.open(doc, 'indri', '1\tflow');
    const err = await failure(client.request('querylens/preview', { uri: doc, qid: '1', version: 7 }));
    expect(err.message).toMatch(/version 7 of .* never arrived/);
  });
});
