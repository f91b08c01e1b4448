/**
 * Inlay hints with the weighting model's predicted weight after each word of a plain-term
 * query (`boundary ·1.16`). The server's static capabilities do not announce inlay hints
 * (server.ts is grammar plumbing), so this module registers the request dynamically when its
 * custom handlers are registered; clients without dynamic registration simply get none.
 * No model loaded: no hints.
 */
import { InlayHintRequest, type CancellationToken, type Connection, type InlayHint, type InlayHintParams } from 'vscode-languageserver';
import { rangeInFile } from '../documents.js';
import type { FeatureModule } from '../features.js';
import type { EngineContext } from './provider.js';
import { runnable } from './ranking.js';
import { modelLabel } from './weights-action.js';
import { modelQuery, weighCached, wordWeights } from './weights.js';

export async function weightHints(context: EngineContext, params: InlayHintParams, token: CancellationToken): Promise<InlayHint[]> {
  const loaded = context.model();
  const doc = context.documents.current(params.textDocument.uri);
  if (!loaded || !doc) return [];
  const hints: InlayHint[] = [];
  for (const entry of doc.source.entries) {
    if (token.isCancellationRequested) return [];
    if (entry.line < params.range.start.line || entry.line > params.range.end.line || !runnable(entry)) continue;
    const query = modelQuery(entry.result.ast);
    if (!query) continue;
    let weights;
    try {
      weights = await weighCached(loaded, query.text);
    } catch {
      continue;
    }
    const perWord = wordWeights(query, weights);
    query.words.forEach((w, i) => {
      const weight = perWord[i];
      if (weight === undefined) return;
      hints.push({
        position: rangeInFile(doc, entry, w.node.range.start, w.node.range.end).end,
        label: `·${weight.toFixed(2)}`,
        paddingLeft: true,
        tooltip: `${modelLabel(loaded)} weight of "${w.node.text}" (uni-gram; bi-gram weights appear in the "Apply ${modelLabel(loaded)} weights" action).`,
      });
    });
  }
  return hints;
}

export function weightHintsModule(context: EngineContext): FeatureModule {
  return {
    id: 'engine/weight-hints',
    register(connection: Connection) {
      const handler = connection.languages.inlayHint.on((params, token) => weightHints(context, params, token));
      const registration = connection.client
        .register(InlayHintRequest.type, { documentSelector: [{ language: 'indri' }, { language: 'lucene' }] })
        .catch(() => undefined);
      return {
        dispose: () => {
          handler.dispose();
          void registration.then((r) => r?.dispose());
        },
      };
    },
  };
}
