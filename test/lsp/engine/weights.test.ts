/**
 * The term-weighting model through the server: "Apply TW-BERT weights" action, inlay hints
 * and the `weighted` variant of querylens/compare, with the model in model/artifacts run by
 * server/model (the same numbers as calling it directly). Skipped when this checkout has no
 * model artifacts; a configured model that is absent is an explained status.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CodeAction, InlayHint } from 'vscode-languageserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseQuery } from '../../../grammar/index.js';
import { loadWeightModel, type WeightModel } from '../../../server/model/runtime.js';
import type { CompareResult } from '../../../server/lsp/engine/protocol.js';
import { applyEdits, freshUri, REPO, type TestClient } from '../harness.js';
import { makeWorkspace, startIn, type Workspace } from './fixture.js';

const MODEL_DIR = join(REPO, 'model/artifacts');
const haveModel = existsSync(join(MODEL_DIR, 'config.json')) && existsSync(join(MODEL_DIR, 'twbert.onnx'));

describe('a configured model that is not there', () => {
  it('is an explained status, and no weights are offered', async () => {
    const ws = await makeWorkspace({ config: { index: 'idx', model: 'nowhere' } });
    const { client, status } = await startIn(ws.root);
    try {
      expect(status.model.state).toBe('missing');
      const uri = freshUri('indri');
      const text = '1\t#combine( boundary layer )';
      client.open(uri, 'indri', text);
      const actions = await client.request<CodeAction[]>('textDocument/codeAction', {
        textDocument: { uri },
        range: { start: { line: 0, character: 14 }, end: { line: 0, character: 14 } },
        context: { diagnostics: [] },
      });
      expect(actions.some((a) => a.title.startsWith('Apply'))).toBe(false);
    } finally {
      await client.stop();
      ws.dispose();
    }
  });
});

describe.skipIf(!haveModel)('TW-BERT weights (model/artifacts)', () => {
  let ws: Workspace;
  let client: TestClient;
  let direct: WeightModel;
  beforeAll(async () => {
    ws = await makeWorkspace({ config: { index: 'idx', qrels: 'data/qrels.txt', model: MODEL_DIR, device: 'cpu' } });
    const started = await startIn(ws.root);
    client = started.client;
    expect(started.status.index.state).toBe('ready');
    expect((started.status.model as { state: string; message?: string }).message).toMatch(/Weighting model twbert loaded \(cpu\)/);
    expect(started.status.model.state).toBe('ready');
    const loaded = await loadWeightModel(MODEL_DIR, { model: 'twbert', device: 'cpu' });
    if (!loaded.ok) throw loaded.error;
    direct = loaded.model;
  });
  afterAll(async () => {
    await client?.stop();
    await direct?.dispose();
    ws?.dispose();
  });

  it('offers "Apply TW-BERT weights" with the model\'s weights in the title and a #weight rewrite', async () => {
    const uri = freshUri('indri');
    const text = '1\t#combine( boundary layer flow )';
    client.open(uri, 'indri', text);
    const actions = await client.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: { start: { line: 0, character: 14 }, end: { line: 0, character: 14 } },
      context: { diagnostics: [] },
    });
    const apply = actions.find((a) => a.title.startsWith('Apply TW-BERT weights: '));
    expect(apply, JSON.stringify(actions.map((a) => a.title))).toBeDefined();
    const [weights] = await direct.weigh(['boundary layer flow']);
    const unigrams = weights!.ngrams.filter((g) => g.kind === 'unigram').map((g) => `${g.surface} ${g.weight.toFixed(2)}`);
    expect(apply!.title).toBe(`Apply TW-BERT weights: ${unigrams.join(', ')}`);
    const query = applyEdits(text, apply!.edit!.changes![uri]!).slice(2);
    expect(query).toMatch(/^#weight\( [\d.]+ boundary [\d.]+ layer [\d.]+ flow [\d.]+ #1\(boundary layer\) [\d.]+ #1\(layer flow\) \)$/);
    expect(parseQuery(query, 'indri').diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  it('shows each word\'s weight as an inlay hint after the word', async () => {
    const uri = freshUri('indri');
    const text = '1\t#combine( boundary layer )';
    client.open(uri, 'indri', text);
    await client.diagnosticsFor(uri);
    const hints = await client.request<InlayHint[]>('textDocument/inlayHint', {
      textDocument: { uri },
      range: { start: { line: 0, character: 0 }, end: { line: 1, character: 0 } },
    });
    expect(hints.map((h) => h.position.character)).toEqual([20, 26]);
    const [weights] = await direct.weigh(['boundary layer']);
    expect(hints.map((h) => h.label)).toEqual(weights!.ngrams.filter((g) => g.kind === 'unigram').map((g) => `·${g.weight.toFixed(2)}`));
  });

  it('adds the weighted variant to querylens/compare', async () => {
    const uri = freshUri('indri');
    client.open(uri, 'indri', '1\t#combine( boundary layer )');
    const r = await client.request<CompareResult>('querylens/compare', { uri, qid: '1', k: 5 });
    expect(r.variants.map((v) => v.name)).toEqual(['original', 'bo1', 'weighted']);
    expect(r.variants[2]!.query).toMatch(/^#weight\( /);
    expect(Object.keys(r.deltas!)).toEqual(['bo1', 'weighted']);
    expect(r.rows.every((row) => 'weighted' in row.ranks)).toBe(true);
  });
});
