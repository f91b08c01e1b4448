import type { Dialect, SourceRange } from '../ast.js';
import type { DiagnosticDataByCode, ParseResult, QueryDiagnostic, Severity } from '../diagnostics.js';
import { messageInFile } from '../indri/messages.js';
import { parseQuerySafely } from './parse-query.js';
import { mapEndToFile, mapToFile, positionAt, type OffsetMap } from './positions.js';
import type { QueryEntry, SourceDiagnostic } from './types.js';

/**
 * Parses `text` and records where it sits in the file. `lineHint`: the line the caller
 * expects the text to start on (checked, so a wrong hint only costs the binary search).
 */
export function makeEntry(
  qid: string,
  text: string,
  map: OffsetMap,
  dialect: Dialect,
  starts: readonly number[],
  lineHint = -1,
  parse: QueryParser = parseQuerySafely,
): QueryEntry {
  const offset = mapToFile(map, 0);
  const line = lineOf(starts, offset, lineHint);
  return { qid, text, dialect, line, column: offset - starts[line], offset, map, result: parse(text, dialect) };
}

/** How a query text becomes a parse result: `parseQuerySafely`, or a caller's cache of it (the editor's). */
export type QueryParser = (text: string, dialect: Dialect) => ParseResult;

/** A diagnostic at file offsets [start, end). */
export function fileDiagnostic(
  starts: readonly number[],
  code: string,
  severity: Severity,
  message: string,
  range: SourceRange,
  qid?: string,
  data?: unknown,
): SourceDiagnostic {
  const s = positionAt(starts, range.start);
  const e = positionAt(starts, range.end);
  const d: SourceDiagnostic = { code, severity, message, range, line: s.line, column: s.column, endLine: e.line, endColumn: e.column };
  if (qid !== undefined) d.qid = qid;
  if (data !== undefined) d.data = data;
  return d;
}

/** Moves a query diagnostic (query offsets) into the file. */
export function toFileDiagnostic(entry: QueryEntry, d: QueryDiagnostic, starts: readonly number[]): SourceDiagnostic {
  const start = mapToFile(entry.map, d.range.start);
  // An empty range stays empty; a range ending on a decoded entity ends after the entity.
  const end = d.range.end > d.range.start ? mapEndToFile(entry.map, d.range.end) : start;
  // Nearly always on the query's own line: check that line before a binary search
  // (a 10,000-query file can carry thousands of diagnostics).
  const sLine = lineOf(starts, start, entry.line);
  const eLine = lineOf(starts, end, sLine);
  const range = { start, end };
  const column = start - starts[sLine];
  const endColumn = end - starts[eLine];
  const qid = entry.qid;
  // The parsers' diagnostics have one of two key lists; those are built as literals, which
  // give the same object as the spread below. V8's object spread followed by new keys takes
  // a slow path (some 10-20 µs a diagnostic, measured), and a file can carry thousands.
  const { code, severity } = d;
  // Only a missing-close message names a position (the opener's); that one is the file's.
  const message = code === 'syntax/missing-close' ? messageInFile(d, (at) => positionAt(starts, mapToFile(entry.map, at))) : d.message;
  switch (keyList(d)) {
    case PLAIN:
      return { code, severity, message, range, line: sLine, column, endLine: eLine, endColumn, qid };
    case WITH_DATA:
      return { code, severity, message, range, data: d.data, line: sLine, column, endLine: eLine, endColumn, qid };
    default:
      return { ...d, message, range, line: sLine, column, endLine: eLine, endColumn, qid };
  }
}

const PLAIN = 1;
const WITH_DATA = 2;
const KEYS = ['code', 'severity', 'message', 'range', 'data'];

/** PLAIN for the keys code, severity, message, range in this order; WITH_DATA for those and data; else 0. */
function keyList(d: QueryDiagnostic): number {
  let n = 0;
  for (const key in d) {
    if (n === KEYS.length || key !== KEYS[n] || !Object.hasOwn(d, key)) return 0;
    n++;
  }
  return n === 4 ? PLAIN : n === 5 ? WITH_DATA : 0;
}

