/**
 * The whole-file requests of docs/LSP_EXTENSIONS.md through the real server over stdio:
 * - `querylens/runFile` is differential against the CLI: for the sample query files and
 *   several scorer/expansion configurations its run text equals `querylens search` byte for
 *   byte, and its metrics equal `querylens eval --json` of that run;
 * - `querylens/buildIndex` reports work-done progress on the client's token, a cancelled
 *   build leaves the previous index as it was, and a completed one is opened and announced;
 * - `querylens/weighFile` (with model/artifacts) rewrites every weighable query exactly as the
 *   single-query "Apply TW-BERT weights" action does, lists the others with a reason, and
 *   without a model fails with the reason and the fix; an already weighted query is re-weighed
 *   from its words into the same uni-gram + #1 structure (or left alone, with the reason, when
 *   that gives the same query), and the file's queries share model runs (batcher).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CancellationTokenSource, type CodeAction } from 'vscode-languageserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIndex } from '../../../server/engine/index/index.js';
import type { BuildIndexResult, PreviewResult, RunFileResult, WeighFileResult } from '../../../server/lsp/engine/protocol.js';
import { runChecked } from '../../support/process.js';
import { applyEdits, freshUri, REPO, type TestClient } from '../harness.js';
import { corpusJsonl, makeWorkspace, startIn, type Status, failure } from './fixture.js';

const CRANFIELD = join(REPO, 'samples/cranfield/corpus.jsonl');
const CRANFIELD_QRELS = join(REPO, 'samples/cranfield/qrels.txt');
const SAMPLE_FILES = [
  { file: join(REPO, 'samples/queries.indri'), language: 'indri' },
  { file: join(REPO, 'samples/queries.lucene'), language: 'lucene' },
];
const MODEL_DIR = join(REPO, 'model/artifacts');
const haveModel = existsSync(join(MODEL_DIR, 'config.json')) && existsSync(join(MODEL_DIR, 'twbert.onnx'));

function statuses(client: TestClient): Status[] {
  return client.notifications.filter((n) => n.method === 'querylens/status').map((n) => n.params as Status);
}

/** Settings the test changes between runs (answered to workspace/configuration as they are at that moment). */
const settings: Record<string, unknown> = { querylens: {} };

/**
 * One configuration per row: the server's settings and the `querylens search` options that
 * mean the same ranking (BM25 / QL parameters, Bo1 feedback).
 */
const CONFIGS: { name: string; settings: Record<string, unknown>; cli: string[] }[] = [
  { name: 'BM25 defaults', settings: {}, cli: [] },
  { name: 'BM25 k1 0.9 b 0.4', settings: { scorer: { name: 'bm25', k1: 0.9, b: 0.4 } }, cli: ['--k1', '0.9', '--b', '0.4'] },
  { name: 'QL mu 1000', settings: { scorer: { name: 'ql', mu: 1000 } }, cli: ['--scorer', 'ql', '--mu', '1000'] },
  {
    name: 'BM25 + Bo1 (5 docs, 8 terms)',
    settings: { expansion: { method: 'bo1', fbDocs: 5, fbTerms: 8 } },
    cli: ['--expand', 'bo1', '--fb-docs', '5', '--fb-terms', '8'],
  },
];

