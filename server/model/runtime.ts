/**
 * The query term-weighting model (TW-BERT, or the DeepCT-Query baseline) behind one narrow module,
 * wrapped like an engine that can fail: loading returns a typed result
 * instead of throwing, a missing or broken model is an explained state, and inference errors are
 * `WeightModelError`s with a kind, never a crash of the caller.
 *
 *   const loaded = await loadWeightModel(defaultModelDir(), { model: 'twbert', device: 'auto' });
 *   if (!loaded.ok) show(loaded.error.message);
 *   else { const [w] = await loaded.model.weigh(['laminar flow over a flat plate']); ... }
 *
 * Segmentation (words, stopwords, uni-grams then bi-grams) is server/model/segment.ts, shared with
 * the training-data export, so run-time n-grams are exactly the ones the model was trained on.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAnalyzer } from '../engine/analysis/index.js';
import { segmentQuery, type SegmentedQuery, type WordAnalyzer } from './segment.js';
import { encodeQueryWindows, loadTokenizer, type EncodedWindow, type HfTokenizer } from './tokenize.js';
import { STATISTIC_NAMES, type NgramStatistics, type StatisticName } from './statistic-names.js';
import { GENERICITY, loadGenericityTable, ngramGenericity } from './genericity.js';

export type WeightModelName = 'twbert' | 'deepct';
export const WEIGHT_MODEL_NAMES: readonly WeightModelName[] = ['twbert', 'deepct'];
export type DeviceRequest = 'auto' | 'cpu' | 'cuda';

export type WeightModelErrorKind =
  /** model/artifacts (or the requested model file) is not there. */
  | 'missing-model'
  /** config.json, tokenizer.json or the ONNX file cannot be read or does not match what we expect. */
  | 'invalid-model'
  /** onnxruntime-node or tokenizers cannot be loaded on this platform. */
  | 'runtime-unavailable'
  /** `device: 'cuda'` was requested and the CUDA execution provider cannot be created. */
  | 'cuda-unavailable'
  /** An inference call failed (after a successful load). */
  | 'inference-failed'
  /** weigh() after dispose(). */
  | 'disposed'
  /** A collection-aware model was asked to weigh a query without the statistics of the index it runs on. */
  | 'needs-statistics';

export class WeightModelError extends Error {
  constructor(
    readonly kind: WeightModelErrorKind,
    message: string,
    readonly detail?: string,
  ) {
    super(message);
    this.name = 'WeightModelError';
  }
}

/**
 * Which collections (eval-model's names: cacm, scifact-train, cranfield, …) a model's training used,
 * so that `eval-model` can say which of its figures are not held out.
 */
export interface ModelProvenance {
  /** Collections whose queries and judgements trained the model. */
  trainedOn: string[];
  /** Collections on which knobs or checkpoints were chosen. */
  selectedOn: string[];
  /** Corpora whose documents (not queries) pre-training or features read. */
  corporaRead?: string[];
  note?: string;
}

export interface ModelEntryConfig {
  file: string;
  /** False for DeepCT: it weighs words only. */
  bigrams: boolean;
  /** False while the artifact is not the final trained model (see model/MODEL_CARD.md). */
  final: boolean;
  description?: string;
  /**
   * TW-BERT + Bo1 (paper §5.3): the factor applied to the weights of the Bo1 expansion words the model
   * read after the query (weighted-query.ts scaleExpansionWeights), learned through BM25 on expanded
   * training queries. Absent: 1 (the model's weights as they are).
   */
  expansionScale?: number;
  provenance?: ModelProvenance;
  /**
   * A collection-aware model: its graph also reads each n-gram's statistics in the collection the query
   * runs on ([B,G,names.length] float, input `input`), in the order of `names`, each one of
   * statistic-names.ts STATISTIC_NAMES, or `genericity` (genericity.ts), which the runtime computes from the
   * query's wordpieces and the table `genericityTable` (a file of the model directory).
   */
  statistics?: { input: string; names: string[]; genericityTable?: string };
}

