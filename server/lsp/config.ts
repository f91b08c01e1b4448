/**
 * Configuration: `querylens.json` at the workspace root, overridden key by key by the
 * client's `querylens.*` settings. Both have the same shape (docs/LSP_EXTENSIONS.md), so
 * merging is a shallow override per section. Reading never throws: every problem becomes a
 * `ConfigProblem` the server shows to the user.
 */
import { existsSync, lstatSync, realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { DEFAULT_SCORER, SCORER_NAMES, SCORERS, type ScorerName } from '../engine/scoring/scorers.js';
import { parseFieldParamName } from '../engine/scoring/bm25f.js';
import { ClusterConfigError, parseClusterConfig, validateClusterConfig, type ClusterConfig } from '../backends/remote/config.js';

export const CONFIG_FILE_NAME = 'querylens.json';

/** The nearest folder at or above `from` that holds a querylens.json, or null (for a window without a folder). */
export function configFolderAbove(from: string): string | null {
  let dir = resolve(from);
  for (;;) {
    if (existsSync(join(dir, CONFIG_FILE_NAME))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

export type { ScorerName };
export type ExpansionMethod = 'none' | 'bo1';
export type Device = 'auto' | 'cpu' | 'cuda';

export interface ScorerConfig {
  name?: ScorerName;
  /** BM25 term-frequency saturation. */
  k1?: number;
  /** BM25 length normalisation. */
  b?: number;
  /** Query-likelihood Dirichlet prior. */
  mu?: number;
}

/** bm25f's per-field parameters, written in the `scorer` section as `"w.title": 2`, `"c.text": 0.75`. */
export type FieldParamConfig = { [name: `w.${string}` | `c.${string}`]: number };

/** The scorer's per-field parameters in a `scorer` section (the keys `w.<field>` and `c.<field>`). */
export function fieldParamsOf(scorer: ScorerConfig & FieldParamConfig): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(scorer)) if (parseFieldParamName(key) && typeof value === 'number') out[key] = value;
  return out;
}

export interface ExpansionConfig {
  method?: ExpansionMethod;
  /** Feedback documents. */
  fbDocs?: number;
  /** Expansion terms to add. */
  fbTerms?: number;
}

export interface LearnedExpansionConfig {
  /** Inlay hints `≈ automobile, motorcar` after query words the learned model gives strong alternatives (off by default: one model run per query in view). */
  hints?: boolean;
}

export interface FormattingConfig {
  /** Line width the formatters wrap at. */
  width?: number;
}

/** The settings as written (every key optional). */
export interface QuerylensConfig {
  corpus?: string;
  index?: string;
  qrels?: string;
  scorer?: ScorerConfig & FieldParamConfig;
  expansion?: ExpansionConfig;
  model?: string;
  device?: Device;
  formatting?: FormattingConfig;
  learnedExpansion?: LearnedExpansionConfig;
  /**
   * A search cluster to rank on instead of the local index (server/backends/remote/config.ts; checked
   * there, when the configuration is resolved). Credentials come from the environment only.
   */
  backend?: unknown;
}

/**
 * The `backend` section once checked: a cluster configuration, or why it cannot be used (located in
 * querylens.json when it came from there). Never silently dropped: a broken section must not fall
 * back to ranking on the local index.
 */
export type ResolvedBackend = { config: ClusterConfig } | { error: string; line?: number; column?: number };

/** Settings with defaults applied and paths made absolute. */
export interface ResolvedConfig {
  corpus: string | null;
  index: string | null;
  qrels: string | null;
  scorer: Required<ScorerConfig> & FieldParamConfig;
  expansion: Required<ExpansionConfig>;
  model: string | null;
  device: Device;
  formatting: Required<FormattingConfig>;
  learnedExpansion: Required<LearnedExpansionConfig>;
  /** The cluster the session ranks on; null: the local index (the default). */
  backend: ResolvedBackend | null;
  /** Folder relative paths were resolved against (null without a workspace). */
  root: string | null;
}

export interface ConfigProblem {
  /** Where the problem is: `querylens.json` or `settings`. */
  source: 'querylens.json' | 'settings';
  message: string;
  /** 1-based line and column in querylens.json, when the problem is at a key. */
  line?: number;
  column?: number;
}

export const DEFAULTS = {
  scorer: { name: DEFAULT_SCORER, k1: SCORERS.bm25.defaults.k1, b: SCORERS.bm25.defaults.b, mu: SCORERS.ql.defaults.mu } as Required<ScorerConfig>,
  expansion: { method: 'none', fbDocs: 3, fbTerms: 10 } as Required<ExpansionConfig>,
  device: 'auto' as Device,
  formatting: { width: 80 } as Required<FormattingConfig>,
  learnedExpansion: { hints: false } as Required<LearnedExpansionConfig>,
};

type FieldCheck = 'string' | 'number' | 'positiveInt' | 'boolean' | 'object' | readonly string[];

const TOP_LEVEL: Record<string, FieldCheck | Record<string, FieldCheck>> = {
  corpus: 'string',
  index: 'string',
  qrels: 'string',
  model: 'string',
  device: ['auto', 'cpu', 'cuda'],
  scorer: { name: SCORER_NAMES, k1: 'number', b: 'number', mu: 'number' },
  expansion: { method: ['none', 'bo1'], fbDocs: 'positiveInt', fbTerms: 'positiveInt' },
  formatting: { width: 'positiveInt' },
  learnedExpansion: { hints: 'boolean' },
  // Its keys are the cluster backend's (checked by validateClusterConfig in resolveConfig).
  backend: 'object',
};

function checkValue(value: unknown, check: FieldCheck): string | null {
  if (Array.isArray(check)) {
    return typeof value === 'string' && check.includes(value) ? null : `must be one of ${check.map((c) => `"${c}"`).join(', ')}`;
  }
  switch (check) {
    case 'string':
      return typeof value === 'string' ? null : 'must be a string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a number';
    case 'positiveInt':
      return Number.isInteger(value) && (value as number) > 0 ? null : 'must be a positive integer';
    case 'boolean':
      return typeof value === 'boolean' ? null : 'must be true or false';
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value) ? null : 'must be an object';
  }
  return null;
}

/**
 * Keeps the well-typed keys of `raw` and reports the rest. Empty strings and nulls mean
 * "not set" (VS Code's defaults for unset path settings), so they are dropped silently.
 */
export function validateConfig(raw: unknown, source: ConfigProblem['source']): { config: QuerylensConfig; problems: ConfigProblem[] } {
  const problems: ConfigProblem[] = [];
  const config: Record<string, unknown> = {};
  if (raw === null || raw === undefined) return { config, problems };
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    problems.push({ source, message: 'the configuration must be a JSON object' });
    return { config, problems };
  }
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    if (value === null || value === '') continue;
    const check = TOP_LEVEL[key];
    if (!check) {
      problems.push({ source, message: `unknown key "${key}" (known: ${Object.keys(TOP_LEVEL).join(', ')})` });
      continue;
    }
    if (typeof check === 'string' || Array.isArray(check)) {
      const error = checkValue(value, check as FieldCheck);
      if (error) problems.push({ source, message: `"${key}" ${error}` });
      else config[key] = value;
      continue;
    }
    if (typeof value !== 'object' || Array.isArray(value)) {
      problems.push({ source, message: `"${key}" must be an object with keys ${Object.keys(check).join(', ')}` });
      continue;
    }
    const section: Record<string, unknown> = {};
    for (const [sub, subValue] of Object.entries(value as Record<string, unknown>)) {
      if (subValue === null || subValue === '') continue;
      // bm25f's per-field parameters have open names (w.<field>, c.<field>); their ranges are checked with the scorer's.
      const subCheck = (check as Record<string, FieldCheck>)[sub] ?? (key === 'scorer' && parseFieldParamName(sub) ? 'number' : undefined);
      if (!subCheck) {
        problems.push({ source, message: `unknown key "${key}.${sub}" (known: ${Object.keys(check).join(', ')}${key === 'scorer' ? ', w.<field>, c.<field>' : ''})` });
        continue;
      }
      const error = checkValue(subValue, subCheck);
      if (error) problems.push({ source, message: `"${key}.${sub}" ${error}` });
      else section[sub] = subValue;
    }
    if (Object.keys(section).length) config[key] = section;
  }
  return { config: config as QuerylensConfig, problems };
}

