/**
 * Why one document scores what it does for a query, and where it ranks: `querylens explain` and the
 * editor's `querylens/explain` request.
 */
import type { QueryAst } from '../../grammar/ast.js';
import type { QueryDiagnostic } from '../../grammar/diagnostics.js';
import type { ExplainNode, ResolvedParameters, SearchOptions } from '../engine/search.js';
import type { LocalBackend } from './backend.js';

export interface DocumentExplanation {
  /** The formula tree; its value equals the document's score, `matched: false` when the query does not retrieve it. */
  explanation: ExplainNode;
  /** 1-based rank among the matching documents (within `depth`), null when not retrieved there. */
  rank: number | null;
  /** Documents the query matches (before any cut). */
  matchingDocs: number;
  parameters: ResolvedParameters;
  /** Warnings about the query (stopwords, unknown terms, …). */
  warnings: QueryDiagnostic[];
}

/**
 * Explains `doc` for the query; its rank is looked for in the top `depth` documents (default: all
 * of them, which answers "why is it not in my top k?").
 */
export function explainDocument(backend: LocalBackend, ast: QueryAst, doc: number, options: SearchOptions, depth?: number): DocumentExplanation {
  const compiled = backend.compile(ast, options);
  const explanation = backend.explain(ast, doc, options);
  const ranked = backend.search(ast, { ...options, k: depth ?? Math.max(1, backend.collectionStatistics().numDocs) });
  const at = explanation.matched === false ? -1 : ranked.hits.findIndex((h) => h.doc === doc);
  return { explanation, rank: at >= 0 ? at + 1 : null, matchingDocs: ranked.matchedDocs, parameters: compiled.parameters, warnings: compiled.warnings };
}
