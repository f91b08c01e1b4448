import type { Dialect } from '../ast.js';
import type { ParseResult, QueryDiagnostic } from '../diagnostics.js';
import type { OffsetMap } from './positions.js';

/** How the queries are laid out in a file (see grammar/sources/index.ts for the rules). */
export type SourceFormat = 'lines' | 'tsv' | 'indri-params' | 'trec-topics';

export type TopicField = 'title' | 'desc' | 'narr';

/** One query read from a file. */
export interface QueryEntry {
  qid: string;
  /**
   * True when the file gives this query no id and `qid` is implied (its line number, or its position in
   * a parameter file). Such a query is never judged against a topic of that number unless the user
   * binds it explicitly, and its id is never reported as a duplicate.
   */
  implicitQid?: true;
  /** The query text handed to the parser (entities decoded, topic fields joined). */
  text: string;
  dialect: Dialect;
  /** 0-based line of the first character of `text` in the file. */
  line: number;
  /** 0-based UTF-16 column of that character. */
  column: number;
  /** UTF-16 offset of that character in the file. */
  offset: number;
  result: ParseResult;
  /** Maps offsets in `text` to offsets in the file (entities and joined fields make them differ). */
  map: OffsetMap;
  /** Extra per-query data some formats carry (Indri `<workingSetDocno>`, `<feedbackDocno>`, `<type>`). */
  extra?: { type?: string; workingSetDocnos?: string[]; feedbackDocnos?: string[] };
}

/**
 * A diagnostic placed in the file. `range` holds file offsets (not query offsets);
 * line/column fields are 0-based UTF-16 positions, like LSP.
 */
export interface SourceDiagnostic extends QueryDiagnostic {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  /** The query the diagnostic belongs to; absent for file-level problems. */
  qid?: string;
}

/** Settings of an Indri parameter file (SEMANTICS.md §1.7), as data. */
export interface IndriParameters {
  index: string[];
  count?: number;
  rule: string[];
  trecFormat?: boolean;
  runID?: string;
  queryOffset?: number;
  fbDocs?: number;
  fbTerms?: number;
  fbMu?: number;
  fbOrigWeight?: number;
  stopper: string[];
  /** Every other top-level element, as text (repeated elements keep the last value). */
  other: Record<string, string>;
}

export interface QuerySourceResult {
  /** The path given to readQuerySource, or the fileName given to parseQueryFile. */
  file?: string;
  format: SourceFormat;
  dialect: Dialect;
  /** The file text as decoded (a leading BOM removed). */
  text: string;
  entries: QueryEntry[];
  /** Problems with the file itself (malformed XML, duplicate qids, ...), in file positions. */
  diagnostics: SourceDiagnostic[];
  /** Present for Indri parameter files. */
  parameters?: IndriParameters;
}
