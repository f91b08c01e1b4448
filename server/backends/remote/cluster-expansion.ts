/**
 * Bo1 pseudo-relevance feedback on a cluster (SEMANTICS.md §4.5; the same weights and combination as the
 * local engine's `expandQuery`, server/engine/expansion), with every statistic from the cluster:
 * - the query's words are analysed by the cluster (`_termvectors` of an artificial document per word, in the
 *   first search field), so original and expansion terms are the cluster's own terms;
 * - the feedback documents are the given docnos (the top fbDocs of the cluster's ranking); each is read as
 *   one text, as querylens reads a document: its term vectors of every search field, tf summed over them;
 * - F (cf) of a term and the collection's size (documents, tokens) come from the same responses (`ttf`,
 *   `field_statistics`), summed over the search fields, documents the largest field count. `_termvectors`
 *   computes them on the shard that holds the document: one shard's statistics (`scope`).
 */
import { walk, type QueryAst, type TermNode } from '../../../grammar/index.js';
import type { AnalyzedToken, Analyzer } from '../../engine/analysis/analyzer.js';
import { expandBo1, type ExpansionResult } from '../../engine/expansion/index.js';
import type { CollectionView } from '../../engine/expansion/bo1.js';
import type { FeedbackDocument, FeedbackStatistics } from '../../engine/expansion/feedback.js';
import { originalQuery } from '../../engine/expansion/query-terms.js';
import { withExpansionWords } from '../../engine/expansion/expansion-words.js';
import type { ClusterBackend } from './cluster-backend.js';

export interface ClusterExpansion extends ExpansionResult {
  /** The feedback documents' ids on the cluster (`feedbackDocs` holds their positions in this list). */
  feedbackDocnos: string[];
  /** The cluster's terms of each of the query's words (to write the user's own word for an original term). */
  analysed: Map<string, string[]>;
  scope: 'one-shard';
}

/** The words of the query's plain terms (the ones Bo1 reweights), each once. */
function queryWords(ast: QueryAst): string[] {
  const words = new Set<string>();
  walk(ast.root, (n) => {
    if (n.kind === 'term' && !n.fields?.length && !n.context?.length) words.add(n.text);
  });
  return [...words];
}

/** An analyser that answers for the words the cluster analysed (and nothing else: no guessing). */
function clusterAnalyzer(analysed: ReadonlyMap<string, string[]>): Analyzer {
  const analyzeTerm = (term: string): string[] => analysed.get(term) ?? [];
  return {
    profile: 'cluster',
    analyzeTerm,
    isStopword: (word) => analysed.has(word) && analyzeTerm(word).length === 0,
    analyze(text: string, firstPosition = 0): AnalyzedToken[] {
      const out: AnalyzedToken[] = [];
      let position = firstPosition;
      for (const m of text.matchAll(/\S+/gu)) for (const term of analyzeTerm(m[0])) out.push({ term, position: position++, start: m.index!, end: m.index! + m[0].length });
      return out;
    },
  };
}

/** Bo1 expansion of `ast` from the feedback documents `docnos`, every statistic read from the cluster. */
export async function expandOnCluster(backend: ClusterBackend, ast: QueryAst, docnos: readonly string[], options: { fbTerms: number }): Promise<ClusterExpansion> {
  const fields = backend.config.fields;
  const analysed = new Map<string, string[]>();
  for (const word of queryWords(ast)) analysed.set(word, [...(await backend.termStatistics(word, fields[0])).terms.keys()]);
  const query = originalQuery(ast, clusterAnalyzer(analysed));

  const unique = [...new Set(docnos)];
  const terms = new Map<string, { tfx: number; dfx: number }>();
  const documents: FeedbackDocument[] = [];
  const cf = new Map<string, Map<string, number>>(); // field → term → ttf
  const fieldDocs = new Map<string, number>();
  const fieldTokens = new Map<string, number>();
  let totalDocumentLength = 0;
  for (const [i, docno] of unique.entries()) {
    const tfs = new Map<string, number>();
    for (const field of fields) {
      const stats = await backend.documentTermStatistics(docno, field);
      fieldDocs.set(field, Math.max(fieldDocs.get(field) ?? 0, stats.collection.numDocs));
      fieldTokens.set(field, Math.max(fieldTokens.get(field) ?? 0, stats.collection.totalTokens));
      let byTerm = cf.get(field);
      if (!byTerm) cf.set(field, (byTerm = new Map()));
      for (const [term, s] of stats.terms) {
        tfs.set(term, (tfs.get(term) ?? 0) + s.tf);
        byTerm.set(term, s.cf);
      }
    }
    let length = 0;
    for (const [term, tf] of tfs) {
      length += tf;
      const t = terms.get(term) ?? { tfx: 0, dfx: 0 };
      terms.set(term, { tfx: t.tfx + tf, dfx: t.dfx + 1 });
    }
    totalDocumentLength += length;
    documents.push({ doc: i, length, tfs });
  }
  const stats: FeedbackStatistics = { terms, totalDocumentLength, documents };
  const numDocs = Math.max(0, ...fieldDocs.values());
  const totalTokens = [...fieldTokens.values()].reduce((a, b) => a + b, 0);
  const collection: CollectionView = {
    numDocs,
    totalTokens,
    avgDocLength: numDocs > 0 ? totalTokens / numDocs : 0,
    collectionFrequency: (term) => [...cf.values()].reduce((sum, byTerm) => sum + (byTerm.get(term) ?? 0), 0),
  };
  const expansion = expandBo1(query, stats, collection, options.fbTerms, { method: 'bo1' });
  return { method: 'bo1', feedbackDocs: documents.map((d) => d.doc), feedbackDocnos: unique, analysed, scope: 'one-shard', ...expansion };
}

/** How a term of a cluster expansion is written in a query: a word (raw: quoted, unanalysed) and, for a term of the user's, their own node. */
export interface ClusterExpansionWord {
  text: string;
  raw: boolean;
  written?: TermNode;
}

/**
 * How the terms of a cluster expansion are written: the user's own word for a term one of the query's
 * words analyses to, else the cluster's term itself, unquoted (the query DSL cannot ask for an analysed
 * term, so the cluster analyses it again).
 */
export function clusterExpansionWords(expansion: ClusterExpansion, original: QueryAst): Map<string, ClusterExpansionWord> {
  const words = new Map<string, ClusterExpansionWord>();
  walk(original.root, (node) => {
    if (node.kind !== 'term' || node.fields?.length || node.context?.length) return;
    const stems = expansion.analysed.get(node.text) ?? [];
    if (stems.length === 1 && !words.has(stems[0]!)) words.set(stems[0]!, { text: node.text, raw: node.raw, written: node });
  });
  for (const t of expansion.terms) if (!words.has(t.term)) words.set(t.term, { text: t.term, raw: false });
  return words;
}

/**
 * The expanded query as a cluster runs it: each of the expansion's terms (a raw stem the expansion made, without
 * a source range) written as clusterExpansionWords says, the weights as computed (not rounded).
 */
export function clusterExpandedQuery(expansion: ClusterExpansion, original: QueryAst): QueryAst {
  const words = clusterExpansionWords(expansion, original);
  const stems = new Set(expansion.terms.map((t) => t.term));
  return { ...expansion.ast, root: expansion.ast.root ? withExpansionWords(expansion.ast.root, stems, words) : null };
}
