/**
 * A few steps of every training stage on a tiny synthetic slice, end to end: pre-training →
 * engine export (also with Bo1 expansion) → fine-tuning through BM25 (all four phases) → DeepCT → ONNX export → the
 * Node runtime weighs a query.
 * Checks the plumbing, not the quality. Skipped (with the reason printed) when torch cannot be imported.
 */
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAnalyzer } from '../../server/engine/analysis/index.js';
import { buildMemoryIndex } from '../../server/engine/index/memory.js';
import { ConceptEvaluator } from '../../server/engine/scoring/concepts.js';
import { queryStatistics } from '../../server/model/collection-statistics.js';
import { loadWeightModel } from '../../server/model/runtime.js';
import { STATISTIC_NAMES } from '../../server/model/statistic-names.js';
import { segmentQuery } from '../../server/model/segment.js';
import { encodeQuery, loadTokenizer } from '../../server/model/tokenize.js';
import { exportTrainingRecord, uniformWeights } from '../../server/model/training-export.js';
import { buildWeightedQueryAst } from '../../server/model/weighted-query.js';
import { LocalIndexBackend } from '../../server/service/backend.js';
import { bo1ModelInput, statisticsExpansionOf } from '../../server/service/ranking.js';
import { parseText } from '../../grammar/index.js';
import type { NgramStatistics } from '../../server/model/statistic-names.js';
import { runChecked } from '../support/process.js';
import { PYTHON, REPO_ROOT, TOKENIZER_FILE, prng, randomQuery, syntheticCorpus, torchUnavailableReason } from './helpers.js';

const skipReason = torchUnavailableReason();
if (skipReason) console.log(`skipping the training smoke test: ${skipReason}`);

const work = mkdtempSync(join(tmpdir(), 'ql-train-smoke-'));
afterAll(() => {
  // QUERYLENS_KEEP_SMOKE_DIR keeps a copy of the slice and its checkpoints: model/twbert/device_parity.py re-runs the
  // training stages on it on the CPU and on a GPU.
  const keep = process.env.QUERYLENS_KEEP_SMOKE_DIR;
  if (keep) cpSync(work, keep, { recursive: true });
  rmSync(work, { recursive: true, force: true });
});

// Asynchronous: a synchronous child would block this worker's RPC with vitest (see test/support/process.ts).
function python(args: string[]): Promise<string> {
  return runChecked(PYTHON, args, { cwd: REPO_ROOT, env: { ...process.env, OPENBLAS_NUM_THREADS: '1', TWBERT_THREADS: '1' } });
}

