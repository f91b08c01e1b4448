/**
 * One query of a document through the service layer (server/service), as the code lens, the custom
 * requests and the Bo1 action run it: with the session's scorer and expansion settings, and the
 * expanded query printed in the document's dialect.
 */
import { printIndri, translate, walk, type QueryAst, type QueryEntry, type QueryNode, type TermNode } from '../../../grammar/index.js';
import { hasErrors } from '../../../grammar/diagnostics.js';
import type { ExpansionResult } from '../../engine/expansion/index.js';
import { withExpansionWords } from '../../engine/expansion/expansion-words.js';
import type { SurfaceForm } from '../../engine/expansion/surface-forms.js';
import type { SearchResult } from '../../engine/search.js';
import { expandWithFeedback } from '../../service/ranking.js';
import type { EngineSession } from './session.js';

/** A query the engine can run: parsed without errors and not empty. */
export function runnable(entry: QueryEntry): boolean {
  return entry.result.ast.root !== null && !hasErrors(entry.result.diagnostics);
}

export function runQueryAst(session: EngineSession, ast: QueryAst, k: number): SearchResult {
  // The editor shows how many documents match: an exact count needs every document scored, so no
  // dynamic pruning here (SearchOptions.exhaustive; pruned counts are only lower bounds).
  return session.backend.search(ast, { ...session.options, k, exhaustive: true });
}

/**
 * A query's top 10, cached for the session by dialect + text (the hits do not depend on the qid or
 * the judgements): the preview lens and the unjudged count share one search per query.
 */
export function topTen(session: EngineSession, entry: QueryEntry): SearchResult {
  const cache = session.cache<SearchResult>('top-ten');
  const key = `${entry.dialect}\0${entry.text}`;
  let result = cache.get(key);
  if (!result) cache.set(key, (result = runQueryAst(session, entry.result.ast, 10)));
  return result;
}

export function bo1Expansion(session: EngineSession, ast: QueryAst): ExpansionResult {
  const { fbDocs, fbTerms } = session.config.expansion;
  return expandWithFeedback(session.backend, ast, { method: 'bo1', fbDocs, fbTerms }, session.options);
}

/** Significant digits of the weights a rewrite writes: enough to rank as computed, few enough to read. */
export const REWRITE_DIGITS = 3;

/** Weights rounded for people to read and edit; the ranking barely moves at 3 digits. */
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

/** A plain term of the user's over the whole document: the kind expansion reweights (query-terms.ts). */
function isBagTerm(node: QueryNode): node is TermNode {
  return node.kind === 'term' && !node.fields?.length && !node.context?.length;
}

/**
 * How each term of an expansion is written for a person: the user's own word for a stem of the
 * query (as typed: `wings`, not `"wing"`), and for an added stem the most frequent word of the
 * feedback documents that analyses back to it (`supersonic`, not `"superson"`), raw only when no
 * word does (surface-forms.ts).
 */
export function expansionWords(session: EngineSession, original: QueryAst, expansion: ExpansionResult): Map<string, ExpansionWord> {
  const analyzer = session.backend.analyzer;
  const words = new Map<string, ExpansionWord>();
  walk(original.root, (node) => {
    if (!isBagTerm(node)) return;
    const stems = analyzer.analyzeTerm(node.text, { raw: node.raw });
    if (stems.length === 1 && !words.has(stems[0]!)) words.set(stems[0]!, { text: node.text, raw: node.raw, written: node });
  });
  const missing = expansion.terms.map((t) => t.term).filter((t) => !words.has(t));
  for (const [stem, form] of session.backend.surfaceForms(expansion.feedbackDocs, missing)) words.set(stem, form);
  return words;
}

export interface ExpansionWord extends SurfaceForm {
  /** The user's own term, when the stem is one of the query's: printed as written (its encoding too). */
  written?: TermNode;
}

/**
 * The expanded query as text of the document's dialect (Indri `#weight(...)`, Lucene `t^w …`), for a
 * person: the user's words as typed, a word for each added stem, weights to REWRITE_DIGITS
 * significant digits. It analyses to the expansion's terms, so it ranks as the expansion does.
 */
export function expandedQueryText(
  session: EngineSession,
  original: QueryAst,
  expansion: ExpansionResult,
  dialect: string,
  words = expansionWords(session, original, expansion),
  digits = REWRITE_DIGITS,
): string {
  return printExpansion(expansion, dialect, words, digits);
}

/** The expansion printed with `words` for its stems (expandedQueryText; on a cluster, the cluster's words). */
export function printExpansion(expansion: ExpansionResult, dialect: string, words: ReadonlyMap<string, ExpansionWord>, digits = REWRITE_DIGITS): string {
  const stems = new Set(expansion.terms.map((t) => t.term));
  const root = expansion.ast.root ? roundWeights(withExpansionWords(expansion.ast.root, stems, words), digits) : null;
  const ast: QueryAst = { ...expansion.ast, root };
  if (dialect === 'lucene') return translate(ast, 'lucene').text;
  return printIndri(ast);
}
