/**
 * The learned surface-form expansion in the editor (issue 15 §4), through the service layer's `expandLearned`
 * (server/service/surface-expansion.ts): the query forms are server/model/surface-query.ts's, the LSP only
 * places them.
 * - Code action `refactor.rewrite.learned` "Add learned expansions: automobile 0.6, motorcar 0.6" on the query
 *   under the cursor, with the preview lens's nDCG@10 before → after in the title when the qrels judge the
 *   query; its edit is the query `querylens expand --method learned` writes (`#wsyn`/`#syn` or `#weight` groups
 *   in Indri, as the model was trained; `(car OR automobile^0.6)` in Lucene), laid out like the Bo1 edit.
 * - When the model suggests nothing for a query (a model trained 0 steps never does),
 *   the action is offered disabled with the reason, so a user sees that it ran and why it is empty.
 * - Inlay hints `≈ automobile, motorcar` after each query word with strong alternatives, when the setting
 *   `learnedExpansion.hints` is on (off by default: one first pass and one model run per query in view).
 * The model (surface.json + surface.onnx, read from the folder of "model") is loaded by the provider with
 * learned-model.ts; it runs on this thread (a few milliseconds per query, a small network).
 */
import { CodeActionKind, type CancellationToken, type CodeAction, type InlayHint, type Range } from 'vscode-languageserver';
import { walk, type QueryEntry } from '../../../grammar/index.js';
import type { SearchHit } from '../../engine/search.js';
import { whyNoAlternative, type LearnedExpansion } from '../../model/surface-expansion.js';
import { restrictedSources, strongWeight, suggestsNothing } from '../../model/surface-model.js';
import { expandLearned } from '../../service/surface-expansion.js';
import { entryAt, isVerbatim, rangeInFile, type QueryDocument } from '../documents.js';
import type { CodeActionRequest, FeatureModule } from '../features.js';
import { layoutInDocument } from '../formatting.js';
import type { EngineContext } from './context.js';
import { runnable, runQueryAst, topTen } from './ranking.js';
import { judgedQid, type EngineSession } from './session.js';
import { untrainedNote, type LoadedLearnedExpansion } from './learned-model.js';

export const LEARNED_ACTION_KIND = `${CodeActionKind.RefactorRewrite}.learned`;
const ACTION_TITLE = 'Add learned expansions';
/** Alternatives named in the title; the rest are summarised by "…". */
const TITLE_ALTERNATIVES = 6;
/** Alternatives named in one hint. */
const HINT_ALTERNATIVES = 3;

/** One query's learned expansion, cached for the session by dialect + text (a failure is not kept). */
export function learnedFor(session: EngineSession, loaded: LoadedLearnedExpansion, entry: QueryEntry): Promise<LearnedExpansion> {
  const cache = session.cache<Promise<LearnedExpansion>>('learned-expansion');
  const key = `${entry.dialect}\0${entry.text}`;
  let found = cache.get(key);
  if (!found) {
    found = expandLearned(session.backend, entry.result.ast, entry.text, loaded.tools);
    cache.set(key, found);
    found.catch(() => cache.delete(key));
  }
  return found;
}

/** Why nothing is suggested for a query whose expansion has no alternative. */
export function nothingSuggested(loaded: LoadedLearnedExpansion, x: LearnedExpansion): string {
  const { config } = loaded.tools.model;
  const why = whyNoAlternative(x, config.minWeight, loaded.problems);
  // Only a model that weighed candidates says how it was trained.
  const weighed = x.suggestions.length > 0 && x.candidates > 0;
  const untrained = weighed && suggestsNothing(config) ? ` ${untrainedNote()}` : '';
  const only = weighed && !suggestsNothing(config) ? restrictedSources(config) : null;
  return `The learned model suggests nothing for this query: ${why}.${untrained}${only ? ` It suggests only ${only}.` : ''}`;
}

/** A weight as the title and hints show it (2 significant digits, as the query forms write it). */
function shown(weight: number): string {
  return String(Number(weight.toPrecision(2)));
}

/** " · nDCG@10 0.41 → 0.63": the preview lens's measure for the query as written and as expanded, when the qrels judge it. */
function metricChange(session: EngineSession, entry: QueryEntry, x: LearnedExpansion): string {
  const qid = judgedQid(entry);
  if (qid === null || !session.qrels?.has(qid)) return '';
  // Code actions are asked for at every cursor move: the expanded query's top 10 is ranked once per query text
  // (the measure is computed each time, so a grade judged in place counts at once).
  const cache = session.cache<SearchHit[]>('learned-top-ten');
  const key = `${entry.dialect}\0${entry.text}`;
  let expanded = cache.get(key);
  if (!expanded) cache.set(key, (expanded = runQueryAst(session, x.ast, 10).hits));
  const before = session.metrics(qid, topTen(session, entry).hits, ['ndcg_cut_10']);
  const after = session.metrics(qid, expanded, ['ndcg_cut_10']);
  if (!before || !after) return '';
  return ` · nDCG@10 ${before.ndcg_cut_10!.toFixed(2)} → ${after.ndcg_cut_10!.toFixed(2)}`;
}

