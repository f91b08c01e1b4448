/**
 * Semantic tokens: operators, weights, fields, terms, strings, numbers (plus Lucene
 * keywords, regular expressions and `//` comment lines). Token kinds come from the AST;
 * only the split of a leaf into term and field parts is read from its source text, since
 * the AST keeps field names but not where they were written.
 */
import { SemanticTokensBuilder, type SemanticTokens, type SemanticTokensLegend } from 'vscode-languageserver';
import { walk, type QueryNode, isCommentLine, type QueryEntry } from '../../grammar/index.js';
import { fileOffset, MAX_OUTLINE_QUERIES, type QueryDocument } from './documents.js';

export const TOKEN_TYPES = ['operator', 'weight', 'field', 'term', 'string', 'number', 'regexp', 'comment', 'keyword'] as const;
export type TokenType = (typeof TOKEN_TYPES)[number];

export const SEMANTIC_TOKENS_LEGEND: SemanticTokensLegend = { tokenTypes: [...TOKEN_TYPES], tokenModifiers: [] };

/** A token at query-relative offsets. */
export interface QueryToken {
  start: number;
  end: number;
  type: TokenType;
}

const WORD = /[^\s.,:()[\]{}<>"^~]+/g;

/** Splits a leaf into its term part and field names (Indri `a.title,h1`, Lucene `title:a`). */
function leafTokens(text: string, node: QueryNode & { fields?: string[]; context?: string[] }, termType: TokenType, out: QueryToken[]): void {
  const slice = text.slice(node.range.start, node.range.end);
  const fieldNames = new Set([...(node.fields ?? []), ...(node.context ?? [])]);
  let termDone = false;
  for (const m of slice.matchAll(WORD)) {
    const start = node.range.start + m.index;
    const end = start + m[0].length;
    const before = text[start - 1];
    const after = text[end];
    const looksLikeField =
      fieldNames.has(m[0]) && (after === ':' || before === '.' || before === ',' || (before === '(' && text[start - 2] === '.'));
    if (looksLikeField) out.push({ start, end, type: 'field' });
    else if (!termDone) {
      out.push({ start, end, type: termType });
      termDone = true;
    }
  }
}

function numbersIn(text: string, start: number, end: number, out: QueryToken[]): void {
  for (const m of text.slice(start, end).matchAll(/-?\d+(?:\.\d+)?/g)) {
    out.push({ start: start + m.index, end: start + m.index + m[0].length, type: 'number' });
  }
}

/** All tokens of one query, query-relative, possibly overlapping (resolved by the caller). */
export function queryTokens(entry: QueryEntry): QueryToken[] {
  const text = entry.text;
  const out: QueryToken[] = [];
  if (entry.dialect === 'indri') {
    for (const m of text.matchAll(/#(?:[A-Za-z]+\d*|\d+)/g)) out.push({ start: m.index, end: m.index + m[0].length, type: 'operator' });
  }
  walk(entry.result.ast.root, (node) => {
    switch (node.kind) {
      case 'belief':
      case 'synonym':
        for (const item of node.items) {
          if (item.weightRange) out.push({ start: item.weightRange.start, end: item.weightRange.end, type: 'weight' });
        }
        if (node.kind === 'belief' && node.restriction) {
          const r = node.restriction.range;
          out.push({ start: r.start, end: r.end, type: 'field' });
        }
        return true;
      case 'term':
        if (node.encoding) return false; // #base64(...): the operator regex already covered it
        if (node.raw && text[node.range.start] === '"') out.push({ start: node.range.start, end: node.range.end, type: 'string' });
        else leafTokens(text, node, node.numeric ? 'number' : 'term', out);
        return false;
      case 'wildcard':
      case 'fuzzy':
        leafTokens(text, node, 'term', out);
        if (node.kind === 'fuzzy' && node.explicit) {
          const tilde = text.lastIndexOf('~', node.range.end - 1);
          if (tilde >= node.range.start) numbersIn(text, tilde, node.range.end, out);
        }
        return false;
      case 'regex':
        out.push({ start: node.range.start, end: node.range.end, type: 'regexp' });
        return false;
      case 'range':
        out.push({ start: node.range.start, end: node.range.end, type: 'string' });
        return false;
      case 'phrase': {
        const close = text.lastIndexOf('"', node.range.end - 1);
        const open = text.indexOf('"', node.range.start);
        const stringEnd = close > open ? close + 1 : node.range.end;
        if (open >= 0 && open < stringEnd) {
          if (open > node.range.start) leafTokens(text, { ...node, range: { start: node.range.start, end: open } }, 'field', out);
          out.push({ start: open, end: stringEnd, type: 'string' });
        }
        if (node.explicitSlop) numbersIn(text, stringEnd, node.range.end, out);
        return false;
      }
      case 'numericCompare': {
        const fieldAt = text.indexOf(node.field, node.range.start);
        if (fieldAt >= 0 && fieldAt < node.range.end) out.push({ start: fieldAt, end: fieldAt + node.field.length, type: 'field' });
        numbersIn(text, fieldAt >= 0 ? fieldAt + node.field.length : node.range.start, node.range.end, out);
        return false;
      }
      case 'any': {
        const fieldAt = text.lastIndexOf(node.field, node.range.end);
        if (fieldAt >= node.range.start) out.push({ start: fieldAt, end: fieldAt + node.field.length, type: 'field' });
        return false;
      }
      case 'dateCompare': {
        const open = text.indexOf('(', node.range.start);
        const close = text.lastIndexOf(')', node.range.end - 1);
        if (open >= 0 && close > open) out.push({ start: open + 1, end: close, type: 'string' });
        return false;
      }
      case 'boolean':
        for (const clause of node.clauses) {
          const r = clause.operatorRange;
          if (!r) continue;
          const word = text.slice(r.start, r.end).trim();
          out.push({ start: r.start, end: r.end, type: /^[A-Z]+$/.test(word) ? 'keyword' : 'operator' });
        }
        if (node.field && text.startsWith(`${node.field}:`, node.range.start)) {
          out.push({ start: node.range.start, end: node.range.start + node.field.length, type: 'field' });
        }
        return true;
      case 'boost': {
        const caret = text.indexOf('^', node.child.range.end);
        if (caret >= 0 && caret < node.range.end) {
          out.push({ start: caret, end: caret + 1, type: 'operator' });
          numbersIn(text, caret + 1, node.range.end, out);
        }
        return true;
      }
      case 'window':
        if (node.form === 'hyphen') return true;
        return true;
      default:
        return true;
    }
  });
  return out;
}

interface FileToken {
  start: number;
  end: number;
  type: TokenType;
}

/**
 * Tokens of the document in file offsets, sorted, without overlaps: of its first `maxQueries`
 * queries (MAX_OUTLINE_QUERIES; past them the client's TextMate grammar still colours the text)
 * and of its comment lines.
 */
export function documentTokens(doc: QueryDocument, maxQueries = MAX_OUTLINE_QUERIES): FileToken[] {
  const tokens: FileToken[] = [];
  for (const entry of doc.source.entries.slice(0, maxQueries)) {
    for (const t of queryTokens(entry)) {
      if (t.end <= t.start) continue;
      tokens.push({ start: fileOffset(entry, t.start), end: fileOffset(entry, t.end - 1) + 1, type: t.type });
    }
  }
  if (doc.source.format === 'lines') {
    const text = doc.document.getText();
    let lineStart = 0;
    for (const line of text.split('\n')) {
      if (isCommentLine(line)) {
        const lead = line.length - line.trimStart().length;
        tokens.push({ start: lineStart + lead, end: lineStart + line.replace(/\r$/, '').length, type: 'comment' });
      }
      lineStart += line.length + 1;
    }
  }
  // Earlier start first; at equal starts the longer token wins.
  tokens.sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: FileToken[] = [];
  let lastEnd = -1;
  for (const t of tokens) {
    if (t.start < lastEnd) continue;
    kept.push(t);
    lastEnd = t.end;
  }
  return kept;
}

export function semanticTokens(doc: QueryDocument): SemanticTokens {
  const builder = new SemanticTokensBuilder();
  const text = doc.document.getText();
  for (const t of documentTokens(doc)) {
    // Tokens never cross lines in practice; split defensively (LSP tokens are single-line).
    let start = t.start;
    while (start < t.end) {
      const newline = text.indexOf('\n', start);
      const end = newline === -1 || newline >= t.end ? t.end : newline;
      if (end > start) {
        const pos = doc.document.positionAt(start);
        builder.push(pos.line, pos.character, end - start, TOKEN_TYPES.indexOf(t.type), 0);
      }
      start = end + 1;
    }
  }
  return builder.build();
}
