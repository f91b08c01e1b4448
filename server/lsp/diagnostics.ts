/**
 * Parser diagnostics → LSP diagnostics. Ranges are the parser's, carried to the file
 * through the entry's offset map; `code` and `data` pass through unchanged (offsets in
 * `data` stay query-relative, like the parser's), so that the code-action provider can
 * build its edit from `data` and the query's position alone.
 */
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver';
import { messageInFile, type QueryDiagnostic, type Severity, type QueryEntry, type SourceDiagnostic } from '../../grammar/index.js';
import { rangeInFile, type QueryDocument } from './documents.js';
import type { FeatureModule } from './features.js';

export const DIAGNOSTIC_SOURCE = 'querylens';

const SEVERITY: Record<Severity, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  info: DiagnosticSeverity.Information,
  hint: DiagnosticSeverity.Hint,
};

export function toLspDiagnostic(doc: QueryDocument, entry: QueryEntry, d: QueryDiagnostic): Diagnostic {
  return {
    range: rangeInFile(doc, entry, d.range.start, d.range.end),
    severity: SEVERITY[d.severity],
    code: d.code,
    source: DIAGNOSTIC_SOURCE,
    message: messageInFile(d, (at) => {
      const p = rangeInFile(doc, entry, at, at).start;
      return { line: p.line, column: p.character };
    }),
    ...(d.data === undefined ? {} : { data: d.data }),
  };
}

export function fileDiagnosticToLsp(d: SourceDiagnostic): Diagnostic {
  return {
    range: { start: { line: d.line, character: d.column }, end: { line: d.endLine, character: d.endColumn } },
    severity: SEVERITY[d.severity],
    code: d.code,
    source: DIAGNOSTIC_SOURCE,
    message: d.message,
    ...(d.data === undefined ? {} : { data: d.data }),
  };
}

/** Every problem the grammar finds in a document, in file order. */
export function grammarDiagnostics(doc: QueryDocument): Diagnostic[] {
  const out = doc.source.diagnostics.map(fileDiagnosticToLsp);
  for (const entry of doc.source.entries) {
    for (const d of entry.result.diagnostics) out.push(toLspDiagnostic(doc, entry, d));
  }
  return out;
}

export const grammarDiagnosticsModule: FeatureModule = {
  id: 'grammar/diagnostics',
  diagnostics: (doc) => grammarDiagnostics(doc),
};
