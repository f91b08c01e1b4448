/**
 * `querylens eval-model` (`npm run eval:model`): the measured effect of the weighting model, honestly
 * (issue 16 item 3). For each of the seven training collections (CACM, SciFact train, Cranfield, ADI,
 * LISA, TIME, NFCorpus dev) and the two reporting sets (SciFact test, NFCorpus test) it ranks every
 * query with five systems: uniform BM25, the fixed phrase rule (every word 1, every adjacent pair `#1`
 * at 0.25: phrase-rule.ts), BM25 + Bo1, the model, and the model + Bo1 (paper §5.3); it prints MAP and
 * nDCG@10, and for each system per-query wins/losses and a paired test (t or randomisation, as
 * `querylens compare`) against uniform BM25 and against the phrase rule.
 *
 * Every row is ranked by `rankQueries` (server/service/ranking.ts), the code behind `querylens
 * search` (Terrier BM25, k1 1.2, b 0.75, k3 8, top 1000; Bo1 3 feedback documents, 10 terms), so a row
 * equals `querylens search [--weights …] [--expand bo1]` followed by `querylens eval`. The runs pass
 * through their TREC text (formatRunLines → parseRun) as `eval` reads them. Indexes are built once per
 * corpus into a cache outside the checkout (~/.cache/querylens/eval-model by default) and rebuilt when
 * the corpus file changes.
 *
 * Which collections trained the model and which chose its knobs is read from config.json
 * (`provenance`) and printed with the table: a figure on such a collection is not a held-out figure.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { cpus, homedir, hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { SIGNIFICANCE_LEVEL } from '../../engine/eval/compare.js';
import type { Run } from '../../engine/eval/trec-files.js';
import type { ModelProvenance, WeightModel } from '../../model/runtime.js';
import { CliError } from '../errors.js';
import { writeOutputFile } from '../output-file.js';
import { loadModelForCli, rankQueriesForCli } from './search.js';
import { compareSystems, openStampedIndex, queriesToRank, type SystemResult as GenericSystemResult } from './eval-systems.js';
import type { IndexReader } from '../../engine/index/reader.js';

export type CollectionRole = 'training' | 'reporting';

export interface CollectionSpec {
  name: string;
  label: string;
  role: CollectionRole;
  /** The corpus folder: collections that share a corpus (SciFact train and test) share one index. */
  corpusName: string;
  corpus: string;
  queries: string;
  qrels: string;
}

/**
 * The seven training collections (leave-one-collection-out rotates over them) and the two reporting
 * sets, which never train or select anything (issue 16; model/MODEL_CARD.md).
 */
export function collectionSpecs(dataDir: string): Record<string, CollectionSpec> {
  const spec = (name: string, label: string, role: CollectionRole, folder: string, queries: string, qrels: string): CollectionSpec => ({
    name,
    label,
    role,
    corpusName: folder,
    corpus: join(dataDir, folder, 'corpus.jsonl'),
    queries: join(dataDir, folder, queries),
    qrels: join(dataDir, folder, qrels),
  });
  return {
    cacm: spec('cacm', 'CACM', 'training', 'cacm', 'queries.tsv', 'qrels.txt'),
    'scifact-train': spec('scifact-train', 'SciFact train', 'training', 'scifact', 'queries.train.tsv', 'qrels.train.txt'),
    cranfield: spec('cranfield', 'Cranfield', 'training', 'cranfield', 'queries.tsv', 'qrels.txt'),
    adi: spec('adi', 'ADI', 'training', 'adi', 'queries.tsv', 'qrels.txt'),
    lisa: spec('lisa', 'LISA', 'training', 'lisa', 'queries.tsv', 'qrels.txt'),
    time: spec('time', 'TIME', 'training', 'time', 'queries.tsv', 'qrels.txt'),
    'nfcorpus-dev': spec('nfcorpus-dev', 'NFCorpus dev', 'training', 'nfcorpus-dev', 'queries.tsv', 'qrels.txt'),
    'scifact-test': spec('scifact-test', 'SciFact test', 'reporting', 'scifact', 'queries.test.tsv', 'qrels.test.txt'),
    'nfcorpus-test': spec('nfcorpus-test', 'NFCorpus test', 'reporting', 'nfcorpus', 'queries.tsv', 'qrels.txt'),
  };
}

