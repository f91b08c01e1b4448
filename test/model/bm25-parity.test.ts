/**
 * The BM25 the model is trained through (model/twbert/bm25.py, over `export-training` statistics)
 * must equal the engine's Terrier BM25 of the same weighted Indri query
 * (#weight of uni-grams and #1 bi-grams): random queries, documents and weights, 1e-5 relative.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildMemoryIndex } from '../../server/engine/index/memory.js';
import { ConceptEvaluator } from '../../server/engine/scoring/concepts.js';
import { scoreDocument } from '../../server/engine/search.js';
import { exportTrainingRecord, uniformWeights, type TrainingRecord } from '../../server/model/training-export.js';
import { loadTokenizer } from '../../server/model/tokenize.js';
import { buildWeightedQueryAst } from '../../server/model/weighted-query.js';
import { PYTHON, REPO_ROOT, TOKENIZER_FILE, prng, randomQuery, syntheticCorpus, torchUnavailableReason } from './helpers.js';

const skipReason = torchUnavailableReason();
if (skipReason) console.log(`skipping the Python BM25 parity test: ${skipReason}`);

const work = mkdtempSync(join(tmpdir(), 'ql-bm25-parity-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.skipIf(skipReason !== null)('Python BM25 = engine BM25', () => {
  it('agrees to 1e-5 relative on random weighted queries (repeats, stopwords, bigrams, zero weights, negative idf)', async () => {
    const reader = buildMemoryIndex(syntheticCorpus(400, 3), { profile: 'terrier' });
    const tokenizer = loadTokenizer(TOKENIZER_FILE);
    const evaluator = new ConceptEvaluator(reader);
    const rand = prng(42);
    const records: TrainingRecord[] = [];
    const weights: number[][] = [];
    const uniformUnigram: number[][] = [];
    let negativeIdf = 0;
    while (records.length < 40) {
      const text = randomQuery(rand);
      const record = await exportTrainingRecord(reader, tokenizer, evaluator, String(records.length), text, undefined, { k: 60 });
      if (record.ngrams.length === 0 || record.docs.length === 0) continue;
      negativeIdf += record.concepts.filter((c) => c.df > record.N / 2).length;
      records.push(record);
      weights.push(record.ngrams.map(() => (rand() < 0.15 ? 0 : Math.round(rand() * 2000) / 1000)));
      uniformUnigram.push(record.ngrams.map((g) => (g.terms.length === 1 ? 1 : 0)));
    }
    expect(negativeIdf).toBeGreaterThan(0);
    const input = join(work, 'check.json');
    writeFileSync(input, JSON.stringify({ records: [...records, ...records], weights: [...weights, ...uniformUnigram] }));
    const run = spawnSync(PYTHON, ['-m', 'model.twbert.bm25', '--check', input], { cwd: REPO_ROOT, encoding: 'utf8', maxBuffer: 1 << 28 });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const python = JSON.parse(run.stdout).scores as number[][];

    let compared = 0;
    records.forEach((record, q) => {
      const w = uniformWeights(record.query, reader, true);
      w.ngrams.forEach((g, i) => (g.weight = weights[q][i]));
      const ast = buildWeightedQueryAst(w, { digits: 0, dropZero: false });
      record.docs.forEach((doc, d) => {
        const engine = scoreDocument(reader, ast, reader.docByDocno(doc.docno)!, { scorer: 'bm25' }) ?? 0;
        const py = python[q][d];
        expect(Math.abs(py - engine)).toBeLessThanOrEqual(1e-5 * Math.abs(engine) + 1e-9);
        // Uni-grams at weight 1, bi-grams at 0: the uniform BM25 the candidates were ranked by.
        if (doc.bm25 !== null) {
          const uni = python[records.length + q][d];
          expect(Math.abs(uni - doc.bm25)).toBeLessThanOrEqual(1e-5 * Math.abs(doc.bm25) + 1e-9);
        }
        compared++;
      });
    });
    expect(compared).toBeGreaterThan(500);
  });
});
