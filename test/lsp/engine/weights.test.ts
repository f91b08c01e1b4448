/**
 * The term-weighting model through the server: "Apply TW-BERT weights" action, inlay hints
 * and the `weighted` variant of querylens/compare, with the model in model/artifacts run by
 * server/model (the same numbers as calling it directly). Skipped when this checkout has no
 * model artifacts; a configured model that is absent is an explained status.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CancellationTokenSource, LSPErrorCodes, type CodeAction, type Hover, type InlayHint, type MarkupContent } from 'vscode-languageserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseQuery } from '../../../grammar/index.js';
import { loadWeightModel, type WeightModel } from '../../../server/model/runtime.js';
import { describeWeightInputs } from '../../../server/model/weight-reasons.js';
import type { CompareResult } from '../../../server/lsp/engine/protocol.js';
import { MODEL_STATS_REQUEST, type ModelStatsResult } from '../../../server/lsp/engine/weight-hints.js';
import { applyEdits, freshUri, REPO, type TestClient } from '../harness.js';
import { makeWorkspace, startIn, type Workspace } from './fixture.js';
import { withIndexStatistics } from '../../model/helpers.js';

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
  let direct: Awaited<ReturnType<typeof withIndexStatistics>>;
  beforeAll(async () => {
    // The model lies outside the workspace: the user's settings name it (docs/ARCHITECTURE.md, "Trust model").
    ws = await makeWorkspace({ config: { index: 'idx', qrels: 'data/qrels.txt', device: 'cpu' } });
    const started = await startIn(ws.root, { settings: { querylens: { model: MODEL_DIR } } });
    client = started.client;
    expect(started.status.index.state).toBe('ready');
    expect((started.status.model as { state: string; message?: string }).message).toMatch(/Weighting model twbert loaded \(cpu\)/);
    expect(started.status.model.state).toBe('ready');
    const loaded = await loadWeightModel(MODEL_DIR, { model: 'twbert', device: 'cpu' });
    if (!loaded.ok) throw loaded.error;
    direct = await withIndexStatistics(loaded.model, join(ws.root, 'idx'));
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
    // Why: the tooltip names what the collection-aware model read for the word in this index.
    weights!.ngrams.filter((g) => g.kind === 'unigram').forEach((g, i) => {
      const reason = describeWeightInputs(g, weights!.ngrams);
      expect(reason, g.surface).toMatch(/^idf \d/);
      expect(String(hints[i]!.tooltip)).toContain(`"${g.surface}" ${g.weight.toFixed(2)}: ${reason}`);
    });
  });

  it("hovering a word shows its weight and what the model read for it in this index", async () => {
    const uri = freshUri('indri');
    const text = '1\t#combine( boundary layer )';
    client.open(uri, 'indri', text);
    await client.diagnosticsFor(uri);
    const hover = await client.request<Hover | null>('textDocument/hover', { textDocument: { uri }, position: { line: 0, character: text.indexOf('layer') + 2 } });
    const value = (hover!.contents as MarkupContent).value;
    const [weights] = await direct.weigh(['boundary layer']);
    const layer = weights!.ngrams.find((g) => g.kind === 'unigram' && g.surface === 'layer')!;
    expect(value).toContain(`**TW-BERT weight ${layer.weight.toFixed(2)}** of \`layer\` — what the model read in this index: ${describeWeightInputs(layer, weights!.ngrams)}.`);
    // The engine's statistics are still there, beside it.
    expect(value).toMatch(/df/);
    // Not on an operator.
    const onOperator = await client.request<Hover | null>('textDocument/hover', { textDocument: { uri }, position: { line: 0, character: 4 } });
    expect(onOperator ? (onOperator.contents as MarkupContent).value : '').not.toMatch(/TW-BERT weight/);
  });

  it('adds the weighted variant to querylens/compare', async () => {
    const uri = freshUri('indri');
    client.open(uri, 'indri', '1\t#combine( boundary layer )');
    const r = await client.request<CompareResult>('querylens/compare', { uri, qid: '1', k: 5 });
    // model/artifacts also holds the learned-expansion model: its columns come with the weighted one.
    expect(r.variants.map((v) => v.name)).toEqual(['original', 'bo1', 'learned', 'weighted', 'learned+bo1+weighted']);
    expect(r.variants.find((v) => v.name === 'weighted')!.query).toMatch(/^#weight\( /);
    expect(Object.keys(r.deltas!)).toEqual(['bo1', 'learned', 'weighted', 'learned+bo1+weighted']);
    expect(r.rows.every((row) => 'weighted' in row.ranks)).toBe(true);
  });

  it("weighs querylens/compare's variant by the one rule of `querylens weigh`: structure kept, patterns refused with its reason", async () => {
    const uri = freshUri('indri');
    client.open(uri, 'indri', '1\t#combine( flow.title plate )\n2\t#combine( flo* plate )');
    const kept = await client.request<CompareResult>('querylens/compare', { uri, qid: '1', k: 5 });
    expect(kept.variants.map((v) => v.name)).toEqual(['original', 'bo1', 'learned', 'weighted', 'learned+bo1+weighted']);
    expect(kept.variants.find((v) => v.name === 'weighted')!.query).toMatch(/^#weight\( [0-9.]+ flow\.title [0-9.]+ plate \)$/);
    const refused = await client.request<CompareResult>('querylens/compare', { uri, qid: '2', k: 5 });
    expect(refused.variants.map((v) => v.name)).toEqual(['original', 'bo1', 'learned', 'learned+bo1']);
    expect(refused.notes.join(' ')).toMatch(/No weighted variant: cannot weigh this query: the model weighs words, and this wildcard is a pattern/);
  });
  /** Distinct plain-term queries nobody weighed before in this server (cache misses). */
  function freshQueries(n: number, tag: string): string[] {
    const words = ['boundary', 'layer', 'flow', 'heat', 'transfer', 'shock', 'wave', 'wing', 'pressure', 'supersonic', 'laminar', 'plate'];
    return Array.from({ length: n }, (_, i) => `${words[i % words.length]} ${words[(i * 5 + 3) % words.length]} ${tag}${i}`);
  }

  const stats = () => client.request<ModelStatsResult>(MODEL_STATS_REQUEST, null);

  it('weighs the queries of one inlay-hint request in batches of 32, one model run each, off the request thread', async () => {
    const queries = freshQueries(40, 'batch');
    const uri = freshUri('indri');
    client.open(uri, 'indri', queries.map((q, i) => `${i + 1}\t#combine( ${q} )`).join('\n'));
    await client.diagnosticsFor(uri);
    const before = await stats();
    expect(before.offThread).toBe(true);
    const hints = await client.request<InlayHint[]>('textDocument/inlayHint', { textDocument: { uri }, range: { start: { line: 0, character: 0 }, end: { line: 40, character: 0 } } });
    const after = await stats();
    // 40 new queries: two batcher calls (32 + 8), two ONNX runs.
    expect(after.batcher.batches - before.batcher.batches).toBe(2);
    expect(after.batcher.queries - before.batcher.queries).toBe(40);
    expect(after.model!.runs - before.model!.runs).toBe(2);
    // And the batched answers are the model's own, query by query.
    const direct40 = await direct.weigh(queries);
    const expected = direct40.flatMap((w) => w.ngrams.filter((g) => g.kind === 'unigram').map((g) => `·${g.weight.toFixed(2)}`));
    expect(hints.map((h) => h.label)).toEqual(expected);
  });

  it('serves many concurrent requests with fewer model runs than requests', async () => {
    const queries = freshQueries(12, 'conc');
    const uri = freshUri('indri');
    client.open(uri, 'indri', queries.map((q, i) => `${i + 1}\t#combine( ${q} )`).join('\n'));
    await client.diagnosticsFor(uri);
    const before = await stats();
    const actions = await Promise.all(
      queries.map((_, line) =>
        client.request<CodeAction[]>('textDocument/codeAction', {
          textDocument: { uri },
          range: { start: { line, character: 14 }, end: { line, character: 14 } },
          context: { diagnostics: [], only: ['refactor.rewrite.weights'] },
        }),
      ),
    );
    const after = await stats();
    const runs = after.model!.runs - before.model!.runs;
    // Requests that arrive together share a batch (2 ms window). How many batches a burst makes depends on how fast the
    // server gets through it: a few when idle, 5 of 12 once in the full suite on two loaded cores. So this asserts only
    // that requests were shared; test/model/batcher.test.ts pins the batching itself with no clock in the way.
    expect(runs).toBeGreaterThanOrEqual(1);
    expect(runs).toBeLessThan(queries.length);
    const weights = await direct.weigh(queries);
    actions.forEach((list, i) => {
      const unigrams = weights[i]!.ngrams.filter((g) => g.kind === 'unigram').map((g) => `${g.surface} ${g.weight.toFixed(2)}`);
      expect(list.map((a) => a.title)).toEqual([`Apply TW-BERT weights: ${unigrams.join(', ')}`]);
    });
  });

  it('answers an inlay-hint request made stale by an edit with ContentModified, never with hints of the old text', async () => {
    const uri = freshUri('indri');
    const oldQueries = freshQueries(20, 'old');
    const newQueries = freshQueries(20, 'new');
    const range = { start: { line: 0, character: 0 }, end: { line: 20, character: 0 } };
    client.open(uri, 'indri', oldQueries.map((q, i) => `${i + 1}\t#combine( ${q} )`).join('\n'));
    await client.diagnosticsFor(uri);
    // The request, then the edit right behind it (the same write burst): the hints would be for text that is gone.
    const stale = client.request<InlayHint[]>('textDocument/inlayHint', { textDocument: { uri }, range }).then(
      (hints) => ({ hints, code: undefined as number | undefined }),
      (err: { code?: number }) => ({ hints: undefined, code: err.code }),
    );
    const newText = newQueries.map((q, i) => `${i + 1}\t#combine( ${q} )`).join('\n');
    client.change(uri, newText);
    const answer = await stale;
    if (answer.code !== undefined) expect(answer.code).toBe(LSPErrorCodes.ContentModified);
    else {
      // Only acceptable if computed for the new text (the edit was applied before the request ran).
      const fresh = await direct.weigh(newQueries);
      expect(answer.hints!.map((h) => h.label)).toEqual(fresh.flatMap((w) => w.ngrams.filter((g) => g.kind === 'unigram').map((g) => `·${g.weight.toFixed(2)}`)));
    }
    // Asked again, the hints are those of the new text.
    await client.diagnosticsFor(uri);
    const hints = await client.request<InlayHint[]>('textDocument/inlayHint', { textDocument: { uri }, range });
    const fresh = await direct.weigh(newQueries);
    expect(hints.map((h) => h.label)).toEqual(fresh.flatMap((w) => w.ngrams.filter((g) => g.kind === 'unigram').map((g) => `·${g.weight.toFixed(2)}`)));
    expect(hints[0]!.position.character).toBe(`1\t#combine( ${newQueries[0]!.split(' ')[0]}`.length);
  });

  it('drops a request made stale by an edit and cancelled: no hints, no inference when the batch had not left', async () => {
    const uri = freshUri('indri');
    const queries = freshQueries(8, 'cancel');
    client.open(uri, 'indri', queries.map((q, i) => `${i + 1}\t#combine( ${q} )`).join('\n'));
    await client.diagnosticsFor(uri);
    const before = await stats();
    const source = new CancellationTokenSource();
    const pending = client.connection
      .sendRequest('textDocument/inlayHint', { textDocument: { uri }, range: { start: { line: 0, character: 0 }, end: { line: 8, character: 0 } } }, source.token)
      .then(
        () => undefined,
        (err: { code?: number }) => err.code,
      );
    // The edit makes the document version move on before the batch is sent (2 ms window); the
    // cancellation arrives right behind it.
    client.change(uri, queries.map((q, i) => `${i + 1}\t#combine( ${q} extra )`).join('\n'));
    source.cancel();
    const code = await pending;
    expect([LSPErrorCodes.ContentModified, LSPErrorCodes.RequestCancelled]).toContain(code);
    const after = await stats();
    const dropped = after.batcher.dropped - before.batcher.dropped;
    const weighed = after.model!.queries - before.model!.queries;
    // Usually the edit lands inside the batcher's 2 ms window and the model never sees the 8
    // queries; on a loaded machine the batch may already have left, and then only its answer is
    // dropped. Either way all 8 are accounted for exactly once. (test/model/batcher.test.ts
    // checks the drop itself deterministically.)
    expect([dropped, weighed].sort()).toEqual([0, 8]);
  });
});
