/**
 * DeepCT-Index (issue 16 item 7): the document encoding (every word occurrence read once, in windows of the
 * encoder's length), tf′ = round(100 · max weight) with zeros dropped or a form that keeps the counts (equal to
 * training's, in the smoke test), ONNX = PyTorch on the document model, the
 * index built through the impact ingest holding exactly the model's tf′, BM25 over tf′ equal to BM25 over the
 * same counts written as text (differential), the scorer checks, and `querylens index --deepct` end to end.
 * The model here is a tiny, randomly initialised fixture (model/twbert/deepct_index.py `fixture`), not a trained one.
 */
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseText } from '../../grammar/index.js';
import { createAnalyzer } from '../../server/engine/analysis/index.js';
import { analysedBatches } from '../../server/engine/index/batch-source.js';
import { buildIndex, openIndex } from '../../server/engine/index/disk.js';
import type { IndexReader } from '../../server/engine/index/reader.js';
import { search } from '../../server/engine/search.js';
import { LocalIndexBackend } from '../../server/service/backend.js';
import { documentText, encodeDocumentWindows, integerImpacts, termCounts, termWeights } from '../../server/model/deepct-index-encode.js';
import { buildDeepctIndex, describeImpactForm, loadDeepctIndexModel, type DeepctIndexModel } from '../../server/model/deepct-index.js';
import { loadTokenizer } from '../../server/model/tokenize.js';
import { DATA_DIR } from '../support/data.js';
import { runChecked, runProcess } from '../support/process.js';
import { PYTHON, REPO_ROOT, syntheticCorpus, TOKENIZER_FILE, VOCABULARY, prng, torchUnavailableReason } from './helpers.js';

const FIXTURE = join(REPO_ROOT, 'test/model/fixtures/deepct-index-tiny');
const work = mkdtempSync(join(tmpdir(), 'ql-deepct-index-'));
const modelDir = join(work, 'model');
let model: DeepctIndexModel;

beforeAll(async () => {
  mkdirSync(modelDir);
  for (const f of ['deepct-index.json', 'deepct-index.onnx']) copyFileSync(join(FIXTURE, f), join(modelDir, f));
  copyFileSync(TOKENIZER_FILE, join(modelDir, 'tokenizer.json'));
  const loaded = await loadDeepctIndexModel(modelDir, { device: 'cpu', threads: 1 });
  if (!loaded.ok) throw loaded.error;
  model = loaded.model;
});
/** The fixture model's deepct-index.json with some fields replaced. */
const configWith = (overrides: Record<string, unknown>): string =>
  JSON.stringify({ ...JSON.parse(readFileSync(join(FIXTURE, 'deepct-index.json'), 'utf8')), ...overrides });

/** A copy of the fixture model in `dir` whose config has some fields replaced. */
function fixtureModelWith(dir: string, overrides: Record<string, unknown>): string {
  mkdirSync(dir, { recursive: true });
  for (const f of ['deepct-index.onnx', 'tokenizer.json']) copyFileSync(join(modelDir, f), join(dir, f));
  writeFileSync(join(dir, 'deepct-index.json'), configWith(overrides));
  return dir;
}

afterAll(async () => {
  await model?.dispose();
  // QUERYLENS_KEEP_SMOKE_DIR keeps the smoke test's data (home/): model/twbert/device_parity.py trains on it on a GPU.
  const keep = process.env.QUERYLENS_KEEP_SMOKE_DIR;
  if (keep) cpSync(join(work, 'home'), join(keep, 'deepct-index-home'), { recursive: true });
  rmSync(work, { recursive: true, force: true });
});

const analyzer = createAnalyzer('terrier');

