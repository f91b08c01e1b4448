/**
 * Running one query of a document through the engine, shared by the code lens, the custom
 * requests and the Bo1 action: the ranked list, Bo1 expansion from its top documents, and
 * snippets with the matched words highlighted.
 */
import { printIndri, translate, walk, type QueryAst, type QueryEntry, type QueryNode, type TermNode } from '../../../grammar/index.js';
import { hasErrors } from '../../../grammar/diagnostics.js';
import { expandQuery, selectFeedbackDocs, type ExpansionResult } from '../../engine/expansion/index.js';
import { surfaceForms, type SurfaceForm } from '../../engine/expansion/surface-forms.js';
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
  const analyzer = session.reader.analyzer;
  const words = new Map<string, ExpansionWord>();
  walk(original.root, (node) => {
    if (!isBagTerm(node)) return;
    const stems = analyzer.analyzeTerm(node.text, { raw: node.raw });
    if (stems.length === 1 && !words.has(stems[0]!)) words.set(stems[0]!, { text: node.text, raw: node.raw, written: node });
  });
  const missing = expansion.terms.map((t) => t.term).filter((t) => !words.has(t));
  for (const [stem, form] of surfaceForms(session.reader, expansion.feedbackDocs, missing)) words.set(stem, form);
  return words;
}

export interface ExpansionWord extends SurfaceForm {
  /** The user's own term, when the stem is one of the query's: printed as written (its encoding too). */
  written?: TermNode;
}

/** The expanded #weight with each expansion term (a raw stem) replaced by its word (expansionWords). */
function withWords(node: QueryNode, stems: ReadonlySet<string>, words: ReadonlyMap<string, ExpansionWord>): QueryNode {
  if (node.kind === 'filter') return { ...node, scored: withWords(node.scored, stems, words) };
  if (node.kind !== 'belief') return node;
  return {
    ...node,
    items: node.items.map((item) => {
      const term = item.node;
      // Expansion's own terms are raw stems without a source range; the user's other concepts are kept as they are.
      if (term.kind !== 'term' || !term.raw || term.range.end !== 0 || !stems.has(term.text)) return item;
      const word = words.get(term.text);
      if (!word) return item;
      if (word.written) return { ...item, node: { ...word.written, fields: undefined, context: undefined } };
      const numeric = /^[0-9]+$/.test(word.text) ? { numeric: true } : {};
      return { ...item, node: { kind: 'term', text: word.text, raw: word.raw, range: term.range, ...numeric } };
    }),
  };
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
  const stems = new Set(expansion.terms.map((t) => t.term));
  const root = expansion.ast.root ? roundWeights(withWords(expansion.ast.root, stems, words), digits) : null;
  const ast: QueryAst = { ...expansion.ast, root };
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
