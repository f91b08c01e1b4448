/** A tiny hand-made corpus and AST builders for the expansion tests. */
import type { QueryAst, QueryNode, TermNode, WeightedItem } from '../../../grammar/ast.js';
import { buildMemoryIndex } from '../../../server/engine/index/memory.js';
import type { IndexReader } from '../../../server/engine/index/reader.js';

/**
 * Words that Terrier's stoplist keeps and Porter leaves unchanged, so that hand
 * computations can use the surface words. Statistics (N = 6, |C| = 19, avgdl = 19/6):
 *   cf: cat 5, dog 3, fish 4, sun 2, moon 2, bird 1, tree 1, rock 1
 */
export const CORPUS = [
  'cat dog cat fish', // d0: len 4
  'cat bird dog', // d1: len 3
  'cat tree rock moon', // d2: len 4
  'dog sun', // d3: len 2
  'fish fish fish sun', // d4: len 4
  'cat moon', // d5: len 2
];

export function tinyIndex(texts: readonly string[] = CORPUS): IndexReader {
  return buildMemoryIndex(
    texts.map((text, i) => ({ docno: `d${i}`, fields: { text } })),
    { profile: 'terrier' },
  );
}

const R = { start: 0, end: 0 };

export function term(text: string, raw = false): TermNode {
  return { kind: 'term', text, raw, range: R };
}

export function combine(...nodes: QueryNode[]): QueryNode {
  return { kind: 'belief', op: 'combine', items: nodes.map((node) => ({ node })), range: R };
}

export function weight(...pairs: [number, QueryNode][]): QueryNode {
  const items: WeightedItem[] = pairs.map(([w, node]) => ({ weight: w, node }));
  return { kind: 'belief', op: 'weight', items, range: R };
}

export function od(size: number, ...children: QueryNode[]): QueryNode {
  return { kind: 'window', ordered: true, size, children, form: 'hash-number', range: R };
}

export function indri(root: QueryNode | null): QueryAst {
  return { dialect: 'indri', root, range: R };
}

export function lucene(root: QueryNode): QueryAst {
  return { dialect: 'lucene', root, range: R };
}

/** `#combine(w1 w2 …)` of plain terms. */
export function bag(...words: string[]): QueryAst {
  return indri(combine(...words.map((w) => term(w))));
}
