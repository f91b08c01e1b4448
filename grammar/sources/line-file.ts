/**
 * One-query-per-line files: `.indri`, `.lucene` and `.tsv`.
 *
 * - A line is `qid<TAB>query` or just `query`. The qid is the text before the first TAB
 *   when that text is one token without spaces; otherwise the whole line is the query.
 *   A line without a qid gets its 1-based line number.
 * - Blank lines are skipped.
 * - Comment lines (`.indri` and `.lucene` only): the first non-blank characters are `//`.
 *   Why `//`: Indri has no comment syntax (SPECS §1.1) and no query can start with `/`
 *   (`/` only appears inside dates and `[./path]` restrictions); in Lucene `//` is an empty
 *   regular expression, which matches nothing useful (SPECS §3); `#` would be an Indri
 *   operator and `;` a Lucene term character. `.tsv` topic files have no comments: every
 *   line is a topic.
 */
import type { Dialect, SourceRange } from '../ast.js';
import { duplicateQidDiagnostics, fileDiagnostic, makeEntry } from './entries.js';
import { identityMap, type OffsetMap } from './positions.js';
import type { QueryEntry, SourceDiagnostic } from './types.js';

export const COMMENT_PREFIX = '//';

/** True when `line` is a comment line of a `.indri`/`.lucene` file. */
export function isCommentLine(line: string): boolean {
  return line.trimStart().startsWith(COMMENT_PREFIX);
}

const WHITESPACE = /\s/;

export function readLineFile(
  text: string,
  dialect: Dialect,
  starts: readonly number[],
  allowComments: boolean,
): { entries: QueryEntry[]; diagnostics: SourceDiagnostic[] } {
  const entries: QueryEntry[] = [];
  const diagnostics: SourceDiagnostic[] = [];
  const qidRanges = new Map<QueryEntry, SourceRange>();
  for (let lineNo = 0; lineNo < starts.length; lineNo++) {
    const lineStart = starts[lineNo];
    let lineEnd = lineNo + 1 < starts.length ? starts[lineNo + 1] - 1 : text.length;
    if (lineEnd > lineStart && text.charCodeAt(lineEnd - 1) === 13) lineEnd--; // CRLF
    const line = text.slice(lineStart, lineEnd);
    if (line.trim() === '') continue;
    if (allowComments && isCommentLine(line)) continue;

    let qid = String(lineNo + 1);
    let qidRange: SourceRange | undefined;
    let queryStart = 0;
    const tab = line.indexOf('\t');
    if (tab !== -1) {
      const head = line.slice(0, tab).trim();
      if (head !== '' && !WHITESPACE.test(head)) {
        qid = head;
        const lead = line.indexOf(head);
        qidRange = { start: lineStart + lead, end: lineStart + lead + head.length };
        queryStart = tab + 1;
      }
    }
    const rest = line.slice(queryStart);
    const lead = rest.length - rest.trimStart().length;
    const query = rest.trim();
    const queryOffset = lineStart + queryStart + lead;
    if (query === '') {
      diagnostics.push(
        fileDiagnostic(starts, 'source/empty-query', 'warning', `Query '${qid}' has an id but no text.`, qidRange ?? { start: lineStart, end: lineEnd }, qid),
      );
      continue;
    }
    if (qidRange === undefined && dialect === 'text') {
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
    const entry = makeEntry(qid, query, map, dialect, starts);
    if (qidRange) qidRanges.set(entry, qidRange);
    entries.push(entry);
  }
  diagnostics.push(...duplicateQidDiagnostics(entries, starts, qidRanges));
  return { entries, diagnostics };
}
