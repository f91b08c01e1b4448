/**
 * Where an on-disk build's analysed batches come from: a worker thread (build-worker.ts), so that
 * reading and analysing overlap the main thread's accumulation and run writing, or this thread
 * when no worker can be started (or `worker: false`). Both give the same batches in the same
 * order; closing the iterator early (an error, a cancel) stops the worker.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { IngestError } from '../ingest/types.js';
import { analyseCorpus, type AnalyseOptions, type AnalysedBatch } from './analysed-batches.js';
import type { BuildWorkerData, FromBuildWorker, ToBuildWorker } from './build-worker.js';

/** Batches a worker may have read ahead of the main thread. */
const READ_AHEAD = 4;

/**
 * How to start the worker: the compiled script next to this module, or, when running from the
 * TypeScript sources (tsx, vitest), a bootstrap that registers tsx in the worker first (Node 20
 * applies no loader of the parent to a worker's entry file). Undefined when neither is possible.
 */
function workerEntry(): { script: URL | string; eval: boolean } | undefined {
  const js = new URL('./build-worker.js', import.meta.url);
  if (js.protocol === 'file:' && existsSync(fileURLToPath(js))) return { script: js, eval: false };
  const ts = new URL('./build-worker.ts', import.meta.url);
  if (ts.protocol !== 'file:' || !existsSync(fileURLToPath(ts))) return undefined;
  try {
    // The ES module build of tsx's ESM API, found through tsx's own exports map (vitest has no
    // import.meta.resolve, and require.resolve gives the CommonJS build).
    const tsxPackage = createRequire(import.meta.url).resolve('tsx/package.json');
    const exports = (JSON.parse(readFileSync(tsxPackage, 'utf8')) as { exports: Record<string, { import: { default: string } }> }).exports;
    const tsxApi = pathToFileURL(join(dirname(tsxPackage), exports['./esm/api']!.import.default)).href;
    return {
      script: `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(ts.href)}); })`,
      eval: true,
    };
  } catch {
    return undefined;
  }
}

export function analysedBatches(inputs: string[], options: AnalyseOptions, useWorker: boolean): AsyncGenerator<AnalysedBatch> {
  const entry = useWorker ? workerEntry() : undefined;
  return entry ? fromWorker(entry, inputs, options) : analyseCorpus(inputs, options);
}

async function* fromWorker(entry: { script: URL | string; eval: boolean }, inputs: string[], options: AnalyseOptions): AsyncGenerator<AnalysedBatch> {
  const worker = new Worker(entry.script, { eval: entry.eval, workerData: { inputs, options } satisfies BuildWorkerData });
  const queue: (FromBuildWorker | Error)[] = [];
  let wake: (() => void) | undefined;
  const push = (m: FromBuildWorker | Error) => {
    queue.push(m);
    wake?.();
  };
  worker.on('message', push);
  worker.on('error', (e) => push(e));
  const onExit = (code: number) => push(new Error(`the indexing worker stopped unexpectedly (exit code ${code})`));
  worker.on('exit', onExit);
  worker.postMessage({ type: 'credit', batches: READ_AHEAD } satisfies ToBuildWorker);
  try {
    for (;;) {
      while (queue.length === 0) await new Promise<void>((r) => (wake = r));
      const m = queue.shift()!;
      if (m instanceof Error) throw m;
      if (m.type === 'done') return;
      if (m.type === 'failed') {
        if (m.ingest) throw new IngestError(m.ingest.file, m.ingest.reason, m.ingest.line, m.ingest.offset);
        const err = new Error(m.message);
        if (m.stack) err.stack = m.stack;
        throw err;
      }
      yield m.batch;
      worker.postMessage({ type: 'credit', batches: 1 } satisfies ToBuildWorker);
    }
  } finally {
    worker.off('exit', onExit);
    await worker.terminate();
  }
}