/** The line of `offset` (as positionAt gives it), trying line `hint` first. */
function lineOf(starts: readonly number[], offset: number, hint: number): number {
  if (hint >= 0 && hint < starts.length && starts[hint] <= offset && (hint + 1 === starts.length || offset < starts[hint + 1])) return hint;
  return positionAt(starts, offset).line;
}

/**
 * Reports every qid seen twice, at the second and later occurrences. `qidRangeOf` gives
 * where the qid of `entries[index]` is written (undefined when it is not: the report then
 * sits at the query).
 */
export function duplicateQidDiagnostics(
  entries: readonly QueryEntry[],
  starts: readonly number[],
  qidRangeOf: (entry: QueryEntry, index: number) => SourceRange | undefined,
): SourceDiagnostic[] {
  // A prototype-less object rather than a Map: qids are mostly numbers, which V8 keeps as
  // array indices there, without hashing (half the time of a Map for 10,000 qids).
  const first: Record<string, QueryEntry | undefined> = Object.create(null);
  const out: SourceDiagnostic[] = [];
  /** Every id in the file, written or implied, and those already offered: a renumbering takes none of them. */
  let taken: Set<string> | undefined;
  /** The id last offered for each duplicated id: the next search starts after it (a file of one id stays linear). */
  const offered = new Map<string, string>();
  // Written ids first: only they can be "used again"; an implied id (a line number) is never
  // reported as a duplicate of anything, but one that collides with a written id is pointed out.
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    if (entry.implicitQid) continue;
    const seen = first[entry.qid];
    if (!seen) {
      first[entry.qid] = entry;
      continue;
    }
    const range = qidRangeOf(entry, i) ?? { start: entry.offset, end: entry.offset };
    taken ??= new Set(entries.map((e) => e.qid));
    const next = nextFreeQid(offered.get(entry.qid) ?? entry.qid, taken);
    taken.add(next);
    offered.set(entry.qid, next);
    out.push(
      fileDiagnostic(
        starts,
        'source/duplicate-qid',
        'error',
        `Query id '${entry.qid}' is used again (first on line ${seen.line + 1}); runs and trec_eval key results by query id. '${next}' is free.`,
        range,
        entry.qid,
        { qid: entry.qid, next } satisfies DiagnosticDataByCode['source/duplicate-qid'],
      ),
    );
  }
  for (const entry of entries) {
    if (!entry.implicitQid) continue;
    const written = first[entry.qid];
    if (!written) continue;
    out.push(
      fileDiagnostic(
        starts,
        'source/implied-qid-clash',
        'warning',
        `This query has no id, so it is numbered ${entry.qid} after its line, which line ${written.line + 1} uses as its written id; runs would mix the two. Give it an id of its own ('qid<TAB>query').`,
        { start: entry.offset, end: entry.offset + entry.text.length },
        entry.qid,
      ),
    );
  }
  out.sort((a, b) => a.range.start - b.range.start);
  return out;
}

/**
 * The id a duplicate can take: the next number after its trailing number that no query uses
 * (`3` → `5` when 4 is taken, `q07` → `q08`), or, without a trailing number, the id with `-2`, `-3`, ….
 * (Called with the id offered last for the same duplicate, `x-2` goes on as `x-3`.)
 */
export function nextFreeQid(qid: string, taken: ReadonlySet<string>): string {
  const m = /^(.*?)([0-9]+)$/.exec(qid);
  if (m) {
    const [, prefix, digits] = m;
    for (let n = BigInt(digits!) + 1n; ; n++) {
      const candidate = `${prefix}${n.toString().padStart(digits!.length, '0')}`;
      if (!taken.has(candidate)) return candidate;
    }
  }
  for (let n = 2; ; n++) {
    const candidate = `${qid}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}
