/**
 * Diagnostics that need the index: the engine's query checks (server/engine/scoring/lint.ts, through
 * the session's backend: `engine/oov`, `engine/stopword`, `engine/unknown-field`,
 * `engine/wildcard-cap`) placed in the file. The engine says which node; this module narrows the
 * range to the part written there (the term without its field, the field name) and converts.
 * Results are cached per query text for the session, so an edit re-checks only the queries it touched.
 */
import { CodeActionKind, DiagnosticSeverity, type CodeAction, type Diagnostic, type Range, type TextEdit } from 'vscode-languageserver';
import { closestName, walk, type Dialect, type ParseResult, type QueryAst, type QueryEntry, type QueryNode, type SourceRange } from '../../../grammar/index.js';
import type { QueryLint, QueryLintCode, QueryLintData } from '../../engine/scoring/lint.js';
import { DIAGNOSTIC_SOURCE } from '../diagnostics.js';
import { entryAt, rangeInFile, type QueryDocument } from '../documents.js';
import type { FeatureModule } from '../features.js';
import type { EngineContext } from './context.js';
import { nodeParts } from './query-parts.js';
import type { EngineSession } from './session.js';

export type EngineDiagnosticCode = QueryLintCode;

/**
 * `data` of each engine diagnostic (what a client or a quick fix relies on): the engine's, plus for a stopword
 * `remove`, the query range (the item with its weight or operator, and a blank) whose removal drops it and leaves
 * a valid query (absent when none does: the only item, a word of a phrase), and for an unknown field
 * `suggestion`, the indexed field closest to it by edit distance when one is near (quick fix: replace the name).
 */
export type EngineDiagnosticData = Omit<QueryLintData, 'engine/stopword' | 'engine/unknown-field'> & {
  'engine/stopword': QueryLintData['engine/stopword'] & { remove?: SourceRange };
  'engine/unknown-field': QueryLintData['engine/unknown-field'] & { suggestion?: string };
};

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
function problemRange(lint: QueryLint): SourceRange | null {
  const { node } = lint;
  if (lint.code === 'engine/unknown-field') {
    if (node.kind === 'any') return node.fieldRange ?? node.range;
    return nodeParts(node).fields.find((f) => f.field === lint.data.field)?.range ?? null;
  }
  return nodeParts(node).body;
}

/** The engine problems of one parsed query (query-relative ranges). */
export function queryProblems(session: EngineSession, ast: QueryAst, text: string, dialect: Dialect): QueryProblem[] {
  const problems: QueryProblem[] = [];
  let parentsOf: Map<QueryNode, readonly QueryNode[]> | undefined;
  for (const lint of session.backend.lint(ast)) {
    const range = problemRange(lint);
    if (!range) continue;
    let message = lint.message;
    let data: EngineDiagnosticData[EngineDiagnosticCode] = lint.data;
    if (lint.code === 'engine/unknown-field') {
      const suggestion = closestName(lint.data.field, session.backend.fields());
      if (suggestion) {
        message = `${message.replace(/\.$/, '')}; did you mean "${suggestion}"?`;
        data = { ...lint.data, suggestion };
      }
    } else if (lint.code === 'engine/stopword' && ast.root) {
      if (!parentsOf) {
        const found = new Map<QueryNode, readonly QueryNode[]>();
        walk(ast.root, (node, parents) => void found.set(node, [...parents]));
        parentsOf = found;
      }
      const remove = removableRange(text, lint.node, parentsOf.get(lint.node) ?? []);
      if (remove) data = { ...lint.data, remove };
    }
    problems.push({ code: lint.code, severity: SEVERITY[lint.severity], message, range, data });
  }
  return problems;
}

/**
 * The text to delete to drop `node` (a stopword) from its query: the item with its `#weight` weight,
 * or the Lucene clause with its `+`/`-` and `^boost`, and the blanks after it (before it, at the end
 * of a list). Undefined when dropping it would not leave a valid query of the same meaning: the
 * only item of its operator, a word of a window or phrase, a clause joined by AND/OR/NOT.
 */