describe('querylens/runFile on the Cranfield sample', () => {
  let root: string;
  let client: TestClient;
  const uris = new Map<string, string>();

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'querylens-runfile-'));
    await buildIndex([CRANFIELD], join(root, 'idx'), { profile: 'terrier' });
    // Cranfield lies outside this temporary workspace: the user's settings name it (a workspace's
    // querylens.json may only name paths inside it; docs/ARCHITECTURE.md, "Trust model").
    writeFileSync(join(root, 'querylens.json'), JSON.stringify({ index: 'idx' }));
    settings.querylens = { corpus: CRANFIELD, qrels: CRANFIELD_QRELS };
    client = (await startIn(root, { settings })).client;
    for (const { file, language } of SAMPLE_FILES) {
      const uri = pathToFileURL(file).toString();
      uris.set(file, uri);
      client.open(uri, language, readFileSync(file, 'utf8'));
      await client.diagnosticsFor(uri);
    }
  }, 120_000);
  afterAll(async () => {
    await client?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  async function configure(querylens: Record<string, unknown>): Promise<void> {
    const before = statuses(client).length;
    settings.querylens = { corpus: CRANFIELD, qrels: CRANFIELD_QRELS, ...querylens };
    void client.connection.sendNotification('workspace/didChangeConfiguration', { settings: {} });
    await client.until(() => statuses(client).length > before, 'querylens/status after the settings change', 60_000);
  }

  for (const config of CONFIGS) {
    for (const { file } of SAMPLE_FILES) {
      it(`equals \`querylens search\` for ${file.slice(REPO.length)} with ${config.name}`, async () => {
        await configure(config.settings);
        const result = await client.request<RunFileResult>('querylens/runFile', { uri: uris.get(file), version: 1, tag: 'lsp' });
        const cli = await runChecked(process.execPath, ['bin/querylens.js', 'search', '--index', join(root, 'idx'), '--run-id', 'lsp', ...config.cli, file], {
          cwd: REPO,
          timeoutMs: 60_000,
        });
        expect(result.text.length).toBeGreaterThan(0);
        expect(result.text).toBe(cli);
        expect(result.lines).toBe(cli.split('\n').length - 1);
        expect(result.skipped).toEqual([]);
        expect(result.expansion).toEqual(config.settings.expansion ? { method: 'bo1', fbDocs: 5, fbTerms: 8 } : null);

        // The metrics are trec_eval's of that run (querylens eval, judged queries only).
        const runPath = join(root, 'run.txt');
        writeFileSync(runPath, result.text);
        const evaluated = JSON.parse(
          await runChecked(process.execPath, ['bin/querylens.js', 'eval', CRANFIELD_QRELS, runPath, '-m', 'ndcg_cut_10,map,P_10,recall_100,recip_rank', '--json'], {
            cwd: REPO,
            timeoutMs: 60_000,
          }),
        ) as { numQueries: number; mean: Record<string, number> };
        expect(result.metrics!.judged).toBe(evaluated.numQueries);
        for (const [measure, value] of Object.entries(evaluated.mean)) expect(result.metrics!.mean[measure], measure).toBeCloseTo(value, 12);
      }, 120_000);
    }
  }

  it('ranks with another scorer of the registry on request, querylens.json\'s parameters carried over (the scoreboard\'s "compare scorers")', async () => {
    await configure({ scorer: { name: 'bm25', k1: 0.9, b: 0.4, mu: 1000 } });
    const file = SAMPLE_FILES[0]!.file;
    const configured = await client.request<RunFileResult>('querylens/runFile', { uri: uris.get(file), tag: 'lsp' });
    expect(configured.scorers).toEqual(['bm25', 'bm25-lucene', 'ql', 'bm25f']);
    for (const [scorer, cli] of [
      ['ql', ['--scorer', 'ql', '--mu', '1000']],
      ['bm25-lucene', ['--scorer', 'bm25-lucene', '--k1', '0.9', '--b', '0.4']],
    ] as const) {
      const result = await client.request<RunFileResult>('querylens/runFile', { uri: uris.get(file), tag: 'lsp', scorer });
      expect(result.scorer).toEqual({ name: scorer, k1: 0.9, b: 0.4, mu: 1000 });
      const expected = await runChecked(process.execPath, ['bin/querylens.js', 'search', '--index', join(root, 'idx'), '--run-id', 'lsp', ...cli, file], { cwd: REPO, timeoutMs: 60_000 });
      expect(result.text).toBe(expected);
      expect(result.text).not.toBe(configured.text);
    }
    // A name outside the registry, or a scorer this (text) index cannot be ranked with, is refused with the ones it can.
    for (const scorer of ['impact', 'bm26']) {
      const error = await failure(client.request('querylens/runFile', { uri: uris.get(file), scorer }));
      expect(error.code).toBe(-32602);
      expect(error.message).toContain('bm25, bm25-lucene, ql, bm25f');
    }
  }, 120_000);

  it('lists queries with syntax errors instead of ranking them, and honours k', async () => {
    await configure({});
    const uri = freshUri('indri');
    client.open(uri, 'indri', ['1\tflow boundary', '2\t#combine( broken ', '3\theat'].join('\n'));
    const r = await client.request<RunFileResult>('querylens/runFile', { uri, k: 3 });
    expect(r.queries).toBe(2);
    expect(r.skipped).toEqual([{ qid: '2', reason: 'the query has syntax errors' }]);
    const lines = r.text.trimEnd().split('\n').map((l) => l.split(' '));
    expect(lines.map((l) => [l[0], l[3], l[5]])).toEqual([
      ['1', '1', 'querylens'],
      ['1', '2', 'querylens'],
      ['1', '3', 'querylens'],
      ['3', '1', 'querylens'],
      ['3', '2', 'querylens'],
      ['3', '3', 'querylens'],
    ]);
    expect((await failure(client.request('querylens/runFile', { uri, tag: 'two words' }))).code).toBe(-32602);
    expect((await failure(client.request('querylens/runFile', { uri, k: 0 }))).code).toBe(-32602);
  });
});

