/**
 * The configuration of a search-cluster backend (querylens.json `backend`, or a file of its own):
 *
 *   { "type": "opensearch" | "elasticsearch", "url": "https://host:9200", "index": "docs",
 *     "fields": ["title", "text"], "timeoutMs": 30000, "maxRetries": 1, "tlsVerify": true, "caFile": "ca.pem",
 *     "dfsQueryThenFetch": false }
 *
 * Credentials never come from a file: a URL with a user or password in it is refused, and the client
 * authenticates with environment variables only (`CREDENTIAL_VARIABLES`). TLS certificates are verified
 * unless the file says `"tlsVerify": false` (a cluster with its own CA should name it in `caFile`).
 * Every problem is reported at its place in the file (`file:line:col: message`).
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { findNodeAtLocation, getNodeValue, parseTree, printParseErrorCode, type Node as JsonNode, type ParseError } from 'jsonc-parser';
import { closestName } from '../../../grammar/index.js';
import type { ClusterKind } from '../search-request.js';

export interface ClusterConfig {
  type: ClusterKind;
  /** Base URL of the cluster (http or https), without credentials. */
  url: string;
  /** The index (or alias) searched: one name, no wildcard or list, so explain and document fetch address one index. */
  index: string;
  /** Fields a term without a field is searched in (default ["text"]). */
  fields: string[];
  /** Field shown as a document's title (default "title"). */
  titleField: string;
  /** Per-request timeout in milliseconds (default 30000). */
  timeoutMs: number;
  /** Retries after a connection failure (default 1); the OpenSearch client also retries a timeout, the Elasticsearch client does not. */
  maxRetries: number;
  /** Verify the cluster's TLS certificate (default true). */
  tlsVerify: boolean;
  /** PEM file of the CA that signed the cluster's certificate, resolved against the config file's folder. */
  caFile?: string;
  /**
   * Search with `search_type=dfs_query_then_fetch` (default false): the cluster first gathers every
   * shard's term statistics, so each shard scores with whole-index df/cf instead of its own.
   */
  dfsQueryThenFetch: boolean;
}

/** Environment variables the client reads its credentials from, per cluster kind (never from a file). */
export const CREDENTIAL_VARIABLES = {
  opensearch: { username: 'QUERYLENS_OPENSEARCH_USERNAME', password: 'QUERYLENS_OPENSEARCH_PASSWORD' },
  elasticsearch: {
    username: 'QUERYLENS_ELASTICSEARCH_USERNAME',
    password: 'QUERYLENS_ELASTICSEARCH_PASSWORD',
    apiKey: 'QUERYLENS_ELASTICSEARCH_API_KEY',
  },
} as const;

export type ClusterCredentials = { kind: 'none' } | { kind: 'basic'; username: string; password: string } | { kind: 'api-key'; apiKey: string };

const KEYS = ['type', 'url', 'index', 'fields', 'titleField', 'timeoutMs', 'maxRetries', 'tlsVerify', 'caFile', 'dfsQueryThenFetch'] as const;
const DEFAULTS = { fields: ['text'], titleField: 'title', timeoutMs: 30_000, maxRetries: 1, tlsVerify: true, dfsQueryThenFetch: false };

/** A configuration problem, located in the file when there is one. */
export class ClusterConfigError extends Error {
  readonly code = 'cluster/config';
  constructor(
    message: string,
    readonly file?: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(file ? `${file}${line ? `:${line}:${column}` : ''}: ${message}` : message);
    this.name = 'ClusterConfigError';
  }
}

