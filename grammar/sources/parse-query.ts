import type { Dialect } from '../ast.js';
import type { ParseResult } from '../diagnostics.js';
import { parseIndri } from '../indri/index.js';
import { parseLucene } from '../lucene/index.js';
import { parseText } from '../text/index.js';

export interface ParseQueryOptions {
  /** Lucene only: the operator between clauses that have none (SEMANTICS.md §3). Default OR. */
  defaultOperator?: 'OR' | 'AND';
}

/** Parses one query in the given dialect. Total: never throws (see `parseQuerySafely`). */
export function parseQuery(text: string, dialect: Dialect, options: ParseQueryOptions = {}): ParseResult {
  switch (dialect) {
    case 'indri':
      return parseIndri(text);
    case 'lucene':
      return parseLucene(text, { defaultOperator: options.defaultOperator });
    case 'text':
      return parseText(text);
  }
}

/**
 * Like parseQuery, but a parser failure (a bug, or a stack overflow on absurd nesting)
 * becomes an error diagnostic over the whole query instead of an exception, so that one
 * bad line cannot stop a whole file from being checked.
 */
export function parseQuerySafely(text: string, dialect: Dialect, options: ParseQueryOptions = {}): ParseResult {
  try {
    return parseQuery(text, dialect, options);
  } catch (err) {
    const reason = err instanceof RangeError ? 'the query is nested too deeply' : err instanceof Error ? err.message : String(err);
    return {
      ast: { dialect, root: null, range: { start: 0, end: text.length } },
      diagnostics: [
        {
          code: 'source/parser-failed',
          severity: 'error',
          message: `The ${dialect} parser could not read this query: ${reason}`,
          range: { start: 0, end: text.length },
        },
      ],
    };
  }
}