export interface ModelConfig {
  format: 1;
  tokenizer: string;
  maxTokens: number;
  /** Analyser profile the model was trained with (its words and n-grams). */
  profile: 'terrier' | 'lucene';
  /** ONNX input names. `ngramOrder` ([B,G] float, 1 for a bi-gram) only for models that take it (TW-BERT). */
  inputs: { ids: string; attentionMask: string; ngramMask: string; ngramOrder?: string };
  output: string;
  models: Partial<Record<WeightModelName, ModelEntryConfig>>;
}

export interface NgramWeight {
  kind: 'unigram' | 'bigram';
  /** Analysed terms (the index terms), 1 or 2. */
  terms: string[];
  /** Surface text of the n-gram in the query, and its UTF-16 range. */
  surface: string;
  start: number;
  end: number;
  /** The predicted weight (>= 0); every n-gram is read by the encoder, also in a long query (tokenize.ts encodeQueryWindows). */
  weight: number;
  /** What a collection-aware model read for this n-gram in the index (weight-reasons.ts says it in words); absent otherwise. */
  statistics?: NgramStatistics;
}

export interface NgramWeights {
  query: string;
  /** Uni-grams in query order, then bi-grams (bi-grams absent for DeepCT). One entry per occurrence. */
  ngrams: NgramWeight[];
}

/** Counters of one loaded model (tests and benchmarks check batching with them, not with timers). */
export interface WeightModelStats {
  /** ONNX `session.run` calls made. */
  runs: number;
  /** Queries weighed (sum of the `weigh()` inputs). */
  queries: number;
}

/** A weigher's name: a trained model, or the fixed phrase rule (phrase-rule.ts). */
export type WeigherName = WeightModelName | 'phrase';

export interface WeightModel {
  readonly name: WeigherName;
  /** The execution provider actually used. */
  readonly device: 'cpu' | 'cuda';
  /** Human-readable notices from loading (e.g. the CUDA fallback), to show the user. */
  readonly notices: string[];
  readonly config: ModelConfig;
  /**
   * True for a collection-aware model: weigh() then needs, for every query, the statistics of its n-grams
   * in the index it will run on (collection-statistics.ts queryStatistics(reader, text), one entry per
   * n-gram of the query's segmentation), and fails with 'needs-statistics' without them.
   */
  readonly readsStatistics?: boolean;
  weigh(queries: string[], statistics?: readonly (readonly NgramStatistics[] | undefined)[]): Promise<NgramWeights[]>;
  dispose(): Promise<void>;
  /** Counters since loading (optional: other implementations may not count). */
  stats?(): WeightModelStats;
}

export type LoadWeightModelResult = { ok: true; model: WeightModel } | { ok: false; error: WeightModelError };

export interface LoadWeightModelOptions {
  model?: WeightModelName;
  device?: DeviceRequest;
  /** Defaults to the engine's analyser for the profile in config.json. */
  analyzer?: WordAnalyzer;
  /** Queries per ONNX call (default 32). */
  batchSize?: number;
  /** onnxruntime intra-op threads (default 2). */
  threads?: number;
}

/** model/artifacts of this checkout: found by walking up from this file (works from dist/ and from sources). */
export function defaultModelDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, 'model', 'artifacts');
    if (existsSync(join(candidate, 'config.json')) || existsSync(join(candidate, 'tokenizer.json'))) return candidate;
    dir = dirname(dir);
  }
  return resolve('model/artifacts');
}

const require = createRequire(import.meta.url);

