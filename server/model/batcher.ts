/**
 * Batches single-query weighing requests into one model call (issue 5 §1: "Batched, inference
 * off the language server's request thread"; issue 4 §1: "a request made stale by an edit is
 * cancelled").
 *
 * Requests that arrive within `windowMs` of the first queued one (default: the same turn of the
 * event loop plus 2 ms, so that every inlay-hint / code-action request already in the message
 * queue joins) are sent together, at most `maxBatch` distinct query texts per call; the model's
 * `weigh()` runs them through one ONNX `session.run` when `maxBatch` is not above its own batch
 * size (32). Identical texts asked for by several requests are weighed once, also when the
 * second request comes while the first one's model call is running.
 *
 * Each request may carry a staleness check (its LSP cancellation token, its document version):
 * when the batch is sent, the stale ones are dropped — rejected with `StaleRequestError` and not
 * given to the model — so an edit never pays for inference nobody will see.
 */
import type { NgramWeights, WeightModel } from './runtime.js';
import type { NgramStatistics } from './statistic-names.js';

/** A request that no longer matters (cancelled, or its document changed). */
export class StaleRequestError extends Error {
  constructor() {
    super('The weighing request was dropped: it became stale before the model ran.');
    this.name = 'StaleRequestError';
  }
}

export interface BatcherOptions {
  /** Most distinct queries per model call (default 32, the runtime's ONNX batch size). */
  maxBatch?: number;
  /** How long the first queued request waits for others (default 2 ms). */
  windowMs?: number;
}

export interface BatcherStats {
  /** Model calls made by the batcher. */
  batches: number;
  /** Distinct queries sent to the model. */
  queries: number;
  /** Requests dropped as stale before inference. */
  dropped: number;
  /** Requests answered by a model call already running for the same text. */
  joined: number;
}

interface Waiter {
  isStale?: () => boolean;
  resolve(w: NgramWeights): void;
  reject(err: unknown): void;
}

export class WeighBatcher {
  private readonly maxBatch: number;
  private readonly windowMs: number;
  /** Queued texts in arrival order, each with the requests waiting for it. */
  private queue = new Map<string, Waiter[]>();
  /** A collection-aware model's statistics of each queued text (the same text in the same index: the same statistics). */
  private queuedStatistics = new Map<string, readonly NgramStatistics[]>();
  private timer: NodeJS.Timeout | undefined;
  private readonly counters: BatcherStats = { batches: 0, queries: 0, dropped: 0, joined: 0 };
  /** Texts whose model call has left: a new request for one waits for that answer instead of a second run. */
  private readonly inFlight = new Map<string, Promise<NgramWeights>>();

  constructor(
    private readonly model: Pick<WeightModel, 'weigh'>,
    options: BatcherOptions = {},
  ) {
    this.maxBatch = Math.max(1, options.maxBatch ?? 32);
    this.windowMs = Math.max(0, options.windowMs ?? 2);
  }

  stats(): BatcherStats {
    return { ...this.counters };
  }

  /** The weights of one query, computed in a batch with the other requests of the moment (`statistics`: see WeightModel.weigh). */
  weigh(text: string, isStale?: () => boolean, statistics?: readonly NgramStatistics[]): Promise<NgramWeights> {
    const running = this.inFlight.get(text);
    if (running) {
      this.counters.joined++;
      return running;
    }
    return new Promise<NgramWeights>((resolve, reject) => {
      const waiters = this.queue.get(text);
      if (waiters) waiters.push({ isStale, resolve, reject });
      else this.queue.set(text, [{ isStale, resolve, reject }]);
      if (statistics && !this.queuedStatistics.has(text)) this.queuedStatistics.set(text, statistics);
      if (this.queue.size >= this.maxBatch) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), this.windowMs);
    });
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const queued = this.queue;
    const queuedStatistics = this.queuedStatistics;
    this.queue = new Map();
    this.queuedStatistics = new Map();
    const texts: string[] = [];
    const live: Waiter[][] = [];
    for (const [text, waiters] of queued) {
      const fresh = waiters.filter((w) => {
        if (!w.isStale?.()) return true;
        this.counters.dropped++;
        w.reject(new StaleRequestError());
        return false;
      });
      if (fresh.length === 0) continue;
      texts.push(text);
      live.push(fresh);
    }
    if (texts.length === 0) return;
    this.counters.batches++;
    this.counters.queries += texts.length;
    const statistics = texts.map((t) => queuedStatistics.get(t));
    const call = statistics.some((x) => x) ? this.model.weigh(texts, statistics) : this.model.weigh(texts);
    texts.forEach((text, i) => {
      const answer = call.then((weights) => weights[i]!);
      // Handled here and by whoever joins; forgotten once settled (failures are asked again).
      answer.catch(() => undefined).finally(() => this.inFlight.delete(text));
      this.inFlight.set(text, answer);
    });
    call.then(
      (weights) =>
        live.forEach((waiters, i) => {
          for (const w of waiters) w.resolve(weights[i]!);
        }),
      (err: unknown) => live.forEach((waiters) => waiters.forEach((w) => w.reject(err))),
    );
  }
}
