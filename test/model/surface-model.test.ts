/**
 * The learned expansion's model end to end on a tiny collection: the engine's training export
 * (server/model/surface-training-export.ts) → a few steps of model/csurf/train.py through BM25 → ONNX →
 * the Node runtime (server/model/surface-model.ts) gives the PyTorch weights (parity, with the cap on a weight and
 * the mask of the sources the model may suggest in the graph), and the learned
 * expansion rewrites a query into a query that parses. A missing model is a typed, explained state.
 * Skipped (with the reason printed) when torch cannot be imported.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseIndri, parseText } from '../../grammar/index.js';
import { buildMemoryIndex } from '../../server/engine/index/memory.js';
import { learnedExpansion } from '../../server/model/surface-expansion.js';
import { fixedWeightNote, loadSurfaceModel, restrictedSources, strongWeight, suggestsNothing } from '../../server/model/surface-model.js';
import { SurfaceResources } from '../../server/model/surface-resources.js';
import { surfaceTrainingRecord } from '../../server/model/surface-training-export.js';
import { runChecked } from '../support/process.js';
import { ARTIFACTS_DIR, PYTHON, REPO_ROOT, prng, torchUnavailableReason } from './helpers.js';

const skipReason = torchUnavailableReason();
if (skipReason) console.log(`skipping the learned-expansion training test: ${skipReason}`);

const work = mkdtempSync(join(tmpdir(), 'ql-surface-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const TOPICS = [
  ['car', 'automobile', 'vehicle', 'engine', 'truck'],
  ['illness', 'disease', 'sickness', 'patient', 'fever'],
  ['ocean', 'sea', 'water', 'wave', 'coast'],
  ['film', 'movie', 'cinema', 'actor', 'director'],
];

describe('learned expansion model', () => {
  it('says which sources a model restricted to some may suggest, and nothing for one that may suggest all', () => {
    const config = { file: 'surface.onnx', features: 14, minWeight: 0.05 };
    expect(restrictedSources({ ...config, sources: ['variant', 'wordnet'] })).toBe('morphological variants and WordNet synonyms');
    expect(restrictedSources({ ...config, sources: ['variant', 'wordnet', 'embedding'] })).toBe('morphological variants, WordNet synonyms and word-vector neighbours');
    expect(restrictedSources({ ...config, sources: ['variant', 'wordnet', 'embedding', 'cooccurrence'] })).toBeNull();
    expect(restrictedSources(config)).toBeNull();
  });

  it('tells the model that suggests nothing (0 steps from nothing) from a fixed weight (0 steps from a prior) and a trained one', () => {
    const config = { file: 'surface.onnx', features: 14, minWeight: 0.05 };
    expect(suggestsNothing({ ...config, steps: 0 })).toBe(true);
    expect(suggestsNothing({ ...config, steps: 0, start: 0 })).toBe(true);
    expect(suggestsNothing({ ...config, steps: 0, start: 0.1 })).toBe(false);
    expect(suggestsNothing({ ...config, steps: 25, start: 0 })).toBe(false);
    expect(suggestsNothing(config)).toBe(false);
    expect(fixedWeightNote({ ...config, steps: 0, start: 0.1 })).toMatch(/^It was trained 0 steps from a fixed weight: every candidate it may suggest weighs 0\.1 /);
    expect(fixedWeightNote({ ...config, steps: 0 })).toBeNull();
    expect(fixedWeightNote({ ...config, steps: 25, start: 0.1 })).toBeNull();
    // Strong (the hints): half the cap, or a fixed-weight model's one weight.
    expect(strongWeight(config)).toBe(0.5);
    expect(strongWeight({ ...config, cap: 0.25, steps: 25 })).toBe(0.125);
    expect(strongWeight({ ...config, cap: 0.5, steps: 0, start: 0.1 })).toBe(0.1);
  });

  it('refuses a model whose query form this querylens does not write', async () => {
    const dir = join(work, 'bad-form');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'surface.json'), JSON.stringify({ file: 'surface.onnx', features: 14, minWeight: 0.05, form: 'phrases' }));
    const r = await loadSurfaceModel(dir, { device: 'cpu' });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toMatch(/unknown query form "phrases" \(expected "wsyn" or "terms"/);
  });

  it('explains a missing model', async () => {
    const r = await loadSurfaceModel(work, { device: 'cpu' });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.kind).toBe('missing-model');
      expect(r.error.message).toMatch(/No learned-expansion model in .*surface\.json is missing.*model\.csurf\.train/);
    }
  });

  it.skipIf(skipReason !== null)('trains through BM25, exports ONNX that equals PyTorch, and expands a query', async () => {
    const rand = prng(15);
    const docs = Array.from({ length: 120 }, (_, i) => {
      const topic = TOPICS[i % TOPICS.length]!;
      const words = Array.from({ length: 12 }, () => topic[Math.floor(rand() * topic.length)]!);
      // Two words of another topic, so that a query's pool holds documents it does not judge relevant (the loss
      // compares relevant with non-relevant documents).
      const other = TOPICS[(i + 1 + Math.floor(rand() * (TOPICS.length - 1))) % TOPICS.length]!;
      words.push(other[Math.floor(rand() * other.length)]!, other[Math.floor(rand() * other.length)]!);
      return { docno: `D${i}`, fields: { text: words.join(' ') } };
    });
    const reader = buildMemoryIndex(docs, { profile: 'terrier' });
    const lexicon = new SurfaceResources({ modelDir: ARTIFACTS_DIR }).lexiconFor(reader);
    const records = TOPICS.map((topic, t) => {
      const text = topic[0]!;
      const judged = new Map(docs.filter((_d, i) => i % TOPICS.length === t).map((d) => [d.docno, 1]));
      return surfaceTrainingRecord(reader, 'smoke', `q${t}`, text, parseText(text).ast, judged, lexicon);
    });
    expect(records.every((r) => r !== null)).toBe(true);
    expect(records.some((r) => r!.groups.some((g) => g.cands.length > 0))).toBe(true);
    const data = join(work, 'smoke.jsonl');
    writeFileSync(data, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const out = join(work, 'model');
    const printed = await runChecked(PYTHON, ['-W', 'ignore', '-m', 'model.csurf.train', 'smoke', '--data', data, '--out', out], {
      cwd: REPO_ROOT,
      env: { ...process.env, OPENBLAS_NUM_THREADS: '1' },
    });
    const losses = JSON.parse(printed.trim().split('\n').pop()!) as { lossBefore: number; lossAfter: number; lossChangeWhenScoresTripled: number };
    expect(losses.lossAfter).toBeLessThan(losses.lossBefore);
    // Expansion adds score to every matching document: a loss on raw scores grows with it (MODEL_CARD.md).
    expect(losses.lossChangeWhenScoresTripled).toBeLessThan(1e-4);

    // Parity: a copy of the trained model with its output raised above the threshold (train.py smoke), so the
    // cap and the source mask in the graph are compared on weights the runtime keeps.
    const probe = await loadSurfaceModel(join(out, 'parity'), { device: 'cpu' });
    if (!probe.ok) throw probe.error;
    try {
      const parity = JSON.parse(readFileSync(join(out, 'parity', 'parity.json'), 'utf8')) as { features: number[][]; weights: number[]; cap: number };
      const weights = await probe.model.weigh(parity.features);
      expect(parity.weights[0]).toBe(0); // a co-occurrence candidate, a source this model may not suggest
      expect(parity.weights.slice(1).every((w) => w >= probe.model.config.minWeight && w <= parity.cap)).toBe(true);
      parity.weights.forEach((w, i) => expect(weights[i]).toBeCloseTo(w, 5));
    } finally {
      await probe.model.release();
    }

    // From a prior, 0 steps: every allowed candidate (here variants and WordNet, word-vector similarity ≥ 0.5) weighs
    // the prior, any other 0 (row 0: a co-occurrence candidate; rows 2 and 5: similarity 0.3 and −0.2).
    const fixed = await loadSurfaceModel(join(out, 'fixed'), { device: 'cpu' });
    if (!fixed.ok) throw fixed.error;
    try {
      const parity = JSON.parse(readFileSync(join(out, 'parity', 'parity.json'), 'utf8')) as { features: number[][] };
      const weights = await fixed.model.weigh(parity.features);
      expect(fixed.model.config.start).toBe(0.1);
      expect(fixed.model.config.minSimilarity).toBe(0.5);
      expect(weights[0]).toBe(0);
      expect(weights[2]).toBe(0);
      expect(weights[5]).toBe(0);
      for (const i of [1, 3, 4]) expect(weights[i]).toBeCloseTo(0.1, 6);
    } finally {
      await fixed.model.release();
    }

    const loaded = await loadSurfaceModel(out, { device: 'cpu' });
    if (!loaded.ok) throw loaded.error;
    const model = loaded.model;
    try {
      const x = await learnedExpansion(reader, parseText('car').ast, 'car', model, lexicon);
      expect(x.dialect).toBe('indri');
      expect(parseIndri(x.text).diagnostics).toEqual([]);
      for (const w of x.suggestions) for (const a of w.alternatives) expect(reader.termStats(a.term)?.df).toBeGreaterThan(0);
    } finally {
      await model.release();
    }
  }, 120_000);
});