/** The table's rows, baselines first. `weights` null = the query as written. */
export const SYSTEMS = [
  { id: 'bm25', label: 'Uniform BM25', weights: null, bo1: false },
  { id: 'phrase', label: 'Phrase rule', weights: 'phrase', bo1: false },
  { id: 'bm25-bo1', label: 'BM25 + Bo1', weights: null, bo1: true },
  { id: 'model', label: 'TW-BERT', weights: 'model', bo1: false },
  { id: 'model-bo1', label: 'TW-BERT + Bo1', weights: 'model', bo1: true },
] as const;
export type SystemId = (typeof SYSTEMS)[number]['id'];

export const EVAL_MEASURES = ['map', 'ndcg_cut_10'] as const;
const MEASURE_LABELS: Record<string, string> = { map: 'MAP', ndcg_cut_10: 'nDCG@10' };

function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'server'))) return dir;
    dir = dirname(dir);
  }
  return process.cwd();
}

/** --data, else QUERYLENS_DATA, else shared/data beside or inside the checkout. */
export function defaultDataDir(): string {
  if (process.env.QUERYLENS_DATA) return process.env.QUERYLENS_DATA;
  const root = repoRoot();
  return [join(root, '..', 'shared', 'data'), join(root, 'shared', 'data')].find((d) => existsSync(d)) ?? join(root, '..', 'shared', 'data');
}

/** Outside the checkout, so worktrees share the indexes: $XDG_CACHE_HOME (else ~/.cache)/querylens/eval-model. */
export function defaultCacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'querylens', 'eval-model');
}

/** Opens the cached index of a corpus, building it first when missing or built from another corpus file. */
export async function cachedIndex(spec: CollectionSpec, cacheDir: string, log: (s: string) => void): Promise<IndexReader> {
  const { buildIndex } = await import('../../engine/index/disk.js');
  const dir = join(cacheDir, spec.corpusName);
  const st = statSync(spec.corpus);
  const source = JSON.stringify({ corpus: resolve(spec.corpus), size: st.size, mtimeMs: st.mtimeMs });
  return openStampedIndex(dir, join(cacheDir, `${spec.corpusName}.source.json`), source, async () => {
    const summary = await buildIndex([spec.corpus], dir, { profile: 'terrier' });
    log(`indexed ${spec.corpusName}: ${summary.docs} documents in ${summary.seconds.toFixed(1)} s (${dir})`);
  }, log);
}

/** How the evaluated model used a collection, from config.json `provenance`. */
export type ModelUse = 'trained' | 'selected' | 'corpus';

export function modelUses(spec: CollectionSpec, provenance: ModelProvenance | undefined): ModelUse[] {
  if (!provenance) return [];
  const uses: ModelUse[] = [];
  if (provenance.trainedOn.includes(spec.name)) uses.push('trained');
  if (provenance.selectedOn.includes(spec.name)) uses.push('selected');
  if (!uses.length && (provenance.corporaRead ?? []).includes(spec.corpusName)) uses.push('corpus');
  return uses;
}

export type { PairedResult } from './eval-systems.js';
export type SystemResult = GenericSystemResult<SystemId>;

export interface CollectionResult {
  collection: CollectionSpec;
  /** How the evaluated model used this collection (empty: held out from everything). */
  uses: ModelUse[];
  /** True when a leave-one-collection-out fold model (trained without this collection) ranked it. */
  fold?: boolean;
  queries: number;
  systems: SystemResult[];
  testDescription: string;
  /** Seconds spent ranking each system's queries (model inference included). */
  seconds: Record<string, number>;
}

export interface EvalModelOptions {
  dataDir: string;
  cacheDir: string;
  collections: string[];
  /** Only the first n queries of each collection (a quick check); undefined = all. */
  limit?: number;
  test: 't' | 'randomization';
  model: WeightModel;
  /**
   * Leave-one-collection-out: for a training collection named here, the model trained and selected
   * without it ranks its queries instead of `model` (which then ranks the others and the reporting sets).
   */
  foldModels?: Record<string, WeightModel>;
  phraseRule: WeightModel;
  log: (s: string) => void;
  /** Write each system's TREC run here (for `querylens eval`/`compare` by hand). */
  runsDir?: string;
}

