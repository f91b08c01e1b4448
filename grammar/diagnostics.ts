import type { QueryAst, SourceRange } from './ast.js';

export type Severity = 'error' | 'warning' | 'info' | 'hint';

/**
 * A problem found in a query. `code` is stable (tests, quick fixes and users rely on it);
 * `data` carries what a quick fix needs, typed per code in `DiagnosticDataByCode`.
 */
export interface QueryDiagnostic<C extends string = string> {
  code: C;
  severity: Severity;
  message: string;
  /** UTF-16 offsets into the parsed text, [start, end). */
  range: SourceRange;
  data?: C extends keyof DiagnosticDataByCode ? DiagnosticDataByCode[C] : unknown;
}

/**
 * Typed payloads for diagnostic codes that have a quick fix. Add an entry when a new
 * code gets a fix; the language server's code-action provider switches on `code`.
 */
export interface DiagnosticDataByCode {
  /** Insert the missing closing token at `offset`. */
  'syntax/missing-close': { insert: string; offset: number };
  /** `#weight` item without a weight: insert `weight ` before the item at `offset`. */
  'indri/weight-expected': { offset: number; suggestedWeight: number };
  /** A term with characters Indri rejects: replace `range` by `#base64(encoded)`. */
  'indri/needs-base64': { encoded: string; quote: boolean };
  /** Lucene `and` / `or` / `not` between two clauses: replace `range` by `replacement` (AND / OR / NOT). */
  'lucene/lowercase-operator': { replacement: string };
  /** A line `12   query` (spaces where a TAB was meant): replace the file range `spaces` by a TAB to make `qid` the query id. */
  'source/spaces-after-qid': { qid: string; spaces: SourceRange };
}

/** Result of every parse: total, never throws. */
export interface ParseResult {
  ast: QueryAst;
  diagnostics: QueryDiagnostic[];
}

export function hasErrors(diagnostics: readonly QueryDiagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}