// Narrow local view of onnxruntime-node, loaded lazily so that a missing native binding is an error state.
interface OrtTensor {
  data: Float32Array;
  dims: readonly number[];
}
interface OrtSession {
  run(feeds: Record<string, unknown>): Promise<Record<string, OrtTensor>>;
  release(): Promise<void>;
  inputNames: readonly string[];
  outputNames: readonly string[];
}
interface OrtModule {
  env: { logLevel?: string };
  InferenceSession: { create(path: string, options: Record<string, unknown>): Promise<OrtSession> };
  Tensor: new (type: string, data: BigInt64Array | Float32Array, dims: number[]) => unknown;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The factor for the weights of Bo1 expansion words (config.json `expansionScale`; 1 when the model has none). */
export function expansionScaleOf(model: Pick<WeightModel, 'name' | 'config'>): number {
  return model.name === 'phrase' ? 1 : (model.config.models[model.name]?.expansionScale ?? 1);
}

export function readModelConfig(dir: string): ModelConfig {
  const file = join(dir, 'config.json');
  const raw = JSON.parse(readFileSync(file, 'utf8')) as ModelConfig;
  if (raw.format !== 1 || typeof raw.maxTokens !== 'number' || !raw.models || !raw.inputs || !raw.output) {
    throw new Error(`${file} is not a querylens model config (format 1)`);
  }
  return raw;
}

export async function loadWeightModel(dir: string, options: LoadWeightModelOptions = {}): Promise<LoadWeightModelResult> {
  const name = options.model ?? 'twbert';
  const device = options.device ?? 'auto';
  const fail = (kind: WeightModelErrorKind, message: string, detail?: string): LoadWeightModelResult => ({
    ok: false,
    error: new WeightModelError(kind, message, detail),
  });
  if (!existsSync(join(dir, 'config.json'))) {
    return fail(
      'missing-model',
      `No term-weighting model in ${dir} (config.json is missing). Build it with the training pipeline (see model/README.md) or point querylens at a folder that holds config.json, ${name}.onnx and tokenizer.json.`,
    );
  }
  let config: ModelConfig;
  try {
    config = readModelConfig(dir);
  } catch (err) {
    return fail('invalid-model', `Cannot read the model config in ${dir}: ${describe(err)}`);
  }
  const entry = config.models[name];
  if (!entry) return fail('missing-model', `${dir}/config.json lists no '${name}' model (it has: ${Object.keys(config.models).join(', ') || 'none'}).`);
  const scale = entry.expansionScale;
  if (scale !== undefined && !(typeof scale === 'number' && Number.isFinite(scale) && scale >= 0)) {
    return fail('invalid-model', `${dir}/config.json: the ${name} model's expansionScale must be a number >= 0, got ${JSON.stringify(scale)}.`);
  }
  const onnxFile = join(dir, entry.file);
  const tokenizerFile = join(dir, config.tokenizer);
  if (!existsSync(onnxFile)) return fail('missing-model', `The ${name} model file ${onnxFile} is missing.`);
  if (!existsSync(tokenizerFile)) return fail('missing-model', `The tokenizer ${tokenizerFile} is missing.`);

  let tokenizer: HfTokenizer;
  try {
    tokenizer = loadTokenizer(tokenizerFile);
  } catch (err) {
    const msg = describe(err);
    const kind = /Cannot find module|binding|\.node/.test(msg) ? 'runtime-unavailable' : 'invalid-model';
    return fail(kind, `Cannot load the tokenizer ${tokenizerFile}: ${msg}`);
  }
  const opened = await openOnnxSession(onnxFile, device, `the ${name} model`, options.threads ?? 2);
  if (!opened.ok) return { ok: false, error: opened.error };
  const { ort, session, used, notices } = opened;
  for (const input of [config.inputs.ids, config.inputs.attentionMask, config.inputs.ngramMask]) {
    if (!session.inputNames.includes(input)) {
      await session.release().catch(() => undefined);
      return fail('invalid-model', `${onnxFile} has no input '${input}' (it has ${session.inputNames.join(', ')}).`);
    }
  }
  let genericity: Float32Array | undefined;
  if (entry.statistics) {
    const { input, names } = entry.statistics;
    // A model reads the statistics its config lists, in that order; each must be one this querylens computes.
    const known = new Set<string>([...STATISTIC_NAMES, GENERICITY]);
    if (!Array.isArray(names) || names.length === 0 || new Set(names).size !== names.length || !names.every((n) => typeof n === 'string' && known.has(n))) {
      await session.release().catch(() => undefined);
      return fail('invalid-model', `${dir}/config.json: the ${name} model reads the statistics ${JSON.stringify(names)}, but this querylens computes ${[...STATISTIC_NAMES, GENERICITY].join(', ')}.`);
    }
    if (names.includes(GENERICITY)) {
      const table = entry.statistics.genericityTable;
      if (typeof table !== 'string' || table === '') {
        await session.release().catch(() => undefined);
        return fail('invalid-model', `${dir}/config.json: the ${name} model reads genericity but names no statistics.genericityTable file.`);
      }
      try {
        genericity = loadGenericityTable(join(dir, table), tokenizer.getVocabSize(true));
      } catch (err) {
        await session.release().catch(() => undefined);
        return fail(existsSync(join(dir, table)) ? 'invalid-model' : 'missing-model', `The ${name} model reads genericity, but ${describe(err)}.`);
      }
    }
    if (!session.inputNames.includes(input)) {
      await session.release().catch(() => undefined);
      return fail('invalid-model', `${onnxFile} has no input '${input}' (it has ${session.inputNames.join(', ')}).`);
    }
  }
  if (!entry.final) notices.push(`The ${name} model in ${dir} is not the final trained model (see model/MODEL_CARD.md).`);
  const analyzer = options.analyzer ?? createAnalyzer(config.profile);
  return {
    ok: true,
    model: new OnnxWeightModel(name, used, notices, config, entry, session, ort, tokenizer, analyzer, options.batchSize ?? 32, genericity),
  };
}

export type OpenOnnxSessionResult =
  | { ok: true; ort: OrtModule; session: OrtSession; used: 'cpu' | 'cuda'; notices: string[] }
  | { ok: false; error: WeightModelError };

/**
 * One ONNX session under the runtime's device policy: `cpu`; `cuda`, a typed `cuda-unavailable` error when its
 * provider cannot be created; `auto`, CUDA when it can be created, else the CPU with a notice. `label` names the
 * model in the notice ("the twbert model").
 */
export async function openOnnxSession(onnxFile: string, device: DeviceRequest, label: string, threads = 2): Promise<OpenOnnxSessionResult> {
  const fail = (kind: WeightModelErrorKind, message: string): OpenOnnxSessionResult => ({ ok: false, error: new WeightModelError(kind, message) });
  let ort: OrtModule;
  try {
    ort = require('onnxruntime-node') as OrtModule;
  } catch (err) {
    return fail('runtime-unavailable', `onnxruntime-node cannot be loaded on this platform: ${describe(err)}`);
  }

  // The native layer prints its own red log line when the CUDA provider library is missing; we report
  // that failure as a notice or a typed error instead, so only fatal native logs get through.
  try {
    ort.env.logLevel = 'fatal';
  } catch {
    // Older bindings have no settable log level; the extra log line is harmless.
  }
  const notices: string[] = [];
  const sessionOptions = (providers: string[]) => ({
    executionProviders: providers,
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
  });
  let session: OrtSession;
  let used: 'cpu' | 'cuda';
  if (device === 'cpu') {
    try {
      session = await ort.InferenceSession.create(onnxFile, sessionOptions(['cpu']));
      used = 'cpu';
    } catch (err) {
      return fail('invalid-model', `Cannot load ${onnxFile}: ${describe(err)}`);
    }
  } else {
    // onnxruntime-node throws when the CUDA provider library is absent; there is no automatic fallback.
    try {
      // Severity 4 (fatal only): the native layer logs the missing provider library itself; we report it below.
      session = await ort.InferenceSession.create(onnxFile, { ...sessionOptions(['cuda']), logSeverityLevel: 4 });
      used = 'cuda';
    } catch (err) {
      if (device === 'cuda') {
        return fail(
          'cuda-unavailable',
          `CUDA was requested but onnxruntime-node cannot create its CUDA execution provider (${describe(err).split('\n')[0]}). ` +
            `Install onnxruntime-node with its CUDA 12 provider (ONNXRUNTIME_NODE_INSTALL=cuda12) on a machine with an NVIDIA GPU, or use device "cpu" or "auto".`,
        );
      }
      notices.push(`CUDA is not available (${describe(err).split('\n')[0]}); ${label} runs on the CPU.`);
      try {
        session = await ort.InferenceSession.create(onnxFile, sessionOptions(['cpu']));
        used = 'cpu';
      } catch (err2) {
        return fail('invalid-model', `Cannot load ${onnxFile}: ${describe(err2)}`);
      }
    }
  }
  return { ok: true, ort, session, used, notices };
}

interface Prepared {
  segmented: SegmentedQuery;
  /** A collection-aware model's inputs: one statistics record per n-gram of `segmented`. */
  statistics?: readonly NgramStatistics[];
  /** One encoder input, or several overlapping ones for a query longer than the encoder's window. */
  windows: EncodedWindow[];
}

class OnnxWeightModel implements WeightModel {
  private disposed = false;
  private readonly counters: WeightModelStats = { runs: 0, queries: 0 };

