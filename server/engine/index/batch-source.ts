/**
 * Where an on-disk build's analysed batches come from: a worker thread (build-worker.ts), so that
 * reading and analysing overlap the main thread's accumulation and run writing, or this thread
 * when no worker can be started (or `worker: false`). Both give the same batches in the same
 * order; closing the iterator early (an error, a cancel) stops the worker.
 */
import { Worker } from 'node:worker_threads';
import { workerEntry, type WorkerEntry } from '../worker-entry.js';
import { IngestError } from '../ingest/types.js';
import { analyseCorpus, type AnalyseOptions, type AnalysedBatch } from './analysed-batches.js';
import type { BuildWorkerData, FromBuildWorker, ToBuildWorker } from './build-worker.js';

/** Batches a worker may have read ahead of the main thread. */
const READ_AHEAD = 4;

export function analysedBatches(inputs: string[], options: AnalyseOptions, useWorker: boolean): AsyncGenerator<AnalysedBatch> {
  const entry = useWorker ? workerEntry(new URL('./build-worker.js', import.meta.url), new URL('./build-worker.ts', import.meta.url)) : undefined;
  return entry ? fromWorker(entry, inputs, options) : analyseCorpus(inputs, options);
}

async function* fromWorker(entry: WorkerEntry, inputs: string[], options: AnalyseOptions): AsyncGenerator<AnalysedBatch> {
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
