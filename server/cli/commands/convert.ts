/**
 * `querylens convert --to indri|lucene|terrier|opensearch|elasticsearch FILE`: translate every
 * query of a file and print `qid<TAB>query` lines on stdout (for a cluster, `qid<TAB>` and the
 * `_search` request body as one line of JSON). Approximations and drops go to stderr as
 * `file:line:col: warning code message`, at the position of the construct in FILE.
 * Exit 1 when the file has syntax errors (the queries are still converted as far as they
 * parsed), 0 otherwise.
 */
import type { Command } from 'commander';
import {
  entryDiagnosticsInFile,
  sourceDiagnostics,
  toQueryDsl,
  translate,
  TRANSLATE_TARGETS,
  type QuerySourceResult,
  type SourceDiagnostic,
  type TranslateTarget,
} from '../../../grammar/index.js';
import { searchBody, type ClusterKind } from '../../backends/search-request.js';
import { DEFAULT_SCORER, isScorerName, SCORER_NAMES, type ScorerName } from '../../engine/scoring/scorers.js';
import { CliError } from '../errors.js';
import { addSourceOptions, formatDiagnostic, loadSource, type SourceCliOptions } from './check.js';

export interface ConvertedFile {
  /** `qid<TAB>query` lines, in file order. */
  lines: string[];
  /** Parse diagnostics and translation diagnostics, in file positions. */
  diagnostics: SourceDiagnostic[];
  errors: number;
}

/** Translates every entry of a source into `to`. */
export function convertSource(source: QuerySourceResult, to: TranslateTarget): ConvertedFile {
  const lines: string[] = [];
  const diagnostics: SourceDiagnostic[] = sourceDiagnostics(source).filter((d) => d.severity === 'error');
  for (const entry of source.entries) {
    const result = translate(entry.result.ast, to);
    const text = result.text.replace(/\s*[\r\n]+\s*/g, ' ');
    if (text === '' && to !== 'terrier') {
      // Nothing of the query has a form in `to` (said on stderr): keep its id and text as a comment
      // line, so converting the file back does not lose the query.
      lines.push(`// ${entry.qid}\tnot converted: ${entry.text.replace(/\s*[\r\n]+\s*/g, ' ')}`);
    } else {
      // A query text must stay on its line in the output file.
      lines.push(`${entry.qid}\t${text}`);
    }
    diagnostics.push(...entryDiagnosticsInFile(source, entry, result.diagnostics));
  }
  diagnostics.sort((a, b) => a.range.start - b.range.start);
  return { lines, diagnostics, errors: diagnostics.filter((d) => d.severity === 'error').length };
}

const CLUSTER_TARGETS: readonly ClusterKind[] = ['opensearch', 'elasticsearch'];
const ALL_TARGETS = [...TRANSLATE_TARGETS, ...CLUSTER_TARGETS];

export interface ClusterConvertOptions {
  /** Fields searched by a term without a field. */
  fields: string[];
  /** Hits per request. */
  size: number;
  scorer?: ScorerName;
}

/** Translates every entry of a source into a cluster's `_search` request body. */
export function convertSourceToCluster(source: QuerySourceResult, kind: ClusterKind, options: ClusterConvertOptions): ConvertedFile {
  const lines: string[] = [];
  const diagnostics: SourceDiagnostic[] = sourceDiagnostics(source).filter((d) => d.severity === 'error');
  for (const entry of source.entries) {
    const result = toQueryDsl(entry.result.ast, { fields: options.fields, scorer: options.scorer });
    const body = searchBody(kind, result.query ?? { match_none: {} }, { size: options.size });
    lines.push(`${entry.qid}\t${JSON.stringify(body)}`);
    diagnostics.push(...entryDiagnosticsInFile(source, entry, result.diagnostics));
  }
  diagnostics.sort((a, b) => a.range.start - b.range.start);
  return { lines, diagnostics, errors: diagnostics.filter((d) => d.severity === 'error').length };
}

export function parseTarget(to: string | undefined): TranslateTarget | ClusterKind {
  if (!to) throw new CliError(`convert needs --to (${ALL_TARGETS.join(', ')})`);
  if (!ALL_TARGETS.includes(to as TranslateTarget)) throw new CliError(`unknown target '${to}' (expected ${ALL_TARGETS.join(', ')})`);
  return to as TranslateTarget | ClusterKind;
}

function isCluster(to: string): to is ClusterKind {
  return (CLUSTER_TARGETS as readonly string[]).includes(to);
}

export function registerConvert(program: Command): void {
  const cmd = program
    .command('convert')
    .description('Translate a query file to another dialect; prints qid<TAB>query lines, warnings on stderr')
    .argument('<file>', 'query file')
    .option('--to <dialect>', `target dialect (${ALL_TARGETS.join(', ')}; a cluster target prints each query's _search request body)`)
    .option('--search-fields <list>', 'for a cluster target: the fields a term without a field is searched in', 'text')
    .option('-k, --size <n>', 'for a cluster target: hits per request', '1000')
    .option('--scorer <name>', `for a cluster target: the scorer the queries were written for (${SCORER_NAMES.join(', ')})`, DEFAULT_SCORER);
  addSourceOptions(cmd).action((file: string, opts: SourceCliOptions & { to?: string; searchFields: string; size: string; scorer: string }) => {
    const to = parseTarget(opts.to);
    const source = loadSource(file, opts);
    let converted: ConvertedFile;
    if (isCluster(to)) {
      const size = Number(opts.size);
      if (!Number.isInteger(size) || size < 0) throw new CliError(`--size must be a whole number ≥ 0, not '${opts.size}'`);
      if (!isScorerName(opts.scorer)) throw new CliError(`unknown scorer '${opts.scorer}' (expected ${SCORER_NAMES.join(', ')})`);
      const fields = opts.searchFields.split(',').map((f) => f.trim()).filter(Boolean);
      if (!fields.length) throw new CliError('--search-fields needs at least one field name');
      converted = convertSourceToCluster(source, to, { fields, size, scorer: opts.scorer as ClusterConvertOptions['scorer'] });
    } else {
      converted = convertSource(source, to);
    }
    if (converted.lines.length) process.stdout.write(converted.lines.join('\n') + '\n');
    if (converted.diagnostics.length) process.stderr.write(converted.diagnostics.map((d) => formatDiagnostic(file, d)).join('\n') + '\n');
    if (converted.errors > 0) process.exitCode = 1;
  });
}