  stats(): WeightModelStats {
    return { ...this.counters };
  }

  constructor(
    readonly name: WeightModelName,
    readonly device: 'cpu' | 'cuda',
    readonly notices: string[],
    readonly config: ModelConfig,
    private readonly entry: ModelEntryConfig,
    private readonly session: OrtSession,
    private readonly ort: OrtModule,
    private readonly tokenizer: HfTokenizer,
    private readonly analyzer: WordAnalyzer,
    private readonly batchSize: number,
    /** The genericity table, for a model that reads genericity (genericity.ts). */
    private readonly genericity?: Float32Array,
  ) {
    const order = config.inputs.ngramOrder;
    this.orderInput = order && session.inputNames.includes(order) ? order : undefined;
    this.readsStatistics = entry.statistics !== undefined;
  }

  readonly readsStatistics: boolean;

  private readonly orderInput: string | undefined;

  /** The encoder inputs of each query (exposed for the parity test and the training export). */
  async prepare(queries: string[]): Promise<Prepared[]> {
    return Promise.all(
      queries.map(async (q) => {
        const segmented = segmentQuery(q, this.analyzer, { bigrams: this.entry.bigrams });
        return { segmented, windows: await encodeQueryWindows(this.tokenizer, segmented, this.config.maxTokens) };
      }),
    );
  }

