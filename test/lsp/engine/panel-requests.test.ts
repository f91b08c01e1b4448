/**
 * The results panel's server side through the real server: paging and "why not" in
 * querylens/preview, judging in place (querylens/judge writes the workspace's qrels file and the
 * preview and lens use the grade at once), and querylens/compareTries.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodeLens } from 'vscode-languageserver';
import type { PreviewResult } from '../../../server/lsp/engine/protocol.js';
import type { CompareTriesResult, CompareTryListResult, JudgeResult } from '../../../server/lsp/engine/workbench-protocol.js';
import { compareTryList } from '../../../server/service/judgements.js';
import { freshUri, type TestClient } from '../harness.js';
import { makeWorkspace, QRELS, startIn, type Workspace, failure } from './fixture.js';

let ws: Workspace;
let client: TestClient;
const uri = freshUri('indri');
// Line 3 has no written id (its implied id is 3).
const TEXT = ['1\t#combine( boundary layer flow )', '2\t#combine( heat conduction )', '#combine( flow )'].join('\n');

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

describe('querylens/preview paging and why not', () => {
  it('pages with offset and lists the judged-relevant documents not shown, with their ranks', async () => {
    const all = await client.request<PreviewResult>('querylens/preview', { uri, qid: '1', explain: false });
    const page = await client.request<PreviewResult>('querylens/preview', { uri, qid: '1', offset: 2, k: 2, explain: false });
    expect(page.offset).toBe(2);
    expect(page.hits.map((h) => [h.rank, h.docno])).toEqual(all.hits.slice(2, 4).map((h) => [h.rank, h.docno]));
    // Top 10 holds d1 and d3 (both judged relevant): nothing missed.
    expect(all.relevantNotShown).toEqual([]);
    // The first hit only: the other judged-relevant document is listed with its rank.
    const first = await client.request<PreviewResult>('querylens/preview', { uri, qid: '1', k: 1, explain: false });
    const shown = first.hits[0]!.docno;
    const other = shown === 'd1' ? 'd3' : 'd1';
    const rankOfOther = all.hits.find((h) => h.docno === other)!.rank;
    expect(first.relevantNotShown).toEqual([{ docno: other, title: expect.any(String), relevance: other === 'd1' ? 2 : 1, rank: rankOfOther }]);
    // Topic 2 judges d2 only, which "heat conduction" retrieves; an implied id is never judged.
    const implied = await client.request<PreviewResult>('querylens/preview', { uri, qid: '3', explain: false });
    expect(implied.relevantNotShown).toEqual([]);
    expect((await failure(client.request('querylens/preview', { uri, qid: '1', offset: 995, k: 10 }))).code).toBe(-32602);
  });
});

describe('querylens/judge', () => {
  it('appends a judgement, then replaces exactly that line; preview, why-not and lens follow at once', async () => {
    const qrelsPath = join(ws.root, 'data/qrels.txt');
    const before = await client.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } });
    expect(before[0]!.command!.title).toMatch(/1 of the top 4 unjudged/);
    // Each lens's count is also a diagnostic on its query; query 3's id is implied, so it has neither.
    const unjudged = (await client.diagnosticsFor(uri)).filter((d) => d.code === 'engine/unjudged-top-k');
    const lensCounts = before.flatMap((l) => {
      const m = /(\d+) of the top (\d+) unjudged/.exec(l.command!.title);
      return m ? [[l.range.start.line, `${m[1]} of the top ${m[2]} are unjudged`]] : [];
    });
    expect(unjudged.map((d) => [d.range.start.line, d.message.split(':')[0]])).toEqual(lensCounts);
    expect(lensCounts[0]).toEqual([0, '1 of the top 4 are unjudged']);
    // On the query's first operator, not across the whole query.
    const first = unjudged.find((d) => d.range.start.line === 0)!;
    expect(TEXT.split('\n')[0]!.slice(first.range.start.character, first.range.end.character)).toBe('#combine');
    expect(unjudged.some((d) => d.range.start.line === 2)).toBe(false);
    const publications = client.diagnostics.get(uri)!.length;

    const appended = await client.request<JudgeResult>('querylens/judge', { uri, qid: '1', docno: 'd5', grade: 1 });
    expect(appended).toEqual({ qrels: qrelsPath, line: 5, action: 'appended', previous: null });
    expect(readFileSync(qrelsPath, 'utf8')).toBe(QRELS + '\n1 0 d5 1\n');
    const preview = await client.request<PreviewResult>('querylens/preview', { uri, qid: '1', explain: false });
    expect(preview.hits.find((h) => h.docno === 'd5')!.relevance).toBe(1);
    const after = await client.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } });
    expect(after[0]!.command!.title).not.toMatch(/unjudged/);
    // Judging republishes the document's diagnostics without the count.
    const republished = await client.until(() => client.diagnostics.get(uri)!.slice(publications).at(-1), 'diagnostics republished after judging');
    expect(republished.diagnostics.filter((d) => d.code === 'engine/unjudged-top-k' && d.range.start.line === 0)).toEqual([]);

    const replaced = await client.request<JudgeResult>('querylens/judge', { uri, qid: '1', docno: 'd1', grade: 0 });
    expect(replaced).toEqual({ qrels: qrelsPath, line: 1, action: 'replaced', previous: 2 });
    expect(readFileSync(qrelsPath, 'utf8')).toBe(QRELS.replace('1 0 d1 2', '1 0 d1 0') + '\n1 0 d5 1\n');
    // A judgement for a document the query does not retrieve shows in "why not" (d4: rank null).
    await client.request<JudgeResult>('querylens/judge', { uri, qid: '1', docno: 'd4', grade: 2 });
    const whyNot = await client.request<PreviewResult>('querylens/preview', { uri, qid: '1', explain: false });
    expect(whyNot.relevantNotShown[0]).toMatchObject({ docno: 'd4', relevance: 2, rank: null });
  });

  it('refuses an implied id, an unknown document and a bad grade, writing nothing', async () => {
    const qrelsPath = join(ws.root, 'data/qrels.txt');
    const text = readFileSync(qrelsPath, 'utf8');
    expect((await failure(client.request('querylens/judge', { uri, qid: '3', docno: 'd1', grade: 1 }))).message).toMatch(/no written id/);
    expect((await failure(client.request('querylens/judge', { uri, qid: '1', docno: 'nope', grade: 1 }))).message).toMatch(/no document "nope"/);
    expect((await failure(client.request('querylens/judge', { uri, qid: '1', docno: 'd1', grade: 0.5 }))).code).toBe(-32602);
    expect(readFileSync(qrelsPath, 'utf8')).toBe(text);
  });
});

describe('querylens/compareTries', () => {
  it('answers one paired test per measure with Holm-adjusted p-values', async () => {
    const baseline = { '1': { map: 0.1, P_10: 0.2 }, '2': { map: 0.3, P_10: 0.1 }, '3': { map: 0.2, P_10: 0.4 } };
    const treatment = { '1': { map: 0.2, P_10: 0.2 }, '2': { map: 0.5, P_10: 0.3 }, '3': { map: 0.25, P_10: 0.4 } };
    const r = await client.request<CompareTriesResult>('querylens/compareTries', { baseline, treatment });
    expect(r.queries).toBe(3);
    expect(r.rows.map((x) => x.measure)).toEqual(['map', 'P_10']);
    for (const row of r.rows) expect(row.pHolm!).toBeGreaterThanOrEqual(row.p!);
    expect(r.rows[0]!.meanDifference).toBeCloseTo(0.35 / 3, 12);
    expect((await failure(client.request('querylens/compareTries', { baseline: { '1': { map: 'x' } }, treatment }))).code).toBe(-32602);
  });

  it('compares three tries side by side against a chosen baseline, Holm across every (try × measure) test', async () => {
    const a = { '1': { map: 0.1, P_10: 0.2 }, '2': { map: 0.3, P_10: 0.1 }, '3': { map: 0.2, P_10: 0.4 } };
    const b = { '1': { map: 0.2, P_10: 0.2 }, '2': { map: 0.5, P_10: 0.3 }, '3': { map: 0.25, P_10: 0.4 } };
    const c = { '1': { map: 0.1, P_10: 0.1 }, '2': { map: 0.2, P_10: 0.2 }, '3': { map: 0.4, P_10: 0.3 } };
    const r = await client.request<CompareTryListResult>('querylens/compareTries', { tries: [a, b, c], baselineIndex: 1 });
    expect(r).toMatchObject({ test: 't', baselineIndex: 1, queries: 3, comparisons: 4 });
    expect(r.rows.map((x) => [x.measure, x.pairs])).toEqual([['map', 3], ['P_10', 3]]);
    expect(r.rows[0]!.cells[1]).toEqual({ mean: expect.closeTo(0.95 / 3, 12), meanDifference: null, p: null, pHolm: null });
    const expected = compareTryList([a, b, c], ['map', 'P_10'], 't', 1);
    expect(r.rows.map((x) => x.cells.map((cell) => cell.pHolm))).toEqual(expected.rows.map((x) => x.cells.map((cell) => cell.pHolm)));
    // The first try's map against the second: the same numbers as the two-try form with the roles as given.
    const two = await client.request<CompareTriesResult>('querylens/compareTries', { baseline: b, treatment: a, measures: ['map'] });
    expect(r.rows[0]!.cells[0]!.p).toBe(two.rows[0]!.p);
    expect(r.rows[0]!.cells[0]!.meanDifference).toBe(two.rows[0]!.meanDifference);
    for (const bad of [{ tries: [a] }, { tries: [a, b], baselineIndex: 2 }, { tries: [a, { '1': { map: 'x' } }] }, { tries: [a, b], baseline: a, treatment: b }]) {
      expect((await failure(client.request('querylens/compareTries', bad))).code).toBe(-32602);
    }
    expect((await failure(client.request('querylens/compareTries', { tries: [a, b], baselineIndex: 5 }))).message).toMatch(/baselineIndex must be an index of tries \(0\.\.1\), got 5/);
  });
});
