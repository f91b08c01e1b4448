/**
 * `querylens search --index DIR QUERYFILE`: a TREC run (`qid Q0 docno rank score runid`) on
 * stdout for every query of the file, warnings on stderr. Scorers and their semantics:
 * server/engine/search.ts.
 *
 * `--weights twbert|deepct` ranks with the model's weights instead of the query as written: the
 * query's words are weighed exactly as `querylens weigh` does (same text, same 4-digit weights),
 * so `search --weights twbert` equals `weigh` followed by `search` of the weighted file. A structured
 * query keeps its structure with the weights inside, or is refused at its place and ranked as written,
 * with exit code 1 (server/model/structured-weights.ts).
 * With `--expand bo1` as well, the paper's §5.3 recipe: a first uniform pass (the query as written)
 * selects the feedback documents, Bo1 picks the expansion terms from them, and the model weighs the
 * original and the expansion terms together; the final ranking uses the model's weights, not Bo1's
 * (server/service/ranking.ts: rankQueries, bo1ModelInput).
 */
import type { Command } from 'commander';
import type { LocalBackend } from '../../service/backend.js';
import type { WeightModel, WeightModelName } from '../../model/runtime.js';
import type { QueryToRank, RankedQuery, RankQueriesOptions } from '../../service/ranking.js';
import { isScorerName, SCORER_NAMES } from '../../engine/scoring/scorers.js';
import { CliError } from '../errors.js';
import { BACKEND_CONFIG_HELP } from '../cluster.js';
import { writeOutputFile } from '../output-file.js';
import { WarningPrinter } from '../warning-summary.js';
import { addSourceOptions, loadSource, type SourceCliOptions } from './check.js';
import { addScorerOptions, checkFieldParameters, checkParameters, countOption, openBackendForCli, toSearchOptions, type ScorerCliOptions } from './search-options.js';

interface SearchCliOptions extends SourceCliOptions, ScorerCliOptions {
  recover?: boolean;
  quiet?: boolean;
  k: string;
  runId: string;
  expand?: string;
  fbDocs?: string;
  fbTerms?: string;
  weights: string;
  modelDir?: string;
  device: string;
  queriesOut?: string;
  backendConfig?: string;
}

export type WeightsChoice = 'none' | 'phrase' | WeightModelName;
export const WEIGHTS_CHOICES: readonly WeightsChoice[] = ['none', 'phrase', 'twbert', 'deepct'];

/**
 * rankQueries (server/service/ranking.ts) with the model's failures as one-line CLI errors.
 */
/** `--expand learned`: the learned surface-form expansion (learned-expansion.ts); it combines with no weights or feedback options. */
async function searchLearned(file: string, opts: SearchCliOptions, k: number): Promise<void> {
  const clash = Object.entries({ '--weights': opts.weights === 'none' ? undefined : opts.weights, '--fb-docs': opts.fbDocs, '--fb-terms': opts.fbTerms }).filter(([, v]) => v !== undefined);
  if (clash.length) throw new CliError(`${clash.map(([n]) => n).join(', ')} cannot be used with --expand learned (its model weighs the suggested words itself)`);
  const { searchLearnedForCli } = await import('./learned-expansion.js');
  await searchLearnedForCli(file, opts, k);
}

export async function rankQueriesForCli(backend: LocalBackend, queries: readonly QueryToRank[], options: RankQueriesOptions): Promise<RankedQuery[]> {
  const { rankQueries } = await import('../../service/ranking.js');
  const { WeightModelError } = await import('../../model/runtime.js');
  try {
    return await rankQueries(backend, queries, options);
  } catch (err) {
    if (err instanceof WeightModelError) throw new CliError(err.message);
    throw err;
  }
}

/** Loads the model for `--weights`, turning a missing or broken model into one CLI line. */
export async function loadModelForCli(name: WeightModelName, modelDir: string | undefined, device: string): Promise<{ model: WeightModel; dir: string }> {
  if (!['auto', 'cpu', 'cuda'].includes(device)) throw new CliError(`unknown --device '${device}': use auto, cpu or cuda`);
  const { loadWeightModel, defaultModelDir } = await import('../../model/runtime.js');
  // The same resolution as `querylens weigh`: --model-dir, else the checkout's model/artifacts.
  const dir = modelDir ?? defaultModelDir();
  const loaded = await loadWeightModel(dir, { model: name, device: device as 'auto' | 'cpu' | 'cuda' });
  if (!loaded.ok) throw new CliError(loaded.error.message);
  for (const notice of loaded.model.notices) console.error(`querylens: ${notice}`);
  return { model: loaded.model, dir };
}

