/**
 * `querylens check FILE…`: parse every query of each file and print its diagnostics as
 * `file:line:col: severity code message` (1-based positions in the file), or as JSON with
 * `--json`. Exit 1 when any error was found, 0 otherwise, 2 for usage errors.
 */
import { CommanderError, type Command } from 'commander';
import { existsSync } from 'node:fs';
import {
  QuerySourceError,
  readQuerySource,
  sourceDiagnostics,
  type Dialect,
  type QuerySourceResult,
  type SourceDiagnostic,
  type TopicField,
} from '../../../grammar/index.js';
import { CliError } from '../errors.js';

export interface SourceCliOptions {
  dialect?: string;
  fields?: string;
}

const DIALECTS: readonly Dialect[] = ['indri', 'lucene', 'text'];
const TOPIC_FIELDS: readonly TopicField[] = ['title', 'desc', 'narr'];

/**
 * Usage errors (a missing argument, an unknown option) print one line and exit 2, like
 * the command's own usage errors (CliError); help and version still exit 0.
 */
export function usageErrorsExitTwo(cmd: Command): Command {
  return cmd.showHelpAfterError(false).exitOverride((err) => {
    if (err.exitCode === 0) throw err;
    throw new CommanderError(2, err.code, err.message);
  });
}

/** Adds the options every file-reading command shares, and the exit-2 rule for usage errors. */
export function addSourceOptions(cmd: Command): Command {
  return usageErrorsExitTwo(cmd)
    .option('--dialect <dialect>', 'dialect of line files, overriding the extension (indri, lucene, text)')
    .option('--fields <list>', 'TREC topic fields that make the query, comma-separated (title,desc,narr)', 'title');
}

/** Reads a query file for the CLI; unreadable paths and bad options become CliError. */
export function loadSource(path: string, opts: SourceCliOptions): QuerySourceResult {
  let dialect: Dialect | undefined;
  if (opts.dialect !== undefined) {
    if (!DIALECTS.includes(opts.dialect as Dialect)) throw new CliError(`unknown dialect '${opts.dialect}' (expected ${DIALECTS.join(', ')})`);
    dialect = opts.dialect as Dialect;
  }
  const fields = (opts.fields ?? 'title')
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  for (const f of fields) {
    if (!TOPIC_FIELDS.includes(f as TopicField)) throw new CliError(`unknown topic field '${f}' (expected ${TOPIC_FIELDS.join(', ')})`);
  }
  if (!existsSync(path)) throw new CliError(`${path}: no such file`);
  try {
    return readQuerySource(path, { dialect, topicFields: fields as TopicField[] });
  } catch (err) {
    if (err instanceof QuerySourceError) throw new CliError(err.message);
    throw err;
  }
}

/** One line, so that messages with newlines cannot break `file:line:col:` parsing. */
function oneLine(s: string): string {
  return s.replace(/\s*[\r\n]+\s*/g, ' ');
}

/** `file:line:col: severity code message`, 1-based. */
export function formatDiagnostic(file: string, d: SourceDiagnostic): string {
  return `${file}:${d.line + 1}:${d.column + 1}: ${d.severity} ${d.code} ${oneLine(d.message)}`;
}

export interface JsonDiagnostic {
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  severity: string;
  code: string;
  message: string;
  qid: string | null;
}

export function jsonDiagnostic(file: string, d: SourceDiagnostic): JsonDiagnostic {
  return {
    file,
    line: d.line + 1,
    column: d.column + 1,
    endLine: d.endLine + 1,
    endColumn: d.endColumn + 1,
    severity: d.severity,
    code: d.code,
    message: oneLine(d.message),
    qid: d.qid ?? null,
  };
}

export interface CheckSummary {
  files: number;
  queries: number;
  errors: number;
  warnings: number;
}

/** Checks files and writes the report; returns the counts. */
export function runCheck(files: string[], opts: SourceCliOptions & { json?: boolean }, out: (s: string) => void): CheckSummary {
  // Read every file first, so a wrong path fails before any output (exit 2).
  const sources = files.map((f) => ({ file: f, source: loadSource(f, opts) }));
  const summary: CheckSummary = { files: files.length, queries: 0, errors: 0, warnings: 0 };
  const json: JsonDiagnostic[] = [];
  const lines: string[] = [];
  for (const { file, source } of sources) {
    summary.queries += source.entries.length;
    for (const d of sourceDiagnostics(source)) {
      if (d.severity === 'error') summary.errors++;
      else if (d.severity === 'warning') summary.warnings++;
      if (opts.json) json.push(jsonDiagnostic(file, d));
      else lines.push(formatDiagnostic(file, d));
    }
  }
  if (opts.json) out(JSON.stringify(json, null, 2) + '\n');
  else if (lines.length) out(lines.join('\n') + '\n');
  return summary;
}

export function registerCheck(program: Command): void {
  const cmd = program
    .command('check')
    .description('Parse query files (.indri, .lucene, .tsv, Indri parameter XML, TREC topics) and report their diagnostics')
    .argument('<files...>', 'query files')
    .option('--json', 'print diagnostics as a JSON array');
  addSourceOptions(cmd).action((files: string[], opts: SourceCliOptions & { json?: boolean }) => {
    const summary = runCheck(files, opts, (s) => process.stdout.write(s));
    if (summary.errors > 0) process.exitCode = 1;
  });
}
