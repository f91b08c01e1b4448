/**
 * The `npm start` main job (scripts/start.mjs calls it after building). For now it works
 * on the sample query files only:
 *   1. check each sample file (diagnostics as `querylens check` prints them);
 *   2. translate it to the other dialects and to Terrier MatchOpQL, with the warnings;
 *   3. print a one-line summary.
 * The search engine will add its steps (index, run, evaluate) after these.
 * Returns the exit code: 1 when a sample has errors, 0 otherwise.
 */
import { join, relative } from 'node:path';
import { readQuerySource, sourceDiagnostics, TRANSLATE_TARGETS, type QuerySourceResult, type TranslateTarget } from '../../grammar/index.js';
import { formatDiagnostic } from './commands/check.js';
import { convertSource } from './commands/convert.js';

export interface MainJobOptions {
  root: string;
  /** Where the report goes; stdout by default. */
  write?: (line: string) => void;
}

export const SAMPLE_FILES = ['samples/queries.indri', 'samples/queries.lucene'];

interface Tally {
  queries: number;
  errors: number;
  warnings: number;
  translations: number;
  translationWarnings: number;
}

export async function runMainJob(opts: MainJobOptions): Promise<number> {
  const write = opts.write ?? ((line: string) => process.stdout.write(line + '\n'));
  const tally: Tally = { queries: 0, errors: 0, warnings: 0, translations: 0, translationWarnings: 0 };

  for (const rel of SAMPLE_FILES) {
    const path = join(opts.root, rel);
    const name = relative(opts.root, path);
    const source = readQuerySource(path);
    checkStep(name, source, tally, write);
    translateStep(name, source, tally, write);
  }

  write(
    `querylens: ${SAMPLE_FILES.length} files, ${tally.queries} queries, ${tally.errors} errors, ${tally.warnings} warnings; ` +
      `${tally.translations} translations with ${tally.translationWarnings} approximation warnings`,
  );
  return tally.errors > 0 ? 1 : 0;
}

/** Step 1: the file's diagnostics, as `querylens check` prints them. */
function checkStep(name: string, source: QuerySourceResult, tally: Tally, write: (line: string) => void): void {
  const diagnostics = sourceDiagnostics(source);
  tally.queries += source.entries.length;
  tally.errors += diagnostics.filter((d) => d.severity === 'error').length;
  tally.warnings += diagnostics.filter((d) => d.severity === 'warning').length;
  write(`== check ${name} (${source.dialect}, ${source.entries.length} queries): ${diagnostics.length ? `${diagnostics.length} diagnostics` : 'clean'}`);
  for (const d of diagnostics) write(formatDiagnostic(name, d));
}

/** Step 2: the file translated to every other dialect and to Terrier, with warnings. */
function translateStep(name: string, source: QuerySourceResult, tally: Tally, write: (line: string) => void): void {
  const targets = TRANSLATE_TARGETS.filter((t: TranslateTarget) => t !== source.dialect);
  for (const to of targets) {
    const converted = convertSource(source, to);
    const warnings = converted.diagnostics.filter((d) => d.severity !== 'error');
    tally.translations += converted.lines.length;
    tally.translationWarnings += warnings.length;
    write(`== convert ${name} --to ${to}`);
    for (const line of converted.lines) write(line);
    for (const d of warnings) write(formatDiagnostic(name, d));
  }
}
