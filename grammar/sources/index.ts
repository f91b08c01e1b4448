/**
 * Query sources: files that hold many queries, read into entries that know where each
 * query sits in the file, so every diagnostic can be reported at a file position.
 *
 * Formats (chosen by extension, or by content when the extension says nothing):
 * - `.indri`, `.lucene`: one query per line, `qid<TAB>query` or `query` (qid = 1-based line
 *   number). Blank lines are skipped. Comment lines start with `//` (after optional
 *   blanks): `//` can start no Indri query and is an empty, useless regex in Lucene
 *   (see line-file.ts). Duplicate qids are an error.
 * - `.tsv`: `qid<TAB>natural language text`, dialect `text`, no comments.
 * - `.xml`, `.param`: Indri parameter files (SEMANTICS.md §1.7), queries in dialect `indri`.
 * - `.trec`, `.topics`, or `.txt` holding `<top>`: TREC topic files (SEMANTICS.md §7), dialect
 *   `text`; fields chosen with `topicFields` (default `['title']`).
 * - Any other name: sniffed (`<top>` → topics, `<parameters>`/`<query>` → Indri parameters),
 *   else one query per line in the dialect given (Indri by default).
 */
import { isUtf8 } from 'node:buffer';
import { readFileSync, statSync } from 'node:fs';
import { extname } from 'node:path';
import type { Dialect } from '../ast.js';
import { fileDiagnostic, toFileDiagnostic } from './entries.js';
import { readIndriParameters } from './indri-params.js';
import { readLineFile } from './line-file.js';
import { lineStarts } from './positions.js';
import { readTrecTopics } from './trec-topics.js';
import type { QueryDiagnostic } from '../diagnostics.js';
import type { QueryEntry, QuerySourceResult, SourceDiagnostic, SourceFormat, TopicField } from './types.js';

export type { IndriParameters, QueryEntry, QuerySourceResult, SourceDiagnostic, SourceFormat, TopicField } from './types.js';
export { COMMENT_PREFIX, isCommentLine, readLineFile } from './line-file.js';
export type { QueryParser } from './entries.js';
export { mapEndToFile, mapToFile, positionAt, lineStarts, type OffsetMap } from './positions.js';
export { parseQuery, parseQuerySafely, type ParseQueryOptions } from './parse-query.js';

export interface QueryFileOptions {
  /** Overrides the format implied by the file name and content. */
  format?: SourceFormat;
  /** TREC topics: which fields make the query text, in this order. Default `['title']`. */
  topicFields?: TopicField[];
}

export interface ReadQuerySourceOptions {
  /** Overrides the dialect implied by the extension (for line files and `.tsv`). */
  dialect?: Dialect;
  topicFields?: TopicField[];
  format?: SourceFormat;
}

/** Thrown by readQuerySource when the file cannot be read at all (missing, a directory). */
export class QuerySourceError extends Error {}

const EXTENSION_FORMATS: Record<string, { format: SourceFormat; dialect: Dialect }> = {
  '.indri': { format: 'lines', dialect: 'indri' },
  '.lucene': { format: 'lines', dialect: 'lucene' },
  '.tsv': { format: 'tsv', dialect: 'text' },
  '.xml': { format: 'indri-params', dialect: 'indri' },
  '.param': { format: 'indri-params', dialect: 'indri' },
  '.params': { format: 'indri-params', dialect: 'indri' },
  '.trec': { format: 'trec-topics', dialect: 'text' },
  '.topics': { format: 'trec-topics', dialect: 'text' },
};

/** Format and dialect for a file name, looking at the content when the extension is not decisive. */
export function detectFormat(fileName: string | undefined, text: string): { format: SourceFormat; dialect: Dialect } | undefined {
  const ext = fileName ? extname(fileName).toLowerCase() : '';
  const known = EXTENSION_FORMATS[ext];
  if (known) return known;
  const head = text.slice(0, 4096);
  if (/<top>/i.test(head)) return { format: 'trec-topics', dialect: 'text' };
  if (/^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<(parameters|query)\b/.test(head)) return { format: 'indri-params', dialect: 'indri' };
  return undefined;
}

/** The dialect a format's queries are written in, when the extension does not say. */
function defaultDialect(format: SourceFormat): Dialect {
  return format === 'indri-params' ? 'indri' : format === 'lines' ? 'indri' : 'text';
}

/**
 * Reads the queries of a file's text. Pure: no I/O. `dialect` is the dialect of the
 * queries of line and `.tsv` files; parameter files are always Indri and topics text.
 */
