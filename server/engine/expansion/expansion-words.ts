/**
 * An expansion's query (a #weight whose added terms are raw stems without a source range) with each such
 * stem written as a word a person or another engine can read: the user's own term when the stem is one of
 * the query's (kept as typed, its fields and context dropped), else the given word. The local editor
 * (server/lsp/engine/ranking.ts) and a cluster (server/backends/remote/cluster-expansion.ts) choose the
 * words differently; the rewrite is this one.
 */
import type { QueryNode, TermNode } from '../../../grammar/index.js';

export interface WrittenWord {
  text: string;
  raw: boolean;
  /** The user's own term, when the stem is one of the query's: printed as written (its encoding too). */
  written?: TermNode;
}

export function withExpansionWords(node: QueryNode, stems: ReadonlySet<string>, words: ReadonlyMap<string, WrittenWord>): QueryNode {
  if (node.kind === 'filter') return { ...node, scored: withExpansionWords(node.scored, stems, words) };
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