  async weigh(queries: string[], statistics?: readonly (readonly NgramStatistics[] | undefined)[]): Promise<NgramWeights[]> {
    if (this.disposed) throw new WeightModelError('disposed', `The ${this.name} model was disposed.`);
    this.counters.queries += queries.length;
    let prepared: Prepared[];
    try {
      prepared = await this.prepare(queries);
    } catch (err) {
      throw new WeightModelError('inference-failed', `Tokenising the queries failed: ${describe(err)}`);
    }
    if (this.readsStatistics) {
      prepared.forEach((p, i) => {
        const stats = statistics?.[i];
        if (!stats) {
          throw new WeightModelError(
            'needs-statistics',
            `The ${this.name} model weighs a query by the statistics of the collection it runs on: it needs an index (querylens.json "index", or --index).`,
          );
        }
        if (stats.length !== p.segmented.ngrams.length) {
          throw new WeightModelError(
            'needs-statistics',
            `The statistics given for "${queries[i].slice(0, 80)}" cover ${stats.length} n-grams, the model reads ${p.segmented.ngrams.length}: the index's analyser differs from the model's (${this.config.profile}).`,
          );
        }
        p.statistics = stats;
      });
    }
    const out: NgramWeights[] = [];
    for (let i = 0; i < prepared.length; i += this.batchSize) {
      const batch = prepared.slice(i, i + this.batchSize);
      const weights = await this.runBatch(batch);
      batch.forEach((p, b) => out.push(toNgramWeights(p, weights[b])));
    }
    return out;
  }

