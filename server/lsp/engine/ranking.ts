/**
 * Running one query of a document through the engine, shared by the code lens, the custom
 * requests and the Bo1 action: the ranked list, Bo1 expansion from its top documents, and
 * snippets with the matched words highlighted.
 */
import { printIndri, translate, type QueryAst, type QueryEntry, type QueryNode } from '../../../grammar/index.js';
import { hasErrors } from '../../../grammar/diagnostics.js';
import { expandQuery, selectFeedbackDocs, type ExpansionResult } from '../../engine/expansion/index.js';
import type { ConceptSpec } from '../../engine/scoring/concepts.js';
import { search, type SearchResult } from '../../engine/search.js';
import type { Snippet } from './protocol.js';
import type { EngineSession } from './session.js';

/** A query the engine can run: parsed without errors and not empty. */
export function runnable(entry: QueryEntry): boolean {
  return entry.result.ast.root !== null && !hasErrors(entry.result.diagnostics);
}

export function runQueryAst(session: EngineSession, ast: QueryAst, k: number): SearchResult {
  return search(session.reader, ast, { ...session.options, k });
}

export function bo1Expansion(session: EngineSession, ast: QueryAst): ExpansionResult {
  const { fbDocs, fbTerms } = session.config.expansion;
  const first = runQueryAst(session, ast, Math.max(fbDocs, 1));
  return expandQuery(session.reader, ast, selectFeedbackDocs(first.hits, fbDocs), { method: 'bo1', fbTerms });
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

/** Analysed terms the query can match (terms, window members, synonym items), for highlighting. */
export function matchedTerms(concepts: readonly { spec: ConceptSpec; scored: boolean }[]): Set<string> {
  const out = new Set<string>();
  const visit = (s: ConceptSpec): void => {
    switch (s.kind) {
      case 'term':
        out.add(s.term);
        break;
      case 'window':
      case 'band':
        s.children.forEach(visit);
        break;
      case 'syn':
        s.items.forEach(visit);
        break;
      case 'sloppy':
        s.terms.forEach((t) => out.add(t));
        break;
      default:
        break;
    }
  };
  for (const c of concepts) if (c.scored) visit(c.spec);
  return out;
}

const SNIPPET_TOKENS = 30;

/** The passage of `text` with the most query-term occurrences, matches highlighted. */
export function snippetOf(session: EngineSession, text: string, terms: ReadonlySet<string>): Snippet {
  const tokens = session.reader.analyzer.analyze(text);
  if (tokens.length === 0) return { text: text.slice(0, 200), highlights: [] };
  const hit = tokens.map((t) => (terms.has(t.term) ? 1 : 0));
  let best = 0;
  let bestCount = -1;
  let count = 0;
  for (let i = 0; i < tokens.length; i++) {
    count += hit[i]!;
    if (i >= SNIPPET_TOKENS) count -= hit[i - SNIPPET_TOKENS]!;
    const start = Math.max(0, i - SNIPPET_TOKENS + 1);
    if (count > bestCount) {
      bestCount = count;
      best = start;
    }
  }
  const last = Math.min(tokens.length, best + SNIPPET_TOKENS) - 1;
  // Widen to the surrounding text so stopwords between the window's tokens stay visible.
  const from = best === 0 ? 0 : tokens[best]!.start;
  const to = last === tokens.length - 1 ? text.length : tokens[last]!.end;
  const prefix = from > 0 ? '… ' : '';
  const suffix = to < text.length ? ' …' : '';
  const highlights: [number, number][] = [];
  for (let i = best; i <= last; i++) {
    if (hit[i]) highlights.push([prefix.length + tokens[i]!.start - from, prefix.length + tokens[i]!.end - from]);
  }
  return { text: `${prefix}${text.slice(from, to).replace(/\s+$/u, '')}${suffix}`, highlights };
}

export function documentText(session: EngineSession, doc: number): string {
  const stored = session.reader.document(doc);
  return stored.fields.text ?? Object.values(stored.fields).join('\n') ?? stored.title;
}
