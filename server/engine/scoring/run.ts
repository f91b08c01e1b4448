/**
 * Batch retrieval for run files: one query (optionally with pseudo-relevance feedback) to a
 * ranked list, and TREC run lines (SEMANTICS.md §1.7 output format, §6.1 reader).
 */
import type { QueryAst } from '../../../grammar/ast.js';
import type { QueryDiagnostic } from '../../../grammar/diagnostics.js';
import type { IndexReader } from '../index/reader.js';
import { DEFAULT_FEEDBACK_DOCS, expandQuery, selectFeedbackDocs, type ExpansionMethod, type ExpansionResult } from '../expansion/index.js';
import { PreparedQuery, type SearchHit, type SearchOptions } from './prepared.js';

export interface FeedbackOptions {
  method: ExpansionMethod;
  /** Feedback documents (default: Bo1 3 as Terrier, RM3 10 as Indri). */
  fbDocs?: number;
  /** Expansion terms (default 10). */
  fbTerms?: number;
}

export interface RunQueryOptions extends SearchOptions {
  expand?: FeedbackOptions;
}

export interface QueryRun {
  hits: SearchHit[];
  warnings: QueryDiagnostic[];
  /** The expansion used for the second pass, when `expand` was given. */
  expansion?: ExpansionResult;
}

/**
 * Ranks one query. With `expand`, a first pass picks the top fbDocs documents, the query is
 * expanded from them (server/engine/expansion) and the expanded query is ranked with the same
 * scorer and parameters.
 */
export function runQuery(reader: IndexReader, ast: QueryAst, options: RunQueryOptions = {}): QueryRun {
  const { expand, ...searchOptions } = options;
  const k = options.k ?? 1000;
  const first = new PreparedQuery(reader, ast, searchOptions);
  if (!expand) {
    const r = first.search(k);
    return { hits: r.hits, warnings: r.warnings };
  }
  const fbDocs = expand.fbDocs ?? DEFAULT_FEEDBACK_DOCS[expand.method];
  const firstHits = first.search(Math.max(fbDocs, 1)).hits;
  const expansion = expandQuery(reader, ast, selectFeedbackDocs(firstHits, fbDocs), { method: expand.method, fbTerms: expand.fbTerms });
  const second = new PreparedQuery(reader, expansion.ast, searchOptions).search(k);
  return { hits: second.hits, warnings: first.warnings, expansion };
}

/** `qid Q0 docno rank score runid` lines; the score in full (shortest round-trip) precision. */
export function formatRunLines(qid: string, hits: readonly SearchHit[], runId: string): string {
  let out = '';
  for (let i = 0; i < hits.length; i++) out += `${qid} Q0 ${hits[i]!.docno} ${i + 1} ${hits[i]!.score} ${runId}\n`;
  return out;
}
