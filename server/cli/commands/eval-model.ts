/**
 * `querylens eval-model` (`npm run eval:model`): the measured effect of the term-weighting models,
 * laid out like the TW-BERT paper's Tables 2–3 (Samel et al., KDD 2023, §5): Uniform BM25,
 * DeepCT-Query, TW-BERT, BM25 + Bo1 and TW-BERT + Bo1 (§5.3) on Cranfield (225 queries) and
 * SciFact test (300 queries); MAP, nDCG@10, R@100 and R@1000, each with its relative change
 * against Uniform BM25 and a paired significance test (server/engine/eval/compare.ts).
 *
 * Every row is ranked by `rankQueries` (server/model/weighted-query.ts), the code behind `querylens search` (Terrier BM25, k1 1.2,
 * b 0.75, k3 8, top 1000; Bo1 3 feedback documents, 10 terms), so a row equals
 * `querylens search [--weights …] [--expand bo1]` followed by `querylens eval`. The runs pass
 * through their TREC text (formatRunLines → parseRun) as `eval` reads them. Indexes are built once
 * into a git-ignored cache (.cache/eval-model/ by default) and rebuilt when the corpus changes.
 */
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { cpus, hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { SIGNIFICANCE_LEVEL, type Comparison } from '../../engine/eval/compare.js';
import type { WeightModel } from '../../model/runtime.js';
import { CliError } from '../errors.js';
import { writeOutputFile } from '../output-file.js';
import type { QueryToRank } from '../../model/weighted-query.js';
import { loadModelForCli, rankQueriesForCli } from './search.js';

export interface CollectionSpec {
  name: string;
  label: string;
  corpus: string;
  queries: string;
  qrels: string;
}

/** The dev collections of the model (MODEL_CARD.md): never used for training. */
export function collectionSpecs(dataDir: string): Record<string, CollectionSpec> {
  return {
    cranfield: {
      name: 'cranfield',
      label: 'Cranfield',
      corpus: join(dataDir, 'cranfield', 'corpus.jsonl'),
      queries: join(dataDir, 'cranfield', 'queries.tsv'),
      qrels: join(dataDir, 'cranfield', 'qrels.txt'),
    },
    scifact: {
      name: 'scifact',
      label: 'SciFact test',
      corpus: join(dataDir, 'scifact', 'corpus.jsonl'),
      queries: join(dataDir, 'scifact', 'queries.test.tsv'),
      qrels: join(dataDir, 'scifact', 'qrels.test.txt'),
    },
  };
}

/** The rows of Tables 2–3, in the paper's order. */
export const SYSTEMS = [
  { id: 'bm25', label: 'Uniform BM25', weights: null, bo1: false },
  { id: 'deepct', label: 'DeepCT-Query', weights: 'deepct', bo1: false },
  { id: 'twbert', label: 'TW-BERT', weights: 'twbert', bo1: false },
  { id: 'bm25-bo1', label: 'BM25 + Bo1', weights: null, bo1: true },
  { id: 'twbert-bo1', label: 'TW-BERT + Bo1', weights: 'twbert', bo1: true },
] as const;

export const EVAL_MEASURES = ['map', 'ndcg_cut_10', 'recall_100', 'recall_1000'] as const;
const MEASURE_LABELS: Record<string, string> = { map: 'MAP', ndcg_cut_10: 'nDCG@10', recall_100: 'R@100', recall_1000: 'R@1000' };

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

/** Opens the cached index of a corpus, building it first when missing or built from another corpus file. */
export async function cachedIndex(spec: CollectionSpec, cacheDir: string, log: (s: string) => void) {
  const { buildIndex, openIndex, IndexError } = await import('../../engine/index/disk.js');
  const dir = join(cacheDir, spec.name);
  const stamp = join(cacheDir, `${spec.name}.source.json`);
  const st = statSync(spec.corpus);
  const source = JSON.stringify({ corpus: resolve(spec.corpus), size: st.size, mtimeMs: st.mtimeMs });
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === source) {
    try {
      return openIndex(dir);
    } catch (err) {
      if (!(err instanceof IndexError)) throw err;
      log(`${dir}: ${err.message}; rebuilding`);
    }
  }
  mkdirSync(cacheDir, { recursive: true });
  const summary = await buildIndex([spec.corpus], dir, { profile: 'terrier' });
  writeOutputFile(stamp, source);
  log(`indexed ${spec.label}: ${summary.docs} documents in ${summary.seconds.toFixed(1)} s (${dir})`);
  return openIndex(dir);
}

