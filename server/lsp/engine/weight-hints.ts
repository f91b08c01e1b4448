/**
 * Inlay hints with the weighting model's predicted weight after each word the model reads
 * (`boundary ·1.16`), under the same rule and from the same cached weights as the weights action
 * (weights.ts): a flat query's words, a structured query's terms (inside fields, `#syn`, windows);
 * a query the rule refuses gets no hints (the action, disabled, says why). The server answers
 * textDocument/inlayHint with every feature module's hints (features.ts `inlayHints`), these and
 * the implied query ids (qid-hints.ts). No model loaded: no weight hints.
 */
import { InlayHintRequest, type CancellationToken, type Connection, type InlayHint, type InlayHintParams } from 'vscode-languageserver';
import { rangeInFile } from '../documents.js';
import type { FeatureModule } from '../features.js';
import type { EngineContext } from './context.js';
import { runnable } from './ranking.js';
import { modelLabel } from './weights-action.js';
import type { BatcherStats } from '../../model/batcher.js';
import type { WeightModelStats } from '../../model/runtime.js';
import { batcherOf, weighableQuery, weighCached, weighedWordWeights } from './weights.js';

/**
 * `querylens/modelStats` (request, client → server, no params): counters of the loaded
 * weighting model, for tests and benchmarks that check batching and dropped stale requests
 * by counting rather than timing. Null when no model is loaded.
 */
export const MODEL_STATS_REQUEST = 'querylens/modelStats';
export interface ModelStatsResult {
  /** ONNX session runs and queries weighed, as the model counts them. */
  model: WeightModelStats | null;
  /** Model calls the LSP batcher made, distinct queries sent, stale requests dropped, requests joined to a running call. */
  batcher: BatcherStats;
  /** True when inference runs in a worker thread, off the request thread. */
  offThread: boolean;
}

export async function weightHints(context: EngineContext, params: InlayHintParams, token: CancellationToken): Promise<InlayHint[]> {
  const loaded = context.model();
  const doc = context.documents.current(params.textDocument.uri);
  if (!loaded || !doc) return [];
  const wanted = doc.source.entries.flatMap((entry) => {
    if (entry.line < params.range.start.line || entry.line > params.range.end.line || !runnable(entry)) return [];
    const weighable = weighableQuery(entry.result.ast, entry.text);
    return weighable.ok ? [{ entry, query: weighable.query }] : [];
  });
  // Every query of the range at once: the batcher turns them into one model run (weights.ts).
  // A request made stale by an edit or a $/cancelRequest is dropped before inference and answers
  // ContentModified / RequestCancelled (issue 4 §1), never hints placed on an older text.
  const isStale = () => token.isCancellationRequested || context.documents.isStale(doc);
  const settled = await Promise.allSettled(wanted.map(({ query }) => weighCached(loaded, query.plan.text, isStale)));
  context.documents.checkFresh(doc, token);
  const hints: InlayHint[] = [];
  wanted.forEach(({ entry, query }, k) => {
    const result = settled[k]!;
    // A query the model failed on gets no hints; the others still do.
    if (result.status === 'rejected') return;
    const perWord = weighedWordWeights(query, result.value);
    query.words.forEach((w, i) => {
      const weight = perWord[i];
      if (weight === undefined) return;
      hints.push({
        position: rangeInFile(doc, entry, w.node.range.start, w.node.range.end).end,
        label: `·${weight.toFixed(2)}`,
        paddingLeft: true,
        tooltip: query.plan.flat
          ? `${modelLabel(loaded)} weight of "${w.node.text}" (uni-gram; bi-gram weights appear in the "Apply ${modelLabel(loaded)} weights" action).`
          : `${modelLabel(loaded)} weight of "${w.node.text}" (uni-gram), read in the query's own structure; the "Apply ${modelLabel(loaded)} weights" action puts the model's weights inside the query's structure.`,
      });
    });
  });
  return hints;
}

export function weightHintsModule(context: EngineContext): FeatureModule {
  return {
    id: 'engine/weight-hints',
    // The server answers textDocument/inlayHint with every module's hints (features.ts).
    inlayHints: (doc, range, token) => weightHints(context, { textDocument: { uri: doc.uri }, range }, token),
    register(connection: Connection) {
      const stats = connection.onRequest(MODEL_STATS_REQUEST, (): ModelStatsResult | null => {
        const loaded = context.model();
        if (!loaded) return null;
        const model = loaded.model as typeof loaded.model & { offThread?: boolean };
        return { model: model.stats?.() ?? null, batcher: batcherOf(model).stats(), offThread: model.offThread === true };
      });
      return { dispose: () => stats.dispose() };
    },
  };
}
