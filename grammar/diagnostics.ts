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
  /**
   * Insert the missing closing token at `offset`. `name` and `openedAt` (the opener's offset) let a
   * query file say where the opener is in the file (missingCloseMessage).
   */
  'syntax/missing-close': { insert: string; offset: number; name?: string; openedAt?: number };
  /** A closing token (`close`, the diagnostic's range) that closes nothing: remove it. */
  'syntax/unmatched-close': { close: string };
  /**
   * `#weight` item without a weight: insert `weight ` before the item at `offset`. When every weight
   * was written after its item (`#weight( heat 0.5 flow 0.3 )`), `swap` replaces `range` by `text`,
   * the same items and weights with each weight first (`0.5 heat 0.3 flow`).
   */
  'indri/weight-expected': { offset: number; suggestedWeight: number; swap?: { range: SourceRange; text: string } };
  /** An operator name Indri does not know: replace the diagnostic's range by `suggestion`, the closest known one. */
  'indri/unknown-operator': { suggestion: string };
  /** A term with characters Indri rejects: replace `range` by `#base64(encoded)`. */
  'indri/needs-base64': { encoded: string; quote: boolean };
  /** Lucene `and` / `or` / `not` between two clauses: replace `range` by `replacement` (AND / OR / NOT). */
  'lucene/lowercase-operator': { replacement: string };
  /** A query id used again (the diagnostic's range, in the file): replace it by `next`, an id no query of the file uses. */
  'source/duplicate-qid': { qid: string; next: string };
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
