/**
 * `querylens compare QRELS --queries A B …`: ranks each query file (variants of the same topics: a
 * reweighted or expanded version of a baseline) on one collection and compares the runs as `compare` does
 * run files: the local index (`--index`, else querylens.json's) or a cluster (`--backend-config`), both
 * through the service's SearchBackend (rankWithFeedback), so the same command answers "did my rewrite help?"
 * on either. A query file with syntax errors is refused with its located errors: a variant ranked from a
 * recovered guess would not be the query the user wrote.
 */
import { basename } from 'node:path';
import type { Run } from '../../engine/eval/index.js';
import type { SearchOptions } from '../../engine/search.js';
import type { SearchBackend } from '../../service/search-backend.js';
import { CliError } from '../errors.js';
import { WarningPrinter } from '../warning-summary.js';
import { loadSource, type SourceCliOptions } from './check.js';
import { checkFieldParameters, checkParameters, countOption, openBackendForCli, toSearchOptions, type ScorerCliOptions } from './search-options.js';

export interface CompareQueriesCliOptions extends SourceCliOptions, ScorerCliOptions {
  queries: string[];
  backendConfig?: string;
  k: string;
  expand?: string;
  fbDocs?: string;
  fbTerms?: string;
  quiet?: boolean;
}

/** The runs of the query files on the chosen backend, in file order (the first is the baseline). */
export async function rankQueryFiles(opts: CompareQueriesCliOptions): Promise<Run[]> {
  if (opts.queries.length < 2) throw new CliError(`--queries needs two or more query files (the first is the baseline), got ${opts.queries.length}`);
  const k = countOption('-k', opts.k, false)!;
  if (opts.expand !== undefined && opts.expand !== 'bo1' && opts.expand !== 'rm3') throw new CliError(`unknown --expand '${opts.expand}' (expected bo1 or rm3)`);
  if (opts.expand === undefined && (opts.fbDocs !== undefined || opts.fbTerms !== undefined)) throw new CliError('--fb-docs and --fb-terms need --expand');
  const expand = opts.expand
    ? { method: opts.expand as 'bo1' | 'rm3', fbDocs: countOption('--fb-docs', opts.fbDocs, false), fbTerms: countOption('--fb-terms', opts.fbTerms, true) ?? 10 }
    : undefined;

  // Every file is read and checked before anything is ranked: a typo in the last variant fails at once.
  const { sourceDiagnostics } = await import('../../../grammar/sources/index.js');
  const { hasErrors } = await import('../../../grammar/diagnostics.js');
  const printer = new WarningPrinter(opts.quiet === true);
  const sources = opts.queries.map((file) => ({ file, source: loadSource(file, opts) }));
  let broken = 0;
  for (const { file, source } of sources) {
    const diagnostics = sourceDiagnostics(source);
    printer.add(file, source.text, diagnostics);
    if (source.entries.some((e) => hasErrors(e.result.diagnostics)) || diagnostics.some((d) => d.severity === 'error')) broken++;
  }
  if (broken) {
    printer.flush();
    throw new CliError(`${broken} query file${broken === 1 ? ' has' : 's have'} syntax errors (above); fix them before comparing`);
  }

  const rankAll = async (backend: SearchBackend, search: SearchOptions): Promise<Run[]> => {
    const { rankWithFeedback } = await import('../../service/search-backend.js');
    const { entryDiagnosticsInFile } = await import('../../../grammar/sources/index.js');
    if (expand?.method === 'rm3' && backend.kind !== 'local') throw new CliError('--expand rm3 cannot be used with --backend-config: on a cluster querylens expands with bo1 only');
    const names = sources.map(({ file }) => basename(file));
    const runs: Run[] = [];
    for (const [i, { file, source }] of sources.entries()) {
      const queries = new Map<string, { docno: string; score: number }[]>();
      for (const entry of source.entries) {
        const { ranking } = await rankWithFeedback(backend, entry.result.ast, { ...search, k, describe: 0, expand });
        printer.add(file, source.text, entryDiagnosticsInFile(source, entry, ranking.diagnostics));
        queries.set(entry.qid, ranking.hits.map((h) => ({ docno: h.docno, score: h.score })));
      }
      // Two variants named alike in different folders keep their paths, so the table tells them apart.
      runs.push({ runId: names.indexOf(names[i]!) === names.lastIndexOf(names[i]!) ? names[i]! : file, queries });
    }
    return runs;
  };

  try {
    if (opts.backendConfig !== undefined) {
      const { refuseLocalOptions, localScorerOptions, openClusterForCli, onCluster, noteSimilarity } = await import('../cluster.js');
      refuseLocalOptions(localScorerOptions(opts));
      const { isScorerName, SCORER_NAMES } = await import('../../engine/scoring/scorers.js');
      if (!isScorerName(opts.scorer)) throw new CliError(`unknown --scorer '${opts.scorer}' (expected ${SCORER_NAMES.join(', ')})`);
      const session = await openClusterForCli(opts.backendConfig, { scorer: opts.scorer });
      const { ClusterSearchBackend } = await import('../../service/cluster-search-backend.js');
      return await onCluster(session, async (s) => {
        await noteSimilarity(s);
        return rankAll(new ClusterSearchBackend(s.backend), { scorer: opts.scorer as SearchOptions['scorer'] });
      });
    }
    const search = toSearchOptions(opts);
    await checkParameters(search);
    const index = await openBackendForCli(opts.index);
    checkFieldParameters(index.fields(), search);
    const { LocalSearchBackend } = await import('../../service/local-search-backend.js');
    try {
      return await rankAll(new LocalSearchBackend(index), search);
    } catch (err) {
      // The engine's refusals (a scorer the index cannot rank with, positions it lacks) are one line.
      if (err instanceof RangeError) throw new CliError(err.message);
      throw err;
    }
  } finally {
    printer.flush();
  }
}
