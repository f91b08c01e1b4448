/**
 * The weighting model in a worker thread. onnxruntime-node's `session.run` blocks the thread
 * that calls it for the whole inference (runtime.ts says why), so the language server loads
 * the model here: `loadWeightModelOffThread` has `loadWeightModel`'s contract (a typed result,
 * never a throw) and returns a `WeightModel` whose `weigh()` posts the queries to the worker
 * and resolves when it answers. The event loop stays free to read `$/cancelRequest` and
 * `didChange` while the model runs.
 *
 * Where no worker entry can be run (the single-file .vsix bundle, or TypeScript sources without
 * a TS loader such as vitest's in-process imports) the model is loaded in-process instead:
 * same answers, inference on the calling thread.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { NgramStatistics } from './statistic-names.js';
import {
  loadWeightModel,
  WeightModelError,
  type LoadWeightModelOptions,
  type LoadWeightModelResult,
  type ModelConfig,
  type NgramWeights,
  type WeightModel,
  type WeightModelErrorKind,
  type WeigherName,
  type WeightModelStats,
} from './runtime.js';

export type ToWorker = { type: 'weigh'; id: number; texts: string[]; statistics?: (readonly NgramStatistics[] | undefined)[] } | { type: 'dispose' };
export type FromWorker =
  | { type: 'loaded'; ok: true; name: WeigherName; device: 'cpu' | 'cuda'; notices: string[]; config: ModelConfig }
  | { type: 'loaded'; ok: false; kind: WeightModelErrorKind; message: string; detail?: string }
  | { type: 'weighed'; id: number; ok: true; weights: NgramWeights[]; stats: WeightModelStats }
  | { type: 'weighed'; id: number; ok: false; kind: WeightModelErrorKind; message: string }
  | { type: 'disposed' };

/**
 * How to start the worker: the compiled script next to this module, or (benchmarks run from the
 * TypeScript sources with `node --import tsx`) a bootstrap that registers tsx in the worker
 * first; Node 20 does not apply the parent's `--import` loader to a worker's entry file.
 */
function workerEntry(): { script: URL | string; eval: boolean } | undefined {
  const js = new URL('./weigh-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(js))) return { script: js, eval: false };
  const ts = new URL('./weigh-worker.ts', import.meta.url);
  const tsLoader = process.execArgv.some((a) => /\btsx\b/.test(a));
  if (!tsLoader || !existsSync(fileURLToPath(ts))) return undefined;
  try {
    // The ES module build (import.meta.resolve uses the import conditions; require.resolve would give the CommonJS one).
    const tsxApi = import.meta.resolve('tsx/esm/api');
    return { script: `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(ts.href)}); })`, eval: true };
  } catch {
    return undefined;
  }
}

/** Like `loadWeightModel`, with inference in a worker thread when one can be started. */
export async function loadWeightModelOffThread(dir: string, options: LoadWeightModelOptions = {}): Promise<LoadWeightModelResult> {
  const entry = workerEntry();
  if (!entry) return loadWeightModel(dir, options);
  let worker: Worker;
  try {
    // The analyzer option is a function-bearing object that cannot cross threads; the worker uses the default.
    const { analyzer: _analyzer, ...plain } = options;
    worker = new Worker(entry.script, { eval: entry.eval, workerData: { dir, options: plain } });
  } catch {
    return loadWeightModel(dir, options);
  }
  const first = await new Promise<FromWorker | Error>((resolve) => {
    const onExit = (code: number) => done(new Error(`the model worker exited with code ${code}`));
    const done = (value: FromWorker | Error) => {
      // Only our listeners: Worker keeps internal 'newListener' hooks that removeAllListeners would drop.
      worker.off('message', done);
      worker.off('error', done);
      worker.off('exit', onExit);
      resolve(value);
    };
    worker.on('message', done);
    worker.on('error', done);
    worker.on('exit', onExit);
  });
  if (first instanceof Error || first.type !== 'loaded') {
    // The worker could not even start (e.g. a module it needs cannot load in a thread): in-process.
    void worker.terminate();
    return loadWeightModel(dir, options);
  }
  if (!first.ok) {
    void worker.terminate();
    return { ok: false, error: new WeightModelError(first.kind, first.message, first.detail) };
  }
  return { ok: true, model: new WorkerWeightModel(worker, first.name, first.device, first.notices, first.config) };
}

class WorkerWeightModel implements WeightModel {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(w: NgramWeights[]): void; reject(err: unknown): void }>();
  private counters: WeightModelStats = { runs: 0, queries: 0 };
  private failure: WeightModelError | undefined;
  private disposed = false;
  /** Runs in a worker thread (not on the caller's event loop). */
  readonly offThread = true;
  readonly readsStatistics: boolean;

  constructor(
    private readonly worker: Worker,
    readonly name: WeigherName,
    readonly device: 'cpu' | 'cuda',
    readonly notices: string[],
    readonly config: ModelConfig,
  ) {
    this.readsStatistics = name !== 'phrase' && config.models[name]?.statistics !== undefined;
    // An idle worker does not keep the process alive (the language server exits on `exit`
    // without waiting for it); one with a request in flight does (see weigh()).
    worker.unref();
    worker.on('message', (message: FromWorker) => {
      if (message.type !== 'weighed') return;
      const waiter = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (this.pending.size === 0) worker.unref();
      if (!waiter) return;
      if (message.ok) {
        this.counters = message.stats;
        waiter.resolve(message.weights);
      } else waiter.reject(new WeightModelError(message.kind, message.message));
    });
    const fail = (why: string) => {
      this.failure ??= new WeightModelError('inference-failed', `The ${name} model worker stopped (${why}); restart the language server to load it again.`);
      for (const waiter of this.pending.values()) waiter.reject(this.failure);
      this.pending.clear();
    };
    worker.on('error', (err) => fail(err.message));
    worker.on('exit', (code) => {
      if (!this.disposed) fail(`exit code ${code}`);
    });
  }

  stats(): WeightModelStats {
    return { ...this.counters };
  }

  weigh(queries: string[], statistics?: readonly (readonly NgramStatistics[] | undefined)[]): Promise<NgramWeights[]> {
    if (this.disposed) return Promise.reject(new WeightModelError('disposed', `The ${this.name} model was disposed.`));
    if (this.failure) return Promise.reject(this.failure);
    if (queries.length === 0) return Promise.resolve([]);
    const id = this.nextId++;
    return new Promise<NgramWeights[]>((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ type: 'weigh', id, texts: queries, ...(statistics ? { statistics: [...statistics] } : {}) } satisfies ToWorker);
    });
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    const error = new WeightModelError('disposed', `The ${this.name} model was disposed.`);
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
    // Let the worker release the ONNX session, but never wait on it for long. Referenced while
    // we wait: an idle, unreferenced worker would let the process exit under our feet.
    this.worker.ref();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => {
        this.worker.once('exit', () => resolve());
        this.worker.postMessage({ type: 'dispose' } satisfies ToWorker);
      }),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, 1000))),
    ]);
    clearTimeout(timer);
    await this.worker.terminate();
  }
}
