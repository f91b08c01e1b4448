/**
 * "Apply TW-BERT weights": a refactor action that rewrites the query under the CLI's rule
 * (weights.ts, server/model/structured-weights.ts): a flat bag of words becomes the model's
 * `#weight( w t … w #1(a b) … )` (Lucene: `t^w … "a b"^w`), a structured query keeps its fields,
 * `#syn`, windows and own weights with the model's weights inside. The edit is the query
 * `querylens weigh --digits 3` writes for it (in the query's own dialect), laid out as the formatter
 * lays out the query's place in the file (formatting.ts layoutInDocument). The title shows the
 * predicted word weights before anything is applied. Offered only when a model is loaded
 * (querylens.json `model`).
 *
 * Where nothing would be written, the action is still listed, disabled, with the reason
 * (`disabled.reason`, LSP 3.16): a query the rule refuses (the rule's message), and a query
 * already weighted by this model (re-weighing its words gives the query as it is). A disabled
 * action has no edit, so a client that ignores `disabled` applies nothing. `querylens/weighFile`
 * lists such queries with the same reason.
 */
import { CodeActionKind, type CodeAction } from 'vscode-languageserver';
import { printIndri, printLucene, walk, type QueryAst, type QueryNode } from '../../../grammar/index.js';
import { StaleRequestError } from '../../model/batcher.js';
import type { WeighRefusal } from '../../model/structured-weights.js';
import { entryAt, isVerbatim, rangeInFile } from '../documents.js';
import { layoutInDocument } from '../formatting.js';
import type { CodeActionRequest, FeatureModule } from '../features.js';
import type { EngineContext } from './context.js';
import { collectionOf } from './collection.js';
import { WeightModelError } from '../../model/runtime.js';
import { runnable } from './ranking.js';
import { weighableQuery, weighCached, weighedItems, weighedQueryText, weighedWordWeights, type CollectionSource, type LoadedModel } from './weights.js';

export const WEIGHTS_ACTION_KIND = `${CodeActionKind.RefactorRewrite}.weights`;
const TITLE_WORDS = 6;
/** querylens.json's default `formatting.width`, for callers without a session. */
const DEFAULT_WIDTH = 80;

function wants(only: string[] | undefined, kind: string): boolean {
  if (!only || only.length === 0) return true;
  return only.some((k) => kind === k || kind.startsWith(`${k}.`));
}

export function modelLabel(loaded: LoadedModel): string {
  return loaded.model.name === 'twbert' ? 'TW-BERT' : 'DeepCT';
}

/**
 * The weights action; or why the query is left as it is (`unchanged`: already weighted, or
 * `refusal` set when the rule refuses it, with its range in the query); or null when the query
 * is not one to weigh (not runnable, not verbatim, nothing left after stopwords).
 */
export type WeightsRewrite = { action: CodeAction } | { unchanged: string; refusal?: WeighRefusal } | null;

/** `isStale` (request cancelled, document edited) lets the model batcher drop the request before inference. */
export async function weightsAction(loaded: LoadedModel, request: CodeActionRequest, isStale?: () => boolean, collection?: CollectionSource | null): Promise<CodeAction | null> {
  const rewrite = await weightsRewrite(loaded, request, isStale, collection);
  if (!rewrite) return null;
  if ('action' in rewrite) return rewrite.action;
  // Nothing to apply: say why, visibly, rather than offer nothing.
  return { title: `Apply ${modelLabel(loaded)} weights`, kind: WEIGHTS_ACTION_KIND, disabled: { reason: rewrite.unchanged } };
}

/**
 * `collection`: the loaded index or the cluster, whose statistics a collection-aware model reads, and whose configured formatter width
 * (querylens.json `formatting.width`) the rewrite is laid out to, one item per line past it where the file allows it.
 */
