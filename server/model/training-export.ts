/**
 * Training data for the term-weighting models, with EVERY document statistic taken from the engine
 * (the index reader, its analyser, its concept evaluator and its BM25 search), so that the Python
 * BM25 the model is trained through is the engine's BM25. One JSON object per query:
 *
 * {
 *   "qid": "12", "query": "…", "source": "scifact-train",
 *   "N": 5183, "avgdl": 123.4,                      // collection statistics (Terrier: tokens/docs)
 *   "ids": [101, …, 102],                            // wordpieces, [CLS] … [SEP]
 *   "ngrams": [{"terms": ["flow"], "concept": 0, "tokens": [1]}, …],   // uni-grams then bi-grams,
 *                                                    // one per occurrence; tokens = pooled wordpieces;
 *                                                    // with --stats also "stats": {idf, ictf, pairRatio,
 *                                                    // topShare, bo1} (collection-statistics.ts)
 *   "concepts": [{"key": "flow", "terms": ["flow"], "df": 80, "cf": 120}, …],  // distinct n-grams;
 *                                                    // bi-gram statistics are the engine's exact #1 window
 *   "docs": [{"docno": "4983", "dl": 143, "rel": 1, "rank": 3, "bm25": 12.3,
 *             "tf": [[0, 2], [3, 1]]}, …]            // [concept, tf] for concepts with tf > 0
 * }
 *
 * docs = the uniform-weight BM25 top k (rank 1..k; `bm25` = its engine score) ∪ every judged
 * document of the query (`rel` = the qrels grade; null when unjudged; rank null when outside top k).
 *
 * With an expansion (`export-training --expand bo1`, TW-BERT + Bo1 of the paper's §5.3): "query" is
 * the text the model reads (the query, a space, the Bo1 words: server/service/ranking.ts bo1ModelInput),
 * "queryEnd" where the query ends in it, every n-gram after it has "expansion": true (uni-grams only:
 * bi-grams are kept inside the query, as rankQueries keeps them), and the candidates are the top k of
 * the engine's Bo1-expanded query (rank and bm25 of that ranking), so that documents found only
 * through expansion words are among them.
 */
import type { QueryAst } from '../../grammar/ast.js';
import type { IndexReader } from '../engine/index/reader.js';
import { ConceptEvaluator, indexOfDoc, type ConceptPostings } from '../engine/scoring/concepts.js';
import { search } from '../engine/search.js';
import { segmentQuery } from './segment.js';
import { encodeQuery, encodeQueryWindows, type HfTokenizer } from './tokenize.js';
import { buildWeightedQueryAst } from './weighted-query.js';
import { queryStatistics, type NgramStatistics, type StatisticsExpansion } from './collection-statistics.js';
import { conceptSpecOf, uniformWeights } from './ngram-concepts.js';

// Re-exported for the tests and scripts that import them from here.
export { conceptSpecOf, uniformWeights };

export interface TrainingDoc {
  docno: string;
  dl: number;
  rel: number | null;
  rank: number | null;
  bm25: number | null;
  tf: [number, number][];
}

export interface TrainingRecord {
  qid: string;
  query: string;
  source?: string;
  N: number;
  avgdl: number;
  ids: number[];
  ngrams: { terms: string[]; concept: number; tokens: number[]; expansion?: true; stats?: NgramStatistics }[];
  concepts: { key: string; terms: string[]; df: number; cf: number }[];
  docs: TrainingDoc[];
  /** With an expansion: UTF-16 length of the original query inside `query`. */
  queryEnd?: number;
  /**
   * A query longer than the encoder's window: the overlapping windows run time reads it in
   * (tokenize.ts encodeQueryWindows), each with the n-grams (indices into `ngrams`) it weighs and their
   * pooled token indices, so training reads every n-gram as the runtime does. Absent for a query that fits.
   */
  windows?: { ids: number[]; ngrams: number[]; ngramTokens: number[][] }[];
}

export interface TrainingExportOptions {
  /** Uniform BM25 candidates per query (default 1000). */
  k?: number;
  maxTokens?: number;
  source?: string;
  /** TW-BERT + Bo1: `text` is the expanded model input (bo1ModelInput), the query ends at `queryEnd`, and `candidates` is the query that ranks the candidate documents (Bo1's expanded query). */
  expansion?: { queryEnd: number; candidates: QueryAst; statistics: StatisticsExpansion };
  /** Also each n-gram's collection statistics (collection-statistics.ts, field "stats"), as run time computes them. */
  statistics?: boolean;
}

