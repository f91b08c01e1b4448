/** `querylens compare QRELS RUN RUN…`: two or more runs side by side, first = baseline, a paired test per run and measure, Holm across all. */
import type { Command } from 'commander';
import { CliError } from '../errors.js';
import { DEFAULT_CLI_METRICS, loadQrelsAndRuns, parseLevelOption, parseMaxDocsOption, parseMetricsOption } from './eval.js';

interface CompareCliOptions {
  metrics: string;
  test: string;
  complete?: boolean;
  level: string;
  maxDocs?: string;
  json?: boolean;
}

export function registerCompare(program: Command): void {
  program
    .command('compare')
    .description('Compare two or more runs against the first (baseline): means, relative change, paired significance (t-test or randomisation) with Holm\'s correction across all the tests')
    .argument('<qrels>', 'qrels file')
    .argument('<runs...>', 'run files; the first is the baseline')
    .option('-m, --metrics <list>', 'comma-separated measures', DEFAULT_CLI_METRICS)
    .option('-t, --test <name>', 't (two-sided paired t-test) or randomization (paired randomisation test, 10,000 permutations, fixed seed)', 't')
    .option('-c, --complete', 'score every qrels query (a run without results for one scores 0 there)')
    .option('-l, --level <n>', 'relevance level: rel >= n is relevant', '1')
    .option('-M, --max-docs <n>', 'keep only the first n documents of each ranking (trec_eval -M)')
    .option('--json', 'print JSON instead of the table')
    .action(async (qrelsFile: string, runFiles: string[], opts: CompareCliOptions) => {
      if (runFiles.length < 2) throw new CliError(`compare needs two or more run files (the first is the baseline), got ${runFiles.length}`);
      const test = opts.test === 'randomisation' ? 'randomization' : opts.test;
      if (test !== 't' && test !== 'randomization') throw new CliError(`unknown --test '${opts.test}': use t or randomization`);
      const measures = await parseMetricsOption(opts.metrics);
      const relevanceLevel = parseLevelOption(opts.level);
      const maxDocs = parseMaxDocsOption(opts.maxDocs);
      const { formatComparison } = await import('../../engine/eval/index.js');
      const { compareRunList } = await import('../../service/evaluation.js');
      const { qrels, runs } = await loadQrelsAndRuns(qrelsFile, runFiles);
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
