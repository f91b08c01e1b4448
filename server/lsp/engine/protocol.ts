/**
 * Types of the engine's custom LSP requests (`querylens/preview`, `querylens/explain`,
 * `querylens/compare`, and the whole-file ones `querylens/runFile`, `querylens/weighFile`,
 * `querylens/buildIndex`) and of the result-preview command. This file is the contract with
 * the clients: docs/LSP_EXTENSIONS.md records its SHA-256, and test/lsp/engine/protocol.test.ts
 * fails when the file changes without the documentation being updated.
 *
 * Offsets are UTF-16 code units; ranks are 1-based; `null` means "not applicable" (no qrels,
 * not retrieved), never "unknown because of an error" (errors are JSON-RPC errors).
 */

export const PREVIEW_REQUEST = 'querylens/preview';
export const EXPLAIN_REQUEST = 'querylens/explain';
export const COMPARE_REQUEST = 'querylens/compare';
export const RUN_FILE_REQUEST = 'querylens/runFile';
export const WEIGH_FILE_REQUEST = 'querylens/weighFile';
export const BUILD_INDEX_REQUEST = 'querylens/buildIndex';
/** Command of the result-preview code lens: arguments `[qid, uri]`; the client opens its results panel. */
export const SHOW_RESULTS_COMMAND = 'querylens.showResults';

/** Which query of which document. */
export interface QueryRef {
  uri: string;
  /** The query id as written in the file (line files: the qid column or the line number). */
  qid: string;
  /**
   * The document version the client saw. When given and the server holds a newer version,
   * the request fails with ContentModified (-32801): the answer would describe stale text.
   */
  version?: number;
}

export interface PreviewParams extends QueryRef {
  /** Hits to return (default 10, at most 1000). Metrics always use the top 1000. */
  k?: number;
  /** Hits to skip first (paging: offset 10, k 10 is ranks 11..20; default 0; offset + k at most 1000). */
  offset?: number;
  /** Include each hit's explanation tree (default true). */
  explain?: boolean;
}

export interface ExplanationNode {
  value: number;
  description: string;
  children: ExplanationNode[];
  /** Only on the root: false when the query would not retrieve the document. */
  matched?: boolean;
}

export interface Snippet {
  /** A passage of the document text ('…' marks cut ends). */
  text: string;
  /** [start, end) offsets into `text` of words that match a query term. */
  highlights: [number, number][];
}

export interface PreviewHit {
  rank: number;
  docno: string;
  title: string;
  snippet: Snippet;
  score: number;
  explanation?: ExplanationNode;
  /** Qrels relevance (-1.. as judged); null when the document is not judged or no qrels are set. */
  relevance: number | null;
}

/** trec_eval measures of one query: ndcg_cut_10, map, P_10, recall_100, recip_rank. */
export type QueryMetrics = Record<string, number>;

export interface PreviewResult {
  qid: string;
  /** The query text as parsed. */
  query: string;
  version: number;
  /** Documents the query matched (before the top-k cut). */
  matchedDocs: number;
  hits: PreviewHit[];
  /** Present when qrels are configured and judge this qid; else null. */
  metrics: QueryMetrics | null;
  /** The `offset` the hits start after (their ranks are offset + 1 …). */
  offset: number;
  /**
   * "Why not": the documents the qrels judge relevant (grade > 0) that are not in the top offset + k,
   * best grade first, at most 50; rank is null when the query does not retrieve them in its top 1000.
   * Empty when no qrels judge the query.
   */
  relevantNotShown: { docno: string; title: string; relevance: number; rank: number | null }[];
  /** Engine warnings (stopwords, unknown terms, unsupported operators). */
  warnings: { code: string; message: string }[];
  /** The scorer and its parameters. */
  scorer: { name: string; k1: number; b: number; mu: number };
}

export interface ExplainParams extends QueryRef {
  docno: string;
}

export interface ExplainResult {
  qid: string;
  docno: string;
  title: string;
  /** Rank in the top 1000, or null when the document is not among them. */
  rank: number | null;
  /** The document's score; null when the query would not retrieve it. */
  score: number | null;
  explanation: ExplanationNode;
  relevance: number | null;
}

export interface CompareParams extends QueryRef {
  /** Rows of the side-by-side lists (default 10). */
  k?: number;
}

