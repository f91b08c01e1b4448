/**
 * The parsed view of an open document: the file split into queries by grammar/sources and
 * each query parsed once per document version. Every feature reads this cache, so a quick
 * fix or a hover never parses again.
 */
import type { Position, Range } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { childrenOf, type Dialect, type QueryNode, parseQueryFile, mapToFile, type QueryEntry, type QuerySourceResult } from '../../grammar/index.js';

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

export class QueryDocuments {
  private readonly cache = new Map<string, QueryDocument>();

  /** The parsed document for this exact version (parsed now if not cached). */
  get(document: TextDocument): QueryDocument | undefined {
    if (!isLanguageId(document.languageId)) return undefined;
    const cached = this.cache.get(document.uri);
    if (cached && cached.version === document.version && cached.dialect === document.languageId) return cached;
    const dialect: Dialect = document.languageId;
    const source = parseQueryFile(document.getText(), dialect, fileNameOf(document.uri));
    const parsed: QueryDocument = { uri: document.uri, dialect, version: document.version, document, source };
    this.cache.set(document.uri, parsed);
    return parsed;
  }

  forget(uri: string): void {
    this.cache.delete(uri);
  }
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

