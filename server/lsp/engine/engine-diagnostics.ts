/**
 * Diagnostics that need the index: the engine's query checks (server/engine/scoring/lint.ts, through
 * the session's backend: `engine/oov`, `engine/stopword`, `engine/unknown-field`,
 * `engine/wildcard-cap`) placed in the file. The engine says which node; this module narrows the
 * range to the part written there (the term without its field, the field name) and converts.
 * Results are cached per query text for the session, so an edit re-checks only the queries it touched.
 */
import { DiagnosticSeverity, type Diagnostic, type Range } from 'vscode-languageserver';
import type { Dialect, ParseResult, QueryAst, QueryEntry, SourceRange } from '../../../grammar/index.js';
import type { QueryLint, QueryLintCode, QueryLintData } from '../../engine/scoring/lint.js';
import { DIAGNOSTIC_SOURCE } from '../diagnostics.js';
import { rangeInFile, type QueryDocument } from '../documents.js';
import type { FeatureModule } from '../features.js';
import type { EngineContext } from './context.js';
import { nodeParts } from './query-parts.js';
import type { EngineSession } from './session.js';

export type EngineDiagnosticCode = QueryLintCode;

/** `data` of each engine diagnostic (what a client or a future quick fix may rely on). */
export type EngineDiagnosticData = QueryLintData;

interface QueryProblem {
  code: EngineDiagnosticCode;
  severity: DiagnosticSeverity;
  message: string;
  /** Query-relative. */
  range: SourceRange;
  data: EngineDiagnosticData[EngineDiagnosticCode];
}

const SEVERITY: Record<QueryLint['severity'], DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  info: DiagnosticSeverity.Information,
  hint: DiagnosticSeverity.Hint,
};

/** Where in the query text a check is shown; null for a field inherited from an enclosing `title:( … )`, reported there. */
function problemRange(lint: QueryLint, text: string, dialect: Dialect): SourceRange | null {
  const { node } = lint;
  if (lint.code === 'engine/unknown-field') {
    // `#any:F` ends with the field name, `#any(F)` with it and ')'.
    if (node.kind === 'any') return node.form === 'colon' ? { start: node.range.end - node.field.length, end: node.range.end } : { start: node.range.end - 1 - node.field.length, end: node.range.end - 1 };
    return nodeParts(text, node, dialect).fields.find((f) => f.field === lint.data.field)?.range ?? null;
  }
  return nodeParts(text, node, dialect).body;
}

/** The engine problems of one parsed query (query-relative ranges). */
export function queryProblems(session: EngineSession, ast: QueryAst, text: string, dialect: Dialect): QueryProblem[] {
  const problems: QueryProblem[] = [];
  for (const lint of session.backend.lint(ast)) {
    const range = problemRange(lint, text, dialect);
    if (range) problems.push({ code: lint.code, severity: SEVERITY[lint.severity], message: lint.message, range, data: lint.data });
  }
  return problems;
}

/**
 * A query that sits verbatim on one line of the file: a query offset is a column shift from
 * the entry's start, so its diagnostics depend only on (line, column, text) and can be cached
 * already placed. An edit elsewhere that keeps the line numbers then costs one lookup.
 */
/** The entry's text sits in the file as one unescaped run starting at its offset (its map is a plain shift). */
function plainShift(entry: QueryEntry): boolean {
  return entry.map.text.length === 1 && entry.map.text[0] === 0 && entry.map.file[0] === entry.offset;
}

function placedOnOneLine(entry: QueryEntry): boolean {
  return plainShift(entry) && !/[\r\n]/.test(entry.text);
}

function toDiagnostic(p: QueryProblem, range: Range): Diagnostic {
  return { range, severity: p.severity, code: p.code, source: DIAGNOSTIC_SOURCE, message: p.message, data: p.data };
}

/**
 * Entries each cache keeps at most. Every keystroke adds a query text, and a line inserted above
 * a thousand queries adds a thousand placements; starting over past the cap costs one
 * re-check of the open files and keeps a long session's memory flat.
 */
const CACHE_LIMIT = 50_000;

function remember<T>(cache: Map<string, T>, key: string, value: T): void {
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, value);
}

/**
 * One-line queries' placed diagnostics by the query's ParseResult object. The incremental
 * parser (documents.ts) hands an unchanged query the same ParseResult in every version, so
 * after an edit each untouched query is found by identity and its line and column compared,
 * without building and hashing a string key per query. Weak on both sides: an index reload
 * makes a new session, and a result dies with the last document version that used it.
 */
interface PlacedByResult {
  line: number;
  column: number;
  text: string;
  diagnostics: Diagnostic[];
}
const placedByResult = new WeakMap<EngineSession, WeakMap<ParseResult, PlacedByResult>>();

export function engineDiagnostics(session: EngineSession, doc: QueryDocument): Diagnostic[] {
  const problemsCache = session.cache<QueryProblem[]>('diagnostics');
  const placedCache = session.cache<Diagnostic[]>('diagnostics-placed');
  let byResult = placedByResult.get(session);
  if (!byResult) placedByResult.set(session, (byResult = new WeakMap()));
  const out: Diagnostic[] = [];
  for (const entry of doc.source.entries) {
    if (!entry.result.ast.root) continue;
    const known = byResult.get(entry.result);
    // A hit was placed on one line: same line, column and text (so still no line break) and a
    // map that is still a plain shift puts every diagnostic where it was.
    if (known && known.line === entry.line && known.column === entry.column && known.text === entry.text && plainShift(entry)) {
      for (const d of known.diagnostics) out.push(d);
      continue;
    }
    const oneLine = placedOnOneLine(entry);
    const placedKey = oneLine ? `${entry.line}:${entry.column}\0${entry.dialect}\0${entry.text}` : '';
    const placed = oneLine ? placedCache.get(placedKey) : undefined;
    if (placed) {
      byResult.set(entry.result, { line: entry.line, column: entry.column, text: entry.text, diagnostics: placed });
      for (const d of placed) out.push(d);
      continue;
    }
    const key = `${entry.dialect}\0${entry.text}`;
    let problems = problemsCache.get(key);
    if (!problems) {
      problems = queryProblems(session, entry.result.ast, entry.text, entry.dialect);
      remember(problemsCache, key, problems);
    }
    const diagnostics = oneLine
      ? problems.map((p) =>
          toDiagnostic(p, {
            start: { line: entry.line, character: entry.column + p.range.start },
            end: { line: entry.line, character: entry.column + p.range.end },
          }),
        )
      : problems.map((p) => toDiagnostic(p, rangeInFile(doc, entry, p.range.start, p.range.end)));
    if (oneLine) {
      remember(placedCache, placedKey, diagnostics);
      byResult.set(entry.result, { line: entry.line, column: entry.column, text: entry.text, diagnostics });
    }
    for (const d of diagnostics) out.push(d);
  }
  return out;
}

export function engineDiagnosticsModule(context: EngineContext): FeatureModule {
  return {
    id: 'engine/diagnostics',
    diagnostics: (doc) => {
      context.documents.see(doc);
      const session = context.session();
      return session ? engineDiagnostics(session, doc) : [];
    },
  };
}
