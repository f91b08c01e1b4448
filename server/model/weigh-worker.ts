/**
 * Worker-thread entry of worker-model.ts: loads the weighting model with `loadWeightModel` and
 * answers `weigh` messages, so ONNX inference (synchronous under onnxruntime-node's promise, see
 * runtime.ts) never blocks the language server's event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadWeightModel, WeightModelError, type LoadWeightModelOptions, type WeightModel } from './runtime.js';
import type { FromWorker, ToWorker } from './worker-model.js';

const port = parentPort!;
const { dir, options } = workerData as { dir: string; options: LoadWeightModelOptions };
const post = (message: FromWorker) => port.postMessage(message);

function serve(model: WeightModel): void {
  port.on('message', (message: ToWorker) => {
    if (message.type === 'dispose') {
      void model.dispose().then(() => {
        post({ type: 'disposed' });
        port.close();
      });
      return;
    }
    model.weigh(message.texts, message.statistics).then(
      (weights) => post({ type: 'weighed', id: message.id, ok: true, weights, stats: model.stats?.() ?? { runs: 0, queries: 0 } }),
      (err: unknown) =>
        post({
          type: 'weighed',
          id: message.id,
          ok: false,
          kind: err instanceof WeightModelError ? err.kind : 'inference-failed',
          message: err instanceof Error ? err.message : String(err),
        }),
    );
  });
}

// No top-level await: the .vsix bundles this file as CommonJS (scripts/package-vsix.mjs).
void loadWeightModel(dir, options).then((loaded) => {
  if (!loaded.ok) {
    post({ type: 'loaded', ok: false, kind: loaded.error.kind, message: loaded.error.message, detail: loaded.error.detail });
    return;
  }
  const model = loaded.model;
  post({ type: 'loaded', ok: true, name: model.name, device: model.device, notices: model.notices, config: model.config });
  serve(model);
});