export async function evaluateModels(options: EvalModelOptions): Promise<CollectionResult[]> {
  const { formatRunLines } = await import('../../engine/search.js');
  const { LocalIndexBackend } = await import('../../service/backend.js');
  const { parseRun, readQrelsFile } = await import('../../engine/eval/index.js');
  const specs = collectionSpecs(options.dataDir);
  const provenanceOf = (m: WeightModel) => m.config.models[m.name as 'twbert']?.provenance;
  const results: CollectionResult[] = [];
  for (const name of options.collections) {
    const spec = specs[name]!;
    for (const f of [spec.corpus, spec.queries, spec.qrels]) {
      if (!existsSync(f)) throw new CliError(`${spec.label}: ${f} not found (give the data folder with --data or QUERYLENS_DATA)`);
    }
    const model = options.foldModels?.[spec.name] ?? options.model;
    const reader = await cachedIndex(spec, options.cacheDir, options.log);
    const queries = await queriesToRank(spec.queries, options.limit);
    const runs: Run[] = [];
    const seconds: Record<string, number> = {};
    for (const system of SYSTEMS) {
      const started = performance.now();
      const ranked = await rankQueriesForCli(new LocalIndexBackend(reader, spec.label), queries, {
        search: { scorer: 'bm25', k1: 1.2, b: 0.75, k3: 8, k: 1000 },
        expand: system.bo1 ? { method: 'bo1', fbDocs: 3, fbTerms: 10 } : undefined,
        model: system.weights === 'model' ? model : system.weights === 'phrase' ? options.phraseRule : null,
      });
      seconds[system.id] = (performance.now() - started) / 1000;
      const text = ranked.map((r) => formatRunLines(r.qid, r.hits, system.id)).join('');
      if (options.runsDir) {
        mkdirSync(options.runsDir, { recursive: true });
        writeOutputFile(join(options.runsDir, `${spec.name}.${system.id}.run`), text);
      }
      const run = parseRun(text, `${spec.name}.${system.id}.run`);
      run.runId = system.id;
      runs.push(run);
      options.log(`${spec.label}: ${system.label} ranked ${queries.length} queries in ${seconds[system.id].toFixed(1)} s`);
    }
    const labelled = SYSTEMS.map((system) => ({ id: system.id, label: system.id.startsWith('model') ? system.label.replace('TW-BERT', modelLabel(model)) : system.label }));
    const { systems, queries: judged, testDescription } = await compareSystems(runs, labelled, readQrelsFile(spec.qrels), EVAL_MEASURES, options.test);
    const fold = options.foldModels?.[spec.name] !== undefined;
    results.push({ collection: spec, uses: modelUses(spec, provenanceOf(model)), fold, queries: judged, systems, testDescription, seconds });
  }
  return results;
}

function modelLabel(model: WeightModel): string {
  return model.name === 'deepct' ? 'DeepCT-Query' : 'TW-BERT';
}

function signedPercent(x: number | null): string {
  if (x === null) return 'n/a';
  return `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(1)}%`;
}

function formatP(p: number): string {
  if (Number.isNaN(p)) return 'p n/a';
  return p < 0.001 ? 'p<0.001' : `p=${p.toFixed(3)}`;
}

const USE_WORDS: Record<ModelUse, string> = { trained: 'trained on', selected: 'selected on', corpus: 'corpus read' };

function collectionTitle(r: CollectionResult): string {
  const uses = r.uses.map((u) => USE_WORDS[u]).join(', ');
  return `${r.collection.label} (${r.queries} q, ${r.collection.role}${r.fold ? '; left out' : ''}${uses ? `; model ${uses}` : ''})`;
}

/**
 * The tables as markdown: first one line per collection with each system's MAP change against uniform
 * BM25 (and the mean over the training collections present), then per collection every system's MAP
 * and nDCG@10 with wins/losses and the paired test against uniform BM25 and against the phrase rule.
 */
