/**
 * Genericity as a statistic of the collection-aware model (issue 16 item 1; server/model/genericity.ts): the
 * training side (model/twbert/genericity.py record_genericity, over an `export-training` record) and the runtime
 * (genericity.ts over the windows it encodes) give every n-gram the same value from the same shipped table; an
 * exported model that lists `genericity` reads it from its own table (ONNX = PyTorch), and a missing or broken
 * table is a typed, explained load failure.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAnalyzer } from '../../server/engine/analysis/index.js';
import { buildMemoryIndex } from '../../server/engine/index/memory.js';
import { ConceptEvaluator } from '../../server/engine/scoring/concepts.js';
import { GENERICITY, loadGenericityTable, ngramGenericity } from '../../server/model/genericity.js';
import { loadWeightModel } from '../../server/model/runtime.js';
import { segmentQuery } from '../../server/model/segment.js';
import { STATISTIC_NAMES, type NgramStatistics } from '../../server/model/statistic-names.js';
import { encodeQueryWindows, loadTokenizer } from '../../server/model/tokenize.js';
import { exportTrainingRecord } from '../../server/model/training-export.js';
import { runChecked } from '../support/process.js';
import { ARTIFACTS_DIR, PYTHON, REPO_ROOT, TOKENIZER_FILE, syntheticCorpus, torchUnavailableReason } from './helpers.js';

const TABLE = join(ARTIFACTS_DIR, 'genericity.f32');
const skipReason = torchUnavailableReason();
if (skipReason) console.log(`skipping the Python side of the genericity tests: ${skipReason}`);

const work = mkdtempSync(join(tmpdir(), 'ql-genericity-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const QUERIES = [
  'laminar flow over the wing with shock waves',
  'the effect of analysis on patients: a study',
  'ribosomal proteins regulate p53 through MDM2 binding',
  'supercalifragilisticexpialidocious flow',
  // Longer than the encoder's 128 wordpieces: n-grams past the first window are read from the next.
  Array.from({ length: 70 }, (_, i) => ['boundary layer', 'heat transfer', 'immunohistochemistry', 'vortex'][i % 4]).join(' '),
];

describe('genericity table', () => {
  it('is the vocabulary-sized table of genericity.py: generic words near 0, rare words and special tokens low', () => {
    const tokenizer = loadTokenizer(TOKENIZER_FILE);
    const table = loadGenericityTable(TABLE, tokenizer.getVocabSize(true));
    const g = (w: string) => table[tokenizer.tokenToId(w)!];
    expect(g('analysis')).toBeGreaterThan(-4.5);
    expect(g('study')).toBeGreaterThan(-4.5);
    expect(g('vortex')).toBeLessThan(g('study') - 5);
    expect(g('virus')).toBeLessThan(g('study') - 2);
    expect(g('[UNK]')).toBeLessThan(-10);
  });

  it('refuses a file that is not a table, naming it', () => {
    const bad = join(work, 'bad.f32');
    writeFileSync(bad, Buffer.alloc(10));
    expect(() => loadGenericityTable(bad)).toThrow(/bad\.f32 has 10 bytes/);
    writeFileSync(bad, Buffer.alloc(16));
    expect(() => loadGenericityTable(bad, 30522)).toThrow(/has 4 values, the tokenizer 30522/);
    expect(() => loadGenericityTable(join(work, 'none.f32'))).toThrow(/none\.f32 cannot be read/);
  });
});

describe.skipIf(skipReason !== null)('genericity: training = run time', () => {
  it('gives every n-gram of an export (long queries in windows too) the value the runtime computes', async () => {
    const reader = buildMemoryIndex(syntheticCorpus(120, 4), { profile: 'terrier' });
    const tokenizer = loadTokenizer(TOKENIZER_FILE);
    const evaluator = new ConceptEvaluator(reader);
    const analyzer = createAnalyzer('terrier');
    const table = loadGenericityTable(TABLE);
    const records = [];
    const runtime: number[][] = [];
    for (const [i, text] of QUERIES.entries()) {
      records.push(await exportTrainingRecord(reader, tokenizer, evaluator, `q${i}`, text, undefined, { k: 10 }));
      // What runtime.ts feeds the graph: per window, each n-gram it weighs from that window's wordpieces.
      const seg = segmentQuery(text, analyzer);
      const values = new Array<number>(seg.ngrams.length).fill(Number.NaN);
      for (const w of await encodeQueryWindows(tokenizer, seg, 128)) w.ngrams.forEach((g, j) => (values[g] = ngramGenericity(table, w.ids, w.ngramTokens[j])));
      runtime.push(values);
    }
    expect(records[4].windows?.length).toBeGreaterThan(1);
    const file = join(work, 'records.jsonl');
    writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const script = [
      'import json, sys',
      'from model.twbert.genericity import read_bin, record_genericity',
      'table = read_bin()',
      'print(json.dumps([record_genericity(table, json.loads(l)) for l in open(sys.argv[1]) if l.strip()]))',
    ].join('\n');
    const run = spawnSync(PYTHON, ['-c', script, file], { cwd: REPO_ROOT, encoding: 'utf8', maxBuffer: 1 << 26 });
    expect(run.stderr).toBe('');
    const python = JSON.parse(run.stdout) as number[][];
    let compared = 0;
    records.forEach((r, q) => {
      expect(python[q].length).toBe(r.ngrams.length);
      python[q].forEach((v, j) => {
        expect(Math.abs(v - runtime[q][j]), `${QUERIES[q].slice(0, 30)} #${j}`).toBeLessThan(1e-9);
        compared++;
      });
    });
    expect(compared).toBeGreaterThan(100);
    // The values say something: in "the effect of analysis on patients: a study" the generic words are above the topic word.
    const terms = records[1].ngrams.map((g) => g.terms.join(' '));
    expect(runtime[1][terms.indexOf('studi')]).toBeGreaterThan(runtime[1][terms.indexOf('patient')] + 1);
    expect(runtime[1][terms.indexOf('analysi')]).toBeGreaterThan(runtime[1][terms.indexOf('patient')] + 1);
  });

  it('an exported model that reads genericity reads it from its own table (ONNX = PyTorch), and says when the table is missing', async () => {
    // A small collection-aware model with genericity, untrained but with non-zero output layers, over a random encoder.
    const ckpt = join(work, 'stats.pt');
    const script = [
      'import sys, torch',
      'from model.twbert.model import EncoderConfig, StatsTWBert, TWBert',
      'torch.manual_seed(5)',
      'enc = TWBert(EncoderConfig())',
      `torch.save({"cfg": EncoderConfig().to_dict(), "state": enc.state_dict()}, sys.argv[1] + ".enc")`,
      // The gate's summary of the first pass and Bo1's words (adaptive.py --gate-summary) is in the graph too.
      'm = StatsTWBert(expansion=True, genericity=True, gate_summary=True)',
      'torch.nn.init.normal_(m.out[-1].weight, 0.0, 0.5)',
      'torch.nn.init.normal_(m.gate[-1].weight, 0.0, 0.5)',
      'torch.nn.init.normal_(m.gate_summary.weight, 0.0, 0.5)',
      'torch.save({"state": m.state_dict(), "head": m.head_config(), "encoder": sys.argv[1] + ".enc", "description": "genericity test"}, sys.argv[1])',
    ].join('\n');
    await runChecked(PYTHON, ['-c', script, ckpt], { cwd: REPO_ROOT });
    const parityInputs = join(work, 'parity-inputs.jsonl');
    writeFileSync(parityInputs, await runChecked(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'model/encode-queries.ts')], { cwd: REPO_ROOT }));
    const art = join(work, 'art');
    const fixtureFile = join(work, 'parity.json');
    await runChecked(PYTHON, ['-m', 'model.twbert.export', '--model', 'twbert', '--checkpoint', ckpt, '--out-dir', art, '--parity-inputs', parityInputs, '--parity-out', fixtureFile, '--not-final'], { cwd: REPO_ROOT });
    copyFileSync(TOKENIZER_FILE, join(art, 'tokenizer.json'));
    const config = JSON.parse(readFileSync(join(art, 'config.json'), 'utf8'));
    expect(config.models.twbert.statistics.names).toEqual([...STATISTIC_NAMES, GENERICITY]);
    expect(config.models.twbert.statistics.genericityTable).toBe('genericity.f32');
    expect(readFileSync(join(art, 'genericity.f32')).equals(readFileSync(TABLE))).toBe(true);

    const fixture = JSON.parse(readFileSync(fixtureFile, 'utf8')) as { queries: { query: string; weights: number[]; stats: number[][] }[] };
    const stats = fixture.queries.map((q) => q.stats.map((row) => Object.fromEntries(STATISTIC_NAMES.map((n, k) => [n, row[k]])) as NgramStatistics));
    const weigh = async () => {
      const loaded = await loadWeightModel(art, { model: 'twbert', device: 'cpu' });
      if (!loaded.ok) throw loaded.error;
      try {
        return (await loaded.model.weigh(fixture.queries.map((q) => q.query), stats)).map((w) => w.ngrams.map((g) => g.weight));
      } finally {
        await loaded.model.dispose();
      }
    };
    const weights = await weigh();
    let compared = 0;
    fixture.queries.forEach((q, i) => {
      expect(weights[i].length, q.query).toBe(q.weights.length);
      weights[i].forEach((w, j) => {
        expect(Math.abs(w - q.weights[j]), `${q.query} #${j}`).toBeLessThan(1e-4 * Math.max(1, Math.abs(q.weights[j])));
        compared++;
      });
    });
    expect(compared).toBeGreaterThan(20);

    // Another table moves the weights: the runtime reads the model's own.
    const flat = new Float32Array(readFileSync(TABLE).length / 4).fill(-5);
    writeFileSync(join(art, 'genericity.f32'), Buffer.from(flat.buffer));
    const moved = await weigh();
    expect(moved.flat().some((w, k) => Math.abs(w - weights.flat()[k]) > 1e-3)).toBe(true);

    unlinkSync(join(art, 'genericity.f32'));
    const missing = await loadWeightModel(art, { model: 'twbert', device: 'cpu' });
    expect(missing.ok).toBe(false);
    if (!missing.ok) {
      expect(missing.error.kind).toBe('missing-model');
      expect(missing.error.message).toMatch(/reads genericity, but the genericity table .*genericity\.f32 cannot be read/);
    }
    writeFileSync(join(art, 'genericity.f32'), Buffer.alloc(8));
    const broken = await loadWeightModel(art, { model: 'twbert', device: 'cpu' });
    expect(broken.ok).toBe(false);
    if (!broken.ok) expect(broken.error.kind).toBe('invalid-model');
  }, 180_000);
});
