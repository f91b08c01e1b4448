/**
 * `querylens format FILE [--write] [--width N] [--indent N]`: format every query of a file.
 *
 * - `.indri` / `.lucene` line files: each query is formatted in place and kept on its line
 *   (qids, comment lines and blank lines are kept as they are).
 * - Indri parameter files: each query text is formatted and re-escaped for XML; `--width`
 *   lets long queries break over lines there.
 * Without `--write` the formatted file goes to stdout. With `--write` the file is replaced
 * through server/engine/io/safe-write.ts: atomically, through a symlink to its real file, and
 * only if nobody changed it meanwhile (else it is formatted again from its new contents, and
 * after three tries left alone with an error). A file with syntax errors is left untouched and
 * its errors reported (exit 1); so is a file whose formatted text would not parse back to the
 * same queries.
 */
import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import {
  formatIndri,
  formatLucene,
  parseQueryFile,
  sourceDiagnostics,
  entryDiagnosticsInFile,
  stripRanges,
  mapEndToFile,
  type QueryDiagnostic,
  type QuerySourceResult,
  type SourceDiagnostic,
} from '../../../grammar/index.js';
import { CliError } from '../errors.js';
import { FileChangedError, rewriteFileSafely, SafeWriteError } from '../../engine/io/safe-write.js';
import { addSourceOptions, formatDiagnostic, loadSource, type SourceCliOptions } from './check.js';

export interface FormatOptions {
  width?: number;
  indent?: number;
}

export interface FormattedFile {
  /** The formatted file, or undefined when it must not be written (see `diagnostics`). */
  text?: string;
  /** Errors that stopped formatting, in file positions. */
  diagnostics: SourceDiagnostic[];
}

/** Widest a line-file query may be before a formatter would break it: never. */
const ONE_LINE_WIDTH = 1_000_000;

function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Formats the queries of a source, or explains why it cannot. Pure. */
export function formatSource(source: QuerySourceResult, options: FormatOptions = {}): FormattedFile {
  if (source.format === 'tsv' || source.format === 'trec-topics') {
    throw new CliError(`${source.file ?? 'file'}: format works on .indri, .lucene and Indri parameter files, not ${source.format === 'tsv' ? '.tsv topic' : 'TREC topic'} files`);
  }
  // Bad UTF-8 was decoded as U+FFFD: writing it back would change bytes we did not format.
  const errors = sourceDiagnostics(source).filter((d) => d.severity === 'error' || d.code === 'source/invalid-utf8');
  if (errors.length) return { diagnostics: errors };

  const inXml = source.format === 'indri-params';
  const width = inXml ? options.width : ONE_LINE_WIDTH;
  const replacements: { start: number; end: number; text: string }[] = [];
  const problems: SourceDiagnostic[] = [];
  for (const entry of source.entries) {
    const fmt = entry.dialect === 'lucene' ? formatLucene : formatIndri;
    let formatted: { text: string; diagnostics: QueryDiagnostic[] };
    try {
      formatted = fmt(entry.text, { width, indent: options.indent });
    } catch (err) {
      // A formatter failure must leave the file alone, like a syntax error does.
      const message = `The formatter failed on this query: ${err instanceof Error ? err.message : String(err)}`;
      formatted = { text: entry.text, diagnostics: [{ code: 'format/failed', severity: 'error', message, range: { start: 0, end: entry.text.length } }] };
    }
    const failed = formatted.diagnostics.filter((d: QueryDiagnostic) => d.severity === 'error');
    if (failed.length) {
      problems.push(...entryDiagnosticsInFile(source, entry, failed));
      continue;
    }
    let text = formatted.text.trim();
    if (!inXml) text = text.replace(/\s*[\r\n]+\s*/g, ' ');
    else text = escapeXml(text);
    const start = entry.offset;
    const end = mapEndToFile(entry.map, entry.text.length);
    replacements.push({ start, end: Math.max(end, start), text });
  }
  if (problems.length) return { diagnostics: problems };

  replacements.sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const r of replacements) {
    out += source.text.slice(at, r.start) + r.text;
    at = r.end;
  }
  out += source.text.slice(at);

  // The formatted file must read back as the same queries; otherwise keep the original.
  const reread = parseQueryFile(out, source.dialect, source.file, { format: source.format });
  const same =
    reread.entries.length === source.entries.length &&
    reread.entries.every(
      (e, i) =>
        e.qid === source.entries[i].qid &&
        JSON.stringify(stripRanges(e.result.ast.root)) === JSON.stringify(stripRanges(source.entries[i].result.ast.root)),
    );
  if (!same || sourceDiagnostics(reread).some((d) => d.severity === 'error')) {
    const first = source.entries[0];
    return {
      diagnostics: [
        {
          code: 'format/changed-meaning',
          severity: 'error',
          message: 'The formatted text would not read back as the same queries; the file is left as it is.',
          range: { start: first?.offset ?? 0, end: first?.offset ?? 0 },
          line: first?.line ?? 0,
          column: first?.column ?? 0,
          endLine: first?.line ?? 0,
          endColumn: first?.column ?? 0,
        },
      ],
    };
  }
  return { text: out, diagnostics: [] };
}

function positiveInt(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new CliError(`--${name} must be a positive integer, not '${value}'`);
  return n;
}

export function registerFormat(program: Command): void {
  const cmd = program
    .command('format')
    .description('Format the queries of a file (stdout, or in place with --write)')
    .argument('<file>', 'query file (.indri, .lucene, Indri parameter XML)')
    .option('--write', 'rewrite the file in place (atomically); files with syntax errors are left untouched')
    .option('--width <n>', 'line width for queries in parameter files')
    .option('--indent <n>', 'indent width');
  addSourceOptions(cmd).action((file: string, opts: SourceCliOptions & { write?: boolean; width?: string; indent?: string }) => {
    const width = positiveInt('width', opts.width);
    const indent = positiveInt('indent', opts.indent);
    if (opts.write) {
      if (!existsSync(file)) throw new CliError(`${file}: no such file`);
      // Formatted from the bytes that the write then checks are still there (nothing lost to a
      // concurrent append).
      let failed: FormattedFile | undefined;
      try {
        rewriteFileSafely(file, () => {
          failed = undefined;
          const source = loadSource(file, opts);
          const result = formatSource(source, { width, indent });
          if (result.text === undefined) failed = result;
          return result.text === undefined || result.text === source.text ? undefined : result.text;
        });
      } catch (err) {
        if (err instanceof FileChangedError) throw new CliError(`${file}: the file changed while formatting; nothing written (run format again)`, 1);
        if (err instanceof SafeWriteError) throw new CliError(err.message, 1);
        throw err;
      }
      if (failed) {
        process.stderr.write(failed.diagnostics.map((d) => formatDiagnostic(file, d)).join('\n') + '\n');
        process.stderr.write(`${file}: not formatted; the file is unchanged\n`);
        process.exitCode = 1;
      }
      return;
    }
    const source = loadSource(file, opts);
    const result = formatSource(source, { width, indent });
    if (result.text === undefined) {
      process.stderr.write(result.diagnostics.map((d) => formatDiagnostic(file, d)).join('\n') + '\n');
      process.exitCode = 1;
      return;
    }
    process.stdout.write(result.text);
  });
}
