/**
 * `querylens eval-model --deepct-index DIR`: DeepCT-Index (issue 16 item 7) in eval-model's table. Each training
 * collection is indexed by its leave-one-collection-out fold model (DIR/<collection>/deepct-index.json, whose
 * provenance must leave that collection out) and the reporting sets by the shipped model (--model-dir, default
 * model/artifacts); each DeepCT index is ranked with BM25 at the k1/b its model chose (recorded in the index), against
 * uniform BM25 and the phrase rule on the collection's ordinary index, with eval-model's measures, wins/losses and
 * paired tests. DeepCT indexes are built once per model and corpus into the eval cache and rebuilt when either changes.
 */
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Run } from '../../engine/eval/trec-files.js';
import type { IndexReader } from '../../engine/index/reader.js';
import type { DeepctIndexModel } from '../../model/deepct-index.js';
import { CliError } from '../errors.js';
import type { ModelProvenance } from '../../model/runtime.js';
import { rankQueriesForCli } from './search.js';
import { compareSystems, openStampedIndex, queriesToRank, type SystemResult } from './eval-systems.js';

// eval-model.ts's shapes, restated so that this module does not import it (eval-model imports this one).
/** A collection as eval-model's collectionSpecs gives it. */
export interface DeepctEvalSpec {
  name: string;
  label: string;
  role: 'training' | 'reporting';
  corpusName: string;
  corpus: string;
  queries: string;
  qrels: string;
}
type CollectionSpec = DeepctEvalSpec;


export const DEEPCT_INDEX_SYSTEMS = [
  { id: 'bm25', label: 'Uniform BM25' },
  { id: 'phrase', label: 'Phrase rule' },
  { id: 'deepct-index', label: 'DeepCT-Index' },
] as const;

/** Loads the fold models DIR/<collection>/ of the training collections evaluated; each must leave its collection out. */
export async function loadDeepctIndexFolds(dir: string, collections: CollectionSpec[], device: string): Promise<Record<string, DeepctIndexModel>> {
  const { loadDeepctIndexModel } = await import('../../model/deepct-index.js');
  const folds: Record<string, DeepctIndexModel> = {};
  try {
    for (const spec of collections.filter((c) => c.role === 'training')) {
      const foldDir = join(dir, spec.name);
      const loaded = await loadDeepctIndexModel(foldDir, { device: device as 'auto' | 'cpu' | 'cuda' });
      if (!loaded.ok) throw new CliError(`--deepct-index: no fold model for ${spec.label} in ${foldDir}: ${loaded.error.message}`);
      folds[spec.name] = loaded.model;
      const provenance = loaded.model.config.provenance;
      if (!provenance) throw new CliError(`--deepct-index: ${foldDir}/deepct-index.json does not say which collections trained and selected it (provenance), so ${spec.label} cannot be shown to be left out`);
      if ([...provenance.trainedOn, ...provenance.selectedOn].includes(spec.name)) {
        throw new CliError(`--deepct-index: the fold model in ${foldDir} was trained or selected on ${spec.label} itself (provenance ${JSON.stringify(provenance)})`);
      }
    }
  } catch (err) {
    await Promise.all(Object.values(folds).map((m) => m.dispose()));
    throw err;
  }
  return folds;
}