export interface CollectionResult {
  collection: CollectionSpec;
  queries: number;
  comparison: Comparison;
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
  models: { twbert: WeightModel; deepct: WeightModel };
  log: (s: string) => void;
  /** Write each system's TREC run here (for `querylens eval`/`compare` by hand). */
  runsDir?: string;
}

export async function evaluateModels(options: EvalModelOptions): Promise<CollectionResult[]> {
  const { readQuerySource } = await import('../../../grammar/sources/index.js');
  const { formatRunLines } = await import('../../engine/search.js');
  const { parseRun, readQrelsFile, compareRuns } = await import('../../engine/eval/index.js');
  const specs = collectionSpecs(options.dataDir);
  const results: CollectionResult[] = [];
  for (const name of options.collections) {
    const spec = specs[name]!;
    for (const f of [spec.corpus, spec.queries, spec.qrels]) {
      if (!existsSync(f)) throw new CliError(`${spec.label}: ${f} not found (give the data folder with --data or QUERYLENS_DATA)`);
    }
    const reader = await cachedIndex(spec, options.cacheDir, options.log);
    const source = readQuerySource(spec.queries);
    const entries = options.limit === undefined ? source.entries : source.entries.slice(0, options.limit);
    const queries: QueryToRank[] = entries.map((e) => ({ qid: e.qid, ast: e.result.ast, text: e.text }));
    const runs = [];
    const seconds: Record<string, number> = {};
    for (const system of SYSTEMS) {
      const started = performance.now();
      const ranked = await rankQueriesForCli(reader, queries, {
        search: { scorer: 'bm25', k1: 1.2, b: 0.75, k3: 8, k: 1000 },
        expand: system.bo1 ? { method: 'bo1', fbDocs: 3, fbTerms: 10 } : undefined,
        model: system.weights ? options.models[system.weights] : null,
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
    const comparison = compareRuns(runs, readQrelsFile(spec.qrels), { measures: [...EVAL_MEASURES], test: options.test });
    results.push({ collection: spec, queries: comparison.queries.length, comparison, seconds });
  }
  return results;
}

function fixed4(x: number): string {
  return x.toFixed(4);
}

/** The tables as markdown: one per collection, rows = systems, cells `mean (±change%)†`. */
export function formatModelTables(results: readonly CollectionResult[], header: string[]): string {
  const out = [...header];
  const test = results[0]?.comparison.testDescription ?? '';
  out.push(`Relative change against Uniform BM25 in brackets; † = ${test}, p < ${SIGNIFICANCE_LEVEL}.`, '');
  for (const r of results) {
    const c = r.comparison;
    out.push(`| ${r.collection.label} (${r.queries} q) | ${c.measures.map((m) => MEASURE_LABELS[m] ?? m).join(' | ')} |`);
    out.push(`|---|${c.measures.map(() => '---').join('|')}|`);
    SYSTEMS.forEach((system, si) => {
      const cells = c.measures.map((_m, mi) => {
        const cell = c.cells[mi][si];
        if (si === 0) return fixed4(cell.mean);
        const change = cell.changePercent === null ? 'n/a' : `${cell.changePercent >= 0 ? '+' : '−'}${Math.abs(cell.changePercent).toFixed(1)}%`;
        return `${fixed4(cell.mean)} (${change})${cell.significant ? '†' : ''}`;
      });
      out.push(`| ${system.label} | ${cells.join(' | ')} |`);
    });
    out.push('');
  }
  return out.join('\n');
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
  modelDir?: string;
  device: string;
}

export function registerEvalModel(program: Command): void {
  program
    .command('eval-model')
    .description("The term-weighting models against uniform BM25 and Bo1 on the dev collections, as the TW-BERT paper's Tables 2–3 (markdown)")
    .option('--data <dir>', 'folder with cranfield/ and scifact/ (default: QUERYLENS_DATA, else ../shared/data)')
    .option('--cache <dir>', 'where the indexes are built and kept (default: .cache/eval-model in the checkout)')
    .option('--collections <list>', 'comma-separated: cranfield, scifact', 'cranfield,scifact')
    .option('--queries <n>', 'only the first n queries of each collection (a quick check)')
    .option('-t, --test <name>', 'paired significance test: t or randomization', 't')
    .option('-o, --out <file>', 'also write the markdown table to this file')
    .option('--json', 'print the comparisons as JSON instead of markdown')
    .option('--runs <dir>', 'also write every system\'s TREC run here')
    .option('--model-dir <dir>', 'folder with config.json, the .onnx files and tokenizer.json (default: model/artifacts)')
    .option('--device <device>', 'model device: auto, cpu or cuda', 'auto')
    .action(async (opts: EvalModelCliOptions) => {
      const dataDir = opts.data ?? defaultDataDir();
      const known = Object.keys(collectionSpecs(dataDir));
      const collections = opts.collections.split(',').map((s) => s.trim()).filter(Boolean);
      if (!collections.length) throw new CliError('--collections needs at least one of cranfield, scifact');
      for (const c of collections) if (!known.includes(c)) throw new CliError(`unknown collection '${c}' (expected ${known.join(', ')})`);
      let limit: number | undefined;
      if (opts.queries !== undefined) {
        if (!/^\d+$/.test(opts.queries) || Number(opts.queries) === 0) throw new CliError(`--queries must be a positive integer, got '${opts.queries}'`);
        limit = Number(opts.queries);
      }
      const test = opts.test === 'randomisation' ? 'randomization' : opts.test;
      if (test !== 't' && test !== 'randomization') throw new CliError(`unknown --test '${opts.test}': use t or randomization`);
      const started = performance.now();
      const twbert = await loadModelForCli('twbert', opts.modelDir, opts.device);
      const deepct = await loadModelForCli('deepct', opts.modelDir, opts.device);
      const log = (s: string) => console.error(`querylens: ${s}`);
      const { expansionScaleOf } = await import('../../model/runtime.js');
      const expansionScale = expansionScaleOf(twbert.model);
      let results: CollectionResult[];
      try {
        results = await evaluateModels({
          dataDir,
          cacheDir: opts.cache ?? join(repoRoot(), '.cache', 'eval-model'),
          collections,
          limit,
          test,
          models: { twbert: twbert.model, deepct: deepct.model },
          log,
          runsDir: opts.runs,
        });
      } finally {
        await twbert.model.dispose();
        await deepct.model.dispose();
      }
      const wall = (performance.now() - started) / 1000;
      log(`done in ${wall.toFixed(1)} s`);
      const cpu = cpus();
      const header = [
        `Measured ${new Date().toISOString().slice(0, 10)} on ${hostname()} (${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}), model ${twbert.model.device}, ` +
          `${twbert.dir}; ${wall.toFixed(0)} s in all.`,
        'Terrier BM25 (k1 1.2, b 0.75, k3 8), top 1000; Bo1: 3 feedback documents, 10 terms; TW-BERT + Bo1: the model weighs the original and the Bo1 terms (paper §5.3)' +
          (expansionScale === 1 ? '.' : `, the Bo1 terms' weights times its learned expansion factor ${expansionScale}.`),
      ];
      const text = opts.json
        ? JSON.stringify(results.map((r) => ({ collection: r.collection.name, queries: r.queries, seconds: r.seconds, comparison: r.comparison })), (_k, v) => (typeof v === 'number' && Number.isNaN(v) ? null : v), 1) + '\n'
        : formatModelTables(results, header);
      process.stdout.write(text);
      // --out is always the markdown table (also with --json on stdout): it is what goes into the README.
      if (opts.out) writeOutputFile(opts.out, formatModelTables(results, header));
    });
}