/** Parses the text of a `querylens.json`. */
export function parseConfigFile(text: string): { config: QuerylensConfig; problems: ConfigProblem[] } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return { config: {}, problems: [{ source: 'querylens.json', message: `not valid JSON: ${reason}` }] };
  }
  return validateConfig(raw, 'querylens.json');
}

/** Client settings win over the file, key by key (inside sections too). */
export function mergeConfig(file: QuerylensConfig, settings: QuerylensConfig): QuerylensConfig {
  return {
    ...file,
    ...settings,
    scorer: { ...file.scorer, ...settings.scorer },
    expansion: { ...file.expansion, ...settings.expansion },
    formatting: { ...file.formatting, ...settings.formatting },
    learnedExpansion: { ...file.learnedExpansion, ...settings.learnedExpansion },
  };
}

/**
 * Checks the `backend` section. `file` (querylens.json's path and text) places an error at its key
 * and resolves "caFile" against the file's folder; without it (the section came from the client's
 * settings) messages name the key and "caFile" is resolved against the workspace folder.
 */
export function resolveBackend(raw: unknown, root: string | null, file?: { path: string; text: string }): ResolvedBackend | null {
  if (raw === undefined) return null;
  try {
    if (file) {
      const config = parseClusterConfig(file.text, file.path);
      // Like the path keys (confineToWorkspace): a workspace's file may only name a CA file inside the workspace.
      const real = config.caFile ? realPathOrAncestor(config.caFile) : undefined;
      const rootReal = root ? (realPathOrAncestor(root) ?? resolve(root)) : null;
      if (config.caFile && rootReal && (real === null || !isInside(real!, rootReal))) {
        const where = keyLocation(file.text, 'caFile');
        return {
          error:
            `${file.path}${where ? `:${where.line}:${where.column}` : ''}: "caFile" ${config.caFile} is outside the workspace folder ${rootReal}; ` +
            'a workspace\'s querylens.json may only name files inside the workspace. Move the CA file into the workspace, or set the backend in your own user settings',
          ...where,
        };
      }
      return { config };
    }
    const config = validateClusterConfig(raw);
    return { config: config.caFile && root && !isAbsolute(config.caFile) ? { ...config, caFile: join(root, config.caFile) } : config };
  } catch (err) {
    if (err instanceof ClusterConfigError) return { error: err.message, ...(err.line ? { line: err.line, column: err.column } : {}) };
    throw err;
  }
}