describe('querylens/buildIndex', () => {
  let root: string;
  let client: TestClient;
  let index: string;

  /** Every file of the index folder with its bytes, to prove a cancelled build changed nothing. */
  function snapshot(dir: string): Record<string, string> {
    return Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f)).toString('base64')]));
  }

  function progressOf(token: string): { kind: string; title?: string; cancellable?: boolean; message?: string; percentage?: number }[] {
    return client.notifications
      .filter((n) => n.method === '$/progress' && (n.params as { token: unknown }).token === token)
      .map((n) => (n.params as { value: { kind: string } }).value);
  }

  beforeAll(async () => {
    // The index starts as the 9-document fixture corpus; querylens.json names Cranfield as the
    // corpus, so a build replaces it with 1,400 documents (a change that cannot go unnoticed).
    root = mkdtempSync(join(tmpdir(), 'querylens-build-'));
    mkdirSync(join(root, 'data'));
    writeFileSync(join(root, 'data/small.jsonl'), corpusJsonl());
    index = join(root, 'idx');
    await buildIndex([join(root, 'data/small.jsonl')], index, { profile: 'terrier' });
    // A bigger corpus (Cranfield twelve times, distinct ids) so the build is still running when the cancel arrives:
    // three copies (4,200 documents) were built in under a second on a fast machine, before the cancel got through.
    const cranfield = readFileSync(CRANFIELD, 'utf8').trimEnd().split('\n');
    const big = Array.from({ length: 12 }, (_, copy) => copy).flatMap((copy) => cranfield.map((line) => {
      const doc = JSON.parse(line) as { _id: string };
      return JSON.stringify({ ...doc, _id: copy === 0 ? doc._id : `${doc._id}-${copy}` });
    }));
    writeFileSync(join(root, 'data/big.jsonl'), big.join('\n') + '\n');
    writeFileSync(join(root, 'querylens.json'), JSON.stringify({ corpus: 'data/big.jsonl', index: 'idx' }));
    const started = await startIn(root);
    client = started.client;
    expect(started.status.index.message).toMatch(/Index loaded: 9 documents/);
  }, 120_000);
  afterAll(async () => {
    await client?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('cancelled, leaves the previous index byte for byte and keeps serving it', async () => {
    const before = snapshot(index);
    const source = new CancellationTokenSource();
    const request = client.connection.sendRequest<BuildIndexResult>('querylens/buildIndex', { workDoneToken: 'cancel-me' }, source.token);
    await client.until(() => progressOf('cancel-me').some((p) => p.kind === 'report'), 'a progress report of the build', 60_000);
    source.cancel();
    const err = await failure(request);
    expect(err.code).toBe(-32800);
    expect(err.message).toMatch(/cancelled; the previous index at .*idx is unchanged/);
    await client.until(() => progressOf('cancel-me').some((p) => p.kind === 'end'), 'the end of the progress');
    expect(snapshot(index)).toEqual(before);
    // No half-built folder is left next to the index.
    expect(readdirSync(dirname(index)).filter((f) => f.startsWith('.idx'))).toEqual([]);
    const uri = freshUri('indri');
    client.open(uri, 'indri', '1\tflow');
    const preview = await client.request<PreviewResult>('querylens/preview', { uri, qid: '1' });
    expect(preview.hits.map((h) => h.docno).sort()).toEqual(['d1', 'd3', 'd5']);
  }, 120_000);

  it('builds the configured corpus with progress on the client token, then opens and announces the new index', async () => {
    const statusCount = statuses(client).length;
    const result = await client.request<BuildIndexResult>('querylens/buildIndex', { workDoneToken: 'build' });
    expect(result).toMatchObject({ corpus: join(root, 'data/big.jsonl'), index, docs: 16800 });
    expect(result.terms).toBeGreaterThan(1000);
    const progress = progressOf('build');
    expect(progress[0]).toEqual({ kind: 'begin', title: `querylens: building the index from ${join(root, 'data/big.jsonl')}`, percentage: 0, cancellable: true });
    expect(progress.filter((p) => p.kind === 'report').length).toBeGreaterThan(0);
    expect(progress.filter((p) => p.kind === 'report').every((p) => /documents$/.test(p.message!))).toBe(true);
    expect(progress.at(-1)!.kind).toBe('end');
    // The reply comes after the new index is open and announced.
    expect(statuses(client).length).toBeGreaterThan(statusCount);
    expect(statuses(client).at(-1)!.index.message).toMatch(/Index loaded: 16,800 documents/);
    const status = await client.request<Status>('querylens/status', null);
    expect(status.index.message).toMatch(/Index loaded: 16,800 documents/);
    const uri = freshUri('indri');
    client.open(uri, 'indri', '1\tflow');
    const preview = await client.request<PreviewResult>('querylens/preview', { uri, qid: '1' });
    expect(preview.matchedDocs).toBeGreaterThan(3);
    expect(statSync(join(index, 'meta.bin')).isFile()).toBe(true);
  }, 120_000);

  it('failing on a malformed corpus, keeps the previous index and says why', async () => {
    const ws = await makeWorkspace({ config: { corpus: 'data/bad.jsonl', index: 'idx' } });
    writeFileSync(join(ws.root, 'data/bad.jsonl'), `${JSON.stringify({ _id: 'x1', text: 'fine' })}\n{"_id": "x2", "text": \n`);
    const { client: other, status } = await startIn(ws.root);
    try {
      expect(status.index.message).toMatch(/Index loaded: 9 documents/);
      const before = snapshot(ws.index);
      const err = await failure(other.request('querylens/buildIndex', {}));
      expect(err.code).toBe(-32600);
      // The indexer's reason with file and line, then the guarantee and the fix.
      expect(err.message).toMatch(/Building the index from .*bad\.jsonl failed: .*bad\.jsonl:2: invalid JSON .*\. The previous index at .*idx is unchanged\. Check the corpus file/);
      expect(snapshot(ws.index)).toEqual(before);
      expect(readdirSync(ws.root).filter((f) => f.startsWith('.idx'))).toEqual([]);
    } finally {
      await other.stop();
      ws.dispose();
    }
  }, 60_000);

  it('says what to configure when there is no corpus', async () => {
    const ws = await makeWorkspace({ config: { index: 'idx' } });
    const { client: other } = await startIn(ws.root);
    try {
      const err = await failure(other.request('querylens/buildIndex', {}));
      expect(err.code).toBe(-32600);
      expect(err.message).toMatch(/No corpus configured.*Set "corpus" in querylens.json/);
    } finally {
      await other.stop();
      ws.dispose();
    }
  }, 60_000);
});