export function formatModelTables(results: readonly CollectionResult[], header: string[]): string {
  const out = [...header];
  const test = results[0]?.testDescription ?? '';
  out.push(`† = ${test}, p < ${SIGNIFICANCE_LEVEL}. W/L = queries better / worse than the baseline (MAP).`, '');
  if (!results.length) return out.join('\n');
  const labels = results[0].systems.map((s) => s.label);

  out.push(`| MAP change vs uniform BM25 | BM25 MAP | ${labels.slice(1).join(' | ')} |`);
  out.push(`|---|---|${labels.slice(1).map(() => '---').join('|')}|`);
  const summaryRow = (r: CollectionResult) =>
    `| ${collectionTitle(r)} | ${r.systems[0].means.map.toFixed(4)} | ${r.systems
      .slice(1)
      .map((s) => `${signedPercent(s.vsBm25!.map.changePercent)}${s.vsBm25!.map.significant ? '†' : ''}`)
      .join(' | ')} |`;
  const training = results.filter((r) => r.collection.role === 'training');
  for (const r of training) out.push(summaryRow(r));
  const meanRow = (rows: CollectionResult[], what: string) => {
    const means = labels.slice(1).map((_l, i) => {
      const changes = rows.map((r) => r.systems[i + 1].vsBm25!.map.changePercent ?? 0);
      return signedPercent(changes.reduce((a, b) => a + b, 0) / changes.length);
    });
    out.push(`| **mean of the ${rows.length} ${what}** | — | ${means.join(' | ')} |`);
  };
  if (training.length > 1) meanRow(training, 'training collections');
  // The collections the evaluated model never touched: the only held-out figures of a model not trained by rotation.
  const heldOut = training.filter((r) => r.uses.length === 0);
  if (heldOut.length > 1 && heldOut.length < training.length) meanRow(heldOut, 'training collections the model never used');
  for (const r of results.filter((x) => x.collection.role === 'reporting')) out.push(summaryRow(r));
  out.push('');

  for (const r of results) {
    out.push(`| ${collectionTitle(r)} | ${EVAL_MEASURES.map((m) => MEASURE_LABELS[m]).join(' | ')} | vs BM25: W/L, MAP test | vs phrase rule: MAP change, W/L, test |`);
    out.push(`|---|${EVAL_MEASURES.map(() => '---').join('|')}|---|---|`);
    for (const s of r.systems) {
      const cells = EVAL_MEASURES.map((m) => {
        const v = s.means[m].toFixed(4);
        const vs = s.vsBm25?.[m];
        return vs ? `${v} (${signedPercent(vs.changePercent)})${vs.significant ? '†' : ''}` : v;
      });
      const b = s.vsBm25?.map;
      const ph = s.vsPhrase?.map;
      const vsBm25 = b ? `${b.wins}/${b.losses}, ${formatP(b.p)}` : '';
      const vsPhrase = ph ? `${signedPercent(ph.changePercent)}${ph.significant ? '†' : ''}, ${ph.wins}/${ph.losses}, ${formatP(ph.p)}` : '';
      out.push(`| ${s.label} | ${cells.join(' | ')} | ${vsBm25} | ${vsPhrase} |`);
    }
    out.push('');
  }
  return out.join('\n');
}

/** What the header says about the evaluated model's data, from config.json `provenance`. */
export function describeProvenance(provenance: ModelProvenance | undefined, labels: Record<string, string>): string {
  if (!provenance) return 'config.json does not say which collections trained or selected this model: no figure below can be called held out.';
  const names = (xs: string[]) => (xs.length ? xs.map((x) => labels[x] ?? x).join(', ') : 'none');
  return (
    `The model was trained on ${names(provenance.trainedOn)}; its knobs and checkpoint were selected on ${names(provenance.selectedOn)}` +
    (provenance.corporaRead?.length ? `; its pre-training and features read the documents of ${provenance.corporaRead.join(', ')}` : '') +
    (provenance.note ? ` (${provenance.note})` : '') +
    '. A figure on such a collection is not a held-out figure.'
  );
}

interface EvalModelCliOptions {
  data?: string;
  cache?: string;
  collections: string;
  queries?: string;
  test: string;
  out?: string;
  json?: boolean;
  runs?: string;
  model: string;
  modelDir?: string;
  loco?: string;
  learned?: string;
  deepctIndex?: string;
  information?: boolean;
  device: string;
}

/**
 * `--learned DIR`: the learned surface-form expansion's table instead of the weighting model's (issue 15;
 * eval-surface.ts): the training collections ranked by the fold models in DIR/<collection>/, the reporting
 * sets by the model in --model-dir (default model/artifacts).
 */