describe('document encoding', () => {
  it('reads every analysed word once, on its first wordpiece, in windows of at most maxTokens', async () => {
    const tokenizer = loadTokenizer(TOKENIZER_FILE);
    const text = 'Unbelievably, the thermodynamics of boundary-layer transitions ' + 'heat transfer in laminar flows over plates '.repeat(12);
    const words = analyzer.analyze(text);
    const enc = await encodeDocumentWindows(tokenizer, analyzer, text, 32);
    expect(enc.windows.length).toBeGreaterThan(3);
    const read = enc.windows.flatMap((w) => w.termIndex.map((t) => enc.terms[t]));
    expect(read.sort()).toEqual(words.map((w) => w.term).sort());
    for (const w of enc.windows) {
      expect(w.ids.length).toBeLessThanOrEqual(32);
      expect(w.ids[0]).toBe(101);
      expect(w.ids[w.ids.length - 1]).toBe(102);
      for (const p of w.positions) expect(p > 0 && p < w.ids.length - 1).toBe(true);
    }
    // "unbelievably" is several wordpieces: it is read on the first, "un".
    const first = enc.windows[0]!;
    expect(first.ids[first.positions[0]!]).toBe((await tokenizer.encode('un', null, { addSpecialTokens: false })).getIds()[0]);
    // A short document is one window, read as a whole.
    const short = await encodeDocumentWindows(tokenizer, analyzer, 'heat transfer', 32);
    expect(short.windows).toHaveLength(1);
    expect(short.terms).toEqual(['heat', 'transfer']);
    expect((await encodeDocumentWindows(tokenizer, analyzer, 'the of and', 32)).windows).toHaveLength(0);
  });

  it("a term's weight is the largest of its occurrences'; tf′ = round(100 w), zeros and negatives dropped", () => {
    const encoding = {
      terms: ['a', 'b', 'c', 'd'],
      windows: [
        { ids: [101, 1, 2, 3, 102], positions: [1, 2, 3], termIndex: [0, 1, 0] },
        { ids: [101, 4, 5, 102], positions: [1, 2], termIndex: [2, 3] },
      ],
    };
    const w = termWeights(encoding, [Float32Array.from([9, 0.2, 0.004, 0.355, 9]), Float32Array.from([9, -0.3, 0.0049, 9])]);
    expect([...w].map((x) => Math.round(x * 1e4) / 1e4)).toEqual([0.355, 0.004, -0.3, 0.0049]);
    expect(integerImpacts(encoding.terms, Float64Array.from([0.355, 0.004, -0.3, 0.005]))).toEqual({ terms: ['a', 'd'], impacts: [36, 1] });
    // A form that keeps the counts: tf′ = round(scale · tf · (1 + tfAlpha · max(w, 0))), no term dropped.
    const counts = termCounts(encoding);
    expect([...counts]).toEqual([2, 1, 1, 1]);
    const weights = Float64Array.from([0.355, 0.004, -0.3, 0.005]);
    expect(integerImpacts(encoding.terms, weights, { scale: 1, tfAlpha: 10 }, counts)).toEqual({ terms: ['a', 'b', 'c', 'd'], impacts: [9, 1, 1, 1] });
    expect(integerImpacts(encoding.terms, weights, { scale: 10, tfAlpha: 1 }, counts)).toEqual({ terms: ['a', 'b', 'c', 'd'], impacts: [27, 10, 10, 10] });
    expect(() => integerImpacts(encoding.terms, weights, { scale: 1, tfAlpha: 10 })).toThrow(/needs the document's term counts/);
  });
});

describe('the document model', () => {
  it('ONNX token weights equal PyTorch (parity fixture)', async () => {
    const fixture = JSON.parse(readFileSync(join(FIXTURE, 'parity.json'), 'utf8')) as { ids: number[][]; weights: number[][] };
    const out = await model.tokenWeights(fixture.ids.map((ids) => ({ ids })));
    fixture.weights.forEach((expected, i) => {
      expect(out[i]!.length).toBe(expected.length);
      expected.forEach((v, t) => expect(Math.abs(out[i]![t]! - v)).toBeLessThan(1e-4));
    });
    // Batching (padding to the longest window) does not change a window's weights.
    const alone = await model.tokenWeights([{ ids: fixture.ids[2]! }]);
    alone[0]!.forEach((v, t) => expect(Math.abs(v - out[2]![t]!)).toBeLessThan(1e-5));
  });

  it('a missing or broken model is a typed error that says what to do', async () => {
    const missing = await loadDeepctIndexModel(join(work, 'nowhere'));
    expect(missing.ok).toBe(false);
    if (!missing.ok) {
      expect(missing.error.kind).toBe('missing-model');
      expect(missing.error.message).toMatch(/deepct-index\.json is missing.*model\.twbert\.deepct_index/);
    }
    const bad = join(work, 'bad');
    mkdirSync(bad);
    writeFileSync(join(bad, 'deepct-index.json'), configWith({ bm25: { k1: 1, b: 3 } }));
    const invalid = await loadDeepctIndexModel(bad);
    expect(invalid.ok).toBe(false);
    if (!invalid.ok) expect(invalid.error.message).toMatch(/bm25 must give k1 ≥ 0 and b in \[0, 1\]/);
    writeFileSync(join(bad, 'deepct-index.json'), configWith({ tfAlpha: -1 }));
    const negative = await loadDeepctIndexModel(bad);
    expect(negative.ok).toBe(false);
    if (!negative.ok) expect(negative.error.message).toMatch(/tfAlpha, when given, must be a number ≥ 0, got -1/);
  });
});

describe('DeepCT-Index build', () => {
  const docs = syntheticCorpus(60, 3);
  let reader: IndexReader;

  beforeAll(async () => {
    const corpus = join(work, 'corpus.jsonl');
    writeFileSync(corpus, docs.map((d) => JSON.stringify({ _id: d.docno, title: d.fields.title, text: d.fields.text })).join('\n') + '\n');
    const summary = await buildDeepctIndex(model, [corpus], join(work, 'idx'), { memoryBudgetBytes: 20_000 });
    expect(summary.docs).toBe(docs.length);
    expect(summary.bm25).toEqual({ k1: 1.2, b: 0.75 });
    reader = openIndex(join(work, 'idx'));
  });

  it("holds exactly the model's tf′ for every document, lengths = Σ tf′, and records that BM25 may read them", async () => {
    expect(reader.content).toMatchObject({ postings: 'impacts', positions: false, preTokenised: false, tfImpacts: { k1: 1.2, b: 0.75 } });
    let dropped = 0;
    for (let d = 0; d < docs.length; d++) {
      const text = documentText(docs[d]!.fields);
      const expected = await model.impacts(text);
      dropped += new Set(analyzer.analyze(text).map((t) => t.term)).size - expected.terms.length;
      const vec = reader.docVector(d);
      expect(reader.docno(d)).toBe(docs[d]!.docno);
      expect(Object.fromEntries(vec.terms.map((t, i) => [t, vec.tfs[i]]))).toEqual(Object.fromEntries(expected.terms.map((t, i) => [t, expected.impacts[i]])));
      expect(reader.docLength(d)).toBe(expected.impacts.reduce((a, b) => a + b, 0));
    }
    // The fixture's random head puts some terms at or below 0: they are dropped, not given a default weight.
    expect(dropped).toBeGreaterThan(0);
  });

  it('in a form that keeps the counts, every analysed term is indexed at round(scale · tf · (1 + tfAlpha · max(w, 0)))', async () => {
    const loaded = await loadDeepctIndexModel(fixtureModelWith(join(work, 'model-tf'), { scale: 1, tfAlpha: 10 }), { device: 'cpu', threads: 1 });
    if (!loaded.ok) throw loaded.error;
    expect(describeImpactForm(loaded.model.config)).toBe("tf' = round(tf (1 + 10 max(w, 0))), counts kept");
    try {
      const few = docs.slice(0, 12);
      const corpus = join(work, 'corpus-tf.jsonl');
      writeFileSync(corpus, few.map((d) => JSON.stringify({ _id: d.docno, title: d.fields.title, text: d.fields.text })).join('\n') + '\n');
      const summary = await buildDeepctIndex(loaded.model, [corpus], join(work, 'idx-tf'));
      expect(summary.termsDropped).toBe(0);
      const tfReader = openIndex(join(work, 'idx-tf'));
      for (let d = 0; d < few.length; d++) {
        const text = documentText(few[d]!.fields);
        const encoding = await loaded.model.encode(text);
        const w = termWeights(encoding, await loaded.model.tokenWeights(encoding.windows));
        const tf = new Map<string, number>();
        for (const t of analyzer.analyze(text)) tf.set(t.term, (tf.get(t.term) ?? 0) + 1);
        const expected = Object.fromEntries(encoding.terms.map((t, i) => [t, Math.round(tf.get(t)! * (1 + 10 * Math.max(w[i]!, 0)))]));
        const vec = tfReader.docVector(d);
        expect(Object.fromEntries(vec.terms.map((t, i) => [t, vec.tfs[i]]))).toEqual(expected);
        expect(vec.terms.length).toBe(tf.size);
      }
    } finally {
      await loaded.model.dispose();
    }
  });

  it('ranks with bm25 (queries analysed like the documents), refuses ql, and still ranks with impact', () => {
    const ast = parseText('heat transfers boundary').ast;
    const hits = search(reader, ast, { scorer: 'bm25', k1: 1.2, b: 0.75, k: 10 }).hits;
    expect(hits.length).toBeGreaterThan(0);
    expect(() => search(reader, ast, { scorer: 'ql', k: 10 })).toThrow(/DeepCT-Index term frequencies.*--scorer bm25 \(by default with its own parameters, k1 1\.2 and b 0\.75\)/);
    expect(search(reader, ast, { scorer: 'impact', k: 10 }).hits.length).toBeGreaterThan(0);
  });
});

describe('BM25 over tf′ impacts (differential)', () => {
  it('equals BM25 over a text index of the same counts, document by document and to the bit', async () => {
    // Words whose terrier terms are distinct; each document holds some of them with counts 1..40.
    const words = VOCABULARY.filter((w, i, all) => analyzer.analyzeWord(w) !== null && all.findIndex((x) => analyzer.analyzeWord(x) === analyzer.analyzeWord(w)) === i).slice(0, 30);
    const rand = prng(11);
    const counts = Array.from({ length: 120 }, () => {
      const row = new Map<string, number>();
      const n = 1 + Math.floor(rand() * 8);
      for (let j = 0; j < n; j++) row.set(words[Math.floor(words.length * rand() * rand())]!, 1 + Math.floor(rand() * 40));
      return row;
    });
    const textFile = join(work, 'diff-text.jsonl');
    const vectorFile = join(work, 'diff-vectors.jsonl');
    writeFileSync(textFile, counts.map((row, i) => JSON.stringify({ _id: `D${i}`, text: [...row].flatMap(([w, n]) => Array(n).fill(w)).join(' ') })).join('\n') + '\n');
    writeFileSync(vectorFile, counts.map((row, i) => JSON.stringify({ id: `D${i}`, contents: '', vector: Object.fromEntries([...row].map(([w, n]) => [analyzer.analyzeWord(w)!, n])) })).join('\n') + '\n');
    await buildIndex([textFile], join(work, 'diff-text'), { profile: 'terrier' });
    await buildIndex([vectorFile], join(work, 'diff-impact'), {
      prepared: {
        batches: () => analysedBatches([vectorFile], { profile: 'terrier', input: 'jsonvector' }, false),
        content: { postings: 'impacts', positions: false, preTokenised: false, storedText: true, source: 'jsonvector', docVectors: 'stored', tfImpacts: { k1: 6, b: 0.9 } },
        profile: 'terrier',
      },
    });
    const text = openIndex(join(work, 'diff-text'));
    const impact = openIndex(join(work, 'diff-impact'));
    expect(impact.stats()).toEqual(text.stats());
    for (let q = 0; q < 25; q++) {
      const query = Array.from({ length: 1 + Math.floor(rand() * 4) }, () => words[Math.floor(words.length * rand())]).join(' ');
      for (const [k1, b] of [[1.2, 0.75], [6, 0.9], [18, 0.3]] as const) {
        for (const exhaustive of [false, true]) {
          const options = { scorer: 'bm25' as const, k1, b, k: 50, exhaustive };
          const a = search(impact, parseText(query).ast, options).hits;
          const e = search(text, parseText(query).ast, options).hits;
          expect(a.map((h) => [h.docno, h.score])).toEqual(e.map((h) => [h.docno, h.score]));
        }
      }
      // Without k1 and b, bm25 ranks the index with its own (6, 0.9), not Terrier's defaults (1.2, 0.75).
      const own = search(impact, parseText(query).ast, { scorer: 'bm25', k: 50 }).hits;
      expect(own.map((h) => [h.docno, h.score])).toEqual(search(text, parseText(query).ast, { scorer: 'bm25', k1: 6, b: 0.9, k: 50 }).hits.map((h) => [h.docno, h.score]));
    }
    expect(new LocalIndexBackend(impact).scorers()).toEqual(['bm25', 'impact']);
  });
});

describe('querylens index --deepct', () => {
  const cli = (args: string[]) => runProcess(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'server/cli/main.ts'), ...args], { cwd: REPO_ROOT, timeoutMs: 120_000 });

  it('builds the index a bm25 search ranks; a missing model is one explained line', async () => {
    const corpus = join(work, 'cli-corpus.jsonl');
    writeFileSync(corpus, syntheticCorpus(20, 5).map((d) => JSON.stringify({ _id: d.docno, title: d.fields.title, text: d.fields.text })).join('\n') + '\n');
    const [ok, missing] = await Promise.all([
      cli(['index', corpus, '-o', join(work, 'cli-idx'), '--deepct', '--model-dir', modelDir, '--device', 'cpu']),
      cli(['index', corpus, '-o', join(work, 'cli-none'), '--deepct', '--model-dir', join(work, 'nowhere')]),
    ]);
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/indexed 20 docs with DeepCT-Index \(cpu\).*tf' = round\(100 w\), terms at 0 dropped \(\d+ of \d+ document terms dropped\).*search it with --scorer bm25 \(its k1 1\.2 and b 0\.75 are this index's defaults\)/);
    expect(missing.status).toBe(2);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect(missing.stderr).toMatch(/No DeepCT-Index document model/);
    const queries = join(work, 'cli-q.tsv');
    writeFileSync(queries, `1\t${syntheticCorpus(20, 5)[0]!.fields.title}\n`);
    const ranked = await cli(['search', queries, '--index', join(work, 'cli-idx'), '--scorer', 'bm25', '-k', '5']);
    expect(ranked.status, ranked.stderr).toBe(0);
    expect(ranked.stdout.trim().split('\n').length).toBeGreaterThan(0);
    expect(ranked.stdout).toMatch(/^1 Q0 D\d+ 1 /);
  });
});

