// Query likelihood (Dirichlet, mu 2500) against an independent computation on a real collection:
// for each Cranfield query, the query likelihood written out from the formula of SEMANTICS.md §1.6 over
// the index's raw counts (postings, document lengths, collection length), with the query's words
// analysed as the documents are (a word the analyser removes is not part of the query; a word the
// index lacks gets P = 1/(2|C|)), and every document containing a query term scored. It does not
// call the scorer or the query compiler. Scores must agree to 1e-12 and MAP to four decimals.
import { describe, expect, it } from 'vitest';
import { parseText } from '../../../grammar/text/index.js';
import type { RunEntry } from '../../../server/engine/eval/index.js';
import type { IndexReader } from '../../../server/engine/index/reader.js';
import { search } from '../../../server/engine/search.js';
import { buildCollectionIndex, evaluateRun, hasCollection, readTopics } from './helpers/collections.js';
import { dataPath } from '../../support/data.js';

function referenceQl(reader: IndexReader, text: string, mu: number): Map<number, number> {
  const { totalTokens } = reader.stats();
  const terms: string[] = [];
  for (const word of text.match(/[\p{L}\p{N}]+/gu) ?? []) terms.push(...reader.analyzer.analyzeTerm(word, {}));
  const tf = new Map<number, Map<string, number>>();
  for (const t of new Set(terms)) {
    const p = reader.postings(t);
    if (!p) continue;
    for (let i = 0; i < p.docs.length; i++) {
      const doc = p.docs[i]!;
      if (!tf.has(doc)) tf.set(doc, new Map());
      tf.get(doc)!.set(t, p.tfs[i]!);
    }
  }
  const scores = new Map<number, number>();
  for (const [doc, freqs] of tf) {
    const dl = reader.docLength(doc);
    let s = 0;
    for (const t of terms) {
      const cf = reader.termStats(t)?.cf ?? 0;
      const pc = cf > 0 ? cf / totalTokens : 1 / (2 * totalTokens);
      s += Math.log(((freqs.get(t) ?? 0) + mu * pc) / (dl + mu)) / terms.length;
    }
    scores.set(doc, s);
  }
  return scores;
}

function topK(reader: IndexReader, scores: Map<number, number>, k: number): RunEntry[] {
  return [...scores]
    .map(([doc, score]) => ({ docno: reader.docno(doc), score }))
    .sort((a, b) => b.score - a.score || (a.docno < b.docno ? 1 : a.docno > b.docno ? -1 : 0))
    .slice(0, k);
}

describe.skipIf(!hasCollection('cranfield'))('ql on Cranfield equals query likelihood computed from the raw counts', () => {
  it('every query: the same documents with the same scores, and the same MAP to four decimals', () => {
    const reader = buildCollectionIndex('cranfield', 'terrier');
    const engine = new Map<string, RunEntry[]>();
    const reference = new Map<string, RunEntry[]>();
    let stopped = 0;
    let unknown = 0;
    for (const { qid, text } of readTopics(dataPath('cranfield', 'queries.tsv'))) {
      const want = referenceQl(reader, text, 2500);
      const r = search(reader, parseText(text).ast, { scorer: 'ql', k: 1000 });
      if (r.warnings.some((w) => w.code === 'engine/stopword')) stopped++;
      if (r.warnings.some((w) => w.code === 'engine/oov')) unknown++;
      expect(r.matchedDocs).toBe(want.size);
      for (const h of r.hits) expect(Math.abs(h.score - want.get(h.doc)!)).toBeLessThan(1e-12);
      engine.set(qid, r.hits.map((h) => ({ docno: h.docno, score: h.score })));
      reference.set(qid, topK(reader, want, 1000));
    }
    // The collection's queries hold stopwords and words the index lacks: both rules are exercised.
    expect(stopped).toBeGreaterThan(100);
    expect(unknown).toBeGreaterThan(0);
    const qrels = dataPath('cranfield', 'qrels.txt');
    const mapEngine = evaluateRun({ runId: 'engine', queries: engine }, qrels, ['map']).map!;
    const mapReference = evaluateRun({ runId: 'reference', queries: reference }, qrels, ['map']).map!;
    expect(mapEngine.toFixed(4)).toBe(mapReference.toFixed(4));
    expect(mapEngine.toFixed(4)).toBe('0.2778'); // the figure the README gives
  }, 60_000);
});
