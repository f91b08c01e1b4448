/**
 * `querylens convert --to indri|lucene|terrier FILE`: translate every query of a file and
 * print `qid<TAB>query` lines on stdout. Approximations and drops go to stderr as
 * `file:line:col: warning code message`, at the position of the construct in FILE.
 * Exit 1 when the file has syntax errors (the queries are still converted as far as they
 * parsed), 0 otherwise.
 */
import type { Command } from 'commander';
import { entryDiagnosticsInFile, sourceDiagnostics, translate, TRANSLATE_TARGETS, type QuerySourceResult, type SourceDiagnostic, type TranslateTarget } from '../../../grammar/index.js';
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
    // A query text must stay on its line in the output file.
    lines.push(`${entry.qid}\t${result.text.replace(/\s*[\r\n]+\s*/g, ' ')}`);
    diagnostics.push(...entryDiagnosticsInFile(source, entry, result.diagnostics));
  }
  diagnostics.sort((a, b) => a.range.start - b.range.start);
  return { lines, diagnostics, errors: diagnostics.filter((d) => d.severity === 'error').length };
}

export function parseTarget(to: string | undefined): TranslateTarget {
  if (!to) throw new CliError(`convert needs --to (${TRANSLATE_TARGETS.join(', ')})`);
  if (!TRANSLATE_TARGETS.includes(to as TranslateTarget)) throw new CliError(`unknown target '${to}' (expected ${TRANSLATE_TARGETS.join(', ')})`);
  return to as TranslateTarget;
}

export function registerConvert(program: Command): void {
  const cmd = program
    .command('convert')
    .description('Translate a query file to another dialect; prints qid<TAB>query lines, warnings on stderr')
    .argument('<file>', 'query file')
    .option('--to <dialect>', `target dialect (${TRANSLATE_TARGETS.join(', ')})`);
  addSourceOptions(cmd).action((file: string, opts: SourceCliOptions & { to?: string }) => {
    const to = parseTarget(opts.to);
    const source = loadSource(file, opts);
    const converted = convertSource(source, to);
    if (converted.lines.length) process.stdout.write(converted.lines.join('\n') + '\n');
    if (converted.diagnostics.length) process.stderr.write(converted.diagnostics.map((d) => formatDiagnostic(file, d)).join('\n') + '\n');
    if (converted.errors > 0) process.exitCode = 1;
  });
}
