/**
 * What DeepCT-Index's training (model/twbert/deepct_index.py) reads, from the engine:
 *
 * - a corpus: every document's encoder windows and distinct analysed terms (deepct-index-encode.ts, the encoding
 *   run time reads), one JSON line per document;
 * - a query set: each query's analysed terms, and for every document with at least one relevant query its query
 *   term recall target QTR(t, d) = |{q relevant to d : t ∈ q}| / |{q relevant to d}| for each of its terms (on the
 *   analysed terms: the engine's analyser for both sides).
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createAnalyzer } from '../engine/analysis/index.js';
import { readCorpus } from '../engine/ingest/index.js';
import { documentText, encodeDocumentWindows } from './deepct-index-encode.js';
import type { HfTokenizer } from './tokenize.js';

export interface DeepctCorpusRecord {
  docno: string;
  terms: string[];
  windows: { ids: number[]; pos: number[]; term: number[] }[];
}

/** Writes one DeepctCorpusRecord line per document of `corpus` to `out`; returns the number of documents. */
export async function exportDeepctCorpus(corpus: string, out: string, tokenizer: HfTokenizer, maxTokens: number): Promise<number> {
  const analyzer = createAnalyzer('terrier');
  const stream = createWriteStream(out);
  let n = 0;
  for await (const doc of readCorpus([corpus])) {
    const enc = await encodeDocumentWindows(tokenizer, analyzer, documentText(doc.fields), maxTokens);
    const record: DeepctCorpusRecord = { docno: doc.docno, terms: enc.terms, windows: enc.windows.map((w) => ({ ids: w.ids, pos: w.positions, term: w.termIndex })) };
    if (!stream.write(JSON.stringify(record) + '\n')) await once(stream, 'drain');
    n++;
  }
  stream.end();
  await once(stream, 'finish');
  return n;
}

export interface DeepctQuerySet {
  queries: { qid: string; terms: string[] }[];
  /** docno -> term -> QTR, for every document with a relevant query of this set (training collections only). */
  qtr?: Record<string, Record<string, number>>;
}

/**
 * The analysed queries of a set and, with `withTargets`, the QTR of every term of each document that has a
 * relevant query (`docTerms`: each such document's analysed terms; a term no relevant query holds gets 0).
 */
export function deepctQuerySet(
  queries: readonly { qid: string; text: string }[],
  qrels: ReadonlyMap<string, ReadonlyMap<string, number>>,
  docTerms: ReadonlyMap<string, readonly string[]> | null,
): DeepctQuerySet {
  const analyzer = createAnalyzer('terrier');
  const analysed = queries.map((q) => ({ qid: q.qid, terms: analyzer.analyze(q.text).map((t) => t.term) }));
  if (!docTerms) return { queries: analysed };
  const relevantTo = new Map<string, Set<string>[]>();
  for (const q of analysed) {
    const judged = qrels.get(q.qid);
    if (!judged || !q.terms.length) continue;
    const set = new Set(q.terms);
    for (const [docno, grade] of judged) {
      if (grade <= 0) continue;
      let list = relevantTo.get(docno);
      if (!list) relevantTo.set(docno, (list = []));
      list.push(set);
    }
  }
  const qtr: Record<string, Record<string, number>> = {};
  for (const [docno, sets] of relevantTo) {
    const terms = docTerms.get(docno);
    if (!terms) continue;
    const row: Record<string, number> = {};
    for (const t of terms) row[t] = sets.filter((s) => s.has(t)).length / sets.length;
    qtr[docno] = row;
  }
  return { queries: analysed, qtr };
}
