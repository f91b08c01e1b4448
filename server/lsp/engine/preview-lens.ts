/**
 * The inline result preview: a code lens above each query,
 *   ▶ 152 results · nDCG@10 0.43 · 4 of the top 10 unjudged · top: <title of the first hit>
 * (nDCG@10 and the unjudged count only when the qrels judge the query; judging in the results
 * panel, `querylens/judge`, clears the cached lenses). Its command, `querylens.showResults`
 * with arguments [qid, uri], asks the client to open the results panel, which fetches the
 * full list with `querylens/preview`.
 *
 * Lenses are cached per query text for the session, so an edit re-runs only the edited
 * query; a long file yields between queries and stops when the request is cancelled.
 *
 * Never an empty, silent answer while the index is busy: during a rebuild the previous index
 * keeps serving, so each lens keeps its results and says `· index being rebuilt`; while no
 * index is open yet (the first-use build, the first load) each query gets a lens that says the
 * index is being built/loaded (no command). The server asks the client to refresh the lenses
 * once the index is ready (`workspace/codeLens/refresh`, server.ts).
 */
import type { CancellationToken, CodeLens } from 'vscode-languageserver';
import type { QueryEntry } from '../../../grammar/index.js';
import { rangeInFile, type QueryDocument } from '../documents.js';
import type { FeatureModule } from '../features.js';
import { SHOW_RESULTS_COMMAND } from './protocol.js';
import type { IndexActivity } from '../engine.js';
import type { EngineContext } from './context.js';
import { runnable, topTen } from './ranking.js';
import { judgedQid, type EngineSession } from './session.js';

const TITLE_CHARS = 60;

/**
 * Queries of one document that get a result preview: each lens runs a search, so a file of
 * 100,000 queries would keep the request (and every other request behind it) busy for minutes
 * (issue 11 item 2). Past them one lens says how many were left out (docs/LSP_EXTENSIONS.md, "Limits").
 */
export const MAX_PREVIEW_LENSES = 1_000;

/** The lens on the first query past the cap, saying how many queries have no preview. */
function moreLens(doc: QueryDocument, entry: QueryEntry, more: number, max: number): CodeLens {
  const start = rangeInFile(doc, entry, 0, 0).start;
  const title = `▷ ${more.toLocaleString('en-US')} more queries have no preview: querylens previews the first ${max.toLocaleString('en-US')} of a file (use \`querylens search\` for all)`;
  return { range: { start, end: start }, command: { title, command: '' } };
}

function shorten(text: string, n: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > n ? `${flat.slice(0, n - 1)}…` : flat;
}

/** The lens title of one query (without the qid-specific metric when no qrels judge it). */
export function lensTitle(session: EngineSession, qid: string | null, entry: QueryEntry): string {
  const result = topTen(session, entry);
  const parts = [`▶ ${result.matchedDocs.toLocaleString('en-US')} result${result.matchedDocs === 1 ? '' : 's'}`];
  const metrics = session.metrics(qid, result.hits, ['ndcg_cut_10']);
  if (metrics) {
    parts.push(`nDCG@10 ${metrics.ndcg_cut_10!.toFixed(2)}`);
    // Metrics over a top 10 with unjudged documents are a lower bound: say how many to judge.
    const unjudged = result.hits.filter((h) => session.relevance(qid, h.docno) === null).length;
    if (unjudged) parts.push(`${unjudged} of the top ${result.hits.length} unjudged`);
  }
  if (result.hits.length > 0) parts.push(`top: ${shorten(session.title(result.hits[0]!.doc), TITLE_CHARS)}`);
  return parts.join(' · ');
}

export async function previewLenses(session: EngineSession, doc: QueryDocument, token: CancellationToken, note = '', max = MAX_PREVIEW_LENSES): Promise<CodeLens[]> {
  const cache = session.cache<string>('lens');
  const lenses: CodeLens[] = [];
  let sinceYield = performance.now();
  const entries = doc.source.entries;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    if (token.isCancellationRequested) return [];
    if (!runnable(entry)) continue;
    if (lenses.length === max) {
      const more = entries.slice(i).filter(runnable).length;
      lenses.push(moreLens(doc, entry, more, max));
      break;
    }
    // The qid is part of the key: the same text under another qid has other judgements.
    const key = `${judgedQid(entry) ?? '\0implied'}\0${entry.dialect}\0${entry.text}`;
    let title = cache.get(key);
    if (title === undefined) {
      title = lensTitle(session, judgedQid(entry), entry);
      cache.set(key, title);
    }
    const start = rangeInFile(doc, entry, 0, 0).start;
    lenses.push({ range: { start, end: start }, command: { title: title + note, command: SHOW_RESULTS_COMMAND, arguments: [entry.qid, doc.uri] } });
    if (performance.now() - sinceYield > 20) {
      // Let $/cancelRequest and edits in before continuing with a long file.
      await new Promise((r) => setImmediate(r));
      sinceYield = performance.now();
    }
  }
  return lenses;
}

/** One lens per runnable query saying what the index is doing; no command (nothing to open yet). */
export function busyLenses(doc: QueryDocument, activity: IndexActivity, max = MAX_PREVIEW_LENSES): CodeLens[] {
  const title = `▷ ${activity.message.replace(/^the/, 'The')}: results appear when it is ready`;
  const queries = doc.source.entries.filter(runnable);
  const lenses = queries.slice(0, max).map((entry): CodeLens => {
    const start = rangeInFile(doc, entry, 0, 0).start;
    // An empty command id: clients show the title as plain text.
    return { range: { start, end: start }, command: { title, command: '' } };
  });
  if (queries.length > max) lenses.push(moreLens(doc, queries[max]!, queries.length - max, max));
  return lenses;
}

export function previewLensModule(context: EngineContext): FeatureModule {
  return {
    id: 'engine/preview-lens',
    codeLenses: (doc, token) => {
      context.documents.see(doc);
      const session = context.session();
      const activity = context.indexActivity();
      if (session) return previewLenses(session, doc, token, activity?.kind === 'building' ? ' · index being rebuilt' : '');
      return activity ? busyLenses(doc, activity) : [];
    },
  };
}
