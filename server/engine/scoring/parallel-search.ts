/**
 * A pruned search split over threads (`SearchOptions.threads`): the collection's documents are cut
 * into as many contiguous ranges as threads; this thread prunes the first range and worker threads
 * (search-worker.ts) the others, each over the same on-disk build, then their top k are merged here.
 * The result is the one-thread result exactly: every partition scores its documents with the same
 * code and the same collection statistics, and the merge offers them to one top-k heap under the
 * same total order (ranking.ts).
 *
 * The partitions prune against each other's k-th score: each publishes its own k-th score, as a
 * float32, in a shared cell, and each prunes against the best of them all (SharedThreshold). A
 * document below another partition's k-th score ranks after that partition's k kept documents, so
 * it cannot be in the merged top k either; the comparison stays strict, as pruning's own is, so a
 * tie that the docno order might win is scored.
 *
 * `search()` stays synchronous: the jobs are posted, this thread prunes its own range, then it
 * waits on a shared flag (Atomics.wait, allowed on Node's main thread) and reads each reply with
 * receiveMessageOnPort. A worker that cannot start, fails, or does not answer in time has its range
 * searched here instead (the same result, slower), and is replaced at the next split search.
 */
import { availableParallelism } from 'node:os';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { QueryAst } from '../../../grammar/ast.js';
import type { IndexLocation } from '../index/disk.js';
import { workerEntry, type WorkerEntry } from '../worker-entry.js';
import type { DocRange, PruningTop } from './pruning.js';

/** One partition of a split search, as posted to a worker. */
export interface PartitionJob {
  id: number;
  location: IndexLocation;
  ast: QueryAst;
  /** The query's SearchOptions with `exhaustive: false` and one thread: the worker prunes its range (typed there: prepared.ts imports this module). */
  options: object;
  k: number;
  range: DocRange;
  /** Int32 cells, one per partition: each partition's k-th score as float32 bits (NO_THRESHOLD until it has k). */
  thresholds: SharedArrayBuffer;
  slot: number;
}

/** A partition's top k (best first or in any order: the merge orders them), or why it has none. */
export type PartitionReply =
  | { id: number; docs: Int32Array; scores: Float64Array; matchedDocs: number }
  | { id: number; error: string };

/** What a worker is started with. */
export interface PartitionWorkerData {
  port: MessagePort;
  /** One Int32: set to 1 (and notified) after each reply is posted. */
  done: SharedArrayBuffer;
}

/** A NaN's bits: no partition's score is NaN (scores are finite). */
const NO_THRESHOLD = 0x7fc00000;

const bitsView = new Int32Array(1);
const floatView = new Float32Array(bitsView.buffer);
function float32Bits(x: number): number {
  floatView[0] = x;
  return bitsView[0]!;
}
function float32Of(bits: number): number {
  bitsView[0] = bits;
  return floatView[0]!;
}

/** Threshold cells for `parts` partitions, none set. */
export function thresholdCells(parts: number): SharedArrayBuffer {
  const buffer = new SharedArrayBuffer(4 * parts);
  new Int32Array(buffer).fill(NO_THRESHOLD);
  return buffer;
}

/**
 * What one partition's pruning reads as its top k: its own heap's size, and as the k-th score the
 * best of its own and every other partition's published one. Reading it publishes its own when
 * that has risen (pruning asks at every window and every candidate it scores).
 */
export class SharedThreshold implements PruningTop {
  private readonly cells: Int32Array;
  private published = NaN;

  constructor(
    private readonly own: PruningTop,
    thresholds: SharedArrayBuffer,
    private readonly slot: number,
  ) {
    this.cells = new Int32Array(thresholds);
  }

  get k(): number {
    return this.own.k;
  }

  threshold(): number | undefined {
    let best = this.own.threshold();
    if (best !== undefined) {
      const own32 = Math.fround(best);
      // NaN at first: !(x <= NaN) holds.
      if (!(own32 <= this.published)) {
        Atomics.store(this.cells, this.slot, float32Bits(own32));
        this.published = own32;
      }
    }
    const cells = this.cells;
    for (let s = 0; s < cells.length; s++) {
      if (s === this.slot) continue;
      const bits = Atomics.load(cells, s);
      if (bits === NO_THRESHOLD) continue;
      const other = float32Of(bits);
      if (best === undefined || other > best) best = other;
    }
    return best;
  }
}

/** `numDocs` documents cut into `parts` contiguous ranges of nearly equal length. */
export function partitionRanges(numDocs: number, parts: number): DocRange[] {
  const ranges: DocRange[] = [];
  for (let p = 0; p < parts; p++) ranges.push({ from: Math.floor((numDocs * p) / parts), to: Math.floor((numDocs * (p + 1)) / parts) });
  return ranges;
}

