/**
 * The one interface both kinds of collection implement: the embedded local index (LocalSearchBackend,
 * local-search-backend.ts) and an OpenSearch / Elasticsearch cluster (ClusterSearchBackend,
 * cluster-search-backend.ts). A cluster answers over the network, so every operation is asynchronous;
 * the local engine answers at once and wraps its answers in promises.
 *
 * Documents are named by their collection id (`docno`: the TREC docno, the cluster's `_id`), the one
 * name both kinds share. What only the local engine can answer synchronously and exactly (compiled
 * queries, lint, the model's n-gram statistics: the editor's keystroke-time features) stays on the
 * richer LocalBackend (backend.ts).
 *
 * The operations written once over this interface are below (rankWithFeedback, explainWithRank): the
 * CLI's `search --backend-config` and `compare --queries` run them on either kind.
 */
import type { QueryAst } from '../../grammar/ast.js';
import type { QueryDiagnostic } from '../../grammar/diagnostics.js';
import type { ExpansionTerm } from '../engine/expansion/index.js';
import { DEFAULT_FEEDBACK_DOCS } from '../engine/expansion/feedback.js';
import type { StoredDocument } from '../engine/index/reader.js';
import type { ExplainNode, SearchOptions } from '../engine/search.js';
import type { Snippet } from './snippets.js';

export interface BackendHit {
  docno: string;
  score: number;
  /** For the first `describe` hits of the search (options.describe): the document's title (or first words) and a snippet. */
  title?: string;
  snippet?: Snippet;
}

export interface BackendRanking {
  /** Best first, at most k. */
  hits: BackendHit[];
  /** Documents the query matches (before the top-k cut; a lower bound where the backend prunes). */
  matchedDocs: number;
  /** About the query as written: the engine's warnings (stopwords, unknown terms), or what the cluster evaluates differently. */
  diagnostics: QueryDiagnostic[];
}

export interface BackendSearchOptions extends SearchOptions {
  /** Documents to return (default 1000). */
  k?: number;
  /** How many of the leading hits get a title and a snippet (default 10; 0 for a run file). */
  describe?: number;
}

export interface BackendTermStatistics {
  /** The index term (analysed). */
  term: string;
  /** Documents holding it. */
  df: number;
  /** Its occurrences, where the backend counts them (null: it does not). */
  cf: number | null;
}

export interface BackendCollectionStatistics {
  numDocs: number;
  /** Tokens in the collection, where the backend says (null: a cluster's index does not, in one request). */
  totalTokens: number | null;
}

export interface BackendWindow {
  /** true: the words in order within `width` positions of each other (`#odN`, `#1` = a phrase); false: in any order within a window of `width` (`#uwN`). */
  ordered: boolean;
  width: number;
}

/** The Indri operator of a window of `words` (`#odN` / `#uwN`); RangeError for words or a width a window cannot have. */
export function windowOperator(words: readonly string[], window: BackendWindow): string {
  if (words.length === 0) throw new RangeError('a window needs at least one word');
  const bad = words.find((w) => !/^[\p{L}\p{N}]+$/u.test(w));
  if (bad !== undefined) throw new RangeError(`a window's words are single words of letters and digits, got ${JSON.stringify(bad)}`);
  if (!Number.isInteger(window.width) || window.width < 1) throw new RangeError(`a window's width is a positive integer, got ${window.width}`);
  return window.ordered ? `#od${window.width}` : `#uw${window.width}`;
}

export interface BackendExpansionOptions {
  method: 'bo1' | 'rm3';
  /** Expansion terms (default 10). */
  fbTerms?: number;
}

export interface BackendExpansion {
  /** The expanded query: runnable on the same backend with `search`. */
  ast: QueryAst;
  /** Every term of the expanded query with its weight; `isOriginal` for the query's own words. */
  terms: ExpansionTerm[];
  /** The feedback documents the expansion read. */
  feedbackDocnos: string[];
}

/**
 * A collection querylens can search: statistics, vocabulary, ranking with snippets, explanations,
 * feedback documents and expansion. Failures are thrown as the backend's own typed error (an IndexError or
 * a RangeError with the engine's message locally, a ClusterError with its kind on a cluster), never as a
 * silent empty answer.
 */
