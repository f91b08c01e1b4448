/**
 * One query of a document through the service layer (server/service), as the code lens, the custom
 * requests and the Bo1 action run it: with the session's scorer and expansion settings, and the
 * expanded query printed in the document's dialect.
 */
import { printIndri, translate, type QueryAst, type QueryEntry, type QueryNode } from '../../../grammar/index.js';
import { hasErrors } from '../../../grammar/diagnostics.js';
import type { ExpansionResult } from '../../engine/expansion/index.js';
import type { SearchResult } from '../../engine/search.js';
import { expandWithFeedback } from '../../service/ranking.js';
import type { EngineSession } from './session.js';

/** A query the engine can run: parsed without errors and not empty. */
export function runnable(entry: QueryEntry): boolean {
  return entry.result.ast.root !== null && !hasErrors(entry.result.diagnostics);
}

export function runQueryAst(session: EngineSession, ast: QueryAst, k: number): SearchResult {
  return session.backend.search(ast, { ...session.options, k });
}

export function bo1Expansion(session: EngineSession, ast: QueryAst): ExpansionResult {
  const { fbDocs, fbTerms } = session.config.expansion;
  return expandWithFeedback(session.backend, ast, { method: 'bo1', fbDocs, fbTerms }, session.options);
}

/** Weights rounded for people to read and edit; the ranking barely moves at 4 digits. */
function roundWeights(node: QueryNode, digits: number): QueryNode {
  const round = (w: number | undefined) => (w === undefined ? undefined : Number(w.toPrecision(digits)));
  switch (node.kind) {
    case 'belief':
    case 'synonym':
      return { ...node, items: node.items.map((it) => ({ ...it, weight: round(it.weight), node: roundWeights(it.node, digits) })) } as QueryNode;
    case 'filter':
      return { ...node, filter: roundWeights(node.filter, digits), scored: roundWeights(node.scored, digits) };
    case 'boost':
      return { ...node, boost: round(node.boost)!, child: roundWeights(node.child, digits) };
    default:
      return node;
  }
}

/** The expanded query as text of the document's dialect: Indri `#weight(...)`, Lucene `t^w …`. */
export function expandedQueryText(expansion: ExpansionResult, dialect: string, digits = 4): string {
  const ast: QueryAst = { ...expansion.ast, root: expansion.ast.root ? roundWeights(expansion.ast.root, digits) : null };
  if (dialect === 'lucene') return translate(ast, 'lucene').text;
  return printIndri(ast);
}
