/**
 * Worker-thread entry of an on-disk build: reads and analyses the corpus (analysed-batches.ts)
 * and posts the batches to the main thread, which accumulates and writes them (disk.ts). The
 * main thread grants credits, one per batch it may receive, so that a fast reader never queues
 * more than a few batches in memory.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { IngestError } from '../ingest/types.js';
import { analyseCorpus, batchTransferList, ingestErrorData, type AnalyseOptions, type AnalysedBatch, type IngestErrorData } from './analysed-batches.js';

export interface BuildWorkerData {
  inputs: string[];
  options: AnalyseOptions;
}

export type ToBuildWorker = { type: 'credit'; batches: number };
export type FromBuildWorker =
  | { type: 'batch'; batch: AnalysedBatch }
  | { type: 'done' }
  | { type: 'failed'; ingest?: IngestErrorData; message: string; stack?: string };

const port = parentPort!;
const data = workerData as BuildWorkerData;
let credits = 0;
let wake: (() => void) | undefined;
port.on('message', (m: ToBuildWorker) => {
  if (m.type === 'credit') {
    credits += m.batches;
    wake?.();
  }
});

async function run(): Promise<void> {
  try {
    for await (const batch of analyseCorpus(data.inputs, data.options)) {
      while (credits === 0) await new Promise<void>((r) => (wake = r));
      credits--;
      port.postMessage({ type: 'batch', batch } satisfies FromBuildWorker, batchTransferList(batch));
    }
    port.postMessage({ type: 'done' } satisfies FromBuildWorker);
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    port.postMessage({
      type: 'failed',
      ...(e instanceof IngestError ? { ingest: ingestErrorData(e) } : {}),
      message: e.message,
      stack: e.stack,
    } satisfies FromBuildWorker);
  }
  // The main thread terminates this worker once it has the last message.
}

void run();
