/**
 * Document formatting with the grammar's formatters, one query at a time. A query is left
 * alone when it does not parse or the formatter reports an error, so formatting never
 * turns a broken query into a different broken query. Files with one query per line keep
 * one query per line; elsewhere (Indri parameter files) long queries wrap at the width.
 */
import type { TextEdit } from 'vscode-languageserver';
import { hasErrors, formatIndri, formatLucene, type QueryEntry } from '../../grammar/index.js';
import { entryEnd, isVerbatim, type QueryDocument } from './documents.js';

const LINE_FORMATS = new Set(['lines', 'tsv']);

export function formatQueryText(text: string, dialect: string, width: number): string | null {
  const format = dialect === 'indri' ? formatIndri : dialect === 'lucene' ? formatLucene : null;
  if (!format) return null;
  const result = format(text, { width });
  if (hasErrors(result.diagnostics)) return null;
  return result.text;
}

/**
 * `text` (a query of the entry's dialect) laid out as the formatter lays out the entry's place: one
 * line in a one-query-per-line file, where a line break would end the query; elsewhere one item per
 * line past `width`, continuation lines indented to the query's column. Null when it does not
 * format (a syntax error). The rewrites (Bo1, model weights) write their queries through this.
 */
export function layoutInDocument(doc: QueryDocument, entry: QueryEntry, text: string, width: number): string | null {
  const oneLine = LINE_FORMATS.has(doc.source.format);
  const formatted = formatQueryText(text, entry.dialect, oneLine ? Number.MAX_SAFE_INTEGER : width);
  if (formatted === null) return null;
  const trimmed = formatted.trim();
  return oneLine ? trimmed.replace(/\s*\n\s*/g, ' ') : trimmed.replace(/\n/g, `\n${' '.repeat(entry.column)}`);
}

export function formattingEdits(doc: QueryDocument, width: number): TextEdit[] {
  const edits: TextEdit[] = [];
  for (const entry of doc.source.entries) {
    if (hasErrors(entry.result.diagnostics) || !isVerbatim(doc, entry)) continue;
    const formatted = layoutInDocument(doc, entry, entry.text, width);
    if (formatted === null) continue;
    if (formatted === entry.text) continue;
    edits.push({
      range: { start: doc.document.positionAt(entry.offset), end: doc.document.positionAt(entryEnd(entry)) },
      newText: formatted,
    });
  }
  return edits;
}
