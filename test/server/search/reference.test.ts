// Reference figures (the correctness anchors): Cranfield uniform Terrier BM25 MAP = .3118 and
// Bo1 = .3383 (the reference figures in the shared data README), SciFact test uniform Terrier BM25 MAP =
// .6405, and SciFact test with the lucene profile and Lucene BM25 at Anserini's
// k1 = 0.9, b = 0.4: nDCG@10 0.6789 and R@100 0.9253 (Anserini regression, data README), within
// 0.01 because the local corpus differs from BEIR's by 0.22%. Evaluated with server/engine/eval.
import { describe, expect, it } from 'vitest';
import { parseText } from '../../../grammar/text/index.js';
import type { RunEntry } from '../../../server/engine/eval/index.js';
import type { IndexReader } from '../../../server/engine/index/reader.js';
import { LocalIndexBackend } from '../../../server/service/backend.js';
import { rankQuery, type RankQueryOptions } from '../../../server/service/ranking.js';
import { buildCollectionIndex, DATA_DIR, evaluateRun, hasCollection, readTopics } from './helpers/collections.js';

function evaluateTopics(reader: IndexReader, topics: string, qrels: string, options: RankQueryOptions, measures: string[]): Record<string, number> {
  const queries = new Map<string, RunEntry[]>();
  for (const { qid, text } of readTopics(topics)) {
    const hits = rankQuery(new LocalIndexBackend(reader, 'test'), parseText(text).ast, { k: 1000, ...options }).hits;
    queries.set(qid, hits.map((h) => ({ docno: h.docno, score: h.score })));
  }
  return evaluateRun({ runId: 'reference', queries }, qrels, measures);
}

describe.skipIf(!hasCollection('cranfield'))('Cranfield (terrier profile, top 1000)', () => {
  const reader = hasCollection('cranfield') ? buildCollectionIndex('cranfield', 'terrier') : (null as unknown as IndexReader);
  const topics = `${DATA_DIR}/cranfield/queries.tsv`;
  const qrels = `${DATA_DIR}/cranfield/qrels.txt`;
  it('uniform Terrier BM25: MAP .3118', () => {
    expect(evaluateTopics(reader, topics, qrels, { scorer: 'bm25' }, ['map']).map!.toFixed(4)).toBe('0.3118');
  });
  it('Terrier BM25 + Bo1 (3 docs, 10 terms): MAP .3383', () => {
    const m = evaluateTopics(reader, topics, qrels, { scorer: 'bm25', expand: { method: 'bo1', fbDocs: 3, fbTerms: 10 } }, ['map']);
    expect(m.map!.toFixed(4)).toBe('0.3383');
  });
});

describe.skipIf(!hasCollection('scifact'))('SciFact test (top 1000)', () => {
  const topics = `${DATA_DIR}/scifact/queries.test.tsv`;
  const qrels = `${DATA_DIR}/scifact/qrels.test.txt`;
  it('lucene profile, Lucene BM25 with Anserini k1/b: nDCG@10 ≈ 0.6789, R@100 ≈ 0.9253', () => {
    const reader = buildCollectionIndex('scifact', 'lucene');
    const m = evaluateTopics(reader, topics, qrels, { scorer: 'bm25-lucene', anserini: true }, ['ndcg_cut_10', 'recall_100']);
    expect(Math.abs(m.ndcg_cut_10! - 0.6789)).toBeLessThanOrEqual(0.01);
    expect(Math.abs(m.recall_100! - 0.9253)).toBeLessThanOrEqual(0.01);
  });
  it('terrier profile, uniform Terrier BM25: MAP .6405', () => {
    const reader = buildCollectionIndex('scifact', 'terrier');
    expect(evaluateTopics(reader, topics, qrels, { scorer: 'bm25' }, ['map']).map!.toFixed(4)).toBe('0.6405');
  });
});