function wants(only: string[] | undefined, kind: string): boolean {
  if (!only || only.length === 0) return true;
  return only.some((k) => kind === k || kind.startsWith(`${k}.`));
}

function disabled(reason: string): CodeAction {
  return { title: ACTION_TITLE, kind: LEARNED_ACTION_KIND, disabled: { reason } };
}

export async function learnedActions(context: EngineContext, request: CodeActionRequest, token: CancellationToken): Promise<CodeAction[]> {
  const { doc, range } = request;
  const loaded = context.learnedExpansion();
  if (!loaded || !wants(request.context.only, LEARNED_ACTION_KIND)) return [];
  const located = entryAt(doc, range.start);
  if (!located || !runnable(located.entry) || !isVerbatim(doc, located.entry)) return [];
  const { entry } = located;
  if (context.cluster()) {
    return [disabled('Learned expansion reads the local index (its postings and stored text for the candidates); this workspace ranks on a cluster ("backend" in querylens.json).')];
  }
  const session = context.session();
  if (!session) return [];
  let x: LearnedExpansion;
  try {
    x = await learnedFor(session, loaded, entry);
  } catch (err) {
    return [disabled(`The learned-expansion model failed on this query: ${err instanceof Error ? err.message : String(err)}`)];
  }
  if (token.isCancellationRequested || context.documents.isStale(doc)) return [];
  const added = x.suggestions.flatMap((w) => w.alternatives);
  if (added.length === 0) return [disabled(nothingSuggested(loaded, x))];
  const newText = layoutInDocument(doc, entry, x.text, session.config.formatting.width);
  if (!newText) return [];
  const listed = added.slice(0, TITLE_ALTERNATIVES).map((a) => `${a.word} ${shown(a.weight)}`);
  const title = `${ACTION_TITLE}: ${listed.join(', ')}${added.length > TITLE_ALTERNATIVES ? ', …' : ''}${metricChange(session, entry, x)}`;
  return [
    {
      title,
      kind: LEARNED_ACTION_KIND,
      edit: { changes: { [doc.uri]: [{ range: rangeInFile(doc, entry, 0, entry.text.length), newText }] } },
      data: {
        qid: entry.qid,
        suggestions: x.suggestions
          .filter((w) => w.alternatives.length)
          .map((w) => ({ word: w.word, alternatives: w.alternatives.map((a) => ({ word: a.word, weight: a.weight, sources: a.sources })) })),
      },
    },
  ];
}

/** Where a word's hint goes: after the word, or after its Lucene `^boost` (never inside `car^2`). */
function hintOffset(entry: QueryEntry, at: { start: number; end: number }): number {
  let offset = at.end;
  walk(entry.result.ast.root, (node) => {
    if (node.kind === 'boost' && node.child.range.start === at.start && node.child.range.end === at.end) offset = Math.max(offset, node.range.end);
  });
  return offset;
}

export async function learnedHints(context: EngineContext, doc: QueryDocument, range: Range, token: CancellationToken): Promise<InlayHint[]> {
  const loaded = context.learnedExpansion();
  const session = context.session();
  if (!loaded || !session || !session.config.learnedExpansion.hints) return [];
  const hints: InlayHint[] = [];
  const threshold = strongWeight(loaded.tools.model.config);
  for (const entry of doc.source.entries) {
    if (entry.line < range.start.line || entry.line > range.end.line || !runnable(entry) || !isVerbatim(doc, entry)) continue;
    let x: LearnedExpansion;
    try {
      x = await learnedFor(session, loaded, entry);
    } catch {
      continue; // A query the model failed on gets no hints (its action says why); the others still do.
    }
    // Never hints placed on an older text.
    context.documents.checkFresh(doc, token);
    for (const w of x.suggestions) {
      // Compared as shown (2 significant digits): a fixed weight of 0.1 comes out of the float32 graph as 0.0999….
      const strong = w.alternatives.filter((a) => Number(shown(a.weight)) >= threshold);
      if (!strong.length) continue;
      const label = `≈ ${strong.slice(0, HINT_ALTERNATIVES).map((a) => a.word).join(', ')}${strong.length > HINT_ALTERNATIVES ? ', …' : ''}`;
      const tooltip = `Learned alternatives of "${w.word}" in this index: ${strong.map((a) => `${a.word} ${shown(a.weight)} (${a.sources.join('+')})`).join(', ')}. The "${ACTION_TITLE}" action writes them into the query.`;
      for (const at of w.at) {
        const offset = hintOffset(entry, at);
        hints.push({ position: rangeInFile(doc, entry, offset, offset).end, label, paddingLeft: true, tooltip });
      }
    }
  }
  return hints;
}

export function learnedExpansionModule(context: EngineContext): FeatureModule {
  return {
    id: 'engine/learned-expansion',
    codeActions: (request, token) => {
      context.documents.see(request.doc);
      return learnedActions(context, request, token);
    },
    inlayHints: (doc, range, token) => learnedHints(context, doc, range, token),
  };
}
