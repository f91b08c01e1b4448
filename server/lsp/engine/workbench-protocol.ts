/**
 * Types of the workbench's custom LSP requests: the parameter sweep (`querylens/sweep`) and the
 * index browser (`querylens/indexTerms`, `querylens/postings`, `querylens/document`,
 * `querylens/analyze`). This file is a contract with the clients like protocol.ts:
 * docs/LSP_EXTENSIONS.md records its SHA-256, and test/lsp/engine/workbench-requests.test.ts
 * fails when the file changes without the documentation being updated.
 */
import type { DocumentRef, QueryRef, TextEditLike } from './protocol.js';

export const SWEEP_REQUEST = 'querylens/sweep';
export const INDEX_TERMS_REQUEST = 'querylens/indexTerms';
export const POSTINGS_REQUEST = 'querylens/postings';
export const DOCUMENT_REQUEST = 'querylens/document';
export const ANALYZE_REQUEST = 'querylens/analyze';
export const JUDGE_REQUEST = 'querylens/judge';
export const COMPARE_TRIES_REQUEST = 'querylens/compareTries';

export interface SweepParams extends DocumentRef {
  /** 'bm25' sweeps k1 and b, 'ql' sweeps mu; default: ql when mu is given, else bm25 when k1 or b is, else the configured scorer. */
  scorer?: 'bm25' | 'ql';
  /** Values per parameter; a parameter left out keeps its configured value. fbDocs or fbTerms turn Bo1 on. */
  k1?: number[];
  b?: number[];
  mu?: number[];
  fbDocs?: number[];
  fbTerms?: number[];
  /** trec_eval measures (default ndcg_cut_10, map, P_10, recall_100, recip_rank). */
  measures?: string[];
  /** The measure that picks the best setting (default: the first of measures). */
  by?: string;
}

export interface SweepSettingResult {
  scorer: 'bm25' | 'ql';
  /** Absent on a cluster, whose index's similarity settings score every setting. */
  k1?: number;
  b?: number;
  mu?: number;
  bo1: { fbDocs: number; fbTerms: number } | null;
}

export interface SweepRowResult {
  setting: SweepSettingResult;
  /** trec_eval means over the evaluated queries. */
  mean: Record<string, number>;
  /** Queries evaluated (a written id the qrels judge, and at least one document retrieved). */
  queries: number;
}

export interface SweepResult {
  version: number;
  measures: string[];
  by: string;
  rows: SweepRowResult[];
  /** Index into rows of the best setting (highest `by`, the first in grid order on a tie). */
  best: number;
  /** Queries left out (syntax errors, empty), with the reason; implied-id queries are ranked but not judged. */
  skipped: { qid: string; reason: string }[];
  /**
   * The edit that writes the best setting into the workspace's querylens.json, changing only those
   * values (apply it with workspace/applyEdit); null when there is no such file or it cannot be kept
   * as it is (`configEditRefused` says why).
   */
  configEdit: { changes: Record<string, TextEditLike[]> } | null;
  configEditRefused: string | null;
  /** On a cluster: what the sweep varied and what scored it (the cluster's own similarity). */
  note?: string;
}

export interface IndexTermsParams {
  /** Terms to return (default 25, at most 10000). */
  top?: number;
  /** Only analysed terms starting with this (lowercased). */
  prefix?: string;
}

export interface IndexTermsResult {
  numDocs: number;
  /** Vocabulary terms with the prefix (all terms without one). */
  matching: number;
  /** Most frequent first by df, then cf, then the term (on a cluster: in term order, see `note`). */
  terms: { term: string; df: number; cf: number | null }[];
  /** On a cluster: what the list is and where its numbers come from. */
  note?: string;
}

export interface PostingsParams {
  /** A term as a user writes it; analysed like a query term (lowercased, stemmed, stopped). */
  term: string;
  /** Lowercase only, no stemming (an Indri "quoted" term). */
  raw?: boolean;
  /** Documents listed (default 20, at most 10000). */
  maxDocs?: number;
  /** Positions listed per document (default 10, at most 1000). */
  maxPositions?: number;
}

export interface PostingsResult {
  /** The analysed term looked up. */
  term: string;
  /** False when the index does not hold the term (df and cf are then 0 and postings empty). */
  found: boolean;
  df: number;
  cf: number;
  /** In document order; `positionsCut` when a document has more positions than listed. */
  postings: { docno: string; tf: number; positions: number[]; positionsCut: boolean }[];
  /** True when df is larger than the postings listed. */
  cut: boolean;
}

