/**
 * The editor's weigh action follows the CLI's rule (server/model/structured-weights.ts, issue 16
 * item 6): through the real server, the "Apply TW-BERT weights" edit of a structured query (fields,
 * #syn, #uw, the user's #weight, Lucene field/phrase boost/prohibited clause) is the line that
 * `querylens weigh` writes for it; a refused query gets a disabled action whose reason is the rule's
 * message; the model's own output is a disabled "already weighted" action, not a no-op edit; inlay
 * hints show the weights the action used, from the same cached model run. Skipped when this checkout
 * has no model artifacts.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CodeAction, InlayHint } from 'vscode-languageserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseIndri, parseLucene, translate } from '../../../grammar/index.js';
import { loadWeightModel, type WeightModel } from '../../../server/model/runtime.js';
import { planWeighing } from '../../../server/model/structured-weights.js';
import { MODEL_STATS_REQUEST, type ModelStatsResult } from '../../../server/lsp/engine/weight-hints.js';
import { runChecked } from '../../support/process.js';
import { applyEdits, freshUri, REPO, type TestClient } from '../harness.js';
import { makeWorkspace, startIn, type Workspace } from './fixture.js';
import { withIndexStatistics } from '../../model/helpers.js';

const MODEL_DIR = join(REPO, 'model/artifacts');
const haveModel = existsSync(join(MODEL_DIR, 'config.json')) && existsSync(join(MODEL_DIR, 'twbert.onnx'));
const CLI = join(REPO, 'bin', 'querylens.js');

const INDRI = [
  '#combine( boundary.title layer flow )',
  '#combine( #syn(heat conduction) transfer slabs )',
  '#combine( #uw8(boundary layer) transition )',
  '#weight( 2 boundary 0.5 layer 1 flow )',
  '#combine( shock wave boundary layer interaction )',
];
const LUCENE = ['title:flow "boundary layer"^2 -heat', 'title:plate shock wave', '+supersonic "flat plate" transition'];

describe.skipIf(!haveModel)('the weigh action uses the CLI rule (model/artifacts)', () => {
  let ws: Workspace;
  let client: TestClient;
  let direct: Awaited<ReturnType<typeof withIndexStatistics>>;
  const work = mkdtempSync(join(tmpdir(), 'ql-weigh-lsp-'));
  beforeAll(async () => {
    ws = await makeWorkspace({ config: { index: 'idx', qrels: 'data/qrels.txt' } });
    // The model folder is outside the workspace: named in the user's own settings, which may name any path.
    const started = await startIn(ws.root, { settings: { querylens: { model: MODEL_DIR, device: 'cpu' } } });
    client = started.client;
    expect(started.status.model.state).toBe('ready');
    const loaded = await loadWeightModel(MODEL_DIR, { model: 'twbert', device: 'cpu' });
    if (!loaded.ok) throw loaded.error;
    direct = await withIndexStatistics(loaded.model, join(ws.root, 'idx'));
  }, 180_000);
  afterAll(async () => {
    await client?.stop();
    await direct?.dispose();
    ws?.dispose();
    rmSync(work, { recursive: true, force: true });
  });

  const weighActions = async (uri: string, line: number) =>
    (
      await client.request<CodeAction[]>('textDocument/codeAction', {
        textDocument: { uri },
        range: { start: { line, character: 3 }, end: { line, character: 3 } },
        context: { diagnostics: [] },
      })
    ).filter((a) => a.kind === 'refactor.rewrite.weights');

  /** The query lines `querylens weigh --digits 3` writes for a query file (qid<TAB>query): the action's weights have 3 significant digits. */
  async function cliWeigh(name: string, lines: string[]): Promise<string[]> {
    const file = join(work, name);
    writeFileSync(file, lines.map((q, i) => `${i + 1}\t${q}`).join('\n') + '\n');
    const out = await runChecked(process.execPath, [CLI, 'weigh', file, '--digits', '3', '--device', 'cpu', '--model-dir', MODEL_DIR, '--index', join(ws.root, 'idx')], { cwd: REPO, timeoutMs: 120_000 });
    return out.split('\n').filter((l) => /^\d+\t/.test(l)).map((l) => l.split('\t')[1]!);
  }

  it('offers, for each structured Indri query, exactly the query `querylens weigh` writes', async () => {
    const uri = freshUri('indri');
    const text = INDRI.map((q, i) => `${i + 1}\t${q}`).join('\n');
    client.open(uri, 'indri', text);
    const expected = await cliWeigh('q.indri', INDRI);
    expect(expected).toHaveLength(INDRI.length);
    for (const [line, query] of INDRI.entries()) {
      const [action] = await weighActions(uri, line);
      expect(action?.disabled, query).toBeUndefined();
      const edited = applyEdits(text, action!.edit!.changes![uri]!).split('\n')[line]!;
      expect(edited, query).toBe(`${line + 1}\t${expected[line]}`);
    }
    // The structure is kept, not flattened into the model's uni-grams and bi-grams.
    expect(expected[0]).toMatch(/^#weight\( [\d.]+ boundary\.title [\d.]+ layer [\d.]+ flow \)$/);
    expect(expected[1]).toMatch(/^#weight\( [\d.]+ #syn\(heat conduction\) [\d.]+ transfer [\d.]+ slabs \)$/);
    expect(expected[2]).toMatch(/^#weight\( [\d.]+ #uw8\(boundary layer\) [\d.]+ transition \)$/);
  }, 180_000);

  it('offers, for each structured Lucene query, that query in Lucene: the same query as the Indri line `querylens weigh` writes', async () => {
    const uri = freshUri('lucene');
    const text = LUCENE.map((q, i) => `${i + 1}\t${q}`).join('\n');
    client.open(uri, 'lucene', text);
    const expected = await cliWeigh('q.lucene', LUCENE);
    for (const [line, query] of LUCENE.entries()) {
      const [action] = await weighActions(uri, line);
      expect(action?.disabled, query).toBeUndefined();
      const edited = applyEdits(text, action!.edit!.changes![uri]!).split('\n')[line]!.split('\t')[1]!;
      const parsed = parseLucene(edited);
      expect(parsed.diagnostics.filter((d) => d.severity === 'error'), edited).toEqual([]);
      expect(translate(parsed.ast, 'indri').text, edited).toBe(expected[line]);
    }
    // Field, the user's phrase boost (times the model's weight) and the prohibited clause are kept.
    const [first] = await weighActions(uri, 0);
    expect(first!.edit!.changes![uri]![0]!.newText).toMatch(/^title:flow\^[\d.]+ "boundary layer"\^[\d.]+ -heat$/);
  }, 180_000);

  it('shows the word weights it applies in the title and the inlay hints, from one cached model run', async () => {
    const query = '#combine( #syn(heat conduction) transfer slabs )';
    const uri = freshUri('indri');
    // A query text nobody weighed yet in this server: a word of its own.
    const fresh = query.replace('slabs', 'slabsx');
    client.open(uri, 'indri', `1\t${fresh}`);
    await client.diagnosticsFor(uri);
    const stats = () => client.request<ModelStatsResult>(MODEL_STATS_REQUEST, null);
    const before = await stats();
    const hints = await client.request<InlayHint[]>('textDocument/inlayHint', { textDocument: { uri }, range: { start: { line: 0, character: 0 }, end: { line: 1, character: 0 } } });
    const [action] = await weighActions(uri, 0);
    const after = await stats();
    expect(after.batcher.queries - before.batcher.queries).toBe(1);

    const planned = planWeighing(parseIndri(fresh).ast, fresh);
    if (!planned.ok) throw new Error(planned.refusal.message);
    const [weights] = await direct.weigh([planned.plan.text]);
    const perWord = planned.plan.words.map((w) => weights!.ngrams.find((g) => g.kind === 'unigram' && g.start >= w.start && g.end <= w.end)!.weight);
    expect(hints.map((h) => h.label)).toEqual(perWord.map((x) => `·${x.toFixed(2)}`));
    // After each word: heat, conduction, transfer, slabsx.
    const ends = ['heat', 'conduction', 'transfer', 'slabsx'].map((w) => `1\t${fresh}`.indexOf(w) + w.length);
    expect(hints.map((h) => h.position.character)).toEqual(ends);
    expect(action!.title).toBe(`Apply TW-BERT weights: ${planned.plan.words.map((w, i) => `${w.node.text} ${perWord[i]!.toFixed(2)}`).join(', ')}`);
  }, 120_000);

  const hintsOf = (uri: string) =>
    client.request<InlayHint[]>('textDocument/inlayHint', { textDocument: { uri }, range: { start: { line: 0, character: 0 }, end: { line: 1, character: 0 } } });

  it('puts a Lucene hint after the word\'s ^boost and after its phrase, never inside them', async () => {
    const uri = freshUri('lucene');
    const text = '1\tflow^2 "boundary layer" plate';
    client.open(uri, 'lucene', text);
    await client.diagnosticsFor(uri);
    const hints = await hintsOf(uri);
    const ends = ['flow^2', '"boundary layer"', 'plate'].map((part) => text.indexOf(part) + part.length);
    expect(hints.map((h) => h.position.character)).toEqual(ends);
    // The phrase's two words share the hint after it.
    expect(hints[1]!.label).toMatch(/^·\d\.\d\d ·\d\.\d\d$/);
  }, 120_000);

  it('shows no hint that repeats the weight written on the word', async () => {
    const uri = freshUri('indri');
    const text = '1\t#combine( supersonic flow plate )';
    client.open(uri, 'indri', text);
    const [first] = await weighActions(uri, 0);
    const weighted = applyEdits(text, first!.edit!.changes![uri]!);
    // The model's own query: every word carries the weight the model gives it.
    client.change(uri, weighted);
    await client.diagnosticsFor(uri);
    const hints = await hintsOf(uri);
    for (const word of ['supersonic', 'flow', 'plate']) expect(weighted).toMatch(new RegExp(` [\\d.]+ ${word} `));
    expect(hints).toEqual([]);
    // Another weight than the model's is not a repeat: its hint stays.
    const edited = weighted.replace(/ [\d.]+ supersonic /, ' 9 supersonic ');
    client.change(uri, edited);
    await client.diagnosticsFor(uri);
    expect((await hintsOf(uri)).map((h) => h.position.character)).toEqual([edited.indexOf('supersonic') + 'supersonic'.length]);
  }, 120_000);

  it('lists a refused query as a disabled action whose reason is the rule\'s message, with no edit and no hints', async () => {
    const uri = freshUri('indri');
    client.open(uri, 'indri', '1\t#combine( boundary #or( layer flow ) )');
    await client.diagnosticsFor(uri);
    const [action] = await weighActions(uri, 0);
    expect(action?.title).toBe('Apply TW-BERT weights');
    expect(action?.edit).toBeUndefined();
    expect(action?.disabled?.reason).toBe('cannot weigh this query: #or combines beliefs without weights, so the model\'s weights have no place in it; use #combine or #weight');
    const hints = await client.request<InlayHint[]>('textDocument/inlayHint', { textDocument: { uri }, range: { start: { line: 0, character: 0 }, end: { line: 1, character: 0 } } });
    expect(hints).toEqual([]);
  }, 120_000);

  it('says the weights are current for the model\'s own query instead of offering a no-op edit', async () => {
    const uri = freshUri('indri');
    const text = '1\t#combine( shock wave interaction )';
    client.open(uri, 'indri', text);
    const [first] = await weighActions(uri, 0);
    const weighted = applyEdits(text, first!.edit!.changes![uri]!);
    expect(weighted).toMatch(/^1\t#weight\( .*#1\(shock wave\)/);
    client.change(uri, weighted);
    await client.diagnosticsFor(uri);
    const [again] = await weighActions(uri, 0);
    expect(again?.edit).toBeUndefined();
    expect(again?.disabled?.reason).toBe('already weighted by TW-BERT: re-weighing its words gives the same query');
  }, 120_000);
});
