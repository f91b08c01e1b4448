/**
 * The workbench's custom requests through the real server (docs/LSP_EXTENSIONS.md):
 * - `querylens/sweep`: the row of the configured setting equals `querylens/runFile`'s trec_eval
 *   means for the same document; the best row has the highest measure; its `configEdit`, applied to
 *   querylens.json, sets exactly the best setting and keeps every other key; bad grids are
 *   InvalidParams with the reason;
 * - the index browser (`querylens/indexTerms`, `postings`, `document`, `analyze`) answers what
 *   server/engine/index/browse.ts reads from the same index; a stopword or unknown document is
 *   InvalidParams with the reason; without an index the browser requests say so and analyze still
 *   answers, marked `indexed: false`;
 * - in restricted mode (an untrusted workspace) all five are refused, like the other engine requests;
 * - workbench-protocol.ts is documented as declared, with its hash.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TextEdit } from 'vscode-languageserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentView, termPostings, topTermsByDf } from '../../../server/engine/index/browse.js';
import { openIndex } from '../../../server/engine/index/disk.js';
import type { RunFileResult } from '../../../server/lsp/engine/protocol.js';
import type { AnalyzeResult, DocumentResult, IndexTermsResult, PostingsResult, SweepResult } from '../../../server/lsp/engine/workbench-protocol.js';
import { applyEdits, freshUri, REPO, type TestClient } from '../harness.js';
import { failure, makeWorkspace, startIn, type Workspace } from './fixture.js';

let ws: Workspace;
let client: TestClient;
const uri = freshUri('indri');
const TEXT = ['1\t#combine( boundary layer flow )', '2\t#combine( heat conduction )', '#combine( flat plate )', '4\t#combine( broken '].join('\n');

beforeAll(async () => {
  ws = await makeWorkspace();
  client = (await startIn(ws.root)).client;
  client.open(uri, 'indri', TEXT);
  await client.diagnosticsFor(uri);
}, 120_000);
afterAll(async () => {
  await client?.stop();
  ws?.dispose();
});

describe('querylens/sweep', () => {
  it('evaluates each setting as runFile does, marks the best, and gives the edit that applies it', async () => {
    const r = await client.request<SweepResult>('querylens/sweep', { uri, version: 1, k1: [1.2, 0.3], b: [0.75, 0.2] });
    expect(r.rows.map((row) => [row.setting.k1, row.setting.b])).toEqual([
      [1.2, 0.75],
      [1.2, 0.2],
      [0.3, 0.75],
      [0.3, 0.2],
    ]);
    const run = await client.request<RunFileResult>('querylens/runFile', { uri, version: 1 });
    expect(r.rows[0]!.mean).toEqual(run.metrics!.mean);
    expect(r.rows[0]!.queries).toBe(run.metrics!.judged);
    expect(r.skipped).toEqual([{ qid: '4', reason: 'the query has syntax errors' }]);
    const byMeasure = r.rows.map((row) => row.mean[r.by]!);
    expect(r.by).toBe('ndcg_cut_10');
    expect(byMeasure[r.best]).toBe(Math.max(...byMeasure));
    expect(byMeasure.indexOf(Math.max(...byMeasure))).toBe(r.best);

    const configUri = pathToFileURL(join(ws.root, 'querylens.json')).toString();
    expect(r.configEditRefused).toBeNull();
    const before = readFileSync(join(ws.root, 'querylens.json'), 'utf8');
    const after = JSON.parse(applyEdits(before, r.configEdit!.changes[configUri] as TextEdit[]));
    const best = r.rows[r.best]!.setting;
    expect(after).toEqual({ ...JSON.parse(before), scorer: { name: 'bm25', k1: best.k1, b: best.b } });
  });

  it('sweeps mu and Bo1 sizes, and refuses bad grids with the reason', async () => {
    const ql = await client.request<SweepResult>('querylens/sweep', { uri, mu: [100, 2500], fbDocs: [1, 2], measures: ['map', 'P_5'], by: 'P_5' });
    expect(ql.rows.map((row) => row.setting)).toEqual([
      { scorer: 'ql', mu: 100, bo1: { fbDocs: 1, fbTerms: 10 } },
      { scorer: 'ql', mu: 100, bo1: { fbDocs: 2, fbTerms: 10 } },
      { scorer: 'ql', mu: 2500, bo1: { fbDocs: 1, fbTerms: 10 } },
      { scorer: 'ql', mu: 2500, bo1: { fbDocs: 2, fbTerms: 10 } },
    ]);
    expect(Object.keys(ql.rows[0]!.mean)).toEqual(['map', 'P_5']);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ k1: [1], mu: [100] }, /k1 is a parameter of bm25, not of ql/],
      [{ k1: Array.from({ length: 300 }, (_, i) => i / 100) }, /the grid has 300 settings .* at most 200/],
      [{ fbDocs: [0] }, /fbDocs: 0 is not a positive integer/],
      [{ b: 'x' }, /b must be an array of numbers/],
      [{}, /nothing to sweep/],
      [{ k1: [1], measures: ['nope'] }, /nope/],
    ];
    for (const [params, message] of cases) {
      const err = await failure(client.request('querylens/sweep', { uri, ...params }));
      expect(err.code, JSON.stringify(params)).toBe(-32602);
      expect(err.message, JSON.stringify(params)).toMatch(message);
    }
  });
});

describe('index browser requests', () => {
  it("answer what the browser module reads from the workspace's index", async () => {
    const reader = openIndex(ws.index);
    expect(await client.request<IndexTermsResult>('querylens/indexTerms', { top: 3 })).toEqual({ numDocs: 9, ...topTermsByDf(reader, { top: 3 }) });
    expect(await client.request<IndexTermsResult>('querylens/indexTerms', { prefix: 'bound' })).toEqual({ numDocs: 9, ...topTermsByDf(reader, { top: 25, prefix: 'bound' }) });
    const postings = await client.request<PostingsResult>('querylens/postings', { term: 'Boundary', maxDocs: 2 });
    expect(postings).toEqual({ ...termPostings(reader, 'boundari', { maxDocs: 2, maxPositions: 10 }), found: true });
    expect(postings.cut).toBe(true);
    expect(await client.request<PostingsResult>('querylens/postings', { term: 'zzzq' })).toEqual({ term: 'zzzq', found: false, df: 0, cf: 0, postings: [], cut: false });
    expect(await client.request<DocumentResult>('querylens/document', { docno: 'd2' })).toEqual(documentView(reader, 'd2', { maxTerms: 50 }));
    const analyzed = await client.request<AnalyzeResult>('querylens/analyze', { text: 'The heat of flows' });
    expect(analyzed.indexed).toBe(true);
    expect(analyzed.words.map((w) => [w.surface, w.term, w.df])).toEqual([
      ['The', null, null],
      ['heat', 'heat', 2],
      ['of', null, null],
      ['flows', 'flow', 3],
    ]);
  });

  it('refuse a stopword, an unknown document and bad caps with the reason', async () => {
    const cases: [string, unknown, RegExp][] = [
      ['querylens/postings', { term: 'the' }, /'the' is a stopword of the terrier analyser: it is not indexed/],
      ['querylens/postings', { term: 'heat transfer' }, /analyses to 2 terms \(heat, transfer\)/],
      ['querylens/document', { docno: 'nope' }, /no document "nope" in the index/],
      ['querylens/indexTerms', { top: 0 }, /top must be an integer in 1\.\.10000/],
    ];
    for (const [method, params, message] of cases) {
      const err = await failure(client.request(method, params));
      expect(err.code).toBe(-32602);
      expect(err.message).toMatch(message);
    }
  });

  it('without an index: the browser says so, analyze answers without statistics', async () => {
    const empty = await makeWorkspace({ build: false, config: { index: 'idx' } });
    const other = (await startIn(empty.root)).client;
    try {
      const err = await failure(other.request('querylens/indexTerms', {}));
      expect(err.code).toBe(-32600);
      expect(err.message).toMatch(/no index is loaded; see querylens\/status/);
      const analyzed = await other.request<AnalyzeResult>('querylens/analyze', { text: 'heated wings' });
      expect(analyzed).toMatchObject({ profile: 'terrier', indexed: false });
      expect(analyzed.note).toMatch(/no index is loaded .*without document frequencies/);
      expect(analyzed.words.map((w) => w.term)).toEqual(['heat', 'wing']);
    } finally {
      await other.stop();
      empty.dispose();
    }
  });
});

describe('restricted mode', () => {
  it('refuses every workbench request in an untrusted workspace', async () => {
    const untrusted = (await startIn(ws.root, { initializationOptions: { trusted: false } })).client;
    try {
      for (const method of ['querylens/sweep', 'querylens/indexTerms', 'querylens/postings', 'querylens/document', 'querylens/analyze', 'querylens/judge', 'querylens/compareTries']) {
        const err = await failure(untrusted.request(method, { uri, k1: [1], term: 'heat', docno: 'd1', text: 'heat' }));
        expect(err.code, method).toBe(-32600);
        expect(err.data, method).toEqual({ trusted: false });
      }
    } finally {
      await untrusted.stop();
    }
  });
});

describe('workbench-protocol.ts', () => {
  const protocol = readFileSync(join(REPO, 'server/lsp/engine/workbench-protocol.ts'), 'utf8').replace(/\r\n/g, '\n');
  const doc = readFileSync(join(REPO, 'docs/LSP_EXTENSIONS.md'), 'utf8').replace(/\r\n/g, '\n');
  it('is documented as declared, with its hash', () => {
    expect(/workbench-protocol\.ts sha256: `([0-9a-f]{64})`/.exec(doc)?.[1], 'protocol changed: update docs/LSP_EXTENSIONS.md').toBe(createHash('sha256').update(protocol).digest('hex'));
    for (const declaration of protocol.match(/^export (?:interface|type) \w+[^]*?^}$|^export type [^\n]+;$|^export const \w+ = '[^']+';$/gm) ?? []) expect(doc).toContain(declaration);
  });
});