export async function exportTrainingRecord(
  reader: IndexReader,
  tokenizer: HfTokenizer,
  evaluator: ConceptEvaluator,
  qid: string,
  text: string,
  judged: Map<string, number> | undefined,
  options: TrainingExportOptions = {},
): Promise<TrainingRecord> {
  const k = options.k ?? 1000;
  const seg = segmentQuery(text, reader.analyzer);
  const maxTokens = options.maxTokens ?? 128;
  const enc = await encodeQuery(tokenizer, seg, maxTokens);
  const windows = await encodeQueryWindows(tokenizer, seg, maxTokens);
  const exportedIndex = new Map<number, number>();
  const conceptIndex = new Map<string, number>();
  const concepts: TrainingRecord['concepts'] = [];
  const postings: ConceptPostings[] = [];
  const queryEnd = options.expansion?.queryEnd;
  const ngrams: TrainingRecord['ngrams'] = [];
  const statistics = options.statistics ? queryStatistics(reader, text, { evaluator, expansion: options.expansion?.statistics }).ngrams : undefined;
  seg.ngrams.forEach((g, i) => {
    const start = seg.words[g.wordIndices[0]].start;
    const end = seg.words[g.wordIndices[g.wordIndices.length - 1]].end;
    // As rankQueries: bi-grams only inside the query (restrictBigramsToQuery).
    if (queryEnd !== undefined && g.terms.length > 1 && end > queryEnd) return;
    const key = g.terms.length === 1 ? g.terms[0] : `#1(${g.terms.join(' ')})`;
    let c = conceptIndex.get(key);
    if (c === undefined) {
      c = concepts.length;
      conceptIndex.set(key, c);
      const p = evaluator.materialize(conceptSpecOf(g.terms));
      postings.push(p);
      concepts.push({ key, terms: g.terms, df: p.df, cf: p.cf });
    }
    const ngram: TrainingRecord['ngrams'][number] = { terms: g.terms, concept: c, tokens: enc.ngramTokens[i] };
    if (statistics) ngram.stats = statistics[i].stats;
    exportedIndex.set(i, ngrams.length);
    ngrams.push(queryEnd !== undefined && start >= queryEnd ? { ...ngram, expansion: true } : ngram);
  });

  // Candidates: the engine's uniform BM25 (plain bag of uni-grams, query term frequency kept), or
  // with an expansion the engine's Bo1-expanded query.
  const candidateAst: QueryAst = options.expansion?.candidates ?? buildWeightedQueryAst(uniformWeights(text, reader, false), { digits: 0 });
  const hits = candidateAst.root ? search(reader, candidateAst, { scorer: 'bm25', k }).hits : [];
  const docs = new Map<number, TrainingDoc>();
  const add = (doc: number, rank: number | null, bm25: number | null) => {
    const docno = reader.docno(doc);
    const tf: [number, number][] = [];
    postings.forEach((p, c) => {
      const i = indexOfDoc(p.docs, doc);
      if (i >= 0) tf.push([c, p.tfs[i]]);
    });
    docs.set(doc, { docno, dl: reader.docLength(doc), rel: judged?.get(docno) ?? null, rank, bm25, tf });
  };
  hits.forEach((h, r) => add(h.doc, r + 1, h.score));
  for (const docno of judged?.keys() ?? []) {
    const doc = reader.docByDocno(docno);
    if (doc !== undefined && !docs.has(doc)) add(doc, null, null);
  }
  const stats = reader.stats();
  return {
    qid,
    query: text,
    ...(options.source ? { source: options.source } : {}),
    N: stats.numDocs,
    avgdl: stats.numDocs > 0 ? stats.totalTokens / stats.numDocs : 0,
    ids: enc.ids,
    ngrams,
    concepts,
    docs: [...docs.values()],
    ...(queryEnd !== undefined ? { queryEnd } : {}),
    ...(windows.length > 1
      ? {
          windows: windows.map((w) => {
            const kept = w.ngrams.map((g, j) => [exportedIndex.get(g), w.ngramTokens[j]] as const).filter(([g]) => g !== undefined);
            return { ids: w.ids, ngrams: kept.map(([g]) => g!), ngramTokens: kept.map(([, t]) => t) };
          }),
        }
      : {}),
  };
}
