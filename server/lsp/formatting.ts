/**
 * Document formatting with the grammar's formatters, one query at a time. A query is left
 * alone when it does not parse or the formatter reports an error, so formatting never
 * turns a broken query into a different broken query. Files with one query per line keep
 * one query per line; elsewhere (Indri parameter files) long queries wrap at the width.
 */
import type { TextEdit } from 'vscode-languageserver';
import { hasErrors, formatIndri, formatLucene } from '../../grammar/index.js';
import { entryEnd, isVerbatim, type QueryDocument } from './documents.js';

const LINE_FORMATS = new Set(['lines', 'tsv']);

export function formatQueryText(text: string, dialect: string, width: number): string | null {
  const format = dialect === 'indri' ? formatIndri : dialect === 'lucene' ? formatLucene : null;
  if (!format) return null;
  const result = format(text, { width });
  if (hasErrors(result.diagnostics)) return null;
  return result.text;
}

export function formattingEdits(doc: QueryDocument, width: number): TextEdit[] {
  const edits: TextEdit[] = [];
  const oneLine = LINE_FORMATS.has(doc.source.format);
  for (const entry of doc.source.entries) {
    if (hasErrors(entry.result.diagnostics) || !isVerbatim(doc, entry)) continue;
    let formatted = formatQueryText(entry.text, entry.dialect, oneLine ? Number.MAX_SAFE_INTEGER : width);
    if (formatted === null) continue;
    formatted = formatted.trim();
    if (oneLine) formatted = formatted.replace(/\s*\n\s*/g, ' ');
    else formatted = formatted.replace(/\n/g, `\n${' '.repeat(entry.column)}`);
    if (formatted === entry.text) continue;
    edits.push({
      range: { start: doc.document.positionAt(entry.offset), end: doc.document.positionAt(entryEnd(entry)) },
      newText: formatted,
    });
  }
  return edits;
}
