/**
 * One-query-per-line files: `.indri`, `.lucene` and `.tsv`.
 *
 * - A line is `qid<TAB>query` or just `query`. The qid is the text before the first TAB
 *   when that text is one token without spaces; otherwise the whole line is the query.
 *   A line without a qid gets its 1-based line number.
 * - Blank lines are skipped.
 * - Comment lines (`.indri` and `.lucene` only): the first non-blank characters are `//`.
 *   Why `//`: Indri has no comment syntax (SEMANTICS.md §1.1) and no query can start with `/`
 *   (`/` only appears inside dates and `[./path]` restrictions); in Lucene `//` is an empty
 *   regular expression, which matches nothing useful (SEMANTICS.md §3); `#` would be an Indri
 *   operator and `;` a Lucene term character. `.tsv` topic files have no comments: every
 *   line is a topic.
 */
import type { Dialect, SourceRange } from '../ast.js';
import type { DiagnosticDataByCode } from '../diagnostics.js';
import { duplicateQidDiagnostics, fileDiagnostic, makeEntry, type QueryParser } from './entries.js';
import { parseQuerySafely } from './parse-query.js';
import { identityMap, type OffsetMap } from './positions.js';
import type { QueryEntry, SourceDiagnostic } from './types.js';

export const COMMENT_PREFIX = '//';

/** True when `line` is a comment line of a `.indri`/`.lucene` file. */
export function isCommentLine(line: string): boolean {
  return line.trimStart().startsWith(COMMENT_PREFIX);
}

const WHITESPACE = /\s/;

/** Printable ASCII other than space: never whitespace for trim(), never a line break. */
function isPrintable(c: number): boolean {
  return c > 0x20 && c < 0x7f;
}

/**
 * For a line `qid<TAB>query` whose qid is printable ASCII not starting with `/` (so not a
 * comment) and whose query starts and ends with printable ASCII (so trim() keeps it
 * whole), the offset of the TAB; -1 for any other line, which takes the general path.
 */
function simpleQidTab(text: string, lineStart: number, lineEnd: number): number {
  if (lineStart >= lineEnd || text.charCodeAt(lineStart) === 47) return -1;
  let i = lineStart;
  while (i < lineEnd && isPrintable(text.charCodeAt(i))) i++;
  if (i === lineStart || i + 1 >= lineEnd || text.charCodeAt(i) !== 9) return -1;
  if (!isPrintable(text.charCodeAt(i + 1)) || !isPrintable(text.charCodeAt(lineEnd - 1))) return -1;
  return i;
}

/** A number, then spaces, then the query: what `qid<TAB>query` becomes in an editor that inserts spaces for TAB. */
const SPACED_QID = /^([0-9]+)( +)(?=\S)/;

/**
 * Reads a one-query-per-line file. `parse` turns each query text into its parse result
 * (`parseQuerySafely` by default; the language server passes its cache so an edit re-parses
 * only the queries whose text changed).
 */
export function readLineFile(
  text: string,
  dialect: Dialect,
  starts: readonly number[],
  allowComments: boolean,
  parse: QueryParser = parseQuerySafely,
): { entries: QueryEntry[]; diagnostics: SourceDiagnostic[] } {
  const entries: QueryEntry[] = [];
  const diagnostics: SourceDiagnostic[] = [];
  // Where each entry's qid starts in the file (-1: numbered after its line); a qid range is
  // only needed for a duplicate, and then it is the qid's own length.
  const qidStarts: number[] = [];
  for (let lineNo = 0; lineNo < starts.length; lineNo++) {
    const lineStart = starts[lineNo];
    let lineEnd = lineNo + 1 < starts.length ? starts[lineNo + 1] - 1 : text.length;
    if (lineEnd > lineStart && text.charCodeAt(lineEnd - 1) === 13) lineEnd--; // CRLF

    let qid: string;
    let qidStart = -1; // where the qid is written (-1: numbered after its line)
    let query: string;
    let queryOffset: number;
    const tab = simpleQidTab(text, lineStart, lineEnd);
    if (tab !== -1) {
      // The usual `qid<TAB>query` line, read without slicing and trimming the line first
      // (a 10,000-query file must load in a few ms; the result is the same as below).
      qid = text.slice(lineStart, tab);
      qidStart = lineStart;
      queryOffset = tab + 1;
      query = text.slice(queryOffset, lineEnd);
    } else {
      const line = text.slice(lineStart, lineEnd);
      if (line.trim() === '') continue;
      if (allowComments && isCommentLine(line)) continue;

      qid = String(lineNo + 1);
      let queryStart = 0;
      const tabAt = line.indexOf('\t');
      if (tabAt !== -1) {
        const head = line.slice(0, tabAt).trim();
        if (head !== '' && !WHITESPACE.test(head)) {
          qid = head;
          const lead = line.indexOf(head);
          qidStart = lineStart + lead;
          queryStart = tabAt + 1;
        }
      }
      const rest = line.slice(queryStart);
      const lead = rest.length - rest.trimStart().length;
      query = rest.trim();
      queryOffset = lineStart + queryStart + lead;
    }
    if (query === '') {
      diagnostics.push(
        fileDiagnostic(starts, 'source/empty-query', 'warning', `Query '${qid}' has an id but no text.`, qidStart >= 0 ? { start: qidStart, end: qidStart + qid.length } : { start: lineStart, end: lineEnd }, qid),
      );
      continue;
    }
    const spaced = qidStart < 0 ? SPACED_QID.exec(query) : null;
    if (spaced) {
      const spaces = { start: queryOffset + spaced[1].length, end: queryOffset + spaced[1].length + spaced[2].length };
      const d = fileDiagnostic(
        starts,
        'source/spaces-after-qid',
        'warning',
        `'${spaced[1]}' followed by spaces is read as part of the query, and the line is numbered ${qid}; if '${spaced[1]}' is the query id, separate it with a TAB.`,
        { start: queryOffset, end: spaces.end },
        qid,
      );
      d.data = { qid: spaced[1], spaces } satisfies DiagnosticDataByCode['source/spaces-after-qid'];
      diagnostics.push(d);
    } else if (qidStart < 0 && dialect === 'text') {
      diagnostics.push(
        fileDiagnostic(
          starts,
          'source/missing-qid',
          'warning',
          `This line has no 'qid<TAB>' prefix; it is numbered ${qid} after its line.`,
          { start: queryOffset, end: queryOffset + query.length },
          qid,
        ),
      );
    }
    const map: OffsetMap = identityMap(queryOffset);
    const entry = makeEntry(qid, query, map, dialect, starts, lineNo, parse);
    if (qidStart < 0) entry.implicitQid = true;
    entries.push(entry);
    qidStarts.push(qidStart);
  }
  const qidRangeOf = (entry: QueryEntry, i: number): SourceRange | undefined =>
    qidStarts[i] >= 0 ? { start: qidStarts[i], end: qidStarts[i] + entry.qid.length } : undefined;
  // A loop, not push(...spread): a file of 150,000 lines with one id has that many duplicates.
  for (const d of duplicateQidDiagnostics(entries, starts, qidRangeOf)) diagnostics.push(d);
  return { entries, diagnostics };
}
