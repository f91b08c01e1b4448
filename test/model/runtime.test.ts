/**
 * The Node runtime of the term-weighting models: ONNX output equals the PyTorch output saved by
 * model/twbert/export.py (test/model/fixtures/parity-*.json) for the same queries, and every way
 * loading can fail is a typed, explained state.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expansionScaleOf, loadWeightModel, WeightModelError, type WeightModelName } from '../../server/model/runtime.js';
import { STATISTIC_NAMES, type NgramStatistics } from '../../server/model/statistic-names.js';
import { buildMemoryIndex } from '../../server/engine/index/memory.js';
import { queryStatistics } from '../../server/model/collection-statistics.js';
import { ARTIFACTS_DIR, syntheticCorpus } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'ql-model-runtime-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Fixture {
  model: string;
  queries: { query: string; terms: string[][]; ids: number[]; weights: number[]; stats?: number[][] }[];
}

/** A collection-aware model's statistics input as the fixture holds it (STATISTIC_NAMES order). */
function fixtureStatistics(fixture: Fixture) {
  if (!fixture.queries.some((q) => q.stats)) return undefined;
  return fixture.queries.map((q) => q.stats?.map((row) => Object.fromEntries(STATISTIC_NAMES.map((n, k) => [n, row[k]])) as NgramStatistics));
}

describe.each(['twbert', 'deepct'] as WeightModelName[])('%s ONNX runtime vs PyTorch', (name) => {
  const fixtureFile = new URL(`./fixtures/parity-${name}.json`, import.meta.url);

  it('matches the PyTorch weights to 1e-4 for the same queries, batched together', async () => {
    const fixture = JSON.parse(readFileSync(fixtureFile, 'utf8')) as Fixture;
    const loaded = await loadWeightModel(ARTIFACTS_DIR, { model: name, device: 'cpu' });
    if (!loaded.ok) throw loaded.error;
    const model = loaded.model;
    try {
      const out = await model.weigh(fixture.queries.map((q) => q.query), fixtureStatistics(fixture));
      let maxDiff = 0;
      fixture.queries.forEach((q, i) => {
        expect(out[i].ngrams.map((g) => g.terms)).toEqual(q.terms);
        expect(out[i].ngrams).toHaveLength(q.weights.length);
        out[i].ngrams.forEach((g, j) => (maxDiff = Math.max(maxDiff, Math.abs(g.weight - q.weights[j]))));
      });
      expect(maxDiff).toBeLessThan(1e-4);
      // The model is not constant: a parity test against a constant would prove little.
      const all = fixture.queries.flatMap((q) => q.weights);
      expect(Math.max(...all) - Math.min(...all)).toBeGreaterThan(1e-3);
    } finally {
      await model.dispose();
    }
  });

  it('gives the same weights one query at a time as in a padded batch', async () => {
    const fixture = JSON.parse(readFileSync(fixtureFile, 'utf8')) as Fixture;
    const loaded = await loadWeightModel(ARTIFACTS_DIR, { model: name, device: 'cpu', batchSize: 1 });
    if (!loaded.ok) throw loaded.error;
    try {
      const statistics = fixtureStatistics(fixture);
      for (const [i, q] of fixture.queries.slice(0, 4).entries()) {
        const [one] = await loaded.model.weigh([q.query], statistics ? [statistics[i]] : undefined);
        one.ngrams.forEach((g, j) => expect(Math.abs(g.weight - q.weights[j])).toBeLessThan(1e-4));
      }
    } finally {
      await loaded.model.dispose();
    }
  });
});