function removableRange(text: string, node: QueryNode, parents: readonly QueryNode[]): SourceRange | undefined {
  let target: QueryNode = node;
  let depth = parents.length - 1;
  if (parents[depth]?.kind === 'boost') target = parents[depth--]!;
  const container = parents[depth];
  let start: number;
  if (!container) return undefined;
  if (container.kind === 'belief') {
    const item = container.items.find((i) => i.node === target);
    if (!item || container.items.length < 2) return undefined;
    start = item.weightRange?.start ?? target.range.start;
  } else if (container.kind === 'boolean') {
    const clause = container.clauses.find((c) => c.node === target);
    if (!clause || container.clauses.length < 2) return undefined;
    if (container.clauses.some((c) => c.via !== 'default' && c.via !== 'plus' && c.via !== 'minus')) return undefined;
    start = clause.operatorRange?.start ?? target.range.start;
  } else return undefined;
  let end = target.range.end;
  const blank = /[ \t]/;
  if (end < text.length && blank.test(text[end]!)) {
    while (end < text.length && blank.test(text[end]!)) end++;
    // `#combine( the heat )`: the blank before `)` stays; after the last item, take the blank before.
    if (end < text.length && /[)\]}]/.test(text[end]!) && start > 0 && blank.test(text[start - 1]!)) {
      end = target.range.end;
      while (start > 0 && blank.test(text[start - 1]!)) start--;
    }
  } else while (start > 0 && blank.test(text[start - 1]!)) start--;
  return { start, end };
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

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

/**
 * The quick fix of an engine diagnostic, built from its `data` (which comes back from the client, so
 * its shape is checked) and the text still at its range: an unknown field becomes the suggested one;
 * a stopword is dropped with its weight or operator.
 */
export function engineQuickFix(doc: QueryDocument, diagnostic: Diagnostic): CodeAction | null {
  const data = diagnostic.data;
  if (!isRecord(data)) return null;
  let title: string;
  let edit: TextEdit;
  if (diagnostic.code === 'engine/unknown-field') {
    if (typeof data.field !== 'string' || typeof data.suggestion !== 'string' || !/^[\p{L}\p{N}_-]+$/u.test(data.suggestion)) return null;
    if (doc.document.getText(diagnostic.range) !== data.field) return null;
    title = `Change the field to "${data.suggestion}"`;
    edit = { range: diagnostic.range, newText: data.suggestion };
  } else if (diagnostic.code === 'engine/stopword') {
    const remove = data.remove;
    if (typeof data.term !== 'string' || !isRecord(remove) || !Number.isInteger(remove.start) || !Number.isInteger(remove.end)) return null;
    const entry = entryAt(doc, diagnostic.range.start)?.entry;
    if (!entry || (remove.end as number) > entry.text.length || (remove.start as number) > (remove.end as number)) return null;
    // The stopword must still be where the diagnostic says, inside the range to remove.
    if (!entry.text.slice(remove.start as number, remove.end as number).includes(data.term)) return null;
    title = `Remove the stopword "${data.term}"`;
    edit = { range: rangeInFile(doc, entry, remove.start as number, remove.end as number), newText: '' };
  } else return null;
  return { title, kind: CodeActionKind.QuickFix, diagnostics: [diagnostic], isPreferred: true, edit: { changes: { [doc.uri]: [edit] } } };
}

function wantsQuickFix(only: string[] | undefined): boolean {
  return !only || only.length === 0 || only.some((k) => k === CodeActionKind.QuickFix || CodeActionKind.QuickFix.startsWith(`${k}.`));
}

export function engineDiagnosticsModule(context: EngineContext): FeatureModule {
  return {
    id: 'engine/diagnostics',
    diagnostics: (doc) => {
      context.documents.see(doc);
      const session = context.session();
      return session ? engineDiagnostics(session, doc) : [];
    },
    codeActions: (request) => {
      if (!wantsQuickFix(request.context.only)) return [];
      return request.context.diagnostics.flatMap((d) => {
        const fix = d.source === DIAGNOSTIC_SOURCE ? engineQuickFix(request.doc, d) : null;
        return fix ? [fix] : [];
      });
    },
  };
}