export interface DocumentParams {
  docno: string;
  /** Terms of the term vector (default 50, at most 100000). */
  maxTerms?: number;
}

export interface DocumentResult {
  docno: string;
  /** Internal document number (index order); null on a cluster, which has none to show. */
  doc: number | null;
  title: string;
  fields: Record<string, string>;
  /** Indexed tokens after stopping. */
  length: number;
  /** Indexed fields with their token extents [begin, end). */
  extents: Record<string, [number, number][]>;
  /** Term vector, most frequent first: analysed term, tf, positions (on a cluster, per search field: `field`). */
  terms: { term: string; tf: number; positions: number[]; field?: string }[];
  distinctTerms: number;
  /** On a cluster: where the fields and the term vector come from. */
  note?: string;
}

export interface AnalyzeParams {
  text: string;
}

export interface AnalyzeResult {
  /** The analyser profile ('terrier' | 'lucene'): the loaded index's, else 'terrier'. */
  profile: string;
  /** False without a loaded index: no df/cf, and `note` says why. */
  indexed: boolean;
  note: string | null;
  /** Every word in order; a stopword has term and position null. df/cf null: not in the index. */
  words: { surface: string; start: number; end: number; term: string | null; stopword: boolean; position: number | null; df?: number | null; cf?: number | null }[];
}

export interface JudgeParams extends QueryRef {
  docno: string;
  /** The relevance grade to record (an integer; 0 = judged not relevant). */
  grade: number;
}

export interface JudgeResult {
  /** The qrels file written (absolute path, the configuration's `qrels`). */
  qrels: string;
  /** 1-based line that holds the judgement now. */
  line: number;
  /** 'replaced': the one line that judged this (qid, docno) got the new grade; 'appended': a line was added; 'unchanged': it already held the grade (nothing written). */
  action: 'appended' | 'replaced' | 'unchanged';
  /** The grade before; null when the document was not judged for the query. */
  previous: number | null;
}

/**
 * Two forms. Two tries: `baseline` and `treatment` → `CompareTriesResult`. Two or more: `tries` (and
 * optionally `baselineIndex`) → `CompareTryListResult`. Give one form or the other, not both.
 */
export interface CompareTriesParams {
  /** Per-query metrics of each try (qid → measure → value), e.g. `querylens/runFile`'s `metrics.perQuery`. */
  baseline?: Record<string, Record<string, number>>;
  treatment?: Record<string, Record<string, number>>;
  /** Two or more tries' per-query metrics, side by side in this order. */
  tries?: Record<string, Record<string, number>>[];
  /** With `tries`: the index of the try every other is tested against (default 0, the first). */
  baselineIndex?: number;
  /** Measures to test (default: every measure of the first query of the baseline). */
  measures?: string[];
  /** 't' (paired t-test, default) or 'randomization' (paired sign-flip test, fixed seed). */
  test?: 't' | 'randomization';
}

export interface CompareTriesResult {
  test: 't' | 'randomization';
  /** Queries both tries evaluated: the pairs of each test. */
  queries: number;
  /** One paired test per measure; `pHolm` is Holm-adjusted across the measures. p is null when undefined (fewer than two pairs). */
  rows: { measure: string; baselineMean: number | null; treatmentMean: number | null; meanDifference: number | null; p: number | null; pHolm: number | null }[];
}

export interface CompareTryListResult {
  test: 't' | 'randomization';
  /** The try every other one is tested against. */
  baselineIndex: number;
  /** Queries every try evaluated. */
  queries: number;
  /** Tests the Holm correction spans: (tries − 1) × measures, less those undefined (fewer than two pairs). */
  comparisons: number;
  /**
   * One row per measure over the queries every try scored with it (`pairs`); `cells[i]` is try i: its
   * mean and, except for the baseline (nulls), the difference from the baseline's mean, the two-sided
   * paired p-value and `pHolm`, Holm-adjusted across every (try × measure) test. p is null when undefined.
   */
  rows: { measure: string; pairs: number; cells: { mean: number | null; meanDifference: number | null; p: number | null; pHolm: number | null }[] }[];
}
