/**
 * DeepCT-Index at run time (issue 16 item 7; Dai & Callan 2019/2020): the document model (`deepct-index.onnx`,
 * trained by model/twbert/deepct_index.py, described by `deepct-index.json`) reads every document of a corpus in the
 * encoder's windows (deepct-index-encode.ts, the encoding training read), each term gets an integer tf′ from w, the
 * largest of its occurrences' weights (the paper's tf′ = round(100 · w), terms at 0 dropped; or a form that keeps the
 * document's counts, tf′ = round(scale · tf · (1 + tfAlpha · w)), when the model's config names one), and the vectors
 * go through the engine's impact ingest (Anserini JSON vectors) into an index whose postings hold tf′. The terms are
 * the engine's analysed terms (profile terrier), so queries are analysed as for any index; the index records (meta.bin
 * `tfImpacts`) that its impacts are term frequencies and the BM25 k1 and b the rotation chose, so `--scorer bm25` may
 * rank it (the document length being the sum of its tf′).
 *
 * The model is wrapped like an engine that can fail: a missing or broken model is a typed WeightModelError.
 */
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { dirname, join, resolve } from 'node:path';
import { createAnalyzer } from '../engine/analysis/index.js';
import { analysedBatches } from '../engine/index/batch-source.js';
import { buildIndex, type BuildIndexOptions, type BuildProgress, type BuildSummary } from '../engine/index/disk.js';
import type { IndexContent } from '../engine/index/content.js';
import { readCorpus } from '../engine/ingest/index.js';
import { documentText, encodeDocumentWindows, integerImpacts, termCounts, termWeights, type DocumentEncoding } from './deepct-index-encode.js';
import { openOnnxSession, WeightModelError, type DeviceRequest, type ModelProvenance } from './runtime.js';
import { loadTokenizer, type HfTokenizer } from './tokenize.js';

export const DEEPCT_INDEX_CONFIG = 'deepct-index.json';

export interface DeepctIndexConfig {
  file: string;
  tokenizer: string;
  maxTokens: number;
  profile: 'terrier';
  /** tf′ = round(scale · w), terms at 0 dropped; with tfAlpha, tf′ = round(scale · tf · (1 + tfAlpha · max(w, 0))). */
  scale: number;
  tfAlpha?: number;
  inputs: { ids: string; attentionMask: string };
  output: string;
  /** The BM25 parameters chosen for the index (leave-one-collection-out). */
  bm25: { k1: number; b: number };
  epochs?: number;
  description?: string;
  provenance?: ModelProvenance;
}

interface Session {
  run(feeds: Record<string, unknown>): Promise<Record<string, { data: Float32Array | number[]; dims: readonly number[] }>>;
  release(): Promise<void>;
  inputNames: readonly string[];
}

export class DeepctIndexModel {
  private readonly analyzer = createAnalyzer('terrier');

  constructor(
    readonly dir: string,
    readonly config: DeepctIndexConfig,
    readonly device: 'cpu' | 'cuda',
    readonly notices: readonly string[],
    private readonly session: Session,
    private readonly tokenizer: HfTokenizer,
    private readonly makeTensor: (data: BigInt64Array, dims: number[]) => unknown,
  ) {}

  /** The document's encoder windows (the encoding training read). */
  encode(text: string): Promise<DocumentEncoding> {
    return encodeDocumentWindows(this.tokenizer, this.analyzer, text, this.config.maxTokens);
  }

  /** The model's output at every token of each window (`[CLS] … [SEP]`), in batches of `batch` windows. */
  async tokenWeights(windows: readonly { ids: readonly number[] }[], batch = 32): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let start = 0; start < windows.length; start += batch) {
      const chunk = windows.slice(start, start + batch);
      const width = Math.max(...chunk.map((w) => w.ids.length));
      const ids = new BigInt64Array(chunk.length * width);
      const mask = new BigInt64Array(chunk.length * width);
      chunk.forEach((w, i) => {
        w.ids.forEach((id, t) => {
          ids[i * width + t] = BigInt(id);
          mask[i * width + t] = 1n;
        });
      });
      const result = await this.session.run({
        [this.config.inputs.ids]: this.makeTensor(ids, [chunk.length, width]),
        [this.config.inputs.attentionMask]: this.makeTensor(mask, [chunk.length, width]),
      });
      const data = result[this.config.output]!.data;
      chunk.forEach((w, i) => out.push(Float32Array.from({ length: w.ids.length }, (_v, t) => Number(data[i * width + t]))));
    }
    return out;
  }

  /** The document's integer impacts in the config's form (deepct-index-encode.ts integerImpacts). */
  async impacts(text: string): Promise<{ terms: string[]; impacts: number[] }> {
    const encoding = await this.encode(text);
    return this.impactsOf(encoding, await this.tokenWeights(encoding.windows));
  }

  impactsOf(encoding: DocumentEncoding, scores: readonly ArrayLike<number>[]): { terms: string[]; impacts: number[] } {
    const form = { scale: this.config.scale, tfAlpha: this.config.tfAlpha };
    return integerImpacts(encoding.terms, termWeights(encoding, scores), form, form.tfAlpha === undefined ? undefined : termCounts(encoding));
  }

  async dispose(): Promise<void> {
    await this.session.release();
  }
}