async function printLearnedExpansionTable(opts: EvalModelCliOptions, dataDir: string, collections: string[], limit: number | undefined, test: 't' | 'randomization'): Promise<void> {
  const { evaluateLearnedExpansion, formatLearnedTable, loadLearnedModels } = await import('./eval-surface.js');
  const { defaultModelDir } = await import('../../model/runtime.js');
  const specs = collectionSpecs(dataDir);
  const cacheDir = opts.cache ?? defaultCacheDir();
  const log = (s: string) => console.error(`querylens: ${s}`);
  const modelDir = opts.modelDir ?? defaultModelDir();
  const { shipped, folds } = await loadLearnedModels(modelDir, opts.learned!, collections.map((c) => specs[c]!), opts.device);
  // The combination row's TW-BERT: the weighting model of the same folder, as the editor's "model" setting reads both.
  let weighting: WeightModel;
  try {
    weighting = (await loadModelForCli('twbert', modelDir, opts.device)).model;
  } catch (err) {
    await shipped.release();
    await Promise.all(Object.values(folds).map((m) => m.release()));
    throw err;
  }
  const started = performance.now();
  try {
    const rows = await evaluateLearnedExpansion({ specs, openIndex: (spec) => cachedIndex(specs[spec.name]!, cacheDir, log), collections, shipped, folds, weighting, limit, test, log });
    const cpu = cpus();
    const header = [
      `Measured ${new Date().toISOString().slice(0, 10)} on ${hostname()} (${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}), learned expansion on ${shipped.device}; ${((performance.now() - started) / 1000).toFixed(0)} s in all${limit !== undefined ? `; only the first ${limit} queries of each collection` : ''}.`,
      `Training collections: each ranked by the fold model in ${opts.learned}/<collection>/, trained and selected without it (checked from its surface.json); reporting sets by ${modelDir} (trained on ${(shipped.config.provenance?.trainedOn ?? []).join(', ') || 'unknown'}).`,
      'Terrier BM25 (k1 1.2, b 0.75, k3 8), top 1000; Bo1: 3 feedback documents, 10 terms; learned + Bo1: Bo1 over the learned query\'s own first pass.',
      `TW-BERT + learned + Bo1, as the editor's compare panel builds it: TW-BERT's query as \`querylens weigh\` writes it (${modelDir}), its learned expansion, then Bo1 over that query's own first pass. ${describeProvenance(weighting.config.models.twbert?.provenance, Object.fromEntries(Object.values(specs).map((s) => [s.name, s.label]))).replace('The model', 'TW-BERT')}`,
    ];
    const text = formatLearnedTable(rows, header);
    process.stdout.write(opts.json ? JSON.stringify({ header, rows }, null, 2) + '\n' : text);
    if (opts.out) writeOutputFile(opts.out, text);
  } finally {
    await shipped.release();
    await weighting.dispose();
    await Promise.all(Object.values(folds).map((m) => m.release()));
  }
}

/**
 * `--information`: whether the model's weights carry information (eval-weight-information.ts), on the same
 * collections and queries; with --loco, each training collection weighed by its fold model.
 */
async function printInformationTable(opts: EvalModelCliOptions, dataDir: string, collections: string[], limit: number | undefined): Promise<void> {
  const { formatInformationTable, readInformation, weighedQueries } = await import('./eval-weight-information.js');
  const { readQrelsFile } = await import('../../engine/eval/index.js');
  const specs = collectionSpecs(dataDir);
  const cacheDir = opts.cache ?? defaultCacheDir();
  const log = (s: string) => console.error(`querylens: ${s}`);
  const modelName = opts.model as 'twbert' | 'deepct';
  const loaded = await loadModelForCli(modelName, opts.modelDir, opts.device);
  let foldModels: Record<string, WeightModel> = {};
  try {
    if (opts.loco !== undefined) foldModels = await loadFoldModels(opts.loco, collections.map((c) => specs[c]!), modelName, opts.device);
    const rows = [];
    for (const name of collections) {
      const spec = specs[name]!;
      for (const f of [spec.corpus, spec.queries, spec.qrels]) {
        if (!existsSync(f)) throw new CliError(`${spec.label}: ${f} not found (give the data folder with --data or QUERYLENS_DATA)`);
      }
      const reader = await cachedIndex(spec, cacheDir, log);
      const queries = await queriesToRank(spec.queries, limit);
      const model = foldModels[name] ?? loaded.model;
      rows.push({ label: `${spec.label}${foldModels[name] ? ' (left out)' : ''}`, queries: await weighedQueries(model, reader, spec.label, queries, readQrelsFile(spec.qrels)) });
      log(`${spec.label}: ${queries.length} queries weighed`);
    }
    const header = [
      `Measured ${new Date().toISOString().slice(0, 10)}, model ${opts.model} (${loaded.dir})${opts.loco !== undefined ? `; training collections weighed by the fold models in ${opts.loco}/<collection>/` : ''}${limit !== undefined ? `; only the first ${limit} queries of each collection` : ''}.`,
      describeProvenance(loaded.model.config.models[modelName]?.provenance, Object.fromEntries(Object.values(specs).map((s) => [s.name, s.label]))),
    ];
    const readings = await readInformation(rows);
    const text = formatInformationTable(readings, header);
    if (opts.json) process.stdout.write(JSON.stringify({ header, ...readings }, (_k, v) => (typeof v === 'number' && Number.isNaN(v) ? null : v), 1) + '\n');
    else process.stdout.write(text);
    // --out is always the markdown table, as for the other tables.
    if (opts.out) writeOutputFile(opts.out, text);
  } finally {
    await loaded.model.dispose();
    await Promise.all(Object.values(foldModels).map((m) => m.dispose()));
  }
}