export function resolveConfig(config: QuerylensConfig, root: string | null, backendFile?: { path: string; text: string }): ResolvedConfig {
  const path = (p: string | undefined): string | null => {
    if (!p) return null;
    if (isAbsolute(p) || !root) return resolve(p);
    return join(root, p);
  };
  return {
    corpus: path(config.corpus),
    index: path(config.index),
    qrels: path(config.qrels),
    model: path(config.model),
    scorer: { ...DEFAULTS.scorer, ...config.scorer },
    expansion: { ...DEFAULTS.expansion, ...config.expansion },
    device: config.device ?? DEFAULTS.device,
    formatting: { ...DEFAULTS.formatting, ...config.formatting },
    learnedExpansion: { ...DEFAULTS.learnedExpansion, ...config.learnedExpansion },
    backend: resolveBackend(config.backend, root, backendFile),
    root,
  };
}

/** Reads `querylens.json` from `root`; a missing file is not a problem (everything is optional). */
export async function readConfigFile(root: string | null): Promise<{ config: QuerylensConfig; problems: ConfigProblem[]; found: boolean; text?: string }> {
  if (!root) return { config: {}, problems: [], found: false };
  let text: string;
  try {
    text = await readFile(join(root, CONFIG_FILE_NAME), 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { config: {}, problems: [], found: false };
    return { config: {}, problems: [{ source: 'querylens.json', message: `cannot be read: ${(err as Error).message}` }], found: true };
  }
  return { ...parseConfigFile(text), found: true, text };
}

// ---- Trust model: what a workspace's querylens.json may point at (docs/ARCHITECTURE.md, "Trust model") ----

/** The settings that name files or folders. */
export const PATH_KEYS = ['corpus', 'index', 'qrels', 'model'] as const;
export type PathKey = (typeof PATH_KEYS)[number];

/**
 * The real path of `path` (`..` and symbolic links resolved); for a path that does not exist
 * yet (an index to be built), the real path of its nearest existing ancestor joined with the
 * rest. Null when a component is a symbolic link that cannot be resolved (a dangling link
 * could later point anywhere, and a build would write through it).
 */
export function realPathOrAncestor(path: string): string | null {
  let current = resolve(path);
  const rest: string[] = [];
  for (;;) {
    let exists = true;
    try {
      lstatSync(current);
    } catch {
      exists = false;
    }
    if (exists) {
      try {
        return join(realpathSync(current), ...rest.reverse());
      } catch {
        return null;
      }
    }
    const parent = dirname(current);
    if (parent === current) return resolve(path);
    rest.push(basename(current));
    current = parent;
  }
}

/** Whether `child` is `root` or inside it (both real paths). */
function isInside(child: string, root: string): boolean {
  const rel = relative(root, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** 1-based line and column of `"key"` in the file's text (the first occurrence), if found. */
function keyLocation(text: string | undefined, key: string): { line: number; column: number } | undefined {
  if (!text) return undefined;
  const at = text.indexOf(`"${key}"`);
  if (at < 0) return undefined;
  const before = text.slice(0, at);
  const line = before.split('\n').length;
  return { line, column: at - before.lastIndexOf('\n') };
}

/**
 * Drops the path settings of a workspace's querylens.json that lead outside the workspace
 * folder once `..` and symbolic links are resolved (and an index that would be the workspace
 * folder itself, which a build would replace), each with a located problem that says what to do.
 * A cloned repository's querylens.json must not make the server read, show or write anything
 * outside it (issue 11 item 4). Keys the user's own settings override are not checked: their
 * value is not used. Without a workspace folder no querylens.json is read at all.
 */
export function confineToWorkspace(
  file: QuerylensConfig,
  overridden: QuerylensConfig,
  root: string | null,
  text?: string,
): { config: QuerylensConfig; problems: ConfigProblem[] } {
  if (!root) return { config: file, problems: [] };
  const realRoot = realPathOrAncestor(root) ?? resolve(root);
  const config: QuerylensConfig = { ...file };
  const problems: ConfigProblem[] = [];
  for (const key of PATH_KEYS) {
    const value = file[key];
    if (value === undefined || overridden[key] !== undefined) continue;
    const absolute = isAbsolute(value) ? resolve(value) : join(root, value);
    const real = realPathOrAncestor(absolute);
    const inside = real !== null && isInside(real, realRoot) && !(key === 'index' && real === realRoot);
    if (inside) continue;
    delete config[key];
    const where = keyLocation(text, key);
    const at = where ? `${CONFIG_FILE_NAME}:${where.line}:${where.column}: ` : '';
    const why =
      real === null
        ? `"${value}" goes through a symbolic link that cannot be resolved`
        : real === realRoot
          ? `"${value}" is the workspace folder itself, which building an index would replace`
          : `"${value}" resolves to ${real}, outside the workspace folder ${realRoot}`;
    problems.push({
      source: 'querylens.json',
      message:
        `${at}"${key}" ignored: ${why}. A workspace's querylens.json may only name paths inside the workspace. ` +
        `Move the ${key} inside the workspace, or set "querylens.${key}" in your own user settings (not the workspace's), which are trusted.`,
      ...where,
    });
  }
  return { config, problems };
}
