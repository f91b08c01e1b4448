/**
 * "Apply TW-BERT weights": a refactor action that rewrites a plain-term query as the
 * weighting model's `#weight( w t … w #1(a b) … )` (Lucene: `t^w … "a b"^w`). The title shows
 * the predicted word weights before anything is applied. Offered only when a model is loaded
 * (querylens.json `model`) and the query has only unrestricted plain terms (weights.ts).
 *
 * An already weighted query is re-weighed from its words (weights.ts, modelQuery), keeping the
 * model's structure (uni-grams and #1 bi-grams); when that gives back the query as it is (the
 * same model weighed it), no action is offered and `querylens/weighFile` lists the query as
 * already weighted, rather than rewriting it into itself.
 */
import { CodeActionKind, type CodeAction } from 'vscode-languageserver';
import { printIndri, translate } from '../../../grammar/index.js';
import { StaleRequestError } from '../../model/batcher.js';
import { buildWeightedQueryAst } from '../../model/weighted-query.js';
import { entryAt, isVerbatim, rangeInFile } from '../documents.js';
import type { CodeActionRequest, FeatureModule } from '../features.js';
import type { EngineContext } from './context.js';
import { runnable } from './ranking.js';
import { modelQuery, weighCached, wordWeights, type LoadedModel } from './weights.js';

export const WEIGHTS_ACTION_KIND = `${CodeActionKind.RefactorRewrite}.weights`;
const TITLE_WORDS = 6;

function wants(only: string[] | undefined, kind: string): boolean {
  if (!only || only.length === 0) return true;
  return only.some((k) => kind === k || kind.startsWith(`${k}.`));
}

export function modelLabel(loaded: LoadedModel): string {
  return loaded.model.name === 'twbert' ? 'TW-BERT' : 'DeepCT';
}

/** The weights action, or why a weighable query is left as it is (`unchanged`), or null when the query cannot be weighed. */
export type WeightsRewrite = { action: CodeAction } | { unchanged: string } | null;

/** `isStale` (request cancelled, document edited) lets the model batcher drop the request before inference. */
export async function weightsAction(loaded: LoadedModel, request: CodeActionRequest, isStale?: () => boolean): Promise<CodeAction | null> {
  const rewrite = await weightsRewrite(loaded, request, isStale);
  return rewrite && 'action' in rewrite ? rewrite.action : null;
}

export async function weightsRewrite(loaded: LoadedModel, request: CodeActionRequest, isStale?: () => boolean): Promise<WeightsRewrite> {
  const { doc, range, context } = request;
  if (!wants(context.only, WEIGHTS_ACTION_KIND)) return null;
  const located = entryAt(doc, range.start);
  if (!located || !runnable(located.entry) || !isVerbatim(doc, located.entry)) return null;
  const { entry } = located;
  const query = modelQuery(entry.result.ast);
  if (!query) return null;
  const weights = await weighCached(loaded, query.text, isStale);
  const ast = buildWeightedQueryAst(weights);
  if (!ast.root) return null;
  const perWord = wordWeights(query, weights);
  const shown = query.words.flatMap((w, i) => (perWord[i] === undefined ? [] : [`${w.node.text} ${perWord[i]!.toFixed(2)}`]));
  const title = `Apply ${modelLabel(loaded)} weights: ${shown.slice(0, TITLE_WORDS).join(', ')}${shown.length > TITLE_WORDS ? ', …' : ''}`;
  const newText = entry.dialect === 'lucene' ? translate(ast, 'lucene').text : printIndri(ast);
  if (newText === entry.text) return { unchanged: `already weighted by ${modelLabel(loaded)}: re-weighing its words gives the same query` };
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
        action = await weightsAction(loaded, request, isStale);
      } catch (err) {
        // Dropped as stale: the edit made the action (its range and weights) meaningless.
        if (err instanceof StaleRequestError) return [];
        throw err;
      }
      // An edit while the model ran: the action would rewrite text that is no longer there.
      return action && !isStale() ? [action] : [];
    },
  };
}
