/**
 * The parsed view of an open document: the file split into queries by grammar/sources and
 * each query parsed once per document version. Every feature reads this cache, so a quick
 * fix or a hover never parses again. Parsing is incremental (`parseQueryFileIncremental`):
 * after an edit only the queries whose text changed are parsed again.
 */
import type { Position, Range } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import {
  childrenOf,
  detectFormat,
  lineStarts,
  mapToFile,
  parseQueryFile,
  parseQuerySafely,
  readLineFile,
  type Dialect,
  type ParseResult,
  type QueryEntry,
  type QueryNode,
  type QuerySourceResult,
} from '../../grammar/index.js';

/** The LSP language ids the server handles, one per dialect. */
export const LANGUAGE_IDS = ['indri', 'lucene'] as const;
export type LanguageId = (typeof LANGUAGE_IDS)[number];

export function isLanguageId(id: string): id is LanguageId {
  return (LANGUAGE_IDS as readonly string[]).includes(id);
}

export interface QueryDocument {
  uri: string;
  dialect: Dialect;
  version: number;
  document: TextDocument;
  source: QuerySourceResult;
}

/** The last path segment of a URI, which the source reader uses to pick the file format. */
export function fileNameOf(uri: string): string | undefined {
  try {
    const url = new URL(uri);
    const last = decodeURIComponent(url.pathname).split('/').filter(Boolean).pop();
    return last || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Documents longer than this are not parsed, and get no per-document feature but a notice
 * (docs/LSP_EXTENSIONS.md, "Limits"): parsing runs at a few MB a second on the request thread,
 * so a 50 MB file would hold every request (of every document) for tens of seconds (issue 11
 * item 2). The CLI reads files of any size.
 */
export const MAX_DOCUMENT_CHARS = 4_000_000;

/** Per-request caps for documents under MAX_DOCUMENT_CHARS with very many queries (docs/LSP_EXTENSIONS.md, "Limits"). */
export const MAX_OUTLINE_QUERIES = 20_000;

export function isTooLarge(document: TextDocument): boolean {
  return document.getText().length > MAX_DOCUMENT_CHARS;
}

/** What the user is told about a document over the limit. */
export function tooLargeMessage(document: TextDocument): string {
  const chars = document.getText().length.toLocaleString('en-US');
  return (
    `This document has ${chars} characters, more than the ${MAX_DOCUMENT_CHARS.toLocaleString('en-US')} querylens checks in the editor: ` +
    'diagnostics, highlighting, outline, folding, hover, completion and result previews are off for it. ' +
    'Split it into smaller files, or use the command line (`querylens search`, `querylens format`), which reads files of any size.'
  );
}

export class QueryDocuments {
  private readonly cache = new Map<string, { doc: QueryDocument; memo: ParseMemo }>();

  /** The parsed document for this exact version (parsed now if not cached; only changed queries are re-parsed). */
  get(document: TextDocument): QueryDocument | undefined {
    if (!isLanguageId(document.languageId)) return undefined;
    if (isTooLarge(document)) {
      this.cache.delete(document.uri);
      return undefined;
    }
    const cached = this.cache.get(document.uri);
    if (cached && cached.doc.version === document.version && cached.doc.dialect === document.languageId) return cached.doc;
    const dialect: Dialect = document.languageId;
    const { source, memo } = parseQueryFileIncremental(document.getText(), dialect, fileNameOf(document.uri), cached?.memo);
    const parsed: QueryDocument = { uri: document.uri, dialect, version: document.version, document, source };
    this.cache.set(document.uri, { doc: parsed, memo });
    return parsed;
  }

  forget(uri: string): void {
    this.cache.delete(uri);
  }
}

// ---- Incremental parsing (issue 4 §4: diagnostics of a 1,000-query file within 50 ms of an edit) ----

/**
 * Parse results of the previous version of one document, keyed by dialect and query text. A
 * query's ParseResult depends on its text alone (ranges are query-relative, SEMANTICS.md §1 parsing is
 * a pure function of the text), so an unchanged query reuses its AST and diagnostics wherever
 * the edit moved it; only the entry's position (line, column, offset, map) is recomputed.
 */
export type ParseMemo = Map<string, ParseResult>;

function memoKey(dialect: Dialect, text: string): string {
  return `${dialect}\0${text}`;
}

/** The memo of an already parsed source (its queries' parse results by text). */
export function memoOf(source: QuerySourceResult): ParseMemo {
  const memo: ParseMemo = new Map();
  for (const entry of source.entries) memo.set(memoKey(entry.dialect, entry.text), entry.result);
  return memo;
}

/**
 * `parseQueryFile` for one-query-per-line files (`.indri`, `.lucene`, `.tsv`; grammar/sources
 * line-file rules: `qid<TAB>query` or `query`, blank lines skipped, `//` comment lines in
 * .indri/.lucene, empty-query / missing-qid / duplicate-qid file diagnostics), re-parsing only the
 * queries whose text is not in `previous`. Other formats (Indri parameter XML, TREC topics) are
 * re-read whole: their queries are not line-addressed. Returns the result and the memo for the
 * next version (only this version's queries, so the memo never outgrows the document).
 * The differential test (test/lsp/incremental-parse.test.ts) checks the result equals
 * `parseQueryFile` after random edit sequences.
 */
export function parseQueryFileIncremental(
  text: string,
  dialect: Dialect,
  fileName: string | undefined,
  previous: ParseMemo | undefined,
): { source: QuerySourceResult; memo: ParseMemo; reparsed: number } {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const format = detectFormat(fileName, body)?.format ?? (dialect === 'text' ? 'tsv' : 'lines');
  if (format !== 'lines' && format !== 'tsv') {
    const source = parseQueryFile(text, dialect, fileName);
    return { source, memo: new Map(), reparsed: source.entries.length };
  }
  const memo: ParseMemo = new Map();
  let reparsed = 0;
  // The grammar's own line-file reader, with this document's cache as its parser.
  const parse = (query: string, queryDialect: Dialect): ParseResult => {
    const key = memoKey(queryDialect, query);
    let result = memo.get(key) ?? previous?.get(key);
    if (!result) {
      result = parseQuerySafely(query, queryDialect);
      reparsed++;
    }
    memo.set(key, result);
    return result;
  };
  const { entries, diagnostics } = readLineFile(body, dialect, lineStarts(body), format === 'lines', parse);
  return { source: { file: fileName, format, text: body, dialect, entries, diagnostics }, memo, reparsed };
}


/** File offset of a query-relative offset. */
export function fileOffset(entry: QueryEntry, queryOffset: number): number {
  return mapToFile(entry.map, queryOffset);
}

/** LSP range of a query-relative [start, end). */
export function rangeInFile(doc: QueryDocument, entry: QueryEntry, start: number, end: number): Range {
  const fileStart = fileOffset(entry, start);
  // Map the last character and step past it, so a range that ends right after a decoded
  // entity does not stretch over the rest of the entity (as grammar/sources does).
  const fileEnd = end > start ? fileOffset(entry, end - 1) + 1 : fileStart;
  return { start: doc.document.positionAt(fileStart), end: doc.document.positionAt(fileEnd) };
}

/** File offset where the entry's query text ends. */
export function entryEnd(entry: QueryEntry): number {
  return fileOffset(entry, entry.text.length);
}

/**
 * Inverse of `fileOffset` for offsets inside the entry: the query-relative offset, or
 * undefined when `offset` is not inside the query text (or falls inside an entity whose
 * decoded text is shorter).
 */
export function queryOffsetOf(entry: QueryEntry, offset: number): number | undefined {
  const { text: anchorsText, file: anchorsFile } = entry.map;
  for (let i = anchorsText.length - 1; i >= 0; i--) {
    if (anchorsFile[i] <= offset) {
      const q = anchorsText[i] + (offset - anchorsFile[i]);
      const nextText = i + 1 < anchorsText.length ? anchorsText[i + 1] : entry.text.length;
      // The cursor may sit just after the last character of the query.
      if (q <= nextText && q <= entry.text.length) return q;
      return undefined;
    }
  }
  return undefined;
}

/** The query whose text contains (or ends at) `position`. */
export function entryAt(doc: QueryDocument, position: Position): { entry: QueryEntry; offset: number } | undefined {
  const offset = doc.document.offsetAt(position);
  for (const entry of doc.source.entries) {
    if (offset < entry.offset) continue;
    const q = queryOffsetOf(entry, offset);
    if (q !== undefined) return { entry, offset: q };
  }
  return undefined;
}

/** True when the query text is one verbatim slice of the file, so it can be edited in place. */
export function isVerbatim(doc: QueryDocument, entry: QueryEntry): boolean {
  const start = entry.offset;
  const end = entryEnd(entry);
  return end - start === entry.text.length && doc.document.getText().slice(start, end) === entry.text;
}

/** Innermost-last chain of AST nodes whose range contains the query-relative offset. */
export function nodesAt(root: QueryNode | null, offset: number): QueryNode[] {
  const chain: QueryNode[] = [];
  let node: QueryNode | null = root;
  while (node) {
    chain.push(node);
    const next: QueryNode | undefined = childrenOf(node).find((c) => c.range.start <= offset && offset <= c.range.end);
    node = next ?? null;
  }
  return chain.filter((n) => n.range.start <= offset && offset <= n.range.end);
}

