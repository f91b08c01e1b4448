/**
 * The learned expansion's weighting model at run time (issue 15 §2): `surface.onnx` (input `features`
 * [candidates × SURFACE_FEATURES], output `weights` [candidates]) with `surface.json` (its feature count,
 * the weight under which a candidate is not suggested, and which collections trained and selected it),
 * trained by model/csurf/train.py. Run by onnxruntime-node under the runtime's device policy
 * (`openOnnxSession`: auto / cuda / cpu). Loading returns typed errors: a missing or broken model is an
 * explained state.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openOnnxSession, WeightModelError, type DeviceRequest, type ModelProvenance } from './runtime.js';
import { CANDIDATE_SOURCES } from '../engine/expansion/surface-candidates.js';
import { SURFACE_FEATURES } from './surface-features.js';
import type { SurfaceQueryForm } from './surface-query.js';

export const SURFACE_MODEL_CONFIG = 'surface.json';

export interface SurfaceModelConfig {
  file: string;
  features: number;
  /** A weight under this means "not suggested". */
  minWeight: number;
  epochs?: number;
  /** Training steps of the model (0 from start 0: the rotation chose not to expand, so it suggests nothing). */
  steps?: number;
  /** The weight every allowed candidate had before training (0: none; with 0 steps, a fixed weight for each). */
  start?: number;
  /** How the alternatives go into an Indri query (surface-query.ts; a model without it was trained for `wsyn`). */
  form?: SurfaceQueryForm;
  /** The largest weight the model gives (in its graph; recorded for people). */
  cap?: number;
  /** The least word-vector similarity to its word of a candidate it may suggest (in its graph; 0: no bound). */
  minSimilarity?: number;
  /** The candidate sources it may suggest (in its graph: a candidate from no other source weighs 0). */
  sources?: string[];
  provenance?: ModelProvenance & { leftOut?: string };
}

const SOURCE_NAMES: Record<string, string> = {
  variant: 'morphological variants',
  wordnet: 'WordNet synonyms',
  embedding: 'word-vector neighbours',
  cooccurrence: 'words found with it in the top documents',
};

/** True for the model the rotation writes when it chooses not to expand: 0 steps from start 0 (every weight under minWeight). */
export function suggestsNothing(config: SurfaceModelConfig): boolean {
  return config.steps === 0 && !((config.start ?? 0) >= config.minWeight);
}

/** The one weight of a model trained 0 steps from a prior weight (every candidate it may suggest weighs it); else null. */
function fixedWeight(config: SurfaceModelConfig): number | null {
  return config.steps === 0 && !suggestsNothing(config) ? config.start! : null;
}

/** For a fixed-weight model: what it does, for the status line (null for any other model). */
export function fixedWeightNote(config: SurfaceModelConfig): string | null {
  const weight = fixedWeight(config);
  if (weight === null) return null;
  return `It was trained 0 steps from a fixed weight: every candidate it may suggest weighs ${weight} (the leave-one-collection-out rotation chose this over the trained weights, model/MODEL_CARD.md).`;
}

/**
 * The weight from which an alternative is "strong" (the editor's hints show those): half the largest weight the
 * model can give (its cap, 1 without one); for a fixed-weight model, that weight (its every suggestion is as strong
 * as it says anything).
 */
export function strongWeight(config: SurfaceModelConfig): number {
  return fixedWeight(config) ?? 0.5 * (config.cap ?? 1);
}

/** The sources the model may suggest, in words, when it may not suggest them all (null when it may). */
export function restrictedSources(config: SurfaceModelConfig): string | null {
  const allowed = config.sources;
  if (!allowed || CANDIDATE_SOURCES.every((s) => allowed.includes(s))) return null;
  const names = allowed.map((s) => SOURCE_NAMES[s] ?? s);
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : (names[0] ?? 'nothing');
}

interface SurfaceSession {
  run(feeds: Record<string, unknown>): Promise<Record<string, { data: Float32Array }>>;
  release(): Promise<void>;
  inputNames: readonly string[];
}

export class SurfaceModel {
  constructor(
    readonly config: SurfaceModelConfig,
    readonly device: 'cpu' | 'cuda',
    readonly notices: readonly string[],
    private readonly session: SurfaceSession,
    private readonly makeTensor: (data: Float32Array, dims: number[]) => unknown,
  ) {}

  /** One weight per feature row; those under `minWeight` are 0 (not suggested). */
  async weigh(features: readonly (readonly number[])[]): Promise<Float32Array> {
    if (features.length === 0) return new Float32Array();
    const flat = new Float32Array(features.length * this.config.features);
    features.forEach((row, i) => {
      if (row.length !== this.config.features) throw new RangeError(`a feature row has ${row.length} values, the model reads ${this.config.features}`);
      flat.set(row, i * this.config.features);
    });
    const out = await this.session.run({ features: this.makeTensor(flat, [features.length, this.config.features]) });
    const weights = Float32Array.from(out.weights!.data);
    for (let i = 0; i < weights.length; i++) if (!(weights[i]! >= this.config.minWeight)) weights[i] = 0;
    return weights;
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}

export type LoadSurfaceModelResult = { ok: true; model: SurfaceModel } | { ok: false; error: WeightModelError };

export async function loadSurfaceModel(dir: string, options: { device?: DeviceRequest; threads?: number } = {}): Promise<LoadSurfaceModelResult> {
  const fail = (kind: 'missing-model' | 'invalid-model', message: string): LoadSurfaceModelResult => ({ ok: false, error: new WeightModelError(kind, message) });
  const configFile = join(dir, SURFACE_MODEL_CONFIG);
  if (!existsSync(configFile)) {
    return fail(
      'missing-model',
      `No learned-expansion model in ${dir} (${SURFACE_MODEL_CONFIG} is missing). Train it with \`/usr/bin/python3 -m model.csurf.train ship\` (model/README.md) or point --model-dir at a folder that holds ${SURFACE_MODEL_CONFIG} and surface.onnx.`,
    );
  }
  let config: SurfaceModelConfig;
  try {
    config = JSON.parse(readFileSync(configFile, 'utf8')) as SurfaceModelConfig;
  } catch (err) {
    return fail('invalid-model', `Cannot read ${configFile}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (config.features !== SURFACE_FEATURES || typeof config.file !== 'string' || !(config.minWeight >= 0)) {
    return fail('invalid-model', `${configFile}: the model reads ${config.features} features per candidate, this querylens computes ${SURFACE_FEATURES} (retrain it with model/csurf/train.py)`);
  }
  if (config.form !== undefined && config.form !== 'wsyn' && config.form !== 'terms') {
    return fail('invalid-model', `${configFile}: unknown query form ${JSON.stringify(config.form)} (expected "wsyn" or "terms"; retrain it with model/csurf/train.py)`);
  }
  const onnxFile = join(dir, config.file);
  if (!existsSync(onnxFile)) return fail('missing-model', `The learned-expansion model file ${onnxFile} is missing.`);
  const opened = await openOnnxSession(onnxFile, options.device ?? 'auto', 'the learned-expansion model', options.threads ?? 1);
  if (!opened.ok) return opened;
  const { ort, session, used, notices } = opened;
  if (!session.inputNames.includes('features')) {
    await session.release().catch(() => undefined);
    return fail('invalid-model', `${onnxFile} has no input 'features' (it has ${session.inputNames.join(', ')}).`);
  }
  return {
    ok: true,
    model: new SurfaceModel(config, used, notices, session as unknown as SurfaceSession, (data, dims) => new ort.Tensor('float32', data, dims)),
  };
}
