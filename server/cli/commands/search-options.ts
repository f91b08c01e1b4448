/**
 * Options shared by `querylens search` and `querylens explain`: the scorer and its
 * parameters, turned into SearchOptions with one-line CliErrors for bad values.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { CliError } from '../errors.js';
import { CONFIG_FILE_NAME, configFolderAbove } from '../../lsp/config.js';
import type { LocalIndexBackend } from '../../service/backend.js';
import type { SearchOptions } from '../../engine/search.js';
import { ANSERINI_DEFAULTS, DEFAULT_SCORER, describeScorers, isScorerName, scorerDefinition, SCORER_NAMES, SCORERS, type ScorerDefinition } from '../../engine/scoring/scorers.js';
import { BM25F_FIELD_DEFAULTS, parseFieldParamName } from '../../engine/scoring/bm25f.js';

export interface ScorerCliOptions {
  /** Absent: the `index` of the nearest querylens.json (see indexFromConfig). */
  index?: string;
  scorer: string;
  k1?: string;
  b?: string;
  k3?: string;
  mu?: string;
  /** bm25f's per-field parameters, `w.<field>=x` / `c.<field>=x` (repeatable). */
  param?: string[];
  anserini?: boolean;
  windowStats: string;
}

export function addScorerOptions(cmd: Command): Command {
  return cmd
    .option('--index <dir>', 'index folder built by `querylens index` (default: the "index" of the nearest querylens.json, from the current folder upwards)')
    .option('--scorer <name>', describeScorers(), DEFAULT_SCORER)
    .option('--k1 <x>', `BM25 k1 (default ${SCORERS.bm25.defaults.k1}; ${ANSERINI_DEFAULTS.k1} with --anserini)`)
    .option('--b <x>', `BM25 b (default ${SCORERS.bm25.defaults.b}; ${ANSERINI_DEFAULTS.b} with --anserini)`)
    .option('--k3 <x>', `Terrier BM25 k3 (default ${SCORERS.bm25.defaults.k3})`)
    .option('--mu <x>', `Dirichlet mu for ql (default ${SCORERS.ql.defaults.mu})`)
    .option(
      '--param <name=x>',
      `bm25f per-field parameter, repeatable: w.<field>=x (the field's weight, default ${BM25F_FIELD_DEFAULTS.w}) or c.<field>=x (its length normalisation in [0, 1], default ${BM25F_FIELD_DEFAULTS.c}), e.g. --param w.title=2`,
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--anserini', `bm25-lucene with Anserini's k1 = ${ANSERINI_DEFAULTS.k1}, b = ${ANSERINI_DEFAULTS.b}`)
    .option('--window-stats <how>', 'statistics of #1/#uw/phrases: exact (counted) or terrier (df = N/100)', 'exact');
}

/** An integer option (--fb-docs, --fb-terms): undefined when absent, a one-line CliError when malformed. */
export function countOption(name: string, text: string | undefined, allowZero: boolean): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || (!allowZero && Number(text) === 0)) throw new CliError(`${name} must be a ${allowZero ? 'non-negative' : 'positive'} integer, got '${text}'`);
  return Number(text);
}

function number(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n)) throw new CliError(`${name} must be a number, got '${text}'`);
  return n;
}

export function toSearchOptions(opts: ScorerCliOptions): SearchOptions {
  if (!isScorerName(opts.scorer)) throw new CliError(`unknown --scorer '${opts.scorer}' (expected ${SCORER_NAMES.join(', ')})`);
  if (opts.anserini && !scorerDefinition(opts.scorer).anseriniDefaults) throw new CliError(`--anserini applies to ${scorersWith((s) => !!s.anseriniDefaults)} only`);
  const windowStats = opts.windowStats === 'exact' ? 'exact' : opts.windowStats === 'terrier' ? 'terrier-heuristic' : undefined;
  if (!windowStats) throw new CliError(`unknown --window-stats '${opts.windowStats}' (expected exact or terrier)`);
  return {
    scorer: opts.scorer,
    k1: number('--k1', opts.k1),
    b: number('--b', opts.b),
    k3: number('--k3', opts.k3),
    mu: number('--mu', opts.mu),
    ...(opts.param?.length ? { fieldParams: fieldParams(opts.scorer, opts.param, opts.b) } : {}),
    anserini: opts.anserini,
    windowStats,
  };
}

/** "--scorer a" or "--scorer a or --scorer b": the scorers that have a capability, for messages. */
function scorersWith(has: (s: ScorerDefinition) => boolean): string {
  return SCORER_NAMES.filter((n) => has(scorerDefinition(n)))
    .map((n) => `--scorer ${n}`)
    .join(' or ');
}

/** `--param w.title=2 --param c.text=0.5` as { 'w.title': 2, 'c.text': 0.5 }; one-line errors. */
function fieldParams(scorer: string, params: readonly string[], b: string | undefined): Record<string, number> {
  if (!isScorerName(scorer) || !SCORERS[scorer].readsFieldParams) throw new CliError(`--param w.<field>/c.<field> applies to ${scorersWith((s) => s.readsFieldParams)} only (got --scorer ${scorer})`);
  if (b !== undefined) throw new CliError('bm25f has no --b: each field has its own normalisation, --param c.<field>=x');
  const out: Record<string, number> = {};
  for (const text of params) {
    const eq = text.indexOf('=');
    const name = eq < 0 ? text : text.slice(0, eq);
    if (eq < 0 || !parseFieldParamName(name)) throw new CliError(`--param must be w.<field>=x or c.<field>=x, got '${text}'`);
    if (Object.hasOwn(out, name)) throw new CliError(`--param ${name} is given twice`);
    out[name] = number(`--param ${name}`, text.slice(eq + 1))!;
  }
  return out;
}

/** After the index is open: a --param naming a field the index lacks is one line, not one error per query. */
export function checkFieldParameters(fields: readonly string[], options: SearchOptions): void {
  for (const name of Object.keys(options.fieldParams ?? {})) {
    const field = parseFieldParamName(name)!.field;
    if (!fields.includes(field)) throw new CliError(`--param ${name}: the index has no field '${field}' (its fields: ${fields.join(', ') || 'none'})`);
  }
}

/** Validates parameters up front so a bad k1 is one line, not one error per query. */
export async function checkParameters(options: SearchOptions): Promise<void> {
  const { resolveParameters } = await import('../../engine/search.js');
  try {
    resolveParameters(options);
  } catch (err) {
    if (err instanceof RangeError) throw new CliError(err.message);
    throw err;
  }
}

/**
 * The index folder of the nearest querylens.json, looking from `from` upwards (as the editor finds
 * the configuration), resolved against the folder that holds that file.
 */
export function indexFromConfig(from: string = process.cwd()): string {
  // The same search as the language server's for a window without a folder.
  const dir = configFolderAbove(from);
  if (dir === null) throw new CliError(`no --index given, and no querylens.json in ${resolve(from)} or a folder above it; pass --index DIR`);
  const file = join(dir, CONFIG_FILE_NAME);
  let config: unknown;
  try {
    config = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new CliError(`${file}: not valid JSON (${err instanceof Error ? err.message : String(err)}); fix it or pass --index`);
  }
  const index = (config as { index?: unknown } | null)?.index;
  if (typeof index !== 'string' || index === '') throw new CliError(`${file} has no "index" setting; add one or pass --index DIR`);
  return resolve(dir, index);
}

/** The local index of --index (or querylens.json) as the service's backend; a bad index is one CLI line. */
export async function openBackendForCli(dir: string | undefined): Promise<LocalIndexBackend> {
  const { openLocalBackend, IndexError } = await import('../../service/backend.js');
  try {
    return openLocalBackend(dir ?? indexFromConfig());
  } catch (err) {
    if (err instanceof IndexError) throw new CliError(err.message);
    throw err;
  }
}
