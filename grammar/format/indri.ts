/**
 * Indri query formatter.
 *
 * Layout (printer spacing, see print/indri.ts):
 * - a query (or a node) that fits in `width` columns from where it starts stays on one line;
 * - otherwise the node's opener (`#weight(`, `#1(`, `{`) ends its line, each item (with its
 *   weight) goes on its own line indented by `indent` spaces, laid out the same way, and
 *   the closer (`)` plus any `.field` suffix) gets a line of its own, aligned with the
 *   start of the line that opened it (the operator, or the item's weight);
 * - an implicit top-level #combine that does not fit puts one item per line;
 * - leaves (terms, `#any`, `#less`, dates, ...) and hyphen chains are never split.
 *
 * A text with errors is returned unchanged with its diagnostics (never lose what the user
 * wrote). Idempotent: the output parses to the same tree up to ranges, and the layout
 * depends on the tree only.
 */
import type { QueryAst, QueryNode, WeightedItem } from '../ast.js';
import { hasErrors, type QueryDiagnostic } from '../diagnostics.js';
import { parseIndri } from '../indri/index.js';
import { formatIndriNumber, indriChildItems, indriCloser, indriOpener, printIndri, printIndriNode } from '../print/indri.js';

export interface IndriFormatOptions {
  /** Maximum line length (default 80). */
  width?: number;
  /** Spaces per nesting level (default 2). */
  indent?: number;
}

export function formatIndri(text: string, options?: IndriFormatOptions): { text: string; diagnostics: QueryDiagnostic[] } {
  const { ast, diagnostics } = parseIndri(text);
  if (hasErrors(diagnostics) || !ast.root) return { text, diagnostics };
  return { text: formatIndriAst(ast, options), diagnostics };
}

export function formatIndriAst(ast: QueryAst | QueryNode, options?: IndriFormatOptions): string {
  const root = 'dialect' in ast ? ast.root : ast;
  if (!root) return '';
  const width = Math.max(1, options?.width ?? 80);
  const step = Math.max(0, options?.indent ?? 2);
  const layout = new Layout(width, step);
  if (root.kind === 'belief' && root.implicit && !root.restriction) {
    const flat = printIndri(root);
    if (flat.length <= width) return flat;
    return root.items.flatMap((item) => layout.item(item, false, 0)).join('\n');
  }
  return layout.node(root, 0, '').join('\n');
}

class Layout {
  constructor(
    private readonly width: number,
    private readonly step: number,
  ) {}

  item(item: WeightedItem, weighted: boolean, column: number): string[] {
    const prefix = weighted && item.weight !== undefined ? `${formatIndriNumber(item.weight)} ` : '';
    return this.node(item.node, column, prefix);
  }

  /** Lines of `node` starting at `column`, its first line beginning with `prefix`. */
  node(node: QueryNode, column: number, prefix: string): string[] {
    const pad = ' '.repeat(column);
    const flat = prefix + printIndriNode(node);
    const opener = indriOpener(node);
    const kids = indriChildItems(node);
    if (column + flat.length <= this.width || !opener || !kids || kids.items.length === 0) return [pad + flat];
    const lines = [pad + prefix + opener];
    for (const item of kids.items) lines.push(...this.item(item, kids.weighted, column + this.step));
    lines.push(pad + indriCloser(node));
    return lines;
  }
}