export interface SearchBackend {
  /** 'local', or the cluster's type. */
  readonly kind: 'local' | 'opensearch' | 'elasticsearch';
  /** Where the collection lives, for messages: "index /path", "opensearch https://host:9200/docs". */
  readonly location: string;

  collectionStatistics(): Promise<BackendCollectionStatistics>;
  /** Each index term `text` analyses to, with its statistics; a term the collection lacks has df 0. */
  termStatistics(text: string): Promise<BackendTermStatistics[]>;
  /** Documents (and, locally, occurrences) of a window of `words`: the statistics a `#1` / `#odN` / `#uwN` concept is scored with. */
  windowStatistics(words: readonly string[], window: BackendWindow): Promise<{ df: number; cf: number | null }>;
  /** Up to `size` index terms starting with `prefix`, in order; `complete` when there are no more. */
  vocabulary(prefix: string, size: number): Promise<{ terms: string[]; complete: boolean }>;

  search(ast: QueryAst, options?: BackendSearchOptions): Promise<BackendRanking>;
  /** Why the document scores what it does; `matched: false` when the query does not retrieve it. A docno the collection lacks is an error. */
  explain(ast: QueryAst, docno: string, options?: SearchOptions): Promise<ExplainNode>;
  /** The first pass's top `fbDocs` documents: what pseudo-relevance feedback reads. */
  feedbackDocuments(ast: QueryAst, fbDocs: number, options?: SearchOptions): Promise<string[]>;
  /** The query expanded with terms of the feedback documents, their statistics from this collection. */
  expand(ast: QueryAst, feedbackDocnos: readonly string[], options: BackendExpansionOptions): Promise<BackendExpansion>;
  /** A stored document; a docno the collection lacks is an error. */
  document(docno: string): Promise<StoredDocument>;
  /** Lets go of connections or files. */
  close(): Promise<void>;
}

export interface FeedbackRankingOptions extends BackendSearchOptions {
  /** Pseudo-relevance feedback before the final ranking: the first pass's top fbDocs (default 3 for Bo1, 10 for RM3) expanded by `method`. */
  expand?: BackendExpansionOptions & { fbDocs?: number };
}

export interface FeedbackRanking {
  /** The final ranking (of the expanded query when expanding); its diagnostics are those of the query as written. */
  ranking: BackendRanking;
  expansion: BackendExpansion | null;
}

/**
 * Ranks the query, or, with `expand`, the first pass → its feedback documents → the expansion → the expanded
 * query's ranking (SEMANTICS.md §4.5). The diagnostics are the written query's: the expanded one has no place
 * in the user's text.
 */
export async function rankWithFeedback(backend: SearchBackend, ast: QueryAst, options: FeedbackRankingOptions = {}): Promise<FeedbackRanking> {
  const { expand, ...search } = options;
  if (!expand) return { ranking: await backend.search(ast, search), expansion: null };
  const fbDocs = expand.fbDocs ?? DEFAULT_FEEDBACK_DOCS[expand.method];
  if (!Number.isInteger(fbDocs) || fbDocs < 1) throw new RangeError(`fbDocs must be a positive integer, got ${fbDocs}`);
  const first = await backend.search(ast, { ...search, k: fbDocs, describe: 0 });
  const expansion = await backend.expand(ast, first.hits.slice(0, fbDocs).map((h) => h.docno), { method: expand.method, fbTerms: expand.fbTerms });
  const ranking = await backend.search(expansion.ast, search);
  return { ranking: { ...ranking, diagnostics: first.diagnostics }, expansion };
}

export interface RankedExplanation {
  explanation: ExplainNode;
  /** The document's 1-based place in the query's top `depth`, null when it is not there. */
  rank: number | null;
  /** Documents the query matches. */
  matchedDocs: number;
}

/** The document's explanation with its place in the query's ranking (its top `depth`, default 1000). */
export async function explainWithRank(backend: SearchBackend, ast: QueryAst, docno: string, options: SearchOptions & { depth?: number } = {}): Promise<RankedExplanation> {
  const { depth = 1000, ...search } = options;
  const [explanation, ranking] = await Promise.all([backend.explain(ast, docno, search), backend.search(ast, { ...search, k: depth, describe: 0 })]);
  const at = explanation.matched === false ? -1 : ranking.hits.findIndex((h) => h.docno === docno);
  return { explanation, rank: at >= 0 ? at + 1 : null, matchedDocs: ranking.matchedDocs };
}
