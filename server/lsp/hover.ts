/**
 * Hover over an operator: what it does and an example. Indri operators are found in the
 * query text (a `#name` token can only be an operator); Lucene operators come from the
 * AST (`operatorRange` of a clause, the `^` of a boost, the `~` of a fuzzy term or
 * sloppy phrase), because `-` and `+` are term characters inside a term.
 */
import { MarkupKind, type MarkupContent } from 'vscode-languageserver';
import { walk, type QueryNode, type SourceRange, type QueryEntry } from '../../grammar/index.js';
import type { FeatureModule, QueryPosition } from './features.js';
import { indriOperator, luceneOperator, type OperatorInfo } from './operators.js';

export interface OperatorAt {
  /** Query-relative range of the operator token. */
  range: SourceRange;
  /** The token as written (`#uw8`, `AND`, `^`). */
  written: string;
  info: OperatorInfo;
}

const INDRI_OPERATOR_TOKEN = /#(?:[A-Za-z]+\d*|\d+)/g;

export function indriOperatorAt(text: string, offset: number): OperatorAt | null {
  for (const m of text.matchAll(INDRI_OPERATOR_TOKEN)) {
    const start = m.index;
    const end = start + m[0].length;
    if (start > offset) break;
    if (offset <= end) {
      const info = indriOperator(m[0].slice(1));
      return info ? { range: { start, end }, written: m[0], info } : null;
    }
  }
  return null;
}

function luceneTokens(root: QueryNode | null, text: string): { range: SourceRange; written: string }[] {
  const out: { range: SourceRange; written: string }[] = [];
  walk(root, (node) => {
    if (node.kind === 'boolean') {
      for (const clause of node.clauses) {
        if (clause.operatorRange) out.push({ range: clause.operatorRange, written: text.slice(clause.operatorRange.start, clause.operatorRange.end) });
      }
    } else if (node.kind === 'boost') {
      const caret = text.indexOf('^', node.child.range.end);
      if (caret !== -1 && caret < node.range.end) out.push({ range: { start: caret, end: caret + 1 }, written: '^' });
    } else if (node.kind === 'fuzzy' || (node.kind === 'phrase' && node.explicitSlop)) {
      const tilde = text.lastIndexOf('~', node.range.end - 1);
      if (tilde >= node.range.start) out.push({ range: { start: tilde, end: tilde + 1 }, written: '~' });
    }
  });
  return out;
}

export function luceneOperatorAt(entry: QueryEntry, offset: number): OperatorAt | null {
  for (const token of luceneTokens(entry.result.ast.root, entry.text)) {
    if (token.range.start <= offset && offset <= token.range.end) {
      const info = luceneOperator(token.written.trim());
      if (info) return { ...token, info };
    }
  }
  return null;
}

export function operatorAt(at: QueryPosition): OperatorAt | null {
  if (at.entry.dialect === 'indri') return indriOperatorAt(at.entry.text, at.offset);
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