describe('eval-model --deepct-index', () => {
  it("ranks a left-out collection with its fold model's index at the fold's k1/b, against uniform BM25 and the phrase rule", async () => {
    const { cachedIndex, collectionSpecs, EVAL_MEASURES, modelUses } = await import('../../server/cli/commands/eval-model.js');
    const { evaluateDeepctIndex, loadDeepctIndexFolds } = await import('../../server/cli/commands/eval-deepct-index.js');
    const specs = collectionSpecs(DATA_DIR);
    const folds = join(work, 'folds');
    for (const [name, trainedOn] of [['adi', ['cacm']], ['time', ['time']]] as const) {
      fixtureModelWith(join(folds, name), { bm25: { k1: 6, b: 0.9 }, provenance: { trainedOn, selectedOn: trainedOn } });
    }
    await expect(loadDeepctIndexFolds(folds, [specs.time!], 'cpu')).rejects.toThrow(/was trained or selected on TIME itself/);
    const loaded = await loadDeepctIndexFolds(folds, [specs.adi!], 'cpu');
    try {
      const cacheDir = join(work, 'cache');
      const [row] = await evaluateDeepctIndex({
        specs,
        openIndex: (spec) => cachedIndex(specs[spec.name]!, cacheDir, () => undefined),
        usesOf: (spec, provenance) => modelUses(specs[spec.name]!, provenance),
        measures: EVAL_MEASURES,
        cacheDir,
        collections: ['adi'],
        limit: 10,
        test: 't',
        shipped: model,
        folds: loaded,
        log: () => undefined,
      });
      expect(row!.fold).toBe(true);
      expect(row!.uses).toEqual([]);
      expect(row!.systems.map((s) => s.label)).toEqual(['Uniform BM25', 'Phrase rule', 'DeepCT-Index']);
      expect(row!.bm25).toEqual({ k1: 6, b: 0.9 });
      expect(row!.form).toBe("tf' = round(100 w), terms at 0 dropped");
      const deepct = row!.systems[2]!;
      expect(deepct.vsBm25!.map!.wins + deepct.vsBm25!.map!.losses + deepct.vsBm25!.map!.ties).toBe(row!.queries);
      expect(row!.systems[0]!.means.map).toBeGreaterThan(0);
    } finally {
      await Promise.all(Object.values(loaded).map((m) => m.dispose()));
    }
  });
});