/**
 * `--deepct-index DIR`: DeepCT-Index's table (eval-deepct-index.ts): the training collections indexed by the fold
 * models in DIR/<collection>/, the reporting sets by the model in --model-dir (default model/artifacts).
 */
async function printDeepctIndexTable(opts: EvalModelCliOptions, dataDir: string, collections: string[], limit: number | undefined, test: 't' | 'randomization'): Promise<void> {
  const { evaluateDeepctIndex, loadDeepctIndexFolds } = await import('./eval-deepct-index.js');
  const { loadDeepctIndexModel } = await import('../../model/deepct-index.js');
  const { defaultModelDir } = await import('../../model/runtime.js');
  const specs = collectionSpecs(dataDir);
  const log = (s: string) => console.error(`querylens: ${s}`);
  const modelDir = opts.modelDir ?? defaultModelDir();
  const loaded = await loadDeepctIndexModel(modelDir, { device: opts.device as 'auto' | 'cpu' | 'cuda' });
  if (!loaded.ok) throw new CliError(loaded.error.message);
  const shipped = loaded.model;
  const started = performance.now();
  let folds: Record<string, import('../../model/deepct-index.js').DeepctIndexModel> = {};
  try {
    folds = await loadDeepctIndexFolds(opts.deepctIndex!, collections.map((c) => specs[c]!), opts.device);
    const cacheDir = opts.cache ?? defaultCacheDir();
    const results = await evaluateDeepctIndex({
      specs,
      openIndex: (spec) => cachedIndex(specs[spec.name]!, cacheDir, log),
      usesOf: (spec, provenance) => modelUses(specs[spec.name]!, provenance),
      measures: EVAL_MEASURES,
      cacheDir,
      collections,
      limit,
      test,
      shipped,
      folds,
      log,
    });
    const cpu = cpus();
    const labels = Object.fromEntries(Object.values(specs).map((s) => [s.name, s.label]));
    const header = [
      `Measured ${new Date().toISOString().slice(0, 10)} on ${hostname()} (${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}), DeepCT-Index document model on ${shipped.device}; ${((performance.now() - started) / 1000).toFixed(0)} s in all${limit !== undefined ? `; only the first ${limit} queries of each collection` : ''}.`,
      `Training collections marked "left out": indexed by the fold model in ${opts.deepctIndex}/<collection>/, trained and selected without it (checked from its deepct-index.json); the reporting sets by ${modelDir}.`,
      describeProvenance(shipped.config.provenance, labels).replace('The model', 'The shipped document model'),
      "DeepCT-Index: each document term's tf' in its model's form, ranked by Terrier BM25 (k3 8) at the k1/b its model chose, top 1000: " +
        results.map((r) => `${r.collection.label} ${r.form}, k1 ${r.bm25.k1}, b ${r.bm25.b}`).join('; ') +
        '. Uniform BM25 (k1 1.2, b 0.75) and the phrase rule on the ordinary index.',
    ];
    // The same rows as eval-model's (a DeepCT-Index system id beside its baselines').
    const rows = results as unknown as CollectionResult[];
    const text = opts.json ? JSON.stringify({ header, results }, (_k, v) => (typeof v === 'number' && Number.isNaN(v) ? null : v), 1) + '\n' : formatModelTables(rows, header);
    process.stdout.write(text);
    if (opts.out) writeOutputFile(opts.out, formatModelTables(rows, header));
  } finally {
    await shipped.dispose();
    await Promise.all(Object.values(folds).map((m) => m.dispose()));
  }
}

