/**
 * `querylens search --index DIR QUERYFILE`: a TREC run (`qid Q0 docno rank score runid`) on
 * stdout for every query of the file, warnings on stderr. Scorers and their semantics:
 * server/engine/search.ts.
 */
import type { Command } from 'commander';
import { CliError } from '../errors.js';
import { addSourceOptions, formatDiagnostic, loadSource, type SourceCliOptions } from './check.js';
import { addScorerOptions, checkParameters, openIndexForCli, toSearchOptions, type ScorerCliOptions } from './search-options.js';

interface SearchCliOptions extends SourceCliOptions, ScorerCliOptions {
  k: string;
  runId: string;
  expand?: string;
  fbDocs?: string;
  fbTerms?: string;
}

function count(name: string, text: string | undefined, allowZero: boolean): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || (!allowZero && Number(text) === 0)) throw new CliError(`${name} must be a ${allowZero ? 'non-negative' : 'positive'} integer, got '${text}'`);
  return Number(text);
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
    .option('--fb-terms <n>', 'expansion terms (default 10)');
  addSourceOptions(cmd).action(async (file: string, opts: SearchCliOptions) => {
    const k = count('-k', opts.k, true)!;
    if (/\s/.test(opts.runId) || opts.runId === '') throw new CliError(`--run-id must be one word without spaces, got '${opts.runId}'`);
    if (opts.expand !== undefined && opts.expand !== 'bo1' && opts.expand !== 'rm3') throw new CliError(`unknown --expand '${opts.expand}' (expected bo1 or rm3)`);
    if (opts.expand === undefined && (opts.fbDocs !== undefined || opts.fbTerms !== undefined)) throw new CliError('--fb-docs and --fb-terms need --expand bo1|rm3');
    const expand = opts.expand
      ? { method: opts.expand as 'bo1' | 'rm3', fbDocs: count('--fb-docs', opts.fbDocs, false), fbTerms: count('--fb-terms', opts.fbTerms, true) }
      : undefined;
    const options = toSearchOptions(opts);
    await checkParameters(options);
    const source = loadSource(file, opts);
    const reader = await openIndexForCli(opts.index);
    const { runQuery, formatRunLines } = await import('../../engine/search.js');
    const { sourceDiagnostics, entryDiagnosticsInFile } = await import('../../../grammar/sources/index.js');

    const problems = sourceDiagnostics(source);
    if (problems.length) process.stderr.write(problems.map((d) => formatDiagnostic(file, d)).join('\n') + '\n');
    if (problems.some((d) => d.severity === 'error')) process.exitCode = 1;

    for (const entry of source.entries) {
      const result = runQuery(reader, entry.result.ast, { ...options, k, expand });
      const warnings = entryDiagnosticsInFile(source, entry, result.warnings);
      if (warnings.length) process.stderr.write(warnings.map((d) => formatDiagnostic(file, d)).join('\n') + '\n');
      const lines = formatRunLines(entry.qid, result.hits, opts.runId);
      if (lines && !process.stdout.write(lines)) await new Promise((r) => process.stdout.once('drain', r));
    }
  });
}
