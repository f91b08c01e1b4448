/**
 * Ranked retrieval over an IndexReader: `search`, `scoreDocument` and `explain` for any
 * query AST, under Terrier BM25 (default, SEMANTICS.md §4.1), Lucene BM25 (SEMANTICS.md §4.2) or Indri
 * query likelihood (SEMANTICS.md §1.5–1.6). The semantics of each scorer are described in
 * scoring/compile.ts; the formulas live in scoring/{terrier-bm25,lucene-bm25,dirichlet}.ts.
 *
 * Queries scored or explained document by document are compiled once per (reader, ast, options) and
 * cached weakly, so scoring every document of a collection one by one costs one compilation.
 */
import type { QueryAst } from '../../grammar/ast.js';
import type { IndexReader } from './index/reader.js';
import type { ExplainNode } from './scoring/explain.js';
import { PreparedQuery, type SearchOptions, type SearchResult } from './scoring/prepared.js';

export type { ScorerName } from './scoring/scorers.js';
export { SCORER_NAMES } from './scoring/scorers.js';
export type { ExplainNode } from './scoring/explain.js';
export { renderExplain } from './scoring/explain.js';
export { compareRanked } from './scoring/ranking.js';
export type { ConceptInfo, ResolvedParameters, SearchHit, SearchOptions, SearchResult, WindowStats } from './scoring/prepared.js';
export { PreparedQuery, resolveParameters } from './scoring/prepared.js';

const cache = new WeakMap<IndexReader, WeakMap<QueryAst, Map<string, PreparedQuery>>>();

/** The cache key of a query's options: every option but k (a compiled query serves any k). */
function optionsKey(options: SearchOptions): string {
  const { k: _k, ...rest } = options;
  return JSON.stringify(rest, Object.keys(rest).sort());
}

/** The compiled query for these arguments (cached while the reader and AST objects live). */
export function prepareQuery(reader: IndexReader, ast: QueryAst, options: SearchOptions = {}): PreparedQuery {
  const key = optionsKey(options);
  let byAst = cache.get(reader);
  if (!byAst) cache.set(reader, (byAst = new WeakMap()));
  let byOptions = byAst.get(ast);
  if (!byOptions) byAst.set(ast, (byOptions = new Map()));
  let prepared = byOptions.get(key);
  if (!prepared) byOptions.set(key, (prepared = new PreparedQuery(reader, ast, options)));
  return prepared;
}

/**
 * The top `options.k` (default 1000) documents, best first (ties: docno descending, SEMANTICS.md §6.2).
 * It reuses a compiled query that scoreDocument or explain cached, but does not cache its own: a
 * loop of searches that cached each one kept every compiled query alive until a full collection,
 * V8 then allocated compiled queries straight into the old generation, and the garbage they held
 * made every young-generation collection slow (a fifth of a small collection's query time).
 */
export function search(reader: IndexReader, ast: QueryAst, options: SearchOptions = {}): SearchResult {
  const prepared = cache.get(reader)?.get(ast)?.get(optionsKey(options)) ?? new PreparedQuery(reader, ast, options);
  return prepared.search(options.k ?? 1000);
}

/** One document's score, or null when the query would not retrieve it. */
export function scoreDocument(reader: IndexReader, ast: QueryAst, doc: number, options: SearchOptions = {}): number | null {
  return prepareQuery(reader, ast, options).scoreDocument(doc);
}

/**
 * Why a document scores what it does, for any document: the root's value equals its search
 * score exactly; `matched: false` (with the reason in the description) for one the query
 * would not retrieve.
 */
export function explain(reader: IndexReader, ast: QueryAst, doc: number, options: SearchOptions = {}): ExplainNode {
  return prepareQuery(reader, ast, options).explain(doc);
}

export { formatRunLines } from './scoring/run.js';
