/**
 * `querylens sweep QUERYFILE --k1 0.6:1.6:0.2 --b 0.3,0.5,0.75`: the query file ranked under every
 * setting of a parameter grid (BM25 k1 and b, query-likelihood mu, Bo1 fbDocs and fbTerms), each
 * run evaluated with the qrels as `querylens eval` does (server/engine/sweep.ts), printed as a table
 * with the best setting marked, or as JSON. `--apply` writes the best setting into querylens.json,
 * changing only those values (server/lsp/config-edit.ts) through an atomic write; a file whose
 * other contents could not be kept is refused with the reason.
 *
 * Parameters the grid does not list keep the values of querylens.json (or the defaults), so the
 * best row is exactly the configuration that `--apply` leaves behind.
 *
 * With `--backend-config FILE` the sweep runs on a cluster as the editor's does
 * (server/service/cluster-sweep.ts): fbDocs and fbTerms only, k1/b/mu and the scorer refused with the
 * editor's reason (they are the index's similarity settings there).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { QuerylensConfig } from '../../lsp/config.js';
import { sweepSettingValues } from '../../lsp/config-edit.js';
import type { SweepGrid, SweepParameter, SweepResult, SweepSetting } from '../../engine/sweep.js';
import { applyConfigValues } from '../config-apply.js';
import { CliError } from '../errors.js';
import { addSourceOptions, loadSource, type SourceCliOptions } from './check.js';
import { DEFAULT_CLI_METRICS, loadQrelsAndRuns, parseMetricsOption } from './eval.js';
import { openIndexReader } from '../open-index.js';
import { countOption } from './search-options.js';
import { BACKEND_CONFIG_HELP } from '../cluster.js';

interface SweepCliOptions extends SourceCliOptions {
  index?: string;
  qrels?: string;
  config?: string;
  scorer?: string;
  k1?: string;
  b?: string;
  mu?: string;
  fbDocs?: string;
  fbTerms?: string;
  metrics: string;
  by?: string;
  k: string;
  json?: boolean;
  apply?: boolean;
  backendConfig?: string;
}

/** The querylens.json the sweep starts from and --apply writes: --config, else the nearest one above the current folder. */
async function findConfig(opts: SweepCliOptions): Promise<{ path: string | null; config: QuerylensConfig }> {
  const { CONFIG_FILE_NAME, configFolderAbove, parseConfigFile } = await import('../../lsp/config.js');
  let path: string | null;
  if (opts.config !== undefined) path = resolve(opts.config);
  else {
    const dir = configFolderAbove(process.cwd());
    path = dir === null ? null : join(dir, CONFIG_FILE_NAME);
  }
  if (path === null || !existsSync(path)) return { path, config: {} };
  const { config, problems } = parseConfigFile(readFileSync(path, 'utf8'));
  for (const p of problems) console.error(`querylens: ${path}: ${p.message}`);
  return { path, config };
}

/** The parameter columns of the table: the scorer's own, and Bo1's when the sweep uses it. */
function parameterColumns(result: SweepResult): { name: string; value: (s: SweepSetting) => number }[] {
  const first = result.rows[0]!.setting;
  // On a cluster its own similarity scores: the setting has no k1/b/mu, and the table no column for them.
  const cols: { name: string; value: (s: SweepSetting) => number }[] =
    first.k1 === undefined && first.mu === undefined
      ? []
      : first.scorer === 'bm25'
        ? [
            { name: 'k1', value: (s) => s.k1! },
            { name: 'b', value: (s) => s.b! },
          ]
        : [{ name: 'mu', value: (s) => s.mu! }];
  if (first.bo1) cols.push({ name: 'fbDocs', value: (s) => s.bo1!.fbDocs }, { name: 'fbTerms', value: (s) => s.bo1!.fbTerms });
  return cols;
}

/** The table: one row per setting, parameters then measures (trec_eval's 4 decimals), the best marked `*`. */
export async function formatSweepTable(result: SweepResult): Promise<string> {
  const { formatMeasureValue } = await import('../../engine/eval/index.js');
  const params = parameterColumns(result);
  const header = ['', ...params.map((p) => p.name), ...result.measures];
  const body = result.rows.map((r, i) => [i === result.best ? '*' : '', ...params.map((p) => String(p.value(r.setting))), ...result.measures.map((m) => formatMeasureValue(m, r.mean[m]!).trim())]);
  const widths = header.map((h, c) => Math.max(h.length, ...body.map((row) => row[c]!.length)));
  const line = (cells: string[]) => cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ').trimEnd();
  return [line(header), ...body.map(line)].join('\n') + '\n';
}

