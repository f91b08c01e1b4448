/**
 * Worker-thread entry of a split search (parallel-search.ts): opens the index build it is sent
 * (kept open for the next job), prunes its range of documents against the shared k-th scores, and
 * replies with its top k. Any failure is replied as a message, so the main thread searches the
 * range itself.
 */
import { workerData } from 'node:worker_threads';
import { indexLocation, openIndex } from '../index/disk.js';
import type { IndexReader } from '../index/reader.js';
import type { PartitionJob, PartitionReply, PartitionWorkerData } from './parallel-search.js';
import { PreparedQuery, type SearchOptions } from './prepared.js';

const { port, done } = workerData as PartitionWorkerData;
const doneFlag = new Int32Array(done);

/** The readers this worker opened, by folder (the latest build of each). */
const readers = new Map<string, IndexReader>();
const READERS_KEPT = 4;

function readerFor(job: PartitionJob): IndexReader {
  const { dir, buildId } = job.location;
  let reader = readers.get(dir);
  if (!reader || indexLocation(reader)?.buildId !== buildId) {
    readers.delete(dir);
    reader = openIndex(dir);
    if (indexLocation(reader)?.buildId !== buildId) throw new Error(`the index at ${dir} was rebuilt while it was searched`);
    if (readers.size >= READERS_KEPT) readers.delete(readers.keys().next().value!);
    readers.set(dir, reader);
  }
  return reader;
}

function answer(job: PartitionJob): { reply: PartitionReply; transfer: ArrayBuffer[] } {
  try {
    const prepared = new PreparedQuery(readerFor(job), job.ast, job.options as SearchOptions);
    const { docs, scores, matchedDocs } = prepared.searchPartition(job.k, job.range, job.thresholds, job.slot);
    return { reply: { id: job.id, docs, scores, matchedDocs }, transfer: [docs.buffer as ArrayBuffer, scores.buffer as ArrayBuffer] };
  } catch (err) {
    return { reply: { id: job.id, error: err instanceof Error ? err.message : String(err) }, transfer: [] };
  }
}

port.on('message', (job: PartitionJob) => {
  const { reply, transfer } = answer(job);
  port.postMessage(reply, transfer);
  Atomics.store(doneFlag, 0, 1);
  Atomics.notify(doneFlag, 0);
});
