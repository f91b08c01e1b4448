/**
 * Semantic tokens: operators, weights, fields, terms, strings, numbers (plus Lucene
 * keywords, regular expressions and `//` comment lines). Kinds and places both come from the
 * AST: every operator, field name, weight and parameter carries the range it was written at.
 */
import { SemanticTokensBuilder, type SemanticTokens, type SemanticTokensLegend } from 'vscode-languageserver';
import { walk, isCommentLine, type QueryEntry, type QueryNode, type SourceRange } from '../../grammar/index.js';
import { fileOffset, MAX_OUTLINE_QUERIES, type QueryDocument } from './documents.js';
import { nodeParts } from './engine/query-parts.js';

export const TOKEN_TYPES = ['operator', 'weight', 'field', 'term', 'string', 'number', 'regexp', 'comment', 'keyword'] as const;
export type TokenType = (typeof TOKEN_TYPES)[number];

export const SEMANTIC_TOKENS_LEGEND: SemanticTokensLegend = { tokenTypes: [...TOKEN_TYPES], tokenModifiers: [] };

/** A token at query-relative offsets. */
export interface QueryToken {
  start: number;
  end: number;
  type: TokenType;
}

/** The part of a leaf that is neither its field names nor its `~N` (the term, phrase, range or regex itself). */
function leafBody(node: QueryNode): SourceRange {
  const body = nodeParts(node).body;
  const contexts = 'contextRanges' in node ? node.contextRanges : undefined;
  // Indri `term.(title)`: the context list follows the term like a field list does.
  const end = Math.min(body.end, node.operatorRange?.start ?? body.end, contexts?.length ? contexts[0]!.start - 1 : body.end);
  return { start: body.start, end: Math.max(body.start, end) };
}

/** All tokens of one query, query-relative, possibly overlapping (resolved by the caller). */
export function queryTokens(entry: QueryEntry): QueryToken[] {
  const text = entry.text;
  const out: QueryToken[] = [];
  const push = (r: SourceRange | undefined, type: TokenType): void => {
    if (r && r.end > r.start) out.push({ start: r.start, end: r.end, type });
  };
  walk(entry.result.ast.root, (node) => {
    push(node.operatorRange, 'operator');
    for (const r of nodeParts(node).fields) push(r.range, 'field');
    if ('contextRanges' in node) for (const r of node.contextRanges ?? []) push(r, 'field');
    switch (node.kind) {
      case 'belief':
      case 'synonym':
        for (const item of node.items) push(item.weightRange, 'weight');
        if (node.kind === 'belief' && node.restriction) push(node.restriction.range, 'field');
        return true;
      case 'term':
        if (node.encoding) return false; // #base64(...): its operator is the token
        push(leafBody(node), node.raw ? 'string' : node.numeric ? 'number' : 'term');
        return false;
      case 'wildcard':
        push(leafBody(node), 'term');
        return false;
      case 'fuzzy':
        push(leafBody(node), 'term');
        if (node.explicit) push(node.parameterRange, 'number');
        return false;
      case 'phrase':
        push(leafBody(node), 'string');
        if (node.explicitSlop) push(node.parameterRange, 'number');
        return false;
      case 'regex':
        push(leafBody(node), 'regexp');
        return false;
      case 'range':
        push(leafBody(node), 'string');
        return false;
      case 'numericCompare':
        push(node.fieldRange, 'field');
        for (const r of node.valueRanges ?? []) push(r, 'number');
        return false;
      case 'any':
        push(node.fieldRange, 'field');
        return false;
      case 'dateCompare':
        push(node.datesRange, 'string');
        return false;
      case 'boolean':
        for (const clause of node.clauses) {
          const r = clause.operatorRange;
          if (!r) continue;
          const word = text.slice(r.start, r.end).trim();
          push(r, /^[A-Z]+$/.test(word) ? 'keyword' : 'operator');
        }
        return true;
      case 'boost':
        push(node.parameterRange, 'number');
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