export function registerSweep(program: Command): void {
  const cmd = program
    .command('sweep')
    .description('Rank a query file under every setting of a parameter grid, evaluate each run with the qrels, and mark the best setting')
    .argument('<queryfile>', 'query file (.indri, .lucene, .tsv → text dialect, Indri parameters, TREC topics)')
    .option('--index <dir>', 'index folder (default: the "index" of querylens.json)')
    .option('--qrels <file>', 'TREC qrels (default: the "qrels" of querylens.json)')
    .option('--config <file>', 'the querylens.json to start from and to --apply to (default: the nearest one from the current folder upwards)')
    .option('--scorer <name>', 'bm25 (Terrier BM25: sweeps k1, b) or ql (Dirichlet query likelihood: sweeps mu); default: ql with --mu, else bm25 with --k1/--b, else querylens.json\'s')
    .option('--k1 <values>', 'BM25 k1 values: a list (0.9,1.2) or a range start:end:step (0.6:1.6:0.2)')
    .option('--b <values>', 'BM25 b values (list or range)')
    .option('--mu <values>', 'Dirichlet mu values (list or range)')
    .option('--fb-docs <values>', 'Bo1 feedback documents (list or range of positive integers; turns Bo1 on)')
    .option('--fb-terms <values>', 'Bo1 expansion terms (list or range of positive integers; turns Bo1 on)')
    .option('-m, --metrics <list>', 'comma-separated trec_eval measures', DEFAULT_CLI_METRICS)
    .option('--by <measure>', 'the measure that picks the best setting (default: the first of --metrics)')
    .option('-k <n>', 'documents ranked per query', '1000')
    .option('--json', 'print JSON instead of the table')
    .option('--apply', 'write the best setting (scorer, its parameters, Bo1 sizes) into querylens.json, keeping everything else in it')
    .option('--backend-config <file>', `${BACKEND_CONFIG_HELP}; sweeps fbDocs and fbTerms only`);
  addSourceOptions(cmd).action(async (file: string, opts: SweepCliOptions) => {
    const { gridSettings, parseSweepValues, runSweep, describeSetting, SweepGridError, MAX_SWEEP_SETTINGS } = await import('../../engine/sweep.js');
    const measures = await parseMetricsOption(opts.metrics);
    const by = opts.by ?? measures[0]!;
    if (opts.by !== undefined) await parseMetricsOption(opts.by);
    const k = countOption('-k', opts.k, false)!;
    const { path: configPath, config } = await findConfig(opts);
    const { DEFAULTS } = await import('../../lsp/config.js');

    if (opts.backendConfig !== undefined) return sweepOnClusterForCli(file, { ...opts, backendConfig: opts.backendConfig }, { measures, by, k, configPath, config });
    const scorerText = opts.scorer ?? (opts.mu !== undefined ? 'ql' : opts.k1 !== undefined || opts.b !== undefined ? 'bm25' : (config.scorer?.name ?? 'bm25'));
    if (scorerText !== 'bm25' && scorerText !== 'ql') throw new CliError(`unknown --scorer '${scorerText}' for a sweep (expected bm25 or ql, the scorers querylens.json can name)`);
    const values: SweepGrid['values'] = {};
    const given: [SweepParameter, string | undefined][] = [
      ['k1', opts.k1],
      ['b', opts.b],
      ['mu', opts.mu],
      ['fbDocs', opts.fbDocs],
      ['fbTerms', opts.fbTerms],
    ];
    const scorer = { ...DEFAULTS.scorer, ...config.scorer };
    const expansion = { ...DEFAULTS.expansion, ...config.expansion };
    const grid: SweepGrid = {
      scorer: scorerText,
      values,
      base: { k1: scorer.k1, b: scorer.b, mu: scorer.mu, fbDocs: expansion.fbDocs, fbTerms: expansion.fbTerms, bo1: expansion.method === 'bo1' },
    };
    let settings: SweepSetting[];
    try {
      for (const [name, text] of given) if (text !== undefined) values[name] = parseSweepValues(name, text);
      settings = gridSettings(grid);
    } catch (err) {
      if (err instanceof SweepGridError) throw new CliError(err.message);
      throw err;
    }

    const configDir = configPath ? dirname(configPath) : process.cwd();
    const qrelsFile = opts.qrels ?? (config.qrels ? resolve(configDir, config.qrels) : undefined);
    if (!qrelsFile) throw new CliError(`no qrels to evaluate with: pass --qrels FILE or set "qrels" in ${configPath ?? 'querylens.json'}`);
    if (!existsSync(qrelsFile)) throw new CliError(`${qrelsFile}: no such qrels file`);
    const { qrels } = await loadQrelsAndRuns(qrelsFile, []);
    if (opts.apply && configPath === null) throw new CliError('--apply: no querylens.json in the current folder or above; pass --config FILE to name the one to write');

    const source = loadSource(file, opts);
    const indexDir = opts.index ?? (config.index ? resolve(configDir, config.index) : undefined);
    if (indexDir === undefined) throw new CliError(`no --index given, and ${configPath ?? 'no querylens.json'} ${configPath ? 'has no "index" setting' : 'found in the current folder or above'}; pass --index DIR`);
    const reader = await openIndexReader(indexDir);
    const { hasErrors } = await import('../../../grammar/diagnostics.js');
    const toRank = source.entries.filter((e) => e.result.ast.root !== null && !hasErrors(e.result.diagnostics));
    const skipped = source.entries.filter((e) => !toRank.includes(e));
    if (skipped.length) {
      process.stderr.write(
        `querylens: ${skipped.length} quer${skipped.length === 1 ? 'y' : 'ies'} with syntax errors or empty not ranked (${skipped.slice(0, 20).map((e) => e.qid).join(', ')}${skipped.length > 20 ? ', …' : ''})\n`,
      );
      process.exitCode = 1;
    }
    const implied = toRank.filter((e) => e.implicitQid).length;
    if (implied) process.stderr.write(`querylens: ${implied} quer${implied === 1 ? 'y has' : 'ies have'} no written id and ${implied === 1 ? 'is' : 'are'} not evaluated\n`);
    let result: SweepResult;
    try {
      result = await runSweep(
        reader,
        toRank.map((e) => ({ qid: e.qid, ast: e.result.ast, judged: !e.implicitQid })),
        qrels,
        settings,
        { measures, by, k },
      );
    } catch (err) {
      if (err instanceof SweepGridError) throw new CliError(err.message);
      throw err;
    }
    const best = result.rows[result.best]!;

    let applied: string | null = null;
    if (opts.apply) {
      applyConfigValues(configPath!, sweepSettingValues(best.setting));
      applied = configPath;
    }
    if (opts.json) {
      console.log(
        JSON.stringify(
          {
            file,
            index: indexDir,
            qrels: qrelsFile,
            measures: result.measures,
            by: result.by,
            maxSettings: MAX_SWEEP_SETTINGS,
            rows: result.rows.map((r, i) => ({ ...r.setting, mean: r.mean, queries: r.queries, best: i === result.best })),
            best: { ...best.setting, mean: best.mean },
            applied,
          },
          null,
          2,
        ),
      );
    } else {
      process.stdout.write(await formatSweepTable(result));
      const { formatMeasureValue } = await import('../../engine/eval/index.js');
      console.log(`best by ${result.by}: ${describeSetting(best.setting)} (${result.by} ${formatMeasureValue(result.by, best.mean[result.by]!).trim()}, ${best.queries} queries)`);
    }
    if (applied) console.error(`querylens: ${applied}: set ${sweepSettingValues(best.setting).map((v) => `${v.path.join('.')} = ${JSON.stringify(v.value)}`).join(', ')}`);
  });
}

