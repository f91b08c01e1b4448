/**
 * `querylens compare QRELS RUN RUN…`: two or more runs side by side, first = baseline, a paired test per run
 * and measure, Holm across all. With `--queries A B …` the runs are made here: each query file ranked on the
 * local index or a cluster (compare-queries.ts).
 */
import type { Command } from 'commander';
import { BACKEND_CONFIG_HELP } from '../cluster.js';
import { CliError } from '../errors.js';
import { addSourceOptions } from './check.js';
import type { CompareQueriesCliOptions } from './compare-queries.js';
import { DEFAULT_CLI_METRICS, loadQrelsAndRuns, parseLevelOption, parseMaxDocsOption, parseMetricsOption } from './eval.js';
import { addScorerOptions } from './search-options.js';

interface CompareCliOptions extends Partial<Omit<CompareQueriesCliOptions, 'queries'>> {
  queries?: string[];
  metrics: string;
  test: string;
  complete?: boolean;
  level: string;
  maxDocs?: string;
  json?: boolean;
}

export function registerCompare(program: Command): void {
  const cmd = program
    .command('compare')
    .description('Compare two or more runs against the first (baseline): means, relative change, paired significance (t-test or randomisation) with Holm\'s correction across all the tests')
    .argument('<qrels>', 'qrels file')
    .argument('[runs...]', 'run files; the first is the baseline (or rank query files here with --queries)')
    .option('--queries <files...>', 'query files to rank here and compare instead of run files (variants of the same topics; the first is the baseline), on --index (default: querylens.json\'s) or on --backend-config')
    .option('--backend-config <file>', BACKEND_CONFIG_HELP)
    .option('-k <n>', 'with --queries: documents per query', '1000')
    .option('--expand <method>', 'with --queries: pseudo-relevance feedback before each ranking: bo1 (or rm3, local index only)')
    .option('--fb-docs <n>', 'with --expand: feedback documents (default 3 for bo1, 10 for rm3)')
    .option('--fb-terms <n>', 'with --expand: expansion terms (default 10)')
    .option('--quiet', 'with --queries: print no warnings about the queries (errors are still printed)')
    .option('-m, --metrics <list>', 'comma-separated measures', DEFAULT_CLI_METRICS)
    .option('-t, --test <name>', 't (two-sided paired t-test) or randomization (paired randomisation test, 10,000 permutations, fixed seed)', 't')
    .option('-c, --complete', 'score every qrels query (a run without results for one scores 0 there)')
    .option('-l, --level <n>', 'relevance level: rel >= n is relevant', '1')
    .option('-M, --max-docs <n>', 'keep only the first n documents of each ranking (trec_eval -M)')
    .option('--json', 'print JSON instead of the table');
  addSourceOptions(addScorerOptions(cmd)).action(async (qrelsFile: string, runFiles: string[], opts: CompareCliOptions) => {
    if (opts.queries !== undefined && runFiles.length > 0) throw new CliError('give run files or --queries, not both');
    if (opts.queries === undefined) {
      const { localScorerOptions } = await import('../cluster.js');
      const scorerChosen = opts.scorer !== undefined && opts.scorer !== 'bm25' ? opts.scorer : undefined;
      const ranking = Object.entries({
        '--backend-config': opts.backendConfig,
        '--expand': opts.expand,
        '--fb-docs': opts.fbDocs,
        '--fb-terms': opts.fbTerms,
        '--scorer': scorerChosen,
        ...localScorerOptions(opts as CompareQueriesCliOptions),
      }).filter(([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0));
      if (ranking.length) throw new CliError(`${ranking.map(([n]) => n).join(', ')} rank query files: use them with --queries`);
      if (runFiles.length < 2) throw new CliError(`compare needs two or more run files (the first is the baseline), got ${runFiles.length}`);
    }
    const test = opts.test === 'randomisation' ? 'randomization' : opts.test;
    if (test !== 't' && test !== 'randomization') throw new CliError(`unknown --test '${opts.test}': use t or randomization`);
    const measures = await parseMetricsOption(opts.metrics);
    const relevanceLevel = parseLevelOption(opts.level);
    const maxDocs = parseMaxDocsOption(opts.maxDocs);
    const { formatComparison } = await import('../../engine/eval/index.js');
    const { compareRunList } = await import('../../service/evaluation.js');
    let { qrels, runs } = await loadQrelsAndRuns(qrelsFile, runFiles);
    if (opts.queries !== undefined) {
      const { rankQueryFiles } = await import('./compare-queries.js');
      runs = await rankQueryFiles({ ...(opts as CompareQueriesCliOptions), queries: opts.queries });
    }
    const comparison = compareRunList(runs, qrels, { measures, test, relevanceLevel, maxDocs, complete: opts.complete });
    if (comparison.measures.length === 0) throw new CliError('nothing to compare: counts (num_ret, num_rel, num_rel_ret) have no per-query mean to test');
    if (comparison.queries.length === 0) throw new CliError(`no run shares a query with ${qrelsFile}`);
    if (opts.json) {
      console.log(JSON.stringify(comparison, (_k, v) => (typeof v === 'number' && Number.isNaN(v) ? null : v), 2));
      return;
    }
    process.stdout.write(formatComparison(comparison));
  });
}
