/**
 * The learned surface-form expansion in the editor (server/lsp/engine/learned-expansion.ts), through the real
 * server over stdio on a small index built by the real indexer:
 * - with a fixture model that suggests something (test/lsp/fixtures/learned-model: surface.onnx weighs a
 *   WordNet synonym 0.6 and every other candidate 0, through the same loader as the shipped model), the code
 *   action's title, its exact edit in Indri and Lucene, the metric change, and the inlay hints behind their
 *   setting;
 * - with a model trained 0 steps (test/lsp/fixtures/untrained-model, what the rotation ships when it chooses not to
 *   expand), the action offered disabled with the reason, and the status saying that it suggests nothing;
 * - with the shipped model (model/artifacts/surface.*), the status without that note, and the action either an
 *   edit in the model's query form or disabled with the reason.
 * The fixture model's candidates come from Debian's WordNet: skipped, with the reason printed, without it.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CodeAction, InlayHint } from 'vscode-languageserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIndex } from '../../../server/engine/index/index.js';
import { DEFAULT_WORDNET_DIR } from '../../../server/model/surface-wordnet.js';
import { applyEdits, freshUri, parseMarkers, positionAt, REPO, type TestClient } from '../harness.js';
import type { CompareResult } from '../../../server/lsp/engine/protocol.js';
import { startIn, type Status } from './fixture.js';

const hasWordNet = existsSync(join(DEFAULT_WORDNET_DIR, 'data.noun'));
if (!hasWordNet) console.log(`skipping the learned-expansion suggestions through the server: no WordNet at ${DEFAULT_WORDNET_DIR} (Debian wordnet-base)`);

const CORPUS = [
  'the automobile industry builds cars and trucks',
  'a car engine and its fuel consumption',
  'automobile engines burn fuel',
  'cars trucks buses and other vehicles on the highway',
  'an old motorcar in the garage',
  'poetry and painting in the museum',
];
/** Topic 1 judges the motorcar document relevant, which "car engine" ranks only once expanded. */
const QRELS = ['1 0 d2 1', '1 0 d5 2', '1 0 d6 0'];

/** The shipped TW-BERT model, for the compare columns that combine it with the learned expansion. */
const TWBERT = ['config.json', 'tokenizer.json', 'twbert.onnx'].map((f) => join(REPO, 'model/artifacts', f));

type LearnedStatus = Status & { learnedExpansion?: { state: string; message: string; fix?: string } };

/** A workspace with the corpus indexed, the qrels, and `modelFiles` copied into its model folder. */
async function workspace(modelFiles: string[]): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), 'querylens-learned-lsp-'));
  writeFileSync(join(root, 'corpus.jsonl'), CORPUS.map((text, i) => JSON.stringify({ _id: `d${i + 1}`, title: '', text })).join('\n') + '\n');
  writeFileSync(join(root, 'qrels.txt'), QRELS.join('\n') + '\n');
  await buildIndex([join(root, 'corpus.jsonl')], join(root, 'idx'), { profile: 'terrier' });
  mkdirSync(join(root, 'model'));
  for (const file of modelFiles) copyFileSync(file, join(root, 'model', file.split('/').pop()!));
  writeFileSync(join(root, 'querylens.json'), JSON.stringify({ corpus: 'corpus.jsonl', index: 'idx', qrels: 'qrels.txt', model: 'model', device: 'cpu' }));
  return root;
}

async function actionsAt(client: TestClient, languageId: string, input: string): Promise<{ text: string; uri: string; actions: CodeAction[] }> {
  const { text, cursor } = parseMarkers(input);
  const uri = freshUri(languageId);
  client.open(uri, languageId, text);
  const position = positionAt(text, cursor!);
  const actions = await client.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: { start: position, end: position }, context: { diagnostics: [] } });
  return { text, uri, actions };
}

const learned = (actions: CodeAction[]) => actions.filter((a) => a.kind === 'refactor.rewrite.learned');

/** A server started in a workspace with `modelFiles` (TW-BERT's beside them) for the describe block it is called in. */
function serverWith(modelFiles: string[], settings: Record<string, unknown> = { querylens: {} }): { client: TestClient; status: LearnedStatus } {
  const server = {} as { client: TestClient; status: LearnedStatus };
  let root: string | undefined;
  beforeAll(async () => {
    root = await workspace([...modelFiles, ...TWBERT]);
    const started = await startIn(root, { settings });
    server.client = started.client;
    server.status = started.status as LearnedStatus;
  }, 120_000);
  afterAll(async () => {
    await server.client?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });
  return server;
}