const torchMissing = torchUnavailableReason();
if (torchMissing) console.log(`skipping the DeepCT-Index training smoke test: ${torchMissing}`);

describe.skipIf(torchMissing !== null)('DeepCT-Index training smoke test', () => {
  it('exports the engine data, trains a step, ranks the grid, and the exported ONNX equals PyTorch in the runtime', async () => {
    const { exportDeepctCorpus, deepctQuerySet } = await import('../../server/model/deepct-index-export.js');
    const home = join(work, 'home');
    mkdirSync(join(home, 'data'), { recursive: true });
    const docs = syntheticCorpus(40, 9);
    const corpus = join(work, 'smoke-corpus.jsonl');
    writeFileSync(corpus, docs.map((d) => JSON.stringify({ _id: d.docno, title: d.fields.title, text: d.fields.text })).join('\n') + '\n');
    const tokenizer = loadTokenizer(TOKENIZER_FILE);
    expect(await exportDeepctCorpus(corpus, join(home, 'data', 'corpus-syn.jsonl'), tokenizer, 128)).toBe(40);
    const docTerms = new Map(
      readFileSync(join(home, 'data', 'corpus-syn.jsonl'), 'utf8').trim().split('\n').map((l) => {
        const r = JSON.parse(l) as { docno: string; terms: string[] };
        return [r.docno, r.terms] as const;
      }),
    );
    const queries = [0, 1, 2, 3].map((i) => ({ qid: `q${i}`, text: docs[i * 3]!.fields.title }));
    const qrels = new Map(queries.map((q, i) => [q.qid, new Map([[`D${i * 3}`, 1], [`D${i * 3 + 1}`, 2]])]));
    const set = deepctQuerySet(queries, qrels, docTerms);
    // QTR: D0's title words come from q0, its only relevant query.
    const d0 = analyzer.analyze(docs[0]!.fields.title).map((t) => t.term);
    for (const t of d0) expect(set.qtr!.D0![t]).toBe(1);
    writeFileSync(join(home, 'qrels.txt'), [...qrels].flatMap(([q, m]) => [...m].map(([d, g]) => `${q} 0 ${d} ${g}`)).join('\n') + '\n');
    writeFileSync(join(home, 'data', 'syn.json'), JSON.stringify({ collection: 'syn', corpus: 'syn', role: 'training', qrels: join(home, 'qrels.txt'), ...set }));
    const out = join(work, 'smoke-model');
    const printed = await runChecked(PYTHON, ['-W', 'ignore', '-m', 'model.twbert.deepct_index', 'smoke', '--init', 'tiny', '--collections', 'syn', '--out-dir', out, '--max-windows', '8'], {
      cwd: REPO_ROOT,
      env: { ...process.env, DEEPCT_INDEX_HOME: home, OPENBLAS_NUM_THREADS: '1', TWBERT_THREADS: '1' },
    });
    const result = JSON.parse(printed.trim().split("\n").pop()!) as {
      uniform: number;
      grid: Record<string, number>;
      gridHead: Record<string, number>;
      forms: Record<string, { form: { scale: number; tfAlpha?: number }; weights: number[]; counts: number[]; impacts: number[] }>;
    };
    // Training's tf′ equals the runtime's in every form the rotation may choose (the paper's and the count-keeping ones).
    expect(Object.keys(result.forms)).toContain('impact');
    expect(Object.values(result.forms).some((f) => f.form.tfAlpha !== undefined)).toBe(true);
    for (const [name, f] of Object.entries(result.forms)) {
      const terms = f.weights.map((_w, i) => `t${i}`);
      const runtime = integerImpacts(terms, f.weights, f.form, f.counts);
      expect(runtime, name).toEqual({ terms: terms.filter((_t, i) => f.impacts[i]! > 0), impacts: f.impacts.filter((v) => v > 0) });
    }
    expect(result.uniform).toBeGreaterThan(0);
    expect(Object.keys(result.grid)).toHaveLength(20);
    // The head-only grid: 20 k1/b settings in every tf′ form, the paper's keyed "k1,b", the others "form|k1,b".
    expect(Object.keys(result.gridHead)).toHaveLength(20 * Object.keys(result.forms).length);
    expect(Object.keys(result.gridHead)).toContain('1.2,0.75');
    expect(Object.keys(result.gridHead)).toContain('tf-a10|1.2,0.75');
    copyFileSync(TOKENIZER_FILE, join(out, 'tokenizer.json'));
    const loaded = await loadDeepctIndexModel(out, { device: 'cpu', threads: 1 });
    if (!loaded.ok) throw loaded.error;
    try {
      const fixture = JSON.parse(readFileSync(join(out, 'parity.json'), 'utf8')) as { ids: number[][]; weights: number[][] };
      const got = await loaded.model.tokenWeights(fixture.ids.map((ids) => ({ ids })));
      fixture.weights.forEach((w, i) => w.forEach((v, t) => expect(Math.abs(got[i]![t]! - v)).toBeLessThan(1e-4)));
    } finally {
      await loaded.model.dispose();
    }
  }, 240_000);
});
