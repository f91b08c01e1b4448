/**
 * The implied query id as an inlay hint: a query written without an id takes its line number (or
 * its place in a parameter file) as `qid` (QueryEntry.implicitQid in grammar/sources), and that id
 * is never judged against a topic. The hint `qid 21 (implied)` before the query shows which id the
 * results, the run and the outline use, so a number the user did not write is never a surprise.
 */
import { InlayHintKind, type InlayHint, type Range } from 'vscode-languageserver';
import { rangeInFile, type QueryDocument } from './documents.js';
import type { FeatureModule } from './features.js';

export function impliedQidHints(doc: QueryDocument, range: Range): InlayHint[] {
  const hints: InlayHint[] = [];
  for (const entry of doc.source.entries) {
    if (!entry.implicitQid || entry.line < range.start.line || entry.line > range.end.line) continue;
    hints.push({
      position: rangeInFile(doc, entry, 0, 0).start,
      label: `qid ${entry.qid} (implied)`,
      kind: InlayHintKind.Parameter,
      paddingRight: true,
      tooltip: `This query has no written id: it is query ${entry.qid} (its ${doc.source.format === 'lines' ? 'line number' : 'place in the file'}) in runs and results, and it is not judged against topic ${entry.qid}. Write "qid<TAB>query" to give it an id.`,
    });
  }
  return hints;
}

export const impliedQidHintsModule: FeatureModule = {
  id: 'grammar/implied-qid-hints',
  inlayHints: (doc, range) => impliedQidHints(doc, range),
};