export interface RankedEntry {
  rank: number;
  docno: string;
  title: string;
  score: number;
  relevance: number | null;
}

export interface RankedVariant {
  /**
   * 'original' | 'bo1' | 'learned' (the learned expansion) | 'weighted' (TW-BERT) | 'learned+bo1+weighted' (the
   * TW-BERT query, its learned expansion, then Bo1) | 'learned+bo1' (the same without a weighting model).
   */
  name: string;
  /** The query that was run, in the document's dialect. */
  query: string;
  hits: RankedEntry[];
  metrics: QueryMetrics | null;
}

export interface CompareRow {
  docno: string;
  title: string;
  relevance: number | null;
  /** Rank in each variant (top 1000), by variant name; null when not retrieved. */
  ranks: Record<string, number | null>;
  /** originalRank − variantRank per non-original variant (positive = moved up); null when either is absent. */
  change: Record<string, number | null>;
}

export interface CompareResult {
  qid: string;
  version: number;
  variants: RankedVariant[];
  /** Union of the variants' top k, ordered by the best rank in any variant. */
  rows: CompareRow[];
  /** Bo1 terms that were added or reweighted (analysed forms). */
  expansionTerms: { term: string; weight: number; isOriginal: boolean }[];
  /** variant metric − original metric, per non-original variant; null without qrels. */
  deltas: Record<string, QueryMetrics> | null;
  /** Why a variant is absent (e.g. no weighting model loaded), or why the learned model suggests nothing. */
  notes: string[];
  /** The learned expansion's suggestions for the query as written (the `learned` variant), per query word; absent without that variant. */
  learned?: { word: string; alternatives: { word: string; weight: number }[] }[];
}

/** A whole document (every query in it). */
export interface DocumentRef {
  uri: string;
  /** As in QueryRef: a newer server version fails the request with ContentModified (-32801). */
  version?: number;
}

export interface RunFileParams extends DocumentRef {
  /** Documents per query (default 1000, at most 10000). */
  k?: number;
  /** Run tag, the last column (default "querylens"; one word, no spaces). */
  tag?: string;
  /**
   * Rank with this scorer of the registry instead of querylens.json's (its k1, b, mu carry over);
   * one of the result's `scorers`. For comparing scorers side by side on the scoreboard.
   */
  scorer?: string;
}

export interface RunFileResult {
  version: number;
  /** TREC run lines `qid Q0 docno rank score tag\n`, queries in file order (as `querylens search`). */
  text: string;
  /** Queries ranked (each gives 0..k lines). */
  queries: number;
  /** Lines in `text`. */
  lines: number;
  /** Queries left out of the run, with the reason (syntax errors, empty query). */
  skipped: { qid: string; reason: string }[];
  /** trec_eval means over the run's queries the qrels judge; null without qrels. */
  metrics: { mean: QueryMetrics; perQuery: Record<string, QueryMetrics>; judged: number } | null;
  /** The scorer that ranked (querylens.json's, or `scorer` of the request). */
  scorer: { name: string; k1: number; b: number; mu: number };
  /** The scorers that can rank this index, for a `scorer` in a later request. */
  scorers: string[];
  /** Pseudo-relevance feedback applied before the final ranking (configuration `expansion`). */
  expansion: { method: string; fbDocs: number; fbTerms: number } | null;
}

export interface TextEditLike {
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  newText: string;
}

export interface WeighFileResult {
  version: number;
  /** 'twbert' | 'deepct'. */
  model: string;
  /** Where the model ran ('cpu' | 'cuda'). */
  device: string;
  /** One edit per weighed query, each exactly the "Apply … weights" code action's edit (a WorkspaceEdit). */
  edit: { changes: Record<string, TextEditLike[]> };
  /** Queries the edit rewrites, with their new text. */
  weighed: { qid: string; text: string }[];
  /** Queries the model cannot weigh, with the reason; the edit leaves them unchanged. */
  notWeighed: { qid: string; reason: string }[];
  /** The model's notices (e.g. a CPU fallback). */
  notices: string[];
}

export interface BuildIndexParams {
  /** LSP work-done progress token (WorkDoneProgressParams); without one the server creates its own progress. */
  workDoneToken?: number | string;
}

export interface BuildIndexResult {
  /** Absolute paths from the configuration (`corpus`, `index`). */
  corpus: string;
  index: string;
  docs: number;
  terms: number;
  seconds: number;
}