export async function weightsRewrite(loaded: LoadedModel, request: CodeActionRequest, isStale?: () => boolean, collection?: CollectionSource | null): Promise<WeightsRewrite> {
  const width = collection?.width ?? DEFAULT_WIDTH;
  const { doc, range, context } = request;
  if (!wants(context.only, WEIGHTS_ACTION_KIND)) return null;
  const located = entryAt(doc, range.start);
  if (!located || !runnable(located.entry) || !isVerbatim(doc, located.entry)) return null;
  const { entry } = located;
  const weighable = weighableQuery(entry.result.ast, entry.text);
  if (!weighable.ok) return { unchanged: weighable.refusal.message, refusal: weighable.refusal };
  const query = weighable.query;
  const weights = await weighCached(loaded, query.plan.text, isStale, collection);
  const weighed = weighedQueryText(entry.result.ast, query, weights);
  const newText = weighed === null ? null : layoutInDocument(doc, entry, weighed, width);
  if (newText === null) return null;
  if (newText === entry.text) return { unchanged: `already weighted by ${modelLabel(loaded)}: re-weighing its words gives the same query` };
  // What the rewrite applies: each word's weight, or, for words inside a window or phrase the rewrite
  // weighs as a whole, that window's weight (once).
  const perWord = weighedWordWeights(query, weights);
  const items = query.plan.flat ? [] : weighedItems(entry.result.ast, query, weights);
  const windowOf = enclosingWindows(entry.result.ast);
  const print = (node: QueryNode) => (entry.dialect === 'lucene' ? printLucene : printIndri)({ dialect: entry.dialect, root: node, range: entry.result.ast.range });
  const seen = new Set<QueryNode>();
  const shown = query.words.flatMap((w, i) => {
    const window = windowOf.get(w.node);
    const item = window ? items.find((x) => x.label === print(window)) : undefined;
    if (window && item) {
      if (seen.has(window)) return [];
      seen.add(window);
      return [`${item.label} ${item.weight.toFixed(2)}`];
    }
    return perWord[i] === undefined ? [] : [`${w.node.text} ${perWord[i]!.toFixed(2)}`];
  });
  const title = `Apply ${modelLabel(loaded)} weights: ${shown.slice(0, TITLE_WORDS).join(', ')}${shown.length > TITLE_WORDS ? ', …' : ''}`;
  const action: CodeAction = {
    title,
    kind: WEIGHTS_ACTION_KIND,
    edit: { changes: { [doc.uri]: [{ range: rangeInFile(doc, entry, 0, entry.text.length), newText }] } },
    data: { qid: entry.qid, model: loaded.model.name },
  };
  return { action };
}

export function weightsActionModule(context: EngineContext): FeatureModule {
  return {
    id: 'engine/weights-action',
    codeActions: async (request, token) => {
      context.documents.see(request.doc);
      const loaded = context.model();
      if (!loaded || token.isCancellationRequested) return [];
      const isStale = () => token.isCancellationRequested || context.documents.isStale(request.doc);
      let action: CodeAction | null;
      try {
        action = await weightsAction(loaded, request, isStale, collectionOf(context));
      } catch (err) {
        // Dropped as stale: the edit made the action (its range and weights) meaningless.
        if (err instanceof StaleRequestError) return [];
        // A collection-aware model without a loaded index: say so where the action would be.
        if (err instanceof WeightModelError && err.kind === 'needs-statistics' && wants(request.context.only, WEIGHTS_ACTION_KIND)) {
          return [{ title: `Apply ${modelLabel(loaded)} weights`, kind: WEIGHTS_ACTION_KIND, disabled: { reason: err.message } }];
        }
        // The cluster's statistics could not be read (a collection-aware model on a cluster): say what failed.
        const reason = clusterFailureReason(err);
        if (reason && wants(request.context.only, WEIGHTS_ACTION_KIND)) {
          return [{ title: `Apply ${modelLabel(loaded)} weights`, kind: WEIGHTS_ACTION_KIND, disabled: { reason: `${modelLabel(loaded)} weighs by the cluster's statistics: ${reason}` } }];
        }
        throw err;
      }
      // An edit while the model ran: the action would rewrite text that is no longer there.
      return action && !isStale() ? [action] : [];
    },
  };
}

/** A cluster request's failure (a ClusterError: `cluster/…` code) as "message (code)"; null for anything else. */
export function clusterFailureReason(err: unknown): string | null {
  const e = err as { message?: string; code?: unknown };
  return typeof e?.code === 'string' && e.code.startsWith('cluster/') ? `${e.message} (${e.code})` : null;
}

/** The innermost window or phrase around each term of a query. */
function enclosingWindows(ast: QueryAst): Map<QueryNode, QueryNode> {
  const out = new Map<QueryNode, QueryNode>();
  walk(ast.root, (node, parents) => {
    if (node.kind !== 'term') return;
    const window = parents.findLast((p) => p.kind === 'window' || p.kind === 'phrase');
    if (window) out.set(node, window);
  });
  return out;
}
