/**
 * Explanation trees: every score the engine computes can describe itself as
 * `{value, description, children}` with the formula written out and the numbers filled
 * in (after Lucene's Explanation convention).
 *
 * Invariant: a node's `value` is the very number the scorer used, never a re-computation,
 * so the root of an explanation equals the search score bit for bit.
 */
export interface ExplainNode {
  value: number;
  /** Formula text with the numbers filled in, e.g. "idf = log2(...) = log2((1400 − 12 + 0.5)/(12 + 0.5)) = 6.7953". */
  description: string;
  children: ExplainNode[];
  /**
   * Only on the root: false when the document would not be retrieved at all (it lacks every
   * concept, a required clause or filter excluded it). The description then says why.
   */
  matched?: boolean;
}

export function explainNode(value: number, description: string, children: ExplainNode[] = []): ExplainNode {
  return { value, description, children };
}

/** Numbers for formula text: integers as they are, others with 4 decimals (more when tiny). */
export function fmt(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  if (Number.isInteger(x)) return String(x);
  const a = Math.abs(x);
  if (a !== 0 && a < 1e-3) return x.toPrecision(4);
  return x.toFixed(4);
}

/** Indented text rendering, one node per line (the CLI's `explain` output). */
export function renderExplain(node: ExplainNode, indent = ''): string {
  const lines = [`${indent}${fmt(node.value)}  ${node.description}`];
  for (const c of node.children) lines.push(renderExplain(c, indent + '  '));
  return lines.join('\n');
}