/**
 * Loads the leave-one-collection-out fold models: `dir/<collection>/` for each training collection
 * evaluated, each a model folder whose config.json `provenance` shows that it neither trained nor
 * selected on that collection. A missing fold or one that used its own collection is a CliError.
 */
export async function loadFoldModels(dir: string, collections: CollectionSpec[], model: 'twbert' | 'deepct', device: string): Promise<Record<string, WeightModel>> {
  const folds: Record<string, WeightModel> = {};
  try {
    for (const spec of collections.filter((c) => c.role === 'training')) {
      const foldDir = join(dir, spec.name);
      if (!existsSync(join(foldDir, 'config.json'))) throw new CliError(`--loco: no fold model for ${spec.label} in ${foldDir} (config.json missing): train it on the other training collections first`);
      const loaded = await loadModelForCli(model, foldDir, device);
      folds[spec.name] = loaded.model;
      const provenance = loaded.model.config.models[model]?.provenance;
      if (!provenance) throw new CliError(`--loco: ${foldDir}/config.json does not say which collections trained and selected the ${model} model (provenance), so ${spec.label} cannot be shown to be left out`);
      const used = [...provenance.trainedOn, ...provenance.selectedOn].includes(spec.name);
      if (used) throw new CliError(`--loco: the fold model in ${foldDir} was trained or selected on ${spec.label} itself (provenance ${JSON.stringify(provenance)})`);
    }
  } catch (err) {
    await Promise.all(Object.values(folds).map((m) => m.dispose()));
    throw err;
  }
  return folds;
}