describe('loading failures are typed states, never throws', () => {
  it('missing folder -> missing-model, with how to fix it', async () => {
    const r = await loadWeightModel(join(work, 'nowhere'));
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error).toBeInstanceOf(WeightModelError);
      expect(r.error.kind).toBe('missing-model');
      expect(r.error.message).toMatch(/config\.json is missing/);
    }
  });

  it('unreadable config -> invalid-model; a model the config does not list -> missing-model', async () => {
    const dir = join(work, 'badconfig');
    rmSync(dir, { recursive: true, force: true });
    (await import('node:fs')).mkdirSync(dir);
    writeFileSync(join(dir, 'config.json'), '{ not json');
    const r1 = await loadWeightModel(dir);
    expect(r1.ok ? 'ok' : r1.error.kind).toBe('invalid-model');
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ format: 1, tokenizer: 'tokenizer.json', maxTokens: 128, profile: 'terrier', inputs: { ids: 'input_ids', attentionMask: 'attention_mask', ngramMask: 'ngram_mask' }, output: 'weights', models: {} }));
    const r2 = await loadWeightModel(dir, { model: 'deepct' });
    expect(r2.ok ? 'ok' : r2.error.kind).toBe('missing-model');
  });

  it('an expansion factor that is not a number >= 0 -> invalid-model naming it; the shipped one loads and is read back', async () => {
    const dir = join(work, 'badscale');
    (await import('node:fs')).mkdirSync(dir, { recursive: true });
    const config = JSON.parse(readFileSync(join(ARTIFACTS_DIR, 'config.json'), 'utf8'));
    copyFileSync(join(ARTIFACTS_DIR, 'tokenizer.json'), join(dir, 'tokenizer.json'));
    copyFileSync(join(ARTIFACTS_DIR, 'twbert.onnx'), join(dir, 'twbert.onnx'));
    for (const bad of [-0.5, 'half', null]) {
      writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, models: { twbert: { ...config.models.twbert, expansionScale: bad } } }));
      const r = await loadWeightModel(dir, { model: 'twbert', device: 'cpu' });
      expect(r.ok ? 'ok' : r.error.kind, String(bad)).toBe('invalid-model');
      if (!r.ok) expect(r.error.message).toMatch(/expansionScale must be a number >= 0/);
    }
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, models: { twbert: { ...config.models.twbert, expansionScale: 0.25 } } }));
    const scaled = await loadWeightModel(dir, { model: 'twbert', device: 'cpu' });
    if (!scaled.ok) throw scaled.error;
    expect(expansionScaleOf(scaled.model)).toBe(0.25);
    await scaled.model.dispose();
    // The shipped model weighs Bo1's words itself (adaptive expansion): no factor, so 1.
    const shipped = await loadWeightModel(ARTIFACTS_DIR, { model: 'twbert', device: 'cpu' });
    if (!shipped.ok) throw shipped.error;
    expect(expansionScaleOf(shipped.model)).toBe(config.models.twbert.expansionScale ?? 1);
    await shipped.model.dispose();
    // A model without the factor (DeepCT, or a TW-BERT exported before phase 4) keeps its weights as they are.
    expect(expansionScaleOf({ name: 'deepct', config })).toBe(1);
  });

  it('a model reads the statistics its config lists; an unknown or repeated name -> invalid-model naming it', async () => {
    const dir = join(work, 'badstats');
    (await import('node:fs')).mkdirSync(dir, { recursive: true });
    const config = JSON.parse(readFileSync(join(ARTIFACTS_DIR, 'config.json'), 'utf8'));
    copyFileSync(join(ARTIFACTS_DIR, 'tokenizer.json'), join(dir, 'tokenizer.json'));
    copyFileSync(join(ARTIFACTS_DIR, 'twbert.onnx'), join(dir, 'twbert.onnx'));
    for (const names of [['idf', 'genericness'], ['idf', 'idf'], []]) {
      writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, models: { twbert: { ...config.models.twbert, statistics: { input: 'ngram_stats', names } } } }));
      const r = await loadWeightModel(dir, { model: 'twbert', device: 'cpu' });
      expect(r.ok ? 'ok' : r.error.kind, names.join()).toBe('invalid-model');
      if (!r.ok) expect(r.error.message).toContain(`reads the statistics ${JSON.stringify(names)}`);
    }
    // Known names in any order pass the name check (DeepCT's graph then lacks the input, which is said too).
    copyFileSync(join(ARTIFACTS_DIR, 'deepct.onnx'), join(dir, 'deepct.onnx'));
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, models: { deepct: { ...config.models.deepct, statistics: { input: 'ngram_stats', names: ['fbGap', 'idf'] } } } }));
    const r = await loadWeightModel(dir, { model: 'deepct', device: 'cpu' });
    expect(r.ok ? 'ok' : r.error.message).toMatch(/has no input 'ngram_stats'/);
  });

  it('corrupt ONNX file -> invalid-model', async () => {
    const dir = join(work, 'corrupt');
    (await import('node:fs')).mkdirSync(dir, { recursive: true });
    copyFileSync(join(ARTIFACTS_DIR, 'config.json'), join(dir, 'config.json'));
    copyFileSync(join(ARTIFACTS_DIR, 'tokenizer.json'), join(dir, 'tokenizer.json'));
    writeFileSync(join(dir, 'twbert.onnx'), 'this is not an ONNX model');
    const r = await loadWeightModel(dir, { model: 'twbert', device: 'cpu' });
    expect(r.ok ? 'ok' : r.error.kind).toBe('invalid-model');
  });

  it("device 'cuda' without the CUDA provider -> cuda-unavailable; 'auto' falls back to the CPU with a notice", async () => {
    const cudaInstalled = existsSync(join(ARTIFACTS_DIR, '../../node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime_providers_cuda.so'));
    const cuda = await loadWeightModel(ARTIFACTS_DIR, { device: 'cuda' });
    if (cudaInstalled && cuda.ok) {
      expect(cuda.model.device).toBe('cuda');
      await cuda.model.dispose();
      return;
    }
    expect(cuda.ok ? 'ok' : cuda.error.kind).toBe('cuda-unavailable');
    if (!cuda.ok) expect(cuda.error.message).toMatch(/cpu/);
    const auto = await loadWeightModel(ARTIFACTS_DIR, { device: 'auto' });
    expect(auto.ok).toBe(true);
    if (auto.ok) {
      expect(auto.model.device).toBe('cpu');
      expect(auto.model.notices.join(' ')).toMatch(/CUDA is not available/);
      await auto.model.dispose();
    }
  });

  it('the shipped TW-BERT is the phrase rule moved by the collection: words near 1, pairs near a quarter, Bo1 words by their w\' and the gate (MODEL_CARD)', async () => {
    const r = await loadWeightModel(ARTIFACTS_DIR, { device: 'cpu' });
    if (!r.ok) throw r.error;
    try {
      expect(r.model.readsStatistics).toBe(true);
      const reader = buildMemoryIndex(syntheticCorpus(300, 8), { profile: 'terrier' });
      const query = 'laminar flow over the turbulent boundary layer of a plate';
      const base = queryStatistics(reader, query).ngrams.map((g) => g.stats);
      const [w] = await r.model.weigh([query], [base]);
      const uni = w.ngrams.filter((g) => g.kind === 'unigram');
      const bi = w.ngrams.filter((g) => g.kind === 'bigram');
      const level = uni.reduce((sum, g) => sum + g.weight, 0) / uni.length;
      for (const g of uni) expect(Math.abs(g.weight - 1), g.surface).toBeLessThan(0.35);
      for (const g of bi) {
        expect(g.weight / level, g.surface).toBeGreaterThan(0.15);
        expect(g.weight / level, g.surface).toBeLessThan(0.4);
      }
      // The weights are read from the statistics, not from the words: another collection's numbers move them.
      const other = buildMemoryIndex(syntheticCorpus(300, 21).map((d, i) => ({ ...d, fields: { ...d.fields, text: i % 3 ? d.fields.text : `${d.fields.text} laminar laminar` } })), { profile: 'terrier' });
      const [elsewhere] = await r.model.weigh([query], [queryStatistics(other, query).ngrams.map((g) => g.stats)]);
      const moved = Math.max(...w.ngrams.map((g, i) => Math.abs(g.weight - elsewhere.ngrams[i].weight)));
      expect(moved).toBeGreaterThan(1e-3);
      // A word read as one of Bo1's: no weight without Bo1's w', some with it (the graph weighs Bo1's words itself).
      const last = uni.length - 1;
      const asBo1 = (bo1Weight: number) => base.map((s, k) => (k === last ? { ...s, expansion: 1, bo1Weight } : s));
      const [none] = await r.model.weigh([query], [asBo1(0)]);
      const [some] = await r.model.weigh([query], [asBo1(0.5)]);
      expect(none.ngrams[last].weight).toBe(0);
      expect(some.ngrams[last].weight).toBeGreaterThan(0);
      expect(some.ngrams[last].weight).toBeLessThan(level);
    } finally {
      await r.model.dispose();
    }
  });

  it('weighs every n-gram of a 300-word query with the model (overlapping windows), none with a default weight', async () => {
    const loaded = await loadWeightModel(ARTIFACTS_DIR, { model: 'twbert', device: 'cpu' });
    if (!loaded.ok) throw loaded.error;
    try {
      const words = 'patients with chronic kidney disease and high blood pressure were treated with a low protein diet'.split(' ');
      const long = Array.from({ length: 300 }, (_x, i) => words[i % words.length]).join(' ');
      const reader = buildMemoryIndex(syntheticCorpus(200, 5), { profile: 'terrier' });
      const stats = (q: string) => queryStatistics(reader, q).ngrams.map((g) => g.stats);
      const [w] = await loaded.model.weigh([long], [stats(long)]);
      expect(w.ngrams.length).toBeGreaterThan(300);
      // Before windows, n-grams past 128 wordpieces got weight 1, four times a pair's: every pair keeps the pair level.
      for (const g of w.ngrams) expect(Number.isFinite(g.weight), g.surface).toBe(true);
      for (const g of w.ngrams.filter((x) => x.kind === 'bigram')) expect(g.weight, `${g.surface} at ${g.start}`).toBeLessThan(0.5);
      // The last words are read in context too: each weighs as the same word does in the first window.
      const head = new Map<string, number>();
      for (const g of w.ngrams.filter((x) => x.kind === 'unigram' && x.start < 300)) head.set(g.terms[0], g.weight);
      const tail = w.ngrams.filter((g) => g.kind === 'unigram' && g.start > long.length - 200);
      expect(tail.length).toBeGreaterThan(10);
      for (const g of tail) expect(Math.abs(g.weight - head.get(g.terms[0])!), `${g.surface} at ${g.start}`).toBeLessThan(0.1);
      // A query that fits the window weighs exactly as before (one window): same as the short query alone.
      const short = words.join(' ');
      const [alone] = await loaded.model.weigh([short], [stats(short)]);
      const [batched] = (await loaded.model.weigh([long, short], [stats(long), stats(short)])).slice(1);
      alone.ngrams.forEach((g, i) => expect(Math.abs(g.weight - batched.ngrams[i].weight)).toBeLessThan(1e-5));
    } finally {
      await loaded.model.dispose();
    }
  });

  it('weigh after dispose rejects with a typed error; queries without n-grams give none', async () => {
    const r = await loadWeightModel(ARTIFACTS_DIR, { device: 'cpu' });
    if (!r.ok) throw r.error;
    const reader = buildMemoryIndex(syntheticCorpus(100, 6), { profile: 'terrier' });
    const texts = ['the of and', 'heat transfer'];
    const [empty, some] = await r.model.weigh(texts, texts.map((q) => queryStatistics(reader, q).ngrams.map((g) => g.stats)));
    expect(empty.ngrams).toEqual([]);
    expect(some.ngrams.map((g) => g.kind)).toEqual(['unigram', 'unigram', 'bigram']);
    expect(some.ngrams.every((g) => Number.isFinite(g.weight) && g.weight >= 0)).toBe(true);
    await r.model.dispose();
    await expect(r.model.weigh(['heat'])).rejects.toMatchObject({ kind: 'disposed' });
  });
});