/** `sweep --backend-config`: fbDocs × fbTerms on the cluster (the editor's sweepOnCluster), printed as a local sweep is. */
async function sweepOnClusterForCli(
  file: string,
  opts: SweepCliOptions & { backendConfig: string },
  given: { measures: string[]; by: string; k: number; configPath: string | null; config: QuerylensConfig },
): Promise<void> {
  const { measures, by, configPath, config } = given;
  const { openClusterForCli, onCluster } = await import('../cluster.js');
  const { similaritySweepRefusal, clusterSweepSettings, clusterSweepNote, clusterSweepValues, sweepOnCluster, NOTHING_TO_SWEEP } = await import('../../service/cluster-sweep.js');
  const { parseSweepValues, SweepGridError } = await import('../../engine/sweep.js');
  const { DEFAULTS } = await import('../../lsp/config.js');
  if (opts.index !== undefined) throw new CliError('--index and --backend-config name two collections: choose one');
  if (opts.k !== '1000') throw new CliError(`-k cannot be used with --backend-config: a cluster sweep ranks each query to depth 1000, as the editor's does`);
  const expansion = { ...DEFAULTS.expansion, ...config.expansion };
  const configDir = configPath ? dirname(configPath) : process.cwd();
  const qrelsFile = opts.qrels ?? (config.qrels ? resolve(configDir, config.qrels) : undefined);
  const session = await openClusterForCli(opts.backendConfig, { fbDocs: expansion.fbDocs, fbTerms: expansion.fbTerms });
  const similarity = (['k1', 'b', 'mu'] as const).filter((p) => opts[p] !== undefined);
  if (similarity.length || opts.scorer !== undefined) {
    await session.close();
    throw new CliError(similaritySweepRefusal(session.backend.location, similarity.length ? similarity.join(' and ') : `the scorer ("${opts.scorer}")`));
  }
  let settings: SweepSetting[];
  try {
    const values: SweepGrid['values'] = {};
    if (opts.fbDocs !== undefined) values.fbDocs = parseSweepValues('fbDocs', opts.fbDocs);
    if (opts.fbTerms !== undefined) values.fbTerms = parseSweepValues('fbTerms', opts.fbTerms);
    if (!values.fbDocs && !values.fbTerms) throw new SweepGridError(NOTHING_TO_SWEEP);
    settings = clusterSweepSettings(session, values);
    if (!qrelsFile) throw new CliError(`no qrels to evaluate with: pass --qrels FILE or set "qrels" in ${configPath ?? 'querylens.json'}`);
    if (!existsSync(qrelsFile)) throw new CliError(`${qrelsFile}: no such qrels file`);
    if (opts.apply && configPath === null) throw new CliError('--apply: no querylens.json in the current folder or above; pass --config FILE to name the one to write');
  } catch (err) {
    await session.close();
    if (err instanceof SweepGridError) throw new CliError(err.message);
    throw err;
  }
  const { qrels } = await loadQrelsAndRuns(qrelsFile, []);
  const source = loadSource(file, opts);
  const { hasErrors } = await import('../../../grammar/diagnostics.js');
  const judged = source.entries.filter((e) => e.result.ast.root !== null && !hasErrors(e.result.diagnostics) && !e.implicitQid && qrels.has(e.qid));
  if (judged.length === 0) {
    await session.close();
    throw new CliError('the qrels judge none of the queries with a written id, so no setting can be evaluated');
  }
  const queries = judged.map((e) => ({ qid: e.qid, dialect: e.dialect, text: e.text, ast: e.result.ast }));
  const result = await onCluster(session, (s) => sweepOnCluster(s, queries, qrels, settings, { measures, by }));
  const best = result.rows[result.best]!;
  const values = clusterSweepValues(best.setting);
  if (opts.apply) applyConfigValues(configPath!, values);
  const note = clusterSweepNote(session);
  if (opts.json) {
    const rows = result.rows.map((r, i) => ({ ...r.setting.bo1!, mean: r.mean, queries: r.queries, best: i === result.best }));
    console.log(JSON.stringify({ file, backend: session.backend.location, qrels: qrelsFile, measures, by, rows, best: { ...best.setting.bo1!, mean: best.mean }, applied: opts.apply ? configPath : null, note }, null, 2));
  } else {
    process.stdout.write(await formatSweepTable(result));
    const { formatMeasureValue } = await import('../../engine/eval/index.js');
    console.log(`best by ${by}: bo1 fbDocs=${best.setting.bo1!.fbDocs} fbTerms=${best.setting.bo1!.fbTerms} (${by} ${formatMeasureValue(by, best.mean[by]!).trim()}, ${best.queries} queries)`);
    console.log(`note: ${note}`);
  }
  if (opts.apply) console.error(`querylens: ${configPath}: set ${values.map((v) => `${v.path.join('.')} = ${JSON.stringify(v.value)}`).join(', ')}`);
}