/** The threads a search may use: at most the processor's (a thread more would only wait). */
export function usableThreads(requested: number): number {
  return Math.max(1, Math.min(requested, availableParallelism()));
}

/** How long a partition may take: many times this thread's own partition, and never less than this (a worker's first job starts it). */
const MIN_WAIT_MS = 30_000;
const WAIT_FACTOR = 20;

let entry: WorkerEntry | null | undefined;

class PartitionWorker {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly done: Int32Array;
  broken = false;

  constructor(entry: WorkerEntry) {
    const { port1, port2 } = new MessageChannel();
    const done = new SharedArrayBuffer(4);
    this.done = new Int32Array(done);
    this.port = port1;
    this.worker = new Worker(entry.script, { eval: entry.eval, workerData: { port: port2, done } satisfies PartitionWorkerData, transferList: [port2] });
    // Idle workers do not keep the process alive.
    this.worker.unref();
    const fail = () => {
      this.broken = true;
    };
    this.worker.on('error', fail);
    this.worker.on('exit', fail);
  }

  post(job: PartitionJob): void {
    Atomics.store(this.done, 0, 0);
    this.port.postMessage(job);
  }

  /** The reply to job `id`, or undefined when none came before `deadline` (performance.now()). */
  collect(id: number, deadline: number): PartitionReply | undefined {
    for (;;) {
      const received = receiveMessageOnPort(this.port);
      if (received) {
        const reply = received.message as PartitionReply;
        if (reply.id === id) return reply;
        continue;
      }
      const left = deadline - performance.now();
      if (left <= 0 || this.broken) return undefined;
      Atomics.wait(this.done, 0, 0, Math.min(left, 50));
      Atomics.store(this.done, 0, 0);
    }
  }

  stop(): void {
    this.broken = true;
    void this.worker.terminate();
  }
}

const pool: PartitionWorker[] = [];
let nextJob = 1;

/** Worker i of the pool, started when first needed; undefined when workers cannot start here. */
function partitionWorker(i: number): PartitionWorker | undefined {
  if (entry === undefined) entry = workerEntry(new URL('./search-worker.js', import.meta.url), new URL('./search-worker.ts', import.meta.url)) ?? null;
  if (entry === null) return undefined;
  const existing = pool[i];
  if (existing && !existing.broken) return existing;
  try {
    return (pool[i] = new PartitionWorker(entry));
  } catch {
    return undefined;
  }
}

/** A range another thread searched, or one it did not (searched here instead). */
export type PartitionOutcome = { range: DocRange; reply?: Extract<PartitionReply, { docs: Int32Array }>; failure?: string };

/**
 * Runs a split search: posts ranges 1… to workers, runs `own(range 0, top view)` here, then waits
 * for the others. Returns each other range's outcome; a range without a reply is for the caller
 * to search itself.
 */
export function runSplit(
  location: IndexLocation,
  job: { ast: QueryAst; options: object; k: number },
  ranges: DocRange[],
  own: (range: DocRange, view: (top: PruningTop) => PruningTop) => void,
): PartitionOutcome[] {
  const thresholds = thresholdCells(ranges.length);
  const posted: { worker: PartitionWorker; id: number }[] = [];
  const outcomes: PartitionOutcome[] = [];
  for (let p = 1; p < ranges.length; p++) {
    const worker = partitionWorker(p - 1);
    if (!worker) {
      outcomes.push({ range: ranges[p]!, failure: 'no worker thread can be started here' });
      continue;
    }
    const id = nextJob++;
    worker.post({ id, location, ast: job.ast, options: job.options, k: job.k, range: ranges[p]!, thresholds, slot: p });
    posted.push({ worker, id });
    outcomes.push({ range: ranges[p]! });
  }
  const started = performance.now();
  own(ranges[0]!, (top) => new SharedThreshold(top, thresholds, 0));
  const deadline = performance.now() + Math.max(MIN_WAIT_MS, WAIT_FACTOR * (performance.now() - started));
  let at = 0;
  for (const outcome of outcomes) {
    if (outcome.failure) continue;
    const { worker, id } = posted[at++]!;
    const reply = worker.collect(id, deadline);
    if (!reply) {
      outcome.failure = worker.broken ? 'the worker thread stopped' : 'the worker thread did not answer in time';
      worker.stop();
    } else if ('error' in reply) outcome.failure = reply.error;
    else outcome.reply = reply;
  }
  return outcomes;
}