/** The config's tf′ rule, as the build and eval-model print it. */
export function describeImpactForm(config: Pick<DeepctIndexConfig, 'scale' | 'tfAlpha'>): string {
  return config.tfAlpha === undefined
    ? `tf' = round(${config.scale} w), terms at 0 dropped`
    : `tf' = round(${config.scale === 1 ? '' : `${config.scale} `}tf (1 + ${config.tfAlpha} max(w, 0))), counts kept`;
}

export type LoadDeepctIndexResult = { ok: true; model: DeepctIndexModel } | { ok: false; error: WeightModelError };

/** Loads `dir`/deepct-index.json, its ONNX file and tokenizer; every failure is a typed error that says what to do. */
export async function loadDeepctIndexModel(dir: string, options: { device?: DeviceRequest; threads?: number } = {}): Promise<LoadDeepctIndexResult> {
  const fail = (kind: 'missing-model' | 'invalid-model', message: string): LoadDeepctIndexResult => ({ ok: false, error: new WeightModelError(kind, message) });
  const configFile = join(dir, DEEPCT_INDEX_CONFIG);
  if (!existsSync(configFile)) {
    return fail(
      'missing-model',
      `No DeepCT-Index document model in ${dir} (${DEEPCT_INDEX_CONFIG} is missing). Train and export it with \`/usr/bin/python3 -m model.twbert.deepct_index rotate\` then \`ship\` (model/README.md), or point --model-dir at a folder that holds ${DEEPCT_INDEX_CONFIG}, its .onnx file and tokenizer.json.`,
    );
  }
  let config: DeepctIndexConfig;
  try {
    config = JSON.parse(readFileSync(configFile, 'utf8')) as DeepctIndexConfig;
  } catch (err) {
    return fail('invalid-model', `Cannot read ${configFile}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const problem = configProblem(config);
  if (problem) return fail('invalid-model', `${configFile}: ${problem}`);
  const onnxFile = join(dir, config.file);
  const tokenizerFile = join(dir, config.tokenizer);
  if (!existsSync(onnxFile)) return fail('missing-model', `The DeepCT-Index model file ${onnxFile} is missing.`);
  if (!existsSync(tokenizerFile)) return fail('missing-model', `The tokenizer ${tokenizerFile} is missing.`);
  let tokenizer: HfTokenizer;
  try {
    tokenizer = loadTokenizer(tokenizerFile);
  } catch (err) {
    return fail('invalid-model', `Cannot load the tokenizer ${tokenizerFile}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const opened = await openOnnxSession(onnxFile, options.device ?? 'auto', 'the DeepCT-Index model', options.threads ?? 2);
  if (!opened.ok) return opened;
  const { ort, session, used, notices } = opened;
  for (const input of [config.inputs.ids, config.inputs.attentionMask]) {
    if (!session.inputNames.includes(input)) {
      await session.release().catch(() => undefined);
      return fail('invalid-model', `${onnxFile} has no input '${input}' (it has ${session.inputNames.join(', ')}).`);
    }
  }
  return {
    ok: true,
    model: new DeepctIndexModel(dir, config, used, notices, session as unknown as Session, tokenizer, (data, dims) => new ort.Tensor('int64', data, dims)),
  };
}

function configProblem(c: DeepctIndexConfig): string | null {
  if (typeof c.file !== 'string' || typeof c.tokenizer !== 'string') return 'file and tokenizer must name the model and tokenizer files';
  if (!(Number.isInteger(c.maxTokens) && c.maxTokens >= 3)) return `maxTokens must be an integer of at least 3, got ${JSON.stringify(c.maxTokens)}`;
  if (c.profile !== 'terrier') return `the model was trained on the ${JSON.stringify(c.profile)} analyser; this querylens indexes DeepCT terms with terrier`;
  if (!(c.scale > 0)) return `scale must be positive, got ${JSON.stringify(c.scale)}`;
  if (c.tfAlpha !== undefined && !(typeof c.tfAlpha === 'number' && Number.isFinite(c.tfAlpha) && c.tfAlpha >= 0)) return `tfAlpha, when given, must be a number ≥ 0, got ${JSON.stringify(c.tfAlpha)}`;
  if (!c.inputs || typeof c.inputs.ids !== 'string' || typeof c.inputs.attentionMask !== 'string' || typeof c.output !== 'string') return 'inputs.ids, inputs.attentionMask and output must name the graph\'s tensors';
  if (!c.bm25 || !(c.bm25.k1 >= 0) || !(c.bm25.b >= 0 && c.bm25.b <= 1)) return `bm25 must give k1 ≥ 0 and b in [0, 1], got ${JSON.stringify(c.bm25)}`;
  return null;
}

export interface DeepctBuildOptions {
  /** Reports the model pass (documents weighed, corpus bytes read) and then the engine's build. */
  onModelProgress?: (p: BuildProgress) => void;
  onBuildProgress?: (p: BuildProgress) => void;
  memoryBudgetBytes?: number;
  skipBad?: boolean;
  /** Keep the Anserini JSON vectors the index was built from here (else a temporary file, removed). */
  vectorsOut?: string;
}

export interface DeepctBuildSummary extends BuildSummary {
  /** Document terms the model weighed, and those dropped at tf′ = 0. */
  termsWeighed: number;
  termsDropped: number;
  bm25: { k1: number; b: number };
}

/**
 * Runs the document model over every document of `corpus` and builds an impact index of tf′ at `outDir` through the
 * engine's JSON-vector ingest (the index replaced atomically, as every build). The index records its BM25 k1/b.
 */
export async function buildDeepctIndex(model: DeepctIndexModel, corpus: string[], outDir: string, options: DeepctBuildOptions = {}): Promise<DeepctBuildSummary> {
  const target = resolve(outDir);
  const tmpDir = options.vectorsOut ? null : mkdtempSync(join(dirname(target), '.deepct-vectors-'));
  const vectorsFile = options.vectorsOut ?? join(tmpDir!, 'vectors.jsonl');
  try {
    const totalBytes = corpus.reduce((n, f) => n + (statSync(f).isFile() ? statSync(f).size : 0), 0);
    let bytesRead = 0;
    let docs = 0;
    let termsWeighed = 0;
    let termsDropped = 0;
    const stream = createWriteStream(vectorsFile);
    const failed = new Promise<never>((_r, reject) => stream.once('error', reject));
    failed.catch(() => undefined);
    for await (const doc of readCorpus(corpus, { skipBad: options.skipBad, onRead: (n) => (bytesRead += n) })) {
      const text = documentText(doc.fields);
      const encoding = await model.encode(text);
      const { terms, impacts } = model.impactsOf(encoding, await model.tokenWeights(encoding.windows));
      termsWeighed += encoding.terms.length;
      termsDropped += encoding.terms.length - terms.length;
      const vector: Record<string, number> = {};
      terms.forEach((t, i) => (vector[t] = impacts[i]!));
      const line = JSON.stringify({ id: doc.docno, contents: text, vector }) + '\n';
      if (!stream.write(line)) await Promise.race([once(stream, 'drain'), failed]);
      docs++;
      options.onModelProgress?.({ docs, bytesRead, totalBytes, phase: 'reading' });
    }
    stream.end();
    await Promise.race([once(stream, 'finish'), failed]);
    const bm25 = { k1: model.config.bm25.k1, b: model.config.bm25.b };
    const content: IndexContent = { postings: 'impacts', positions: false, preTokenised: false, storedText: true, source: 'jsonvector', docVectors: 'stored', tfImpacts: bm25 };
    const buildOptions: BuildIndexOptions = {
      profile: 'terrier',
      memoryBudgetBytes: options.memoryBudgetBytes,
      onProgress: options.onBuildProgress,
      // The vectors' terms are already the terrier analyser's terms: indexed as written, queries analysed by terrier.
      prepared: { batches: () => analysedBatches([vectorsFile], { profile: 'terrier', input: 'jsonvector' }, false), content, profile: 'terrier' },
    };
    const summary = await buildIndex(corpus, target, buildOptions);
    return { ...summary, termsWeighed, termsDropped, bm25 };
  } finally {
    if (tmpDir) rmSync(tmpDir, { recursive: true, force: true });
  }
}
