/** `querylens eval QRELS RUN…`: trec_eval-exact measures (SEMANTICS.md §6), in trec_eval's layout or JSON. */
import type { Command } from 'commander';
import { CliError } from '../errors.js';

interface EvalCliOptions {
  metrics: string;
  perQuery?: boolean;
  json?: boolean;
  complete?: boolean;
  level: string;
  maxDocs?: string;
}

export const DEFAULT_CLI_METRICS = 'map,P_10,ndcg_cut_10,recall_100,recip_rank';

/** Splits `--metrics a,b` and checks every name before any file is read. */
export async function parseMetricsOption(text: string): Promise<string[]> {
  const { resolveMeasureNames, UnknownMeasureError } = await import('../../engine/eval/index.js');
  const names = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0) throw new CliError('--metrics needs at least one measure name');
  try {
    resolveMeasureNames(names);
  } catch (err) {
    if (err instanceof UnknownMeasureError) throw new CliError(err.message);
    throw err;
  }
  return names;
}

export function parseMaxDocsOption(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) === 0) throw new CliError(`--max-docs must be a positive integer, got '${text}'`);
  return Number(text);
}

export function parseLevelOption(text: string): number {
  if (!/^-?\d+$/.test(text)) throw new CliError(`--level must be an integer, got '${text}'`);
  return Number(text);
}

/** Reads qrels and runs, turning format errors into one-line CLI errors (file:line). */
export async function loadQrelsAndRuns(qrelsFile: string, runFiles: string[]) {
  const { TrecFormatError } = await import('../../engine/eval/index.js');
  const { readQrelsAndRuns } = await import('../../service/evaluation.js');
  try {
    // Runs often share a tag (e.g. "indri"); the file name tells them apart in the output.
    return readQrelsAndRuns(qrelsFile, runFiles);
  } catch (err) {
    if (err instanceof TrecFormatError) throw new CliError(err.message);
    throw err;
  }
}

export function registerEval(program: Command): void {
  program
    .command('eval')
    .description('Evaluate TREC run files against qrels exactly as trec_eval v9 does')
    .argument('<qrels>', 'qrels file: qid iter docno rel')
    .argument('<runs...>', 'run files: qid Q0 docno rank score runid')
    .option('-m, --metrics <list>', 'comma-separated measures (map, P_k, recall_k, ndcg_cut_k, recip_rank, ndcg, Rprec, num_ret, num_rel, num_rel_ret)', DEFAULT_CLI_METRICS)
    .option('-q, --per-query', 'print every query before the "all" line (trec_eval -q)')
    .option('-c, --complete', 'average over every qrels query, a query without results scoring 0 (trec_eval -c)')
    .option('-l, --level <n>', 'relevance level: rel >= n is relevant (trec_eval -l)', '1')
    .option('-M, --max-docs <n>', 'keep only the first n documents of each ranking, after sorting (trec_eval -M)')
    .option('--json', 'print JSON instead of the trec_eval layout')
    .action(async (qrelsFile: string, runFiles: string[], opts: EvalCliOptions) => {
      const measures = await parseMetricsOption(opts.metrics);
      const relevanceLevel = parseLevelOption(opts.level);
      const maxDocs = parseMaxDocsOption(opts.maxDocs);
      const { formatTrecEval } = await import('../../engine/eval/index.js');
      const { evaluateRuns } = await import('../../service/evaluation.js');
      const { qrels, runs } = await loadQrelsAndRuns(qrelsFile, runFiles);
      const results = evaluateRuns(runs, qrels, { measures, relevanceLevel, maxDocs, complete: opts.complete });
      for (const r of results) {
        if (r.queries.length === 0) console.error(`querylens: warning: run ${r.runId} shares no query with ${qrelsFile}`);
      }
      if (opts.json) {
        const json = results.map((r, i) => ({
          run: runFiles[i],
          runId: r.runId,
          numQueries: r.numQueries,
          missing: r.missing,
          mean: r.mean,
          ...(opts.perQuery ? { perQuery: Object.fromEntries(r.perQuery) } : {}),
        }));
        console.log(JSON.stringify(runFiles.length === 1 ? json[0] : json, null, 2));
        return;
      }
      const many = results.length > 1;
      process.stdout.write(results.map((r) => formatTrecEval(r, { perQuery: opts.perQuery, runId: many })).join(''));
    });
}
