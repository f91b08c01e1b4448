/**
 * The CLI's commands on an OpenSearch or Elasticsearch cluster (`--backend-config FILE`: a backend
 * configuration file, or a querylens.json with a `backend` section; credentials from the environment,
 * server/backends/remote/config.ts). Each command opens one server/service/cluster-session.ts
 * `ClusterSession`, the editor's, so the CLI and the editor rank, explain, expand, weigh and sweep on a
 * cluster through the same functions. A bad configuration is one located line; every cluster failure
 * (ClusterError: 401, 404 index, 429, timeout, refused connection, shard failure, …) is one line with
 * exit status 2, never a stack trace.
 */
import type { ClusterBackendOptions } from '../backends/remote/cluster-backend.js';
import type { Qrels } from '../engine/eval/index.js';
import type { ScorerName } from '../engine/scoring/scorers.js';
import type { ClusterSession } from '../service/cluster-session.js';
import { CliError } from './errors.js';
import type { ScorerCliOptions } from './commands/search-options.js';

/** The `--backend-config` option's help, the same for every command that takes it. */
export const BACKEND_CONFIG_HELP =
  'work on an OpenSearch/Elasticsearch cluster instead of a local index: a backend configuration file, or a querylens.json with a "backend" section (credentials from QUERYLENS_OPENSEARCH_* / QUERYLENS_ELASTICSEARCH_* variables)';

/** The measures a cluster session computes by default (the CLI's own commands name theirs). */
const CLI_MEASURES = ['map', 'ndcg_cut_10', 'P_10', 'recall_1000'];

/** Test seam: the clients' connection class (a mock replaying recorded responses) and the environment. */
let backendOptions: ClusterBackendOptions = {};
export function setClusterBackendOptions(options: ClusterBackendOptions): void {
  backendOptions = options;
}

export interface ClusterCliSettings {
  /** The scorer the queries are written for (the translation's diagnostics depend on it). */
  scorer?: ScorerName;
  /** Bo1's sizes (the CLI's defaults: 3 documents, 10 terms). */
  fbDocs?: number;
  fbTerms?: number;
  qrels?: Qrels | null;
}

/** The cluster of `file` as a session; a bad configuration or credential variable is one CliError line. */
export async function openClusterForCli(file: string, settings: ClusterCliSettings = {}, options: ClusterBackendOptions = backendOptions): Promise<ClusterSession> {
  const { readClusterConfig, ClusterConfigError } = await import('../backends/remote/config.js');
  const { ClusterBackend } = await import('../backends/remote/cluster-backend.js');
  const { ClusterSession } = await import('../service/cluster-session.js');
  const { SCORERS } = await import('../engine/scoring/scorers.js');
  let backend: InstanceType<typeof ClusterBackend>;
  try {
    backend = new ClusterBackend(readClusterConfig(file), options);
  } catch (err) {
    if (err instanceof ClusterConfigError) throw new CliError(err.message);
    throw err;
  }
  const name = settings.scorer ?? 'bm25';
  const defaults = { k1: SCORERS.bm25.defaults.k1!, b: SCORERS.bm25.defaults.b!, mu: SCORERS.ql.defaults.mu!, ...SCORERS[name].defaults };
  return new ClusterSession(
    backend,
    {
      scorer: { name, k1: defaults.k1, b: defaults.b, mu: defaults.mu },
      expansion: { method: 'bo1', fbDocs: settings.fbDocs ?? 3, fbTerms: settings.fbTerms ?? 10 },
      formatting: { width: 100 },
    },
    settings.qrels ?? null,
    CLI_MEASURES,
  );
}

/**
 * Runs `work` on the session and closes it; a ClusterError becomes its one line as a CliError (exit 2).
 * `probe`: learn the index's size and shards first (what the per-shard notes and statistics need).
 */
export async function onCluster<T>(session: ClusterSession, work: (session: ClusterSession) => Promise<T>, options: { probe?: boolean } = {}): Promise<T> {
  const { ClusterError } = await import('../backends/remote/errors.js');
  try {
    if (options.probe) session.summary = await session.backend.probe();
    return await work(session);
  } catch (err) {
    if (err instanceof ClusterError) throw new CliError(err.message);
    throw err;
  } finally {
    await session.close();
  }
}

/** The scorer options (search-options.ts addScorerOptions) that a cluster cannot use: its similarity scores. */
export function localScorerOptions(opts: ScorerCliOptions): Record<string, unknown> {
  return {
    '--index': opts.index,
    '--k1': opts.k1,
    '--b': opts.b,
    '--k3': opts.k3,
    '--mu': opts.mu,
    '--param': opts.param,
    '--anserini': opts.anserini,
    '--window-stats': opts.windowStats === 'exact' ? undefined : opts.windowStats,
  };
}

/** Says on stderr how the index's similarity differs from the scorer the queries are written for (nothing when it does not). */
export async function noteSimilarity(session: ClusterSession): Promise<void> {
  const note = await session.similarityNote();
  if (note) process.stderr.write(`querylens: note: ${note}\n`);
}

/** Options that only a local index can use, as one refusal line (the cluster ranks with its own index and similarity). */
export function refuseLocalOptions(options: Record<string, unknown>): void {
  const given = Object.entries(options).filter(([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0));
  if (given.length) throw new CliError(`${given.map(([name]) => name).join(', ')} cannot be used with --backend-config: the cluster ranks with its own index and similarity settings`);
}