const ARTIFACTS = join(REPO, 'model/artifacts');
const VECTORS = ['surface-embeddings.bin', 'surface-neighbours.bin'].map((f) => join(ARTIFACTS, f));

describe.skipIf(!hasWordNet)('learned expansion with a model that suggests something', () => {
  let root: string;
  let client: TestClient;
  const settings: Record<string, unknown> = { querylens: {} };
  beforeAll(async () => {
    const fixture = join(REPO, 'test/lsp/fixtures/learned-model');
    root = await workspace([join(fixture, 'surface.json'), join(fixture, 'surface.onnx'), ...TWBERT]);
    const started = await startIn(root, { settings });
    client = started.client;
    expect(started.status.index.state).toBe('ready');
    const status = started.status as LearnedStatus;
    expect(status.learnedExpansion?.state, JSON.stringify(status.learnedExpansion)).toBe('ready');
    // The fixture folder has no word vectors: the status says so (and which source is off).
    expect(status.learnedExpansion!.message).toMatch(/^Learned-expansion model loaded \(cpu\)\. Note: no word vectors at .*surface-embeddings\.bin: embedding neighbours are not suggested/);
  }, 120_000);
  afterAll(async () => {
    await client?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('offers the suggestions with their weights and the nDCG@10 change, and writes #wsyn groups in Indri', async () => {
    const { text, uri, actions } = await actionsAt(client, 'indri', '1\tcar <|>engine');
    const [action] = learned(actions);
    expect(action, JSON.stringify(actions.map((a) => a.title))).toBeDefined();
    const title = /^Add learned expansions: automobile 0\.6, motorcar 0\.6 · nDCG@10 (\d\.\d\d) → (\d\.\d\d)$/.exec(action!.title);
    expect(title, action!.title).not.toBeNull();
    // The motorcar document (judged 2) is found only through the expansion.
    expect(Number(title![2])).toBeGreaterThan(Number(title![1]));
    expect(action!.disabled).toBeUndefined();
    expect(applyEdits(text, action!.edit!.changes![uri]!)).toBe('1\t#wsyn(1 car 0.6 automobile 0.6 motorcar) engine');
    expect(action!.data).toEqual({
      qid: '1',
      suggestions: [{ word: 'car', alternatives: [expect.objectContaining({ word: 'automobile', sources: expect.arrayContaining(['wordnet']) }), expect.objectContaining({ word: 'motorcar' })] }],
    });
  });

  it('keeps the user\'s structure: a phrase keeps its words, the plain word gets its group', async () => {
    const { text, uri, actions } = await actionsAt(client, 'indri', '3\t#combine( <|>car #1(fuel consumption) )');
    const [action] = learned(actions);
    // Topic 3 is not judged: no metric in the title.
    expect(action!.title).toBe('Add learned expansions: automobile 0.6, motorcar 0.6');
    expect(applyEdits(text, action!.edit!.changes![uri]!)).toBe('3\t#combine( #wsyn(1 car 0.6 automobile 0.6 motorcar) #1(fuel consumption) )');
  });

  it('writes (car OR automobile^0.6 …) groups in Lucene, keeping the required clause', async () => {
    const { text, uri, actions } = await actionsAt(client, 'lucene', '1\t+car <|>engine');
    const [action] = learned(actions);
    expect(action!.title).toMatch(/^Add learned expansions: automobile 0\.6, motorcar 0\.6 · nDCG@10 \d\.\d\d → \d\.\d\d$/);
    expect(applyEdits(text, action!.edit!.changes![uri]!)).toBe('1\t+(car OR automobile^0.6 OR motorcar^0.6) engine');
  });

  it('says why when no word of the query can take alternatives', async () => {
    const [action] = learned((await actionsAt(client, 'indri', '1\t#1( car <|>engine )')).actions);
    expect(action!.edit).toBeUndefined();
    expect(action!.disabled!.reason).toMatch(/^The learned model suggests nothing for this query: none of its words can take alternatives/);
  });

  it('compares original · Bo1 · learned · TW-BERT · learned + Bo1 + TW-BERT, rows built for every column', async () => {
    const uri = freshUri('indri');
    client.open(uri, 'indri', '1\tcar engine');
    const r = await client.request<CompareResult>('querylens/compare', { uri, qid: '1', k: 10 });
    expect(r.variants.map((v) => v.name)).toEqual(['original', 'bo1', 'learned', 'weighted', 'learned+bo1+weighted']);
    const byName = Object.fromEntries(r.variants.map((v) => [v.name, v]));
    // The learned column runs the query the action writes.
    expect(byName.learned!.query).toBe('#wsyn(1 car 0.6 automobile 0.6 motorcar) engine');
    expect(r.learned).toEqual([{ word: 'car', alternatives: [{ word: 'automobile', weight: expect.closeTo(0.6, 6) }, { word: 'motorcar', weight: expect.closeTo(0.6, 6) }] }]);
    // The combination: TW-BERT's weights, the learned groups inside them, then Bo1's terms.
    expect(byName['learned+bo1+weighted']!.query).toMatch(/^#weight\( .*#wsyn\(1 car 0\.6 automobile 0\.6 motorcar\)/);
    // The motorcar document (judged 2) is retrieved only by the columns with the learned expansion.
    const d5 = r.rows.find((row) => row.docno === 'd5')!;
    expect(d5.ranks.original).toBeNull();
    expect(d5.ranks.weighted).toBeNull();
    expect(d5.ranks.learned).not.toBeNull();
    expect(d5.ranks['learned+bo1+weighted']).not.toBeNull();
    for (const row of r.rows) expect(Object.keys(row.ranks)).toEqual(['original', 'bo1', 'learned', 'weighted', 'learned+bo1+weighted']);
    expect(Object.keys(r.deltas!)).toEqual(['bo1', 'learned', 'weighted', 'learned+bo1+weighted']);
    expect(r.deltas!.learned!.ndcg_cut_10).toBeGreaterThan(0);
    expect(r.notes.filter((n) => /learned/i.test(n))).toEqual([]);
  });

  it('compares a Lucene query with the learned groups in its own syntax', async () => {
    const uri = freshUri('lucene');
    client.open(uri, 'lucene', '1\t+car engine');
    const r = await client.request<CompareResult>('querylens/compare', { uri, qid: '1' });
    expect(r.variants.find((v) => v.name === 'learned')!.query).toBe('+(car OR automobile^0.6 OR motorcar^0.6) engine');
  });

  it('shows inlay hints on words with strong alternatives only when learnedExpansion.hints is on', async () => {
    const text = '1\tcar engine\n2\t+car^2 engine';
    const uri = freshUri('lucene');
    client.open(uri, 'lucene', text);
    const range = { start: { line: 0, character: 0 }, end: { line: 1, character: 20 } };
    const ask = () => client.request<InlayHint[]>('textDocument/inlayHint', { textDocument: { uri }, range });
    expect((await ask()).filter((h) => String(h.label).startsWith('≈'))).toEqual([]);
    const before = client.notifications.filter((n) => n.method === 'querylens/status').length;
    settings.querylens = { learnedExpansion: { hints: true } };
    void client.connection.sendNotification('workspace/didChangeConfiguration', { settings: {} });
    await client.until(() => client.notifications.filter((n) => n.method === 'querylens/status').length > before, 'querylens/status after the settings change', 60_000);
    const hints = (await ask()).filter((h) => String(h.label).startsWith('≈'));
    // After `car` on line 0; after `car^2` (not inside it) on line 1.
    expect(hints.map((h) => [h.position, h.label])).toEqual([
      [{ line: 0, character: 5 }, '≈ automobile, motorcar'],
      [{ line: 1, character: 8 }, '≈ automobile, motorcar'],
    ]);
    expect(hints[0]!.tooltip).toBe('Learned alternatives of "car" in this index: automobile 0.6 (wordnet), motorcar 0.6 (wordnet). The "Add learned expansions" action writes them into the query.');
  });
});

describe('learned expansion with a model trained 0 steps', () => {
  const server = serverWith([...['surface.json', 'surface.onnx'].map((f) => join(REPO, 'test/lsp/fixtures/untrained-model', f)), ...VECTORS]);

  it('says in the status that the model suggests nothing', () => {
    expect(server.status.learnedExpansion?.state).toBe('ready');
    expect(server.status.learnedExpansion!.message).toContain('It was trained 0 steps (the leave-one-collection-out rotation chose not to expand, model/MODEL_CARD.md), so it suggests nothing.');
  });

  it('offers the action disabled, with the reason, instead of an edit', async () => {
    const [action] = learned((await actionsAt(server.client, 'indri', '1\tcar <|>engine')).actions);
    expect(action, 'the action is offered (disabled), not hidden').toBeDefined();
    expect(action!.title).toBe('Add learned expansions');
    expect(action!.edit).toBeUndefined();
    expect(action!.disabled!.reason).toMatch(
      /^The learned model suggests nothing for this query: it weighs each of the \d+ candidates of its words below 0\.05\. It was trained 0 steps \(the leave-one-collection-out rotation chose not to expand, model\/MODEL_CARD\.md\), so it suggests nothing\.$/,
    );
  });

  it('keeps the learned columns in compare and says why they equal the query as written', async () => {
    const uri = freshUri('indri');
    server.client.open(uri, 'indri', '1\tcar engine');
    const r = await server.client.request<CompareResult>('querylens/compare', { uri, qid: '1' });
    expect(r.variants.map((v) => v.name)).toEqual(['original', 'bo1', 'learned', 'weighted', 'learned+bo1+weighted']);
    expect(r.variants.find((v) => v.name === 'learned')!.query).toBe('car engine');
    expect(r.learned).toEqual([]);
    expect(r.notes).toContainEqual(expect.stringMatching(/^The learned model suggests nothing for this query: .* The learned column ranks the query as written\.$/));
  });
});

describe('learned expansion with the shipped model', () => {
  const server = serverWith([...['surface.json', 'surface.onnx'].map((f) => join(ARTIFACTS, f)), ...VECTORS], { querylens: { learnedExpansion: { hints: true } } });

  it('is loaded, and its status says how it was trained: never "suggests nothing"; a fixed weight when it has one', () => {
    const config = JSON.parse(readFileSync(join(REPO, 'model/artifacts/surface.json'), 'utf8')) as { steps?: number; start?: number };
    expect(server.status.learnedExpansion?.state).toBe('ready');
    expect(server.status.learnedExpansion!.message).toMatch(/^Learned-expansion model loaded \(cpu\)\./);
    expect(server.status.learnedExpansion!.message).not.toContain('so it suggests nothing');
    const fixed = config.steps === 0 && (config.start ?? 0) > 0;
    expect(server.status.learnedExpansion!.message.includes(`It was trained 0 steps from a fixed weight: every candidate it may suggest weighs ${config.start}`)).toBe(fixed);
  });

  it("offers an edit in the model's query form, or the action disabled with the reason", async () => {
    const form = JSON.parse(readFileSync(join(REPO, 'model/artifacts/surface.json'), 'utf8')).form ?? 'wsyn';
    for (const query of ['1\tcar <|>engine', '1\tautomobile fuel <|>consumption']) {
      const { text, actions } = await actionsAt(server.client, 'indri', query);
      const [action] = learned(actions);
      expect(action, query).toBeDefined();
      if (action!.disabled) {
        expect(action!.disabled.reason).toMatch(/^The learned model suggests nothing for this query: it weighs each of the \d+ candidates? of its words below 0\.05\.( It suggests only .*\.)?$/);
      } else {
        const edited = applyEdits(text, Object.values(action!.edit!.changes!)[0]!);
        expect(edited).toContain(form === 'terms' ? '#weight(' : '#wsyn(');
        expect(action!.title).toMatch(/^Add learned expansions: \w+ 0\.\d+/);
      }
    }
  });

  it('hints every word the action gives alternatives, with the weights the action writes', async () => {
    const { text, actions } = await actionsAt(server.client, 'indri', '1\tcar <|>engine');
    const [action] = learned(actions);
    const uri = freshUri('indri');
    server.client.open(uri, 'indri', text);
    const hints = (
      await server.client.request<InlayHint[]>('textDocument/inlayHint', { textDocument: { uri }, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 20 } } })
    ).filter((h) => String(h.label).startsWith('≈'));
    if (action!.disabled) {
      expect(hints).toEqual([]);
      return;
    }
    expect(hints.length).toBeGreaterThan(0);
    const config = JSON.parse(readFileSync(join(REPO, 'model/artifacts/surface.json'), 'utf8')) as { steps?: number; start?: number };
    for (const h of hints) {
      const [word] = String(h.label).slice(2).split(', ');
      expect(action!.title).toContain(word!);
      if (config.steps === 0 && config.start) expect(String(h.tooltip)).toContain(`${word} ${config.start} (`);
    }
  });
});