export function parseWeightsOption(text: string): WeightsChoice {
  if (!(WEIGHTS_CHOICES as readonly string[]).includes(text)) throw new CliError(`unknown --weights '${text}' (expected ${WEIGHTS_CHOICES.join(', ')})`);
  return text as WeightsChoice;
}

export function registerSearch(program: Command): void {
  const cmd = program
    .command('search')
    .description('Rank documents for every query of a file and print a TREC run')
    .argument('<queryfile>', 'query file (.indri, .lucene, .tsv → text dialect, Indri parameters, TREC topics)');
  addScorerOptions(cmd)
    .option('-k <n>', 'documents per query', '1000')
    .option('--run-id <name>', 'run tag, the last column', 'querylens')
    .option('--expand <method>', 'pseudo-relevance feedback before the final ranking: bo1 or rm3')
    .option('--fb-docs <n>', 'feedback documents (default 3 for bo1, 10 for rm3)')
    .option('--fb-terms <n>', 'expansion terms (default 10)')
    .option('--weights <model>', 'term weights: none (the query as written), phrase (the fixed rule: every word 1, every adjacent pair #1 at 0.25), twbert or deepct (the model weighs the query\'s words; with --expand bo1 also the expansion terms)', 'none')
    .option('--model-dir <dir>', 'folder with config.json, the .onnx files and tokenizer.json (default: model/artifacts)')
    .option('--device <device>', 'model device: auto (CUDA if available, else CPU), cpu or cuda', 'auto')
    .option('--queries-out <file>', 'also write the query each ranking used (model weights, expansion terms) as qid<TAB>query lines')
    .option('--backend-config <file>', BACKEND_CONFIG_HELP)
    .option('--quiet', 'print no warnings (errors are still printed); stopword warnings are otherwise summarised per file')
    .option('--recover', 'also rank queries with syntax errors, as the parser recovered them (by default they are reported and skipped)');
  addSourceOptions(cmd).action(async (file: string, opts: SearchCliOptions) => {
    const k = countOption('-k', opts.k, true)!;
    if (/\s/.test(opts.runId) || opts.runId === '') throw new CliError(`--run-id must be one word without spaces, got '${opts.runId}'`);
    if (opts.backendConfig !== undefined) {
      // The cluster scores the documents with its own similarity: querylens's scorer settings, feedback and weights do not reach it.
      if (opts.expand !== undefined && opts.expand !== 'bo1') throw new CliError(`--expand ${opts.expand} cannot be used with --backend-config: on a cluster querylens expands with bo1 only (--expand bo1)`);
      const { refuseLocalOptions, localScorerOptions } = await import('../cluster.js');
      refuseLocalOptions({
        ...localScorerOptions(opts),
        '--queries-out': opts.queriesOut,
        '--model-dir': opts.modelDir,
        '--weights': opts.weights === 'none' ? undefined : opts.weights,
      });

      if (!isScorerName(opts.scorer)) throw new CliError(`unknown --scorer '${opts.scorer}' (expected ${SCORER_NAMES.join(', ')})`);
      if (opts.expand === undefined && (opts.fbDocs !== undefined || opts.fbTerms !== undefined)) throw new CliError('--fb-docs and --fb-terms need --expand bo1');
      // Bo1 runs on the cluster (its feedback documents and statistics); RM3 has no cluster path and is refused above.
      const expand = opts.expand === 'bo1' ? { fbDocs: countOption('--fb-docs', opts.fbDocs, false) ?? 3, fbTerms: countOption('--fb-terms', opts.fbTerms, true) ?? 10 } : undefined;
      const { searchOnCluster } = await import('./search-cluster.js');
      await searchOnCluster(file, { backendConfig: opts.backendConfig, k, runId: opts.runId, scorer: opts.scorer, recover: opts.recover, quiet: opts.quiet, dialect: opts.dialect, fields: opts.fields, expand });
      return;
    }
    if (opts.expand === 'learned') return searchLearned(file, opts, k);
    if (opts.expand !== undefined && opts.expand !== 'bo1' && opts.expand !== 'rm3') throw new CliError(`unknown --expand '${opts.expand}' (expected bo1, rm3 or learned)`);
    if (opts.expand === undefined && (opts.fbDocs !== undefined || opts.fbTerms !== undefined)) throw new CliError('--fb-docs and --fb-terms need --expand bo1|rm3');
    const weights = parseWeightsOption(opts.weights);
    if (weights !== 'none' && opts.expand === 'rm3') throw new CliError(`--weights ${weights} combines with --expand bo1 only (paper §5.3), not rm3`);
    if (weights === 'phrase' && opts.expand !== undefined) throw new CliError('--weights phrase is a fixed rule for the query\'s own words; it does not combine with --expand');
    if ((weights === 'none' || weights === 'phrase') && (opts.modelDir !== undefined || opts.device !== 'auto')) throw new CliError('--model-dir and --device need --weights twbert|deepct');
    const expand = opts.expand
      ? { method: opts.expand as 'bo1' | 'rm3', fbDocs: countOption('--fb-docs', opts.fbDocs, false), fbTerms: countOption('--fb-terms', opts.fbTerms, true) }
      : undefined;
    const options = toSearchOptions(opts);
    await checkParameters(options);
    const source = loadSource(file, opts);
    const backend = await openBackendForCli(opts.index);
    checkFieldParameters(backend.fields(), options);
    const { formatRunLines } = await import('../../engine/search.js');
    const { sourceDiagnostics, entryDiagnosticsInFile } = await import('../../../grammar/sources/index.js');

    const printer = new WarningPrinter(opts.quiet === true);
    const problems = sourceDiagnostics(source);
    printer.add(file, source.text, problems);
    if (problems.some((d) => d.severity === 'error')) process.exitCode = 1;

    const loaded =
      weights === 'none' ? null : weights === 'phrase' ? { model: (await import('../../model/phrase-rule.js')).createPhraseRule() } : await loadModelForCli(weights, opts.modelDir, opts.device);
    const queryLines: string[] = [];
    try {
      // A query with syntax errors is not ranked unless asked for (--recover): its recovered tree
      // is a guess, and a run built on it would be scored as if the user had written it.
      const { hasErrors } = await import('../../../grammar/diagnostics.js');
      const toRank = opts.recover ? source.entries : source.entries.filter((e) => !hasErrors(e.result.diagnostics));
      const skipped = source.entries.filter((e) => !toRank.includes(e));
      if (skipped.length) {
        process.stderr.write(
          `querylens: ${skipped.length} quer${skipped.length === 1 ? 'y' : 'ies'} with syntax errors not ranked (${skipped.slice(0, 20).map((e) => e.qid).join(', ')}${skipped.length > 20 ? ', …' : ''}); fix them, or rank the recovered queries with --recover\n`,
        );
        process.exitCode = 1;
      }
      const queries = toRank.map((e) => ({ qid: e.qid, ast: e.result.ast, text: e.text }));
      // Without a model, rank and print one query at a time (a long file streams); with one, the
      // model weighs every query in one batched call first.
      const batches = loaded ? [queries] : queries.map((q) => [q]);
      const { printIndri } = await import('../../../grammar/print/indri.js');
      let at = 0;
      for (const batch of batches) {
        const ranked = await rankQueriesForCli(backend, batch, { search: { ...options, k }, expand, model: loaded?.model ?? null });
        for (const r of ranked) {
          const entry = toRank[at++];
          printer.add(file, source.text, entryDiagnosticsInFile(source, entry, r.warnings));
          // The model's weights could not go into this query as written: said above, ranked as written.
          if (r.refusal) process.exitCode = 1;
          if (opts.queriesOut) queryLines.push(`${r.qid}\t${r.asWritten ? entry.text : printIndri(r.finalAst)}`);
          const lines = formatRunLines(r.qid, r.hits, opts.runId);
          if (lines && !process.stdout.write(lines)) await new Promise((res) => process.stdout.once('drain', res));
        }
      }
    } finally {
      await loaded?.model.dispose();
      printer.flush();
    }
    if (opts.queriesOut) {
      const header = `// queries ranked by querylens search (weights ${weights}${expand ? `, expand ${expand.method}` : ''})\n`;
      writeOutputFile(opts.queriesOut, header + queryLines.join('\n') + '\n');
    }
  });
}
