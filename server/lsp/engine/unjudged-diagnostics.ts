/**
 * "4 of the top 10 are unjudged": an information diagnostic on each judged query whose top 10
 * holds documents the qrels do not judge, since its metrics then count them as not relevant and
 * are only a lower bound. Shown for queries with a written id the qrels know (an implied id is
 * never judged), over the same first MAX_PREVIEW_LENSES runnable queries as the preview lenses,
 * because each costs a search. Shown on the query's first operator or word. Judging in the results panel (`querylens/judge`) clears the counts
 * and republishes.
 */
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver';
import { childrenOf, walk, type QueryEntry, type SourceRange } from '../../../grammar/index.js';
import { DIAGNOSTIC_SOURCE } from '../diagnostics.js';
import { rangeInFile, type QueryDocument } from '../documents.js';
import type { FeatureModule } from '../features.js';
import type { EngineContext } from './context.js';
import { MAX_PREVIEW_LENSES } from './preview-lens.js';
import { runnable, topTen } from './ranking.js';
import { judgedQid, type EngineSession } from './session.js';

export const UNJUDGED_CODE = 'engine/unjudged-top-k';
/** The session cache of counts, keyed by qid + dialect + text; cleared when a judgement is written. */
export const UNJUDGED_CACHE = 'unjudged';

export interface UnjudgedData {
  qid: string;
  unjudged: number;
  of: number;
}

/**
 * Where the count is shown: the query's first operator or word, so a file of judged queries is not
 * underlined from end to end.
 */
function anchor(entry: QueryEntry): SourceRange {
  let found: SourceRange | null = null;
  walk(entry.result.ast.root, (node) => {
    if (found) return false;
    // An operator written first (`#combine(`), not a suffix (`^2`, `~1`).
    if (node.operatorRange && node.operatorRange.start === node.range.start) found = node.operatorRange;
    else if (childrenOf(node).length === 0) found = node.range;
    return !found;
  });
  return found ?? { start: 0, end: entry.text.length };
}

export function unjudgedDiagnostics(session: EngineSession, doc: QueryDocument, max = MAX_PREVIEW_LENSES): Diagnostic[] {
  if (!session.qrels) return [];
  const cache = session.cache<UnjudgedData>(UNJUDGED_CACHE);
  const out: Diagnostic[] = [];
  let searched = 0;
  for (const entry of doc.source.entries) {
    if (!runnable(entry)) continue;
    if (searched++ === max) break;
    const qid = judgedQid(entry);
    if (qid === null || !session.qrels.has(qid)) continue;
    const key = `${qid}\0${entry.dialect}\0${entry.text}`;
    let counted = cache.get(key);
    if (!counted) {
      const hits = topTen(session, entry).hits;
      counted = { qid, unjudged: hits.filter((h) => session.relevance(qid, h.docno) === null).length, of: hits.length };
      cache.set(key, counted);
    }
    if (counted.unjudged === 0) continue;
    out.push({
      range: ((r) => rangeInFile(doc, entry, r.start, r.end))(anchor(entry)),
      severity: DiagnosticSeverity.Information,
      code: UNJUDGED_CODE,
      source: DIAGNOSTIC_SOURCE,
      message: `${counted.unjudged} of the top ${counted.of} are unjudged: the metrics count them as not relevant (judge them in the results panel)`,
      data: counted,
    });
  }
  return out;
}

export function unjudgedDiagnosticsModule(context: EngineContext): FeatureModule {
  return {
    id: 'engine/unjudged',
    diagnostics: (doc) => {
      const session = context.session();
      return session ? unjudgedDiagnostics(session, doc) : [];
    },
  };
}