describe.skipIf(skipReason !== null)('training pipeline smoke test', () => {
  it('runs every stage for a few steps and the exported ONNX model weighs queries', async () => {
    const tokenizer = loadTokenizer(TOKENIZER_FILE);
    const analyzer = createAnalyzer('terrier');
    const docs = syntheticCorpus(150, 9);

    // Pre-training sequences, built as model/prepare-pretrain.ts builds them.
    const lines: string[] = [];
    for (const d of docs.slice(0, 40)) {
      const text = `${d.fields.title} ${d.fields.text}`;
      const enc = await encodeQuery(tokenizer, segmentQuery(text, analyzer), 32);
      lines.push(JSON.stringify({ src: 'smoke', ids: enc.ids, ngrams: enc.ngramTokens.filter((t) => t.length > 0) }));
    }
    writeFileSync(join(work, 'pretrain.jsonl'), lines.join('\n') + '\n');
    await python(['-m', 'model.twbert.pretrain', '--data', join(work, 'pretrain.jsonl'), '--out', join(work, 'pre.pt'), '--max-steps', '3', '--batch', '8', '--hidden', '32', '--layers', '1', '--log', join(work, 'pre.log')]);
    expect(readFileSync(join(work, 'pre.log'), 'utf8')).toMatch(/pretrain done: 3 steps/);

    // Engine export: a judged document per query (synthetic labels: the 3rd uniform hit).
    const reader = buildMemoryIndex(docs, { profile: 'terrier' });
    const evaluator = new ConceptEvaluator(reader);
    const rand = prng(5);
    const dataDir = join(work, 'data');
    mkdirSync(dataDir);
    for (const name of ['scifact-train', 'cacm', 'pseudo-scifact', 'pseudo-cacm', 'dev-cranfield', 'dev-scifact-test']) {
      const records: string[] = [];
      while (records.length < 6) {
        const text = randomQuery(rand);
        const probe = await exportTrainingRecord(reader, tokenizer, evaluator, 'x', text, undefined, { k: 30 });
        const third = probe.docs.find((d) => d.rank === 3);
        if (!third || probe.ngrams.length === 0) continue;
        const record = await exportTrainingRecord(reader, tokenizer, evaluator, `q${records.length}`, text, new Map([[third.docno, 1]]), { k: 30, source: name });
        records.push(JSON.stringify(record));
      }
      writeFileSync(join(dataDir, `${name}.jsonl`), records.join('\n') + '\n');
      // What TW-BERT + Bo1 reads (phase 4): the query, then Bo1's words; candidates of the expanded query.
      const expanded: string[] = [];
      for (const line of records) {
        const r = JSON.parse(line) as { qid: string; query: string; docs: { docno: string; rel: number | null }[] };
        const ast = buildWeightedQueryAst(uniformWeights(r.query, reader, false), { digits: 0 });
        const input = bo1ModelInput(new LocalIndexBackend(reader, 'test'), ast, r.query, { method: 'bo1' }, { scorer: 'bm25' });
        const judged = new Map(r.docs.filter((d) => d.rel !== null).map((d) => [d.docno, d.rel!]));
        const record = await exportTrainingRecord(reader, tokenizer, evaluator, r.qid, input.text, judged, {
          k: 30,
          source: `${name}-bo1`,
          expansion: { queryEnd: input.queryEnd, candidates: input.expansion.ast },
        });
        expanded.push(JSON.stringify(record));
      }
      writeFileSync(join(dataDir, `${name}-bo1.jsonl`), expanded.join('\n') + '\n');
    }
    await python(['-m', 'model.twbert.finetune', '--init', join(work, 'pre.pt'), '--out', join(work, 'twbert-phrase.pt'), '--data-dir', dataDir, '--epochs', '1', '--batch', '4', '--eval-every', '2', '--log', join(work, 'ft.log')]);
    expect(readFileSync(join(work, 'ft.log'), 'utf8')).toMatch(/finetune done: \d+ steps/);
    // Phase 2 of the shipped recipe: the genericity table (two synthetic "domains"), then its scale alone learns and
    // the last state is kept.
    const domains = [0, 1].map((k) => {
      const path = join(work, `domain${k}.jsonl`);
      writeFileSync(path, docs.filter((_, i) => i % 2 === k).map((d) => JSON.stringify({ _id: d.docno, title: d.fields.title, text: d.fields.text })).join('\n') + '\n');
      return path;
    });
    await python(['-m', 'model.twbert.genericity', '--domains', domains.join(','), '--out', join(work, 'genericity.npy')]);
    const lexical = ['--data-dir', dataDir, '--batch', '4', '--eval-every', '2', '--bias-lr', '0', '--head-weight-lr', '0', '--lexical', '--lexical-min-queries', '1', '--lexical-whole-words', '--deviation-bound', '0.25', '--cache-features', '--prior', join(work, 'genericity.npy'), '--repeat', 'cacm=4'];
    await python(['-m', 'model.twbert.finetune', '--init', join(work, 'twbert-phrase.pt'), '--out', join(work, 'twbert-prior.pt'), ...lexical, '--epochs', '2', '--lexical-lr', '0', '--prior-lr', '3e-3', '--select', 'last', '--log', join(work, 'prior.log')]);
    const priorLog = readFileSync(join(work, 'prior.log'), 'utf8');
    expect(priorLog).toMatch(/genericity prior: .* standardised with mean -?\d/);
    expect(priorLog).toMatch(/lexical offsets kept: 0 wordpieces moved/);
    // Phase 3: the prior kept as learned, per-word lexical offsets learn (cached features).
    await python(['-m', 'model.twbert.finetune', '--init', join(work, 'twbert-prior.pt'), '--out', join(work, 'twbert-offsets.pt'), ...lexical, '--epochs', '1', '--prior-lr', '0', '--log', join(work, 'lex.log')]);
    const lexLog = readFileSync(join(work, 'lex.log'), 'utf8');
    expect(lexLog).toMatch(/genericity prior: kept from .*twbert-prior\.pt \(scale [-+]\d/);
    expect(lexLog).toMatch(/lexical offsets: [1-9]\d* wordpieces may move/);
    expect(lexLog).toMatch(/finetune done: \d+ steps/);
    // Only the allowed wordpieces (whole words of the training queries) may carry an offset.
    expect(lexLog).toMatch(/lexical offsets kept: \d+ wordpieces moved, 0 outside the allowed set/);
    // Phase 4: the factor of the expansion words' weights, on the Bo1-expanded sets; the model itself is kept.
    await python(['-m', 'model.twbert.finetune', '--init', join(work, 'twbert-offsets.pt'), '--out', join(work, 'twbert.pt'), '--data-dir', dataDir, '--expansion', '--expansion-lr', '5e-2', '--head-weight-lr', '0', '--bias-lr', '0', '--cache-features', '--train-files', 'scifact-train-bo1,cacm-bo1', '--dev-files', 'dev-cranfield-bo1,dev-scifact-test-bo1', '--epochs', '2', '--batch', '4', '--eval-every', '2', '--select', 'last', '--log', join(work, 'exp.log')]);
    const expLog = readFileSync(join(work, 'exp.log'), 'utf8');
    expect(expLog).toMatch(/finetune done: \d+ steps/);
    const kept = Number(/expansion scale kept: (\d+\.\d+)/.exec(expLog)![1]);
    expect(kept).toBeGreaterThan(0);
    expect(kept).not.toBe(1);
    await python(['-m', 'model.twbert.deepct', '--init', join(work, 'pre.pt'), '--out', join(work, 'deepct.pt'), '--data-dir', dataDir, '--epochs', '1', '--batch', '4', '--eval-every', '2', '--log', join(work, 'dct.log')]);
    expect(readFileSync(join(work, 'dct.log'), 'utf8')).toMatch(/deepct done/);

    const art = join(work, 'artifacts');
    for (const m of ['twbert', 'deepct']) {
      await python(['-m', 'model.twbert.export', '--model', m, '--checkpoint', join(work, `${m}.pt`), '--out-dir', art, '--no-parity', '--not-final']);
    }
    copyFileSync(TOKENIZER_FILE, join(art, 'tokenizer.json'));
    expect(existsSync(join(art, 'twbert.onnx')) && existsSync(join(art, 'deepct.onnx'))).toBe(true);
    // The learned factor goes to config.json (the runtime applies it), not into the graph: the ONNX file of phase 4
    // is byte for byte that of phase 3.
    const exported = JSON.parse(readFileSync(join(art, 'config.json'), 'utf8')) as { models: { twbert: { expansionScale?: number }; deepct: { expansionScale?: number } } };
    expect(exported.models.twbert.expansionScale).toBeCloseTo(kept, 4);
    expect(exported.models.deepct.expansionScale).toBeUndefined();
    // Export records which collections the recipe trained and selected on (eval-model prints it with its table).
    const provenance = (JSON.parse(readFileSync(join(art, 'config.json'), 'utf8')) as { models: Record<string, { provenance?: { trainedOn: string[]; selectedOn: string[] } }> }).models;
    for (const m of ['twbert', 'deepct']) {
      expect(provenance[m].provenance?.trainedOn, m).toEqual(['scifact-train', 'cacm']);
      expect(provenance[m].provenance?.selectedOn, m).toEqual(['cranfield', 'scifact-test']);
    }
    const art3 = join(work, 'artifacts-phase3');
    await python(['-m', 'model.twbert.export', '--model', 'twbert', '--checkpoint', join(work, 'twbert-offsets.pt'), '--out-dir', art3, '--no-parity', '--not-final']);
    expect(readFileSync(join(art3, 'twbert.onnx')).equals(readFileSync(join(art, 'twbert.onnx')))).toBe(true);

    for (const m of ['twbert', 'deepct'] as const) {
      const loaded = await loadWeightModel(art, { model: m, device: 'cpu' });
      if (!loaded.ok) throw loaded.error;
      expect(loaded.model.notices.join(' ')).toMatch(/not the final trained model/);
      const query = 'laminar flow in the boundary layer';
      const [w] = await loaded.model.weigh([query]);
      expect(w.ngrams.length).toBe(segmentQuery(query, analyzer, { bigrams: m === 'twbert' }).ngrams.length);
      expect(w.ngrams.length).toBe(m === 'twbert' ? 7 : 4);
      expect(w.ngrams.every((g) => Number.isFinite(g.weight) && g.weight >= 0)).toBe(true);
      await loaded.model.dispose();
    }
  }, 600_000);

  it('trains the collection-aware model by the leave-one-collection-out rotation, and its ONNX export reads statistics', async () => {
    // Reuses the pre-trained encoder of the test above (pre.pt).
    expect(existsSync(join(work, 'pre.pt'))).toBe(true);
    const tokenizer = loadTokenizer(TOKENIZER_FILE);
    const docs = syntheticCorpus(150, 9);
    const reader = buildMemoryIndex(docs, { profile: 'terrier' });
    const evaluator = new ConceptEvaluator(reader);
    const rand = prng(11);
    const dataDir = join(work, 'loco-data');
    mkdirSync(dataDir);
    const collections = ['cacm', 'scifact-train', 'cranfield', 'adi', 'lisa', 'time', 'nfcorpus-dev', 'scifact-test', 'nfcorpus-test'];
    for (const name of collections) {
      const records: string[] = [];
      while (records.length < 5) {
        const text = randomQuery(rand);
        const probe = await exportTrainingRecord(reader, tokenizer, evaluator, 'x', text, undefined, { k: 30 });
        const relevant = probe.docs.filter((d) => d.rank === 2 || d.rank === 5);
        if (relevant.length < 2 || probe.ngrams.length === 0) continue;
        const judged = new Map(relevant.map((d) => [d.docno, 1]));
        const record = await exportTrainingRecord(reader, tokenizer, evaluator, `q${records.length}`, text, judged, { k: 30, source: name, statistics: true });
        expect(record.ngrams.every((g) => g.stats !== undefined)).toBe(true);
        records.push(JSON.stringify(record));
      }
      writeFileSync(join(dataDir, `${name}.jsonl`), records.join('\n') + '\n');
    }
    const runs = join(work, 'loco-runs');
    const folds = join(work, 'loco-folds');
    const log = join(work, 'loco.log');
    await python(['-m', 'model.twbert.loco', 'ship', '--encoder', join(work, 'pre.pt'), '--data-dir', dataDir, '--runs-dir', runs, '--folds-dir', folds, '--epochs', '2', '--epoch-queries', '32', '--grid-limit', '2', '--out', join(work, 'twbert-stats.pt'), '--log', log]);
    const text = readFileSync(log, 'utf8');
    // Seven left-out collections, each reported with a configuration chosen on the other six.
    for (const name of collections.slice(0, 7)) expect(text).toMatch(new RegExp(`left out ${name}: chose .* -> its gain [-+]\\d`));
    expect(text).toMatch(/shipped configuration: /);
    const selection = JSON.parse(readFileSync(join(runs, 'selection.json'), 'utf8')) as { outer: Record<string, { epochs: number }> };
    expect(Object.keys(selection.outer).sort()).toEqual(collections.slice(0, 7).sort());

    const art = join(work, 'artifacts-stats');
    await python(['-m', 'model.twbert.export', '--model', 'twbert', '--checkpoint', join(work, 'twbert-stats.pt'), '--out-dir', art, '--no-parity', '--not-final']);
    copyFileSync(TOKENIZER_FILE, join(art, 'tokenizer.json'));
    const config = JSON.parse(readFileSync(join(art, 'config.json'), 'utf8')) as { models: { twbert: { statistics?: { names: string[] }; provenance?: { trainedOn: string[] } } } };
    // The collection-aware model reads the five statistics of an n-gram in the collection (not the expansion ones).
    expect(config.models.twbert.statistics?.names).toEqual(STATISTIC_NAMES.slice(0, 5));
    expect(config.models.twbert.provenance?.trainedOn).toEqual(collections.slice(0, 7).sort());
    // A fold model says it never saw its own collection (eval-model --loco checks this).
    const foldArt = join(work, 'fold-lisa');
    await python(['-m', 'model.twbert.export', '--model', 'twbert', '--checkpoint', join(folds, 'lisa.pt'), '--out-dir', foldArt, '--no-parity', '--not-final']);
    const foldConfig = JSON.parse(readFileSync(join(foldArt, 'config.json'), 'utf8')) as { models: { twbert: { provenance: { trainedOn: string[]; selectedOn: string[] } } } };
    expect(foldConfig.models.twbert.provenance.trainedOn).not.toContain('lisa');
    expect(foldConfig.models.twbert.provenance.selectedOn).not.toContain('lisa');

    const loaded = await loadWeightModel(art, { model: 'twbert', device: 'cpu' });
    if (!loaded.ok) throw loaded.error;
    try {
      expect(loaded.model.readsStatistics).toBe(true);
      const query = 'laminar flow in the boundary layer';
      const stats = queryStatistics(reader, query).ngrams.map((g) => g.stats);
      const [w] = await loaded.model.weigh([query], [stats]);
      expect(w.ngrams).toHaveLength(stats.length);
      expect(w.ngrams.every((g) => Number.isFinite(g.weight) && g.weight > 0)).toBe(true);
      // Other statistics, other weights: the model reads them.
      const [w2] = await loaded.model.weigh([query], [stats.map((s, i) => ({ ...s, idf: s.idf * (1 + i), topShare: 1 - s.topShare }))]);
      expect(w2.ngrams.some((g, i) => Math.abs(g.weight - w.ngrams[i].weight) > 1e-6)).toBe(true);
      // Without the statistics: a typed, explained refusal, not a guess.
      await expect(loaded.model.weigh([query])).rejects.toMatchObject({ kind: 'needs-statistics' });
    } finally {
      await loaded.model.dispose();
    }
  }, 600_000);
  it('trains TW-BERT + Bo1 with adaptive expansion by the rotation; its ONNX export reads every statistic and equals PyTorch', async () => {
    // Reuses the pre-trained encoder of the first test (pre.pt).
    expect(existsSync(join(work, 'pre.pt'))).toBe(true);
    const tokenizer = loadTokenizer(TOKENIZER_FILE);
    const docs = syntheticCorpus(150, 9);
    const reader = buildMemoryIndex(docs, { profile: 'terrier' });
    const backend = new LocalIndexBackend(reader, 'memory');
    const evaluator = new ConceptEvaluator(reader);
    const rand = prng(17);
    const dataDir = join(work, 'adaptive-data');
    mkdirSync(dataDir);
    const collections = ['cacm', 'scifact-train', 'cranfield', 'adi', 'lisa', 'time', 'nfcorpus-dev', 'scifact-test', 'nfcorpus-test'];
    for (const name of collections) {
      const plain: string[] = [];
      const expanded: string[] = [];
      while (plain.length < 5) {
        const text = randomQuery(rand);
        const probe = await exportTrainingRecord(reader, tokenizer, evaluator, 'x', text, undefined, { k: 30 });
        const relevant = probe.docs.filter((d) => d.rank === 2 || d.rank === 5);
        if (relevant.length < 2 || probe.ngrams.length === 0) continue;
        const judged = new Map(relevant.map((d) => [d.docno, 1]));
        const qid = `q${plain.length}`;
        plain.push(JSON.stringify(await exportTrainingRecord(reader, tokenizer, evaluator, qid, text, judged, { k: 30, source: name, statistics: true })));
        // As `export-training --expand bo1 --stats` writes it.
        const input = bo1ModelInput(backend, parseText(text).ast, text, { method: 'bo1' }, { scorer: 'bm25' });
        const expansion = { queryEnd: input.queryEnd, candidates: input.expansion.ast, statistics: statisticsExpansionOf(input) };
        expanded.push(JSON.stringify(await exportTrainingRecord(reader, tokenizer, evaluator, qid, input.text, judged, { k: 30, source: name, statistics: true, expansion })));
      }
      writeFileSync(join(dataDir, `${name}.jsonl`), plain.join('\n') + '\n');
      writeFileSync(join(dataDir, `${name}-bo1.jsonl`), expanded.join('\n') + '\n');
    }
    const runs = join(work, 'adaptive-runs');
    const folds = join(work, 'adaptive-folds');
    const log = join(work, 'adaptive.log');
    const out = join(work, 'twbert-adaptive.pt');
    await python(['-m', 'model.twbert.adaptive', 'ship', '--encoder', join(work, 'pre.pt'), '--data-dir', dataDir, '--runs-dir', runs, '--folds-dir', folds, '--epochs', '2', '--epoch-queries', '32', '--grid-pick', '8', '--out', out, '--log', log]);
    const text = readFileSync(log, 'utf8');
    // Seven left-out collections, each with a configuration (epochs 0 = untrained … 2) chosen on the other six.
    for (const name of collections.slice(0, 7)) expect(text).toMatch(new RegExp(`left out ${name}: chose .* x[012] .* -> its TW-BERT \\+ Bo1 gain [-+]\\d.*plain Bo1 [-+]\\d`));
    expect(text).toMatch(/shipped configuration: .*'gate_loss': 1\.0/);
    expect(text).toMatch(/gate targets: Bo1 helps \d+, hurts \d+/);
    expect(text).toMatch(/reporting nfcorpus-test: uniform/);
    const selection = JSON.parse(readFileSync(join(runs, 'selection.json'), 'utf8')) as { outer: Record<string, { epochs: number }> };
    expect(Object.keys(selection.outer).sort()).toEqual(collections.slice(0, 7).sort());
    for (const name of collections.slice(0, 7)) expect(existsSync(join(folds, `${name}.pt`))).toBe(true);

    // The shipped model is rebuilt from the rotation's recorded choice (model/twbert/shipped-configuration.json)
    // without the rotation's runs: the same configuration gives the same model, parameter for parameter.
    const shipped = JSON.parse(readFileSync(join(runs, 'selection.json'), 'utf8')) as { shipped: { knobs: object; epochs: number } };
    const recorded = join(work, 'configuration.json');
    writeFileSync(recorded, JSON.stringify({ knobs: shipped.shipped.knobs, epochs: shipped.shipped.epochs }));
    const rebuilt = join(work, 'twbert-adaptive-recorded.pt');
    await python(['-m', 'model.twbert.adaptive', 'ship', '--configuration', recorded, '--encoder', join(work, 'pre.pt'), '--data-dir', dataDir,
      '--runs-dir', join(work, 'no-runs'), '--epochs', '2', '--epoch-queries', '32', '--out', rebuilt, '--log', join(work, 'recorded.log')]);
    expect(existsSync(join(work, 'no-runs', 'histories.json')), 'no rotation was run').toBe(false);
    expect(readFileSync(join(work, 'recorded.log'), 'utf8')).toMatch(/model on all seven: .* x[012] ->/);
    const compared = await python(['-c', 'import sys, torch\n' +
      'a, b = (torch.load(p, map_location="cpu")["state"] for p in sys.argv[1:3])\n' +
      'assert a.keys() == b.keys(), "different parameters"\n' +
      'bad = [k for k in a if not torch.equal(a[k], b[k])]\n' +
      'print(len(a), "tensors,", len(bad), "differ", bad[:3])', out, rebuilt]);
    expect(compared.trim()).toMatch(/^\d+ tensors, 0 differ/);

    // The graded gate target (the size of Bo1's effect on a training query) is a knob the rotation can run.
    const gradedLog = join(work, 'graded.log');
    await python(['-m', 'model.twbert.adaptive', 'rotate', '--graded-gate', 'on', '--grid-pick', '8', '--encoder', join(work, 'pre.pt'), '--data-dir', dataDir,
      '--runs-dir', join(work, 'graded-runs'), '--epochs', '1', '--epoch-queries', '32', '--log', gradedLog]);
    expect(readFileSync(gradedLog, 'utf8')).toMatch(/shipped configuration: .*'gate_loss': 1\.0.*'graded_gate': True/);

    // ONNX export with a parity fixture of its own: the encoder inputs and statistics the runtime builds.
    const parityInputs = join(work, 'parity-inputs.jsonl');
    writeFileSync(parityInputs, await runChecked(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'model/encode-queries.ts')], { cwd: REPO_ROOT }));
    const art = join(work, 'artifacts-adaptive');
    const fixtureFile = join(work, 'parity-adaptive.json');
    await python(['-m', 'model.twbert.export', '--model', 'twbert', '--checkpoint', out, '--out-dir', art, '--parity-inputs', parityInputs, '--parity-out', fixtureFile, '--not-final']);
    copyFileSync(TOKENIZER_FILE, join(art, 'tokenizer.json'));
    const config = JSON.parse(readFileSync(join(art, 'config.json'), 'utf8')) as { models: { twbert: { statistics?: { names: string[] }; expansionScale?: number } } };
    expect(config.models.twbert.statistics?.names).toEqual([...STATISTIC_NAMES]);
    // The graph weighs the Bo1 words itself: no global factor.
    expect(config.models.twbert.expansionScale).toBeUndefined();
    const fixture = JSON.parse(readFileSync(fixtureFile, 'utf8')) as { queries: { query: string; weights: number[]; stats: number[][] }[] };
    const loaded = await loadWeightModel(art, { model: 'twbert', device: 'cpu' });
    if (!loaded.ok) throw loaded.error;
    try {
      const stats = fixture.queries.map((q) => q.stats.map((row) => Object.fromEntries(STATISTIC_NAMES.map((n, k) => [n, row[k]])) as NgramStatistics));
      const weighed = await loaded.model.weigh(fixture.queries.map((q) => q.query), stats);
      let compared = 0;
      fixture.queries.forEach((q, i) => {
        expect(weighed[i].ngrams.map((g) => g.weight).length, q.query).toBe(q.weights.length);
        weighed[i].ngrams.forEach((g, j) => {
          expect(Math.abs(g.weight - q.weights[j]), `${q.query} #${j}`).toBeLessThan(1e-4 * Math.max(1, Math.abs(q.weights[j])));
          compared++;
        });
      });
      expect(compared).toBeGreaterThan(20);
      // The Bo1 inputs steer the weights: a Bo1 word with no w' weighs 0, and w' moves it.
      const query = 'laminar flow over the wing';
      const base = queryStatistics(reader, query).ngrams.map((g) => g.stats);
      const last = base.findIndex((_, k) => k === 2); // the third word plays a Bo1 word
      const asBo1 = (w: number) => base.map((s, k) => (k === last ? { ...s, expansion: 1, bo1Weight: w } : s));
      const [none] = await loaded.model.weigh([query], [asBo1(0)]);
      const [some] = await loaded.model.weigh([query], [asBo1(0.5)]);
      expect(none.ngrams[last].weight).toBe(0);
      expect(some.ngrams[last].weight).toBeGreaterThan(0);
    } finally {
      await loaded.model.dispose();
    }
  }, 600_000);
});
