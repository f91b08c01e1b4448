/**
 * Folding ranges: operators whose arguments span several lines (the closing line stays
 * visible when there is room), multi-line queries, and blocks of two or more `//` comment
 * lines.
 */
import { FoldingRangeKind, type FoldingRange } from 'vscode-languageserver';
import { walk, isCommentLine } from '../../grammar/index.js';
import { fileOffset, MAX_OUTLINE_QUERIES, type QueryDocument } from './documents.js';

/** Formats whose files may hold `//` comment lines (grammar/sources/line-file.ts). */
const COMMENTED_FORMATS = new Set(['lines']);

/** Folds of the first `maxQueries` queries (MAX_OUTLINE_QUERIES: a request must answer in a few seconds) and of comment blocks. */
export function foldingRanges(doc: QueryDocument, maxQueries = MAX_OUTLINE_QUERIES): FoldingRange[] {
  const out: FoldingRange[] = [];
  const seen = new Set<string>();
  const add = (startLine: number, endLine: number, kind?: FoldingRangeKind): void => {
    // Keep the last line (usually the closing parenthesis) visible when the fold still hides something.
    const end = endLine - 1 > startLine ? endLine - 1 : endLine;
    if (end <= startLine) return;
    const key = `${startLine}:${end}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push(kind ? { startLine, endLine: end, kind } : { startLine, endLine: end });
  };
  for (const entry of doc.source.entries.slice(0, maxQueries)) {
    const lineOf = (queryOffset: number): number => doc.document.positionAt(fileOffset(entry, queryOffset)).line;
    walk(entry.result.ast.root, (node) => {
      if (node.range.end <= node.range.start) return;
      add(lineOf(node.range.start), lineOf(node.range.end - 1));
    });
  }
  if (COMMENTED_FORMATS.has(doc.source.format)) {
    const lines = doc.document.getText().split('\n');
    let blockStart = -1;
    for (let i = 0; i <= lines.length; i++) {
      const comment = i < lines.length && isCommentLine(lines[i]);
      if (comment && blockStart < 0) blockStart = i;
      if (!comment && blockStart >= 0) {
        if (i - 1 > blockStart) out.push({ startLine: blockStart, endLine: i - 1, kind: FoldingRangeKind.Comment });
        blockStart = -1;
      }
    }
  }
  return out.sort((a, b) => a.startLine - b.startLine || b.endLine - a.endLine);
}