export function parseQueryFile(text: string, dialect: Dialect, fileName?: string, options: QueryFileOptions = {}): QuerySourceResult {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const format = options.format ?? detectFormat(fileName, text)?.format ?? (dialect === 'text' ? 'tsv' : 'lines');
  const starts = lineStarts(text);
  const result = readFormat(text, format, dialect, fileName, starts, options);
  // sourceDiagnostics and entryDiagnosticsInFile need the same line starts: keep them.
  startsCache.set(result, { text, starts });
  return result;
}

function readFormat(
  text: string,
  format: SourceFormat,
  dialect: Dialect,
  fileName: string | undefined,
  starts: number[],
  options: QueryFileOptions,
): QuerySourceResult {
  const base = { file: fileName, format, text };
  switch (format) {
    case 'lines':
    case 'tsv': {
      const { entries, diagnostics } = readLineFile(text, dialect, starts, format === 'lines');
      return { ...base, dialect, entries, diagnostics };
    }
    case 'indri-params': {
      const { entries, diagnostics, parameters } = readIndriParameters(text, starts);
      return { ...base, dialect: 'indri', entries, diagnostics, parameters };
    }
    case 'trec-topics': {
      const fields = options.topicFields?.length ? options.topicFields : (['title'] as TopicField[]);
      const { entries, diagnostics } = readTrecTopics(text, starts, fields);
      return { ...base, dialect: 'text', entries, diagnostics };
    }
  }
}

/**
 * Reads a query file from disk. Invalid UTF-8 is decoded with U+FFFD and reported once.
 * Throws QuerySourceError when the path cannot be read.
 */
export function readQuerySource(path: string, options: ReadQuerySourceOptions = {}): QuerySourceResult {
  let bytes: Buffer;
  try {
    if (statSync(path).isDirectory()) throw new QuerySourceError(`${path}: is a directory, not a query file`);
    bytes = readFileSync(path);
  } catch (err) {
    if (err instanceof QuerySourceError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (err as Error).message;
    throw new QuerySourceError(`${path}: ${why}`);
  }
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  const detected = detectFormat(path, text);
  const format = options.format ?? detected?.format ?? 'lines';
  const dialect = options.dialect ?? detected?.dialect ?? defaultDialect(format);
  const result = parseQueryFile(text, dialect, path, { format, topicFields: options.topicFields });
  const bad = invalidUtf8Offset(bytes, result.text);
  if (bad !== undefined) {
    const starts = lineStarts(result.text);
    result.diagnostics.unshift(
      fileDiagnostic(starts, 'source/invalid-utf8', 'warning', 'The file is not valid UTF-8; the bad bytes were read as U+FFFD.', { start: bad, end: bad + 1 }),
    );
  }
  return result;
}

/** Offset of the first U+FFFD produced by decoding, when the bytes are not valid UTF-8. */
function invalidUtf8Offset(bytes: Buffer, decoded: string): number | undefined {
  // isUtf8 validates as the fatal WHATWG decoder does, without decoding the file again.
  if (isUtf8(bytes)) return undefined;
  const at = decoded.indexOf('\ufffd');
  return at === -1 ? 0 : at;
}

/**
 * Every diagnostic of a source in file positions: file-level ones and each query's,
 * sorted by position.
 */
export function sourceDiagnostics(source: QuerySourceResult): SourceDiagnostic[] {
  const starts = startsOf(source);
  const all: SourceDiagnostic[] = [...source.diagnostics];
  for (const entry of source.entries) {
    for (const d of entry.result.diagnostics) all.push(toFileDiagnostic(entry, d, starts));
  }
  return all.sort((a, b) => a.range.start - b.range.start || a.range.end - b.range.end);
}

/** Moves any query-relative diagnostic of `entry` (e.g. from translation) into the file. */
export function entryDiagnosticsInFile(source: QuerySourceResult, entry: QueryEntry, diagnostics: readonly QueryDiagnostic[]): SourceDiagnostic[] {
  const starts = startsOf(source);
  return diagnostics.map((d) => toFileDiagnostic(entry, d, starts));
}

/** Line starts of a source's text, computed once per source (callers map many entries). */
const startsCache = new WeakMap<QuerySourceResult, { text: string; starts: number[] }>();
function startsOf(source: QuerySourceResult): number[] {
  const hit = startsCache.get(source);
  if (hit && hit.text === source.text) return hit.starts;
  const starts = lineStarts(source.text);
  startsCache.set(source, { text: source.text, starts });
  return starts;
}