  /**
   * One ONNX call: every window of every query is a row ([B,T] ids and mask, [B,G,T] n-gram mask);
   * per query, one weight per n-gram, each from the window that weighs it.
   */
  private async runBatch(batch: Prepared[]): Promise<number[][]> {
    const rows = batch.flatMap((p) => p.windows.filter((w) => w.ngrams.length > 0).map((w) => ({ p, w })));
    if (rows.length === 0) return batch.map(() => []);
    const B = rows.length;
    const T = Math.max(...rows.map((r) => r.w.ids.length));
    const G = Math.max(...rows.map((r) => r.w.ngrams.length));
    const ids = new BigInt64Array(B * T);
    const mask = new BigInt64Array(B * T);
    const ngramMask = new Float32Array(B * G * T);
    const ngramOrder = new Float32Array(B * G);
    const statNames = (this.entry.statistics?.names ?? []) as (StatisticName | typeof GENERICITY)[];
    const S = statNames.length;
    const ngramStats = this.readsStatistics ? new Float32Array(B * G * S) : undefined;
    rows.forEach(({ p, w }, b) => {
      w.ngrams.forEach((g, i) => (ngramOrder[b * G + i] = p.segmented.ngrams[g].terms.length === 2 ? 1 : 0));
      if (ngramStats) {
        w.ngrams.forEach((g, i) =>
          statNames.forEach(
            (name, s) =>
              (ngramStats[(b * G + i) * S + s] = name === GENERICITY ? ngramGenericity(this.genericity!, w.ids, w.ngramTokens[i]) : p.statistics![g][name]),
          ),
        );
      }
      w.ids.forEach((id, t) => {
        ids[b * T + t] = BigInt(id);
        mask[b * T + t] = 1n;
      });
      w.ngramTokens.forEach((toks, i) => {
        for (const t of toks) ngramMask[(b * G + i) * T + t] = 1;
      });
    });
    let result: Record<string, OrtTensor>;
    try {
      const feeds: Record<string, unknown> = {
        [this.config.inputs.ids]: new this.ort.Tensor('int64', ids, [B, T]),
        [this.config.inputs.attentionMask]: new this.ort.Tensor('int64', mask, [B, T]),
        [this.config.inputs.ngramMask]: new this.ort.Tensor('float32', ngramMask, [B, G, T]),
      };
      if (this.orderInput) feeds[this.orderInput] = new this.ort.Tensor('float32', ngramOrder, [B, G]);
      if (ngramStats) feeds[this.entry.statistics!.input] = new this.ort.Tensor('float32', ngramStats, [B, G, S]);
      // onnxruntime-node 1.30's `run` is NOT asynchronous native work: its backend
      // (node_modules/onnxruntime-node/dist/backend.js, `OnnxruntimeSessionHandler.run`) only defers
      // the synchronous native `Session::Run` with setImmediate (microsoft/onnxruntime PR #19610), so
      // the calling thread's event loop is blocked for the whole inference; a real async run is
      // still an open request (microsoft/onnxruntime issue #19611, PR #28646). The language server
      // therefore runs the model in a worker thread (worker-model.ts) and batches requests
      // (batcher.ts) so that one run serves many queries.
      this.counters.runs++;
      result = await this.session.run(feeds);
    } catch (err) {
      throw new WeightModelError('inference-failed', `The ${this.name} model failed on a batch of ${batch.length} queries: ${describe(err)}`);
    }
    const data = result[this.config.output]?.data;
    if (!data || data.length !== B * G) {
      throw new WeightModelError('inference-failed', `The ${this.name} model returned an output of unexpected shape.`);
    }
    const out = new Map<Prepared, number[]>(batch.map((p) => [p, new Array<number>(p.segmented.ngrams.length).fill(Number.NaN)]));
    rows.forEach(({ p, w }, b) => w.ngrams.forEach((g, i) => (out.get(p)![g] = data[b * G + i])));
    return batch.map((p) => out.get(p)!);
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.session.release().catch(() => undefined);
  }
}

function toNgramWeights(p: Prepared, weights: number[]): NgramWeights {
  const { segmented } = p;
  return {
    query: segmented.text,
    ngrams: segmented.ngrams.map((g, i) => {
      const first = segmented.words[g.wordIndices[0]];
      const last = segmented.words[g.wordIndices[g.wordIndices.length - 1]];
      return {
        kind: g.terms.length === 1 ? 'unigram' : 'bigram',
        terms: g.terms,
        surface: segmented.text.slice(first.start, last.end),
        start: first.start,
        end: last.end,
        weight: weights[i],
        ...(p.statistics ? { statistics: p.statistics[i] } : {}),
      };
    }),
  };
}