export function registerEvalModel(program: Command): void {
  const all = Object.keys(collectionSpecs(''));
  program
    .command('eval-model')
    .description('The weighting model against uniform BM25, the phrase rule and Bo1 on the training and reporting collections (markdown)')
    .option('--data <dir>', 'folder with the collections (default: QUERYLENS_DATA, else ../shared/data)')
    .option('--cache <dir>', 'where the indexes are built and kept (default: $XDG_CACHE_HOME or ~/.cache, then querylens/eval-model)')
    .option('--collections <list>', `comma-separated, of: ${all.join(', ')}`, all.join(','))
    .option('--queries <n>', 'only the first n queries of each collection (a quick check)')
    .option('-t, --test <name>', 'paired significance test: t or randomization', 't')
    .option('-o, --out <file>', 'also write the markdown tables to this file')
    .option('--json', 'print the results as JSON instead of markdown')
    .option('--runs <dir>', "also write every system's TREC run here")
    .option('--model <name>', 'the model to evaluate: twbert or deepct', 'twbert')
    .option('--model-dir <dir>', 'folder with config.json, the .onnx files and tokenizer.json (default: model/artifacts)')
    .option('--loco <dir>', 'leave-one-collection-out: rank each training collection with the model in <dir>/<collection>/ (trained and selected without it); --model-dir ranks the reporting sets')
    .option('--learned <dir>', 'the learned surface-form expansion instead: training collections ranked by the fold models in <dir>/<collection>/, reporting sets by --model-dir')
    .option('--deepct-index <dir>', "DeepCT-Index's table instead: training collections indexed by the fold models in <dir>/<collection>/, reporting sets by --model-dir")
    .option('--information', "instead of ranking: do the model's weights carry information? (topic words over generic words within a query, by the judgements, beside idf; the same word's weight across queries and collections)")
    .option('--device <device>', 'model device: auto, cpu or cuda', 'auto')
    .action(async (opts: EvalModelCliOptions) => {
      const dataDir = opts.data ?? defaultDataDir();
      const specs = collectionSpecs(dataDir);
      const collections = opts.collections.split(',').map((s) => s.trim()).filter(Boolean);
      if (!collections.length) throw new CliError(`--collections needs at least one of ${all.join(', ')}`);
      for (const c of collections) if (!specs[c]) throw new CliError(`unknown collection '${c}' (expected ${all.join(', ')})`);
      let limit: number | undefined;
      if (opts.queries !== undefined) {
        if (!/^\d+$/.test(opts.queries) || Number(opts.queries) === 0) throw new CliError(`--queries must be a positive integer, got '${opts.queries}'`);
        limit = Number(opts.queries);
      }
      const test = opts.test === 'randomisation' ? 'randomization' : opts.test;
      if (test !== 't' && test !== 'randomization') throw new CliError(`unknown --test '${opts.test}': use t or randomization`);
      if (opts.information) {
        const other = opts.learned !== undefined ? '--learned' : opts.deepctIndex !== undefined ? '--deepct-index' : opts.runs !== undefined ? '--runs' : undefined;
        if (other) throw new CliError(`--information ranks nothing and prints its own table: it does not go with ${other}`);
      }
      if (opts.learned !== undefined) return printLearnedExpansionTable(opts, dataDir, collections, limit, test);
      if (opts.deepctIndex !== undefined) return printDeepctIndexTable(opts, dataDir, collections, limit, test);
      if (opts.model !== 'twbert' && opts.model !== 'deepct') throw new CliError(`unknown --model '${opts.model}' (expected twbert or deepct)`);
      if (opts.information) return printInformationTable(opts, dataDir, collections, limit);
      const started = performance.now();
      const loaded = await loadModelForCli(opts.model, opts.modelDir, opts.device);
      let foldModels: Record<string, WeightModel> | undefined;
      try {
        if (opts.loco !== undefined) foldModels = await loadFoldModels(opts.loco, collections.map((c) => specs[c]!), opts.model, opts.device);
      } catch (err) {
        await loaded.model.dispose();
        throw err;
      }
      const { createPhraseRule } = await import('../../model/phrase-rule.js');
      const { expansionScaleOf } = await import('../../model/runtime.js');
      const log = (s: string) => console.error(`querylens: ${s}`);
      const expansionScale = expansionScaleOf(loaded.model);
      const provenance = loaded.model.config.models[opts.model]?.provenance;
      let results: CollectionResult[];
      try {
        results = await evaluateModels({
          dataDir,
          cacheDir: opts.cache ?? defaultCacheDir(),
          collections,
          limit,
          test,
          model: loaded.model,
          foldModels,
          phraseRule: createPhraseRule(),
          log,
          runsDir: opts.runs,
        });
      } finally {
        await loaded.model.dispose();
        await Promise.all(Object.values(foldModels ?? {}).map((m) => m.dispose()));
      }
      const wall = (performance.now() - started) / 1000;
      log(`done in ${wall.toFixed(1)} s`);
      const cpu = cpus();
      const labels = Object.fromEntries(Object.values(specs).map((s) => [s.name, s.label]));
      const header = [
        `Measured ${new Date().toISOString().slice(0, 10)} on ${hostname()} (${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}), model ${opts.model} on ${loaded.model.device}, ` +
          `${loaded.dir}; ${wall.toFixed(0)} s in all${limit !== undefined ? `; only the first ${limit} queries of each collection` : ''}.`,
        ...(foldModels
          ? [
              `Leave-one-collection-out: each training collection marked "left out" is ranked by the model in ${opts.loco}/<collection>/, trained and selected without it (checked from its config.json); the reporting sets by the model below.`,
            ]
          : []),
        describeProvenance(provenance, labels),
        'Terrier BM25 (k1 1.2, b 0.75, k3 8), top 1000; phrase rule: every word 1, every adjacent pair #1 at 0.25; Bo1: 3 feedback documents, 10 terms; ' +
          'model + Bo1: the model weighs the original and the Bo1 terms (paper §5.3)' +
          (expansionScale === 1 ? '.' : `, the Bo1 terms' weights times its learned expansion factor ${expansionScale}.`),
      ];
      const text = opts.json
        ? JSON.stringify({ header, results }, (_k, v) => (typeof v === 'number' && Number.isNaN(v) ? null : v), 1) + '\n'
        : formatModelTables(results, header);
      process.stdout.write(text);
      // --out is always the markdown table (also with --json on stdout): it is what goes into the README.
      if (opts.out) writeOutputFile(opts.out, formatModelTables(results, header));
    });
}