/** The DeepCT index of `spec`'s corpus by `model`, built into the cache unless one of the same model and corpus is there. */
async function cachedDeepctIndex(spec: CollectionSpec, model: DeepctIndexModel, cacheDir: string, slot: string, log: (s: string) => void): Promise<IndexReader> {
  const { buildDeepctIndex } = await import('../../model/deepct-index.js');
  const dir = join(cacheDir, 'deepct-index', slot, spec.corpusName);
  const onnx = statSync(join(model.dir, model.config.file));
  const corpus = statSync(spec.corpus);
  const source = JSON.stringify({ corpus: resolve(spec.corpus), size: corpus.size, mtimeMs: corpus.mtimeMs, model: resolve(model.dir, model.config.file), modelSize: onnx.size, modelMtimeMs: onnx.mtimeMs, config: model.config });
  return openStampedIndex(dir, `${dir}.source.json`, source, async () => {
    const started = performance.now();
    const summary = await buildDeepctIndex(model, [spec.corpus], dir);
    log(`DeepCT-indexed ${spec.corpusName} with the ${slot} model: ${summary.docs} documents, ${summary.termsDropped} of ${summary.termsWeighed} terms dropped, in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }, log);
}

export interface DeepctIndexEvalOptions {
  specs: Record<string, CollectionSpec>;
  /** The collection's ordinary index (eval-model's cached one). */
  openIndex: (spec: CollectionSpec) => Promise<IndexReader>;
  /** How a model used a collection, from its provenance (eval-model's modelUses). */
  usesOf: (spec: CollectionSpec, provenance: ModelProvenance | undefined) => string[];
  measures: readonly string[];
  cacheDir: string;
  collections: string[];
  limit?: number;
  test: 't' | 'randomization';
  shipped: DeepctIndexModel;
  folds: Record<string, DeepctIndexModel>;
  log: (s: string) => void;
}

/** A collection's rows (eval-model's CollectionResult), with the BM25 parameters its DeepCT index was ranked with. */
export interface DeepctCollectionResult {
  collection: CollectionSpec;
  uses: string[];
  fold: boolean;
  queries: number;
  systems: SystemResult[];
  testDescription: string;
  seconds: Record<string, number>;
  bm25: { k1: number; b: number };
  /** The model's tf′ rule (describeImpactForm). */
  form: string;
}

/** Per collection: uniform BM25, the phrase rule and DeepCT-Index, as eval-model's CollectionResult rows. */
export async function evaluateDeepctIndex(options: DeepctIndexEvalOptions): Promise<DeepctCollectionResult[]> {
  const { formatRunLines } = await import('../../engine/search.js');
  const { LocalIndexBackend } = await import('../../service/backend.js');
  const { parseRun, readQrelsFile } = await import('../../engine/eval/index.js');
  const { contentOf } = await import('../../engine/index/content.js');
  const { createPhraseRule } = await import('../../model/phrase-rule.js');
  const { describeImpactForm } = await import('../../model/deepct-index.js');
  const results: DeepctCollectionResult[] = [];
  for (const name of options.collections) {
    const spec = options.specs[name]!;
    const fold = options.folds[name];
    const model = fold ?? options.shipped;
    const reader = await options.openIndex(spec);
    const deepct = await cachedDeepctIndex(spec, model, options.cacheDir, fold ? `fold-${name}` : 'shipped', options.log);
    const params = contentOf(deepct).tfImpacts!;
    const queries = await queriesToRank(spec.queries, options.limit);
    const runs: Run[] = [];
    const seconds: Record<string, number> = {};
    for (const system of DEEPCT_INDEX_SYSTEMS) {
      const started = performance.now();
      const onDeepct = system.id === 'deepct-index';
      const ranked = await rankQueriesForCli(new LocalIndexBackend(onDeepct ? deepct : reader, spec.label), queries, {
        search: { scorer: 'bm25', k1: onDeepct ? params.k1 : 1.2, b: onDeepct ? params.b : 0.75, k3: 8, k: 1000 },
        model: system.id === 'phrase' ? createPhraseRule() : null,
      });
      seconds[system.id] = (performance.now() - started) / 1000;
      const run = parseRun(ranked.map((r) => formatRunLines(r.qid, r.hits, system.id)).join(''), `${spec.name}.${system.id}.run`);
      run.runId = system.id;
      runs.push(run);
    }
    const { systems, queries: judged, testDescription } = await compareSystems(runs, DEEPCT_INDEX_SYSTEMS, readQrelsFile(spec.qrels), options.measures, options.test);
    results.push({ collection: spec, uses: options.usesOf(spec, model.config.provenance), fold: fold !== undefined, queries: judged, systems, testDescription, seconds, bm25: { k1: params.k1, b: params.b }, form: describeImpactForm(model.config) });
    options.log(`${spec.label}: DeepCT-Index ranked ${queries.length} queries`);
  }
  return results;
}
