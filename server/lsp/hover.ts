/**
 * Hover over an operator: what it does and an example. Every operator's place comes from the
 * AST: a node's `operatorRange` (Indri `#uw8`, `#combine`; Lucene `^` and `~`) and a Lucene
 * clause's `operatorRange` (`AND`, `+`, `-`, …).
 */
import { MarkupKind, type MarkupContent } from 'vscode-languageserver';
import { walk, type SourceRange, type QueryEntry } from '../../grammar/index.js';
import type { FeatureModule, QueryPosition } from './features.js';
import { indriOperator, luceneOperator, type OperatorInfo } from './operators.js';

export interface OperatorAt {
  /** Query-relative range of the operator token. */
  range: SourceRange;
  /** The token as written (`#uw8`, `AND`, `^`). */
  written: string;
  info: OperatorInfo;
}

/** The operator tokens of a query as written, in no particular order. */
function operatorTokens(entry: QueryEntry): { range: SourceRange; written: string }[] {
  const out: { range: SourceRange; written: string }[] = [];
  const add = (range: SourceRange | undefined): void => {
    if (range) out.push({ range, written: entry.text.slice(range.start, range.end) });
  };
  walk(entry.result.ast.root, (node) => {
    add(node.operatorRange);
    if (node.kind === 'boolean') for (const clause of node.clauses) add(clause.operatorRange);
  });
  return out;
}

export function indriOperatorAt(entry: QueryEntry, offset: number): OperatorAt | null {
  for (const token of operatorTokens(entry)) {
    if (!token.written.startsWith('#')) continue; // `{` and `<` synonyms have no page of their own
    if (token.range.start <= offset && offset <= token.range.end) {
      const info = indriOperator(token.written.slice(1));
      return info ? { ...token, info } : null;
    }
  }
  return null;
}

export function luceneOperatorAt(entry: QueryEntry, offset: number): OperatorAt | null {
  for (const token of operatorTokens(entry)) {
    if (token.range.start <= offset && offset <= token.range.end) {
      const info = luceneOperator(token.written.trim());
      if (info) return { ...token, info };
    }
  }
  return null;
}

export function operatorAt(at: QueryPosition): OperatorAt | null {
  if (at.entry.dialect === 'indri') return indriOperatorAt(at.entry, at.offset);
  if (at.entry.dialect === 'lucene') return luceneOperatorAt(at.entry, at.offset);
  return null;
}

export function operatorHoverMarkdown(op: OperatorAt, dialect: string): string {
  let heading = `**${op.info.label}**`;
  const size = /^#(?:od|uw)?(\d+)$/.exec(op.written);
  if (size) heading += ` (window of ${size[1]})`;
  return `${heading} — ${op.info.description}\n\n\`\`\`${dialect}\n${op.info.example}\n\`\`\``;
}

export function operatorHover(at: QueryPosition): MarkupContent | null {
  const op = operatorAt(at);
  if (!op) return null;
  return { kind: MarkupKind.Markdown, value: operatorHoverMarkdown(op, at.entry.dialect) };
}

export const operatorHoverModule: FeatureModule = {
  id: 'grammar/operator-hover',
  hover: (at) => operatorHover(at),
};