describe('querylens/weighFile without a model', () => {
  it('fails with the reason and the fix, and weighs nothing', async () => {
    const ws = await makeWorkspace({ config: { index: 'idx' } });
    const { client } = await startIn(ws.root);
    try {
      const uri = freshUri('indri');
      client.open(uri, 'indri', '1\tboundary layer');
      const err = await failure(client.request('querylens/weighFile', { uri }));
      expect(err.code).toBe(-32600);
      expect(err.message).toMatch(/no term-weighting model is loaded: No weighting model configured.*Set "model" in querylens.json/);
    } finally {
      await client.stop();
      ws.dispose();
    }
  }, 60_000);
});

describe.skipIf(!haveModel)('querylens/weighFile with model/artifacts', () => {
  let ws: Awaited<ReturnType<typeof makeWorkspace>>;
  let client: TestClient;
  beforeAll(async () => {
    // The model lies outside the workspace: the user's settings name it (docs/ARCHITECTURE.md, "Trust model").
    ws = await makeWorkspace({ config: { index: 'idx', device: 'cpu' } });
    const started = await startIn(ws.root, { settings: { querylens: { model: MODEL_DIR } } });
    client = started.client;
    expect(started.status.model.state).toBe('ready');
  }, 120_000);
  afterAll(async () => {
    await client?.stop();
    ws?.dispose();
  });

  const FILES: { language: string; lines: string[]; weighable: string[]; notWeighed: Record<string, RegExp> }[] = [
    {
      language: 'indri',
      lines: [
        '// sample',
        '1\t#combine( boundary layer flow )',
        '2\theat conduction',
        '3\t#combine( flow.title plate )',
        '4\t#combine( broken ',
        '5\t#weight( 2.0 #1(flat plate) 1.0 shock )',
        '6\t#combine( the of )',
      ],
      // One rule with `querylens weigh` (structured-weights.ts): a field restriction is kept, with the weights inside.
      weighable: ['1', '2', '3', '5'],
      notWeighed: { '4': /syntax errors/, '6': /stopwords only/ },
    },
    {
      language: 'lucene',
      lines: ['1\tboundary layer flow', '2\ttitle:flow plate', '3\t"heat conduction"^2 slabs', '4\tflow AND (heat', '5\tflo* plate'],
      weighable: ['1', '2', '3'],
      notWeighed: { '4': /syntax errors/, '5': /cannot weigh this query: the model weighs words, and this wildcard is a pattern/ },
    },
  ];

  for (const file of FILES) {
    it(`rewrites every weighable ${file.language} query as the single-query action does`, async () => {
      const uri = freshUri(file.language);
      const text = file.lines.join('\n');
      client.open(uri, file.language, text);
      const r = await client.request<WeighFileResult>('querylens/weighFile', { uri, version: 1 });
      expect(r.model).toBe('twbert');
      expect(r.device).toBe('cpu');
      expect(r.weighed.map((w) => w.qid)).toEqual(file.weighable);
      expect(Object.keys(Object.fromEntries(r.notWeighed.map((n) => [n.qid, n.reason])))).toEqual(Object.keys(file.notWeighed));
      for (const n of r.notWeighed) expect(n.reason, n.qid).toMatch(file.notWeighed[n.qid]!);

      const edits = r.edit.changes[uri]!;
      expect(edits).toHaveLength(file.weighable.length);
      // Per query, the edit is exactly the "Apply TW-BERT weights" code action's edit.
      for (const edit of edits) {
        const actions = await client.request<CodeAction[]>('textDocument/codeAction', {
          textDocument: { uri },
          range: { start: edit.range.start, end: edit.range.start },
          context: { diagnostics: [] },
        });
        const single = actions.find((a) => a.kind === 'refactor.rewrite.weights');
        expect(single, JSON.stringify(actions.map((a) => a.title))).toBeDefined();
        expect(single!.edit!.changes![uri]).toEqual([edit]);
      }
      // Applied: the weighed lines are the model's queries, the others are untouched.
      const after = applyEdits(text, edits).split('\n');
      expect(after).toHaveLength(file.lines.length);
      for (const [i, line] of file.lines.entries()) {
        const qid = line.split('\t')[0]!;
        if (file.weighable.includes(qid)) {
          const query = after[i]!.split('\t')[1]!;
          expect(query).toBe(r.weighed.find((w) => w.qid === qid)!.text);
          // (Lucene: the rule keeps a user's phrase and its boost, times the model's weight.)
          expect(query).toMatch(file.language === 'indri' ? /^#weight\( [\d.]+ \S+/ : /^(\S+|"[^"]+")\^[\d.]+ /);
        } else expect(after[i]).toBe(line);
      }
    }, 120_000);
  }

  const weighActions = async (uri: string, line: number) =>
    (
      await client.request<CodeAction[]>('textDocument/codeAction', {
        textDocument: { uri },
        range: { start: { line, character: 2 }, end: { line, character: 2 } },
        context: { diagnostics: [] },
      })
    ).filter((a) => a.kind === 'refactor.rewrite.weights');

  it('re-weighs an already weighted query from its words, keeping its #1 bi-grams, and leaves one it would write the same alone, saying why', async () => {
    const plain = freshUri('indri');
    client.open(plain, 'indri', '1\t#combine( boundary layer flow )');
    const first = await client.request<WeighFileResult>('querylens/weighFile', { uri: plain, version: 1 });
    const weighted = first.weighed[0]!.text;
    expect(weighted).toMatch(/^#weight\( [\d.]+ boundary [\d.]+ layer [\d.]+ flow [\d.]+ #1\(boundary layer\) [\d.]+ #1\(layer flow\) \)$/);

    // 1: the model's own query; 2: one weight edited by hand; 3: the uni-gram "layer" removed
    // (its word survives in the bi-grams); 4: bi-grams in another order.
    const edited = weighted.replace(/^#weight\( [\d.]+ /, '#weight( 9.5 ');
    const noLayer = weighted.replace(/ [\d.]+ layer (?=[\d.]+ flow)/, ' ');
    const bigramsFirst = weighted.replace(/^#weight\( (.*?) ([\d.]+ #1\(.*) \)$/, '#weight( $2 $1 )');
    expect(new Set([weighted, edited, noLayer, bigramsFirst]).size).toBe(4);
    const uri = freshUri('indri');
    const text = [weighted, edited, noLayer, bigramsFirst].map((q, i) => `${i + 1}\t${q}`).join('\n');
    client.open(uri, 'indri', text);
    const r = await client.request<WeighFileResult>('querylens/weighFile', { uri, version: 1 });
    // The words are re-weighed into the same structure: uni-grams and the same #1 bi-grams, never
    // "boundary layer flow boundary layer layer flow" read off every term of the query.
    expect(r.weighed).toEqual([
      { qid: '2', text: weighted },
      { qid: '3', text: weighted },
      { qid: '4', text: weighted },
    ]);
    expect(r.notWeighed).toEqual([{ qid: '1', reason: 'already weighted by TW-BERT: re-weighing its words gives the same query' }]);
    expect(applyEdits(text, r.edit.changes[uri]!).split('\n')).toEqual([1, 2, 3, 4].map((qid) => `${qid}\t${weighted}`));
    // The single-query action agrees: disabled with the same reason where it would change nothing, offered (same edit) elsewhere.
    const current = await weighActions(uri, 0);
    expect(current.map((a) => [a.edit, a.disabled?.reason])).toEqual([[undefined, 'already weighted by TW-BERT: re-weighing its words gives the same query']]);
    expect((await weighActions(uri, 1))[0]!.edit!.changes![uri]).toEqual([r.edit.changes[uri]![0]]);
  }, 120_000);

  it('leaves an already weighted Lucene query alone too (its bi-gram phrases are not flattened into words)', async () => {
    const plain = freshUri('lucene');
    client.open(plain, 'lucene', '1\tboundary layer flow');
    const weighted = (await client.request<WeighFileResult>('querylens/weighFile', { uri: plain, version: 1 })).weighed[0]!.text;
    expect(weighted).toMatch(/^boundary\^[\d.]+ layer\^[\d.]+ flow\^[\d.]+ "boundary layer"\^[\d.]+ "layer flow"\^[\d.]+$/);
    const uri = freshUri('lucene');
    client.open(uri, 'lucene', `1\t${weighted}\n2\t${weighted.replace(/^boundary\^[\d.]+/, 'boundary^7')}`);
    const r = await client.request<WeighFileResult>('querylens/weighFile', { uri, version: 1 });
    expect(r.notWeighed).toEqual([{ qid: '1', reason: 'already weighted by TW-BERT: re-weighing its words gives the same query' }]);
    expect(r.weighed).toEqual([{ qid: '2', text: weighted }]);
  }, 120_000);

  it('sends every query of the file to the model before awaiting any, so they share model runs', async () => {
    const words = ['boundary', 'layer', 'flow', 'heat', 'transfer', 'shock', 'wave', 'wing', 'pressure', 'plate'];
    const queries = Array.from({ length: 20 }, (_, i) => `${words[i % 10]} ${words[(i * 3 + 1) % 10]} batchfile${i}`);
    const uri = freshUri('indri');
    client.open(uri, 'indri', queries.map((q, i) => `${i + 1}\t#combine( ${q} )`).join('\n'));
    const stats = () => client.request<{ batcher: { batches: number; queries: number }; model: { runs: number } | null }>('querylens/modelStats', null);
    const before = await stats();
    const r = await client.request<WeighFileResult>('querylens/weighFile', { uri, version: 1 });
    const after = await stats();
    expect(r.weighed).toHaveLength(20);
    expect(after.batcher.queries - before.batcher.queries).toBe(20);
    // 20 new queries started together: one batch (a few on a starved machine), never one per query.
    expect(after.batcher.batches - before.batcher.batches).toBeGreaterThanOrEqual(1);
    expect(after.batcher.batches - before.batcher.batches).toBeLessThanOrEqual(3);
  }, 120_000);
});