/** Where a JSON value lies, for messages. */
interface Locator {
  file?: string;
  at(path: (string | number)[], key?: boolean): { line: number; column: number } | undefined;
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

function locator(text: string, tree: JsonNode | undefined, file?: string, base: (string | number)[] = []): Locator {
  return {
    file,
    at(path, key = false) {
      if (!tree) return undefined;
      const node = findNodeAtLocation(tree, [...base, ...path]);
      if (!node) return path.length ? this.at(path.slice(0, -1), true) : undefined;
      // A key's place is its name (the property node's first child), a value's its first character.
      const target = key && node.parent?.type === 'property' ? node.parent.children?.[0] ?? node : node;
      return lineColumn(text, target.offset);
    },
  };
}

function fail(loc: Locator, path: (string | number)[], message: string, key = false): never {
  const at = loc.at(path, key);
  throw new ClusterConfigError(message, loc.file, at?.line, at?.column);
}

/**
 * Checks a parsed configuration object and fills in the defaults. `locate` places errors in the file
 * the object came from (see `parseClusterConfig`); without it messages name the key only.
 */
export function validateClusterConfig(value: unknown, locate: Locator = { at: () => undefined }): ClusterConfig {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(locate, [], 'the backend must be an object {"type": "opensearch" | "elasticsearch", "url": …, "index": …}');
  }
  const obj = value as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    if (!(KEYS as readonly string[]).includes(key)) {
      const near = closestName(key, KEYS);
      const secret = /user|pass|key|token|auth|secret|cred/i.test(key);
      fail(
        locate,
        [key],
        secret
          ? `"${key}": credentials are never read from a file; set ${credentialNames().join(', ')} in the environment instead`
          : `unknown backend key "${key}"${near ? ` (did you mean "${near}"?)` : ''}; known keys: ${KEYS.join(', ')}`,
        true,
      );
    }
  }
  const type = obj.type;
  if (type === undefined) fail(locate, [], 'the backend needs "type": "opensearch" or "elasticsearch"');
  if (type !== 'opensearch' && type !== 'elasticsearch') fail(locate, ['type'], `"type" must be "opensearch" or "elasticsearch", not ${JSON.stringify(type)}`);

  if (obj.url === undefined) fail(locate, [], 'the backend needs "url", e.g. "https://localhost:9200"');
  if (typeof obj.url !== 'string') fail(locate, ['url'], '"url" must be a string such as "https://localhost:9200"');
  let url: URL;
  try {
    url = new URL(obj.url);
  } catch {
    fail(locate, ['url'], `"url" is not a valid URL: ${JSON.stringify(obj.url)} (expected e.g. "https://localhost:9200")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') fail(locate, ['url'], `"url" must be http:// or https://, not ${url.protocol}//`);
  if (url.username || url.password) {
    fail(locate, ['url'], `"url" must not contain a user or password (credentials are never read from a file); set ${credentialNames(type).join(' / ')} in the environment`);
  }

  if (obj.index === undefined) fail(locate, [], 'the backend needs "index", the index or alias to search');
  if (typeof obj.index !== 'string' || obj.index.trim() === '') fail(locate, ['index'], '"index" must be a non-empty index or alias name');
  const badIndex = /[\\/*?"<>| ,#:]/.exec(obj.index);
  if (badIndex) {
    fail(locate, ['index'], `"index" must name one index or alias; ${JSON.stringify(badIndex[0])} is not allowed (no lists or wildcards: explain and document fetch address one index)`);
  }
  if (/^[-_+]/.test(obj.index) || obj.index !== obj.index.toLowerCase()) {
    fail(locate, ['index'], `"index" ${JSON.stringify(obj.index)} is not a valid index name (lower case, not starting with -, _ or +)`);
  }

  let fields = DEFAULTS.fields;
  if (obj.fields !== undefined) {
    if (!Array.isArray(obj.fields) || obj.fields.length === 0) fail(locate, ['fields'], '"fields" must be a non-empty list of field names, e.g. ["title", "text"]');
    obj.fields.forEach((f, i) => {
      if (typeof f !== 'string' || f.trim() === '') fail(locate, ['fields', i], '"fields" items must be non-empty field names');
    });
    fields = obj.fields as string[];
  }
  const titleField = optional(obj, 'titleField', 'string', DEFAULTS.titleField, locate);
  const timeoutMs = optional(obj, 'timeoutMs', 'number', DEFAULTS.timeoutMs, locate);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) fail(locate, ['timeoutMs'], '"timeoutMs" must be a whole number of milliseconds > 0');
  const maxRetries = optional(obj, 'maxRetries', 'number', DEFAULTS.maxRetries, locate);
  if (!Number.isInteger(maxRetries) || maxRetries < 0 || maxRetries > 10) fail(locate, ['maxRetries'], '"maxRetries" must be a whole number from 0 to 10');
  const tlsVerify = optional(obj, 'tlsVerify', 'boolean', DEFAULTS.tlsVerify, locate);
  const dfsQueryThenFetch = optional(obj, 'dfsQueryThenFetch', 'boolean', DEFAULTS.dfsQueryThenFetch, locate);
  const caFile = obj.caFile === undefined ? undefined : optional(obj, 'caFile', 'string', '', locate);
  return { type, url: url.href.replace(/\/$/, ''), index: obj.index, fields, titleField, timeoutMs, maxRetries, tlsVerify, ...(caFile ? { caFile } : {}), dfsQueryThenFetch };
}

function optional<T extends string | number | boolean>(obj: Record<string, unknown>, key: string, type: 'string' | 'number' | 'boolean', fallback: T, locate: Locator): T {
  const v = obj[key];
  if (v === undefined) return fallback;
  if (typeof v !== type) fail(locate, [key], `"${key}" must be a ${type}, not ${JSON.stringify(v)}`);
  return v as T;
}

/**
 * Parses a configuration file's text: the whole file is the backend object, or (a querylens.json) its
 * `backend` key is. `caFile` is resolved against the file's folder.
 */
export function parseClusterConfig(text: string, file: string): ClusterConfig {
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: false, disallowComments: false });
  if (errors.length || !tree) {
    const e = errors[0];
    const at = lineColumn(text, e?.offset ?? 0);
    throw new ClusterConfigError(`not valid JSON: ${e ? printParseErrorCode(e.error) : 'empty file'}`, file, at.line, at.column);
  }
  const value = getNodeValue(tree) as unknown;
  const inner = typeof value === 'object' && value !== null && !Array.isArray(value) && 'backend' in value;
  const config = validateClusterConfig(inner ? (value as { backend: unknown }).backend : value, locator(text, tree, file, inner ? ['backend'] : []));
  return config.caFile ? { ...config, caFile: resolve(dirname(file), config.caFile) } : config;
}

/** Reads and checks a configuration file (see parseClusterConfig); a missing file is a ClusterConfigError. */
export function readClusterConfig(file: string): ClusterConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ClusterConfigError(`cannot read the backend configuration: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, file);
  }
  return parseClusterConfig(text, file);
}

function credentialNames(kind?: ClusterKind): string[] {
  const kinds = kind ? [kind] : (['opensearch', 'elasticsearch'] as const);
  return kinds.flatMap((k) => Object.values(CREDENTIAL_VARIABLES[k]));
}

/**
 * The credentials of a cluster of `kind`, from the environment only: an API key (Elasticsearch) or a user
 * and password. Setting only one of user and password is an error, not an anonymous request.
 */
export function credentialsFromEnvironment(kind: ClusterKind, env: NodeJS.ProcessEnv = process.env): ClusterCredentials {
  const names = CREDENTIAL_VARIABLES[kind];
  if ('apiKey' in names) {
    const apiKey = env[names.apiKey];
    if (apiKey) return { kind: 'api-key', apiKey };
  }
  const username = env[names.username];
  const password = env[names.password];
  if (username && password) return { kind: 'basic', username, password };
  if (username || password) {
    throw new ClusterConfigError(`${username ? names.username : names.password} is set but ${username ? names.password : names.username} is not: set both, or neither for a cluster without security`);
  }
  return { kind: 'none' };
}
