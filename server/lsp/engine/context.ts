/**
 * What the engine feature modules get from the provider that serves them. It lives apart from
 * provider.ts so the feature modules depend on this contract, not on the provider that imports them.
 */
import type { CancellationToken, WorkDoneProgressReporter } from 'vscode-languageserver';
import type { BuildSummary } from '../../service/backend.js';
import type { ResolvedConfig } from '../config.js';
import type { IndexActivity, ResourceStatus } from '../engine.js';
import type { LiveDocuments } from './live-documents.js';
import type { ClusterSession } from './cluster-session.js';
import type { EngineSession } from './session.js';
import type { LoadedModel } from './weights.js';
import type { LoadedLearnedExpansion } from './learned-model.js';

/**
 * What the feature modules get: the current session (null while none is loaded) and the documents.
 * At most one of `session()` (the local index) and `cluster()` (querylens.json's `backend`) is set.
 */
export interface EngineContext {
  session(): EngineSession | null;
  /** The search cluster the workspace ranks on, when querylens.json has a `backend` section. */
  cluster(): ClusterSession | null;
  /** The term-weighting model, when one is configured and loaded. */
  model(): LoadedModel | null;
  /** The model's status (why model() is null: not configured, missing, broken). */
  modelStatus(): ResourceStatus;
  /** The learned surface-form expansion's model and resources, when the model folder holds one and it loaded. */
  learnedExpansion(): LoadedLearnedExpansion | null;
  /** Builds `config.corpus` into `config.index` now, even over an existing index (rebuildIndex). */
  rebuildIndex(config: ResolvedConfig, progress: OnDemandProgress): Promise<BuildOutcome>;
  /** What is happening to the index right now (a build, a load), or null when nothing is. */
  indexActivity(): IndexActivity | null;
  readonly documents: LiveDocuments;
}

/** Progress of a build a request asked for: the client's token (when it sent one) and the request's cancellation. */
export interface OnDemandProgress {
  reporter: WorkDoneProgressReporter | null;
  token: CancellationToken;
}

export interface BuildOutcome {
  status: ResourceStatus;
  /** The build's summary when it completed. */
  summary: BuildSummary | null;
  cancelled: boolean;
}
