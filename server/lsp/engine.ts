/**
 * The boundary between the language server and the retrieval engine / weighting model.
 *
 * server.ts never imports server/engine directly: it holds one `EngineProvider`, asks it to
 * (re)configure whenever the configuration changes, shows its status to the user, and adds the
 * feature modules it contributes (from `initialized` on, so their custom requests exist while
 * the first configuration still builds or opens the index). The default provider is
 * `LocalEngineProvider` (engine/provider.ts: the index, qrels and weighting model in this
 * process). `ResourceCheckProvider` below is the engine-free alternative (tests, embedders):
 * it only reports whether the configured index and model exist on disk and contributes no
 * features (nothing is faked).
 *
 * Invariant: `configure` never throws and never blocks the LSP thread for long; every
 * failure is a `ResourceStatus` with a message and a fix that the client shows.
 */
import { stat } from 'node:fs/promises';
import type { ResolvedConfig } from './config.js';
import type { FeatureModule } from './features.js';

export type ResourceState =
  /** No path configured. */
  | 'not-configured'
  /** A path is configured but nothing is there. */
  | 'missing'
  /** The path exists; no engine is loaded to use it (this build has no engine features). */
  | 'found'
  /** Loaded and serving features. */
  | 'ready'
  /** Loading or loaded failed. */
  | 'error'
  /**
   * Being built or opened right now (only in answers to the `querylens/status` request made
   * before the first configuration is done; the notification is sent once it is).
   */
  | 'loading'
  /** Off because the workspace is not trusted (restricted mode, trust.ts). */
  | 'untrusted';

export interface ResourceStatus {
  state: ResourceState;
  /** Absolute path, when configured. */
  path: string | null;
  /** One sentence for the status bar tooltip / notification. */
  message: string;
  /** What the user can do about it; absent when nothing needs doing. */
  fix?: string;
}

/** Payload of the `querylens/status` notification. */
export interface EngineStatus {
  index: ResourceStatus;
  model: ResourceStatus;
  /** The learned surface-form expansion's model (surface.json in the model folder); absent from providers without one. */
  learnedExpansion?: ResourceStatus;
  /** Which provider produced the status. */
  provider: string;
}

/** The index is being built (from a corpus) or loaded (configuration read, index opened, model loaded). */
export interface IndexActivity {
  kind: 'building' | 'loading';
  /** Lower-case sentence fragment for messages: "the index is being built from <corpus> (1,200 documents so far)". */
  message: string;
}

export interface EngineProvider {
  readonly name: string;
  /** (Re)opens the index and model for this configuration. Must not throw. */
  configure(config: ResolvedConfig): Promise<EngineStatus>;
  status(): EngineStatus;
  /**
   * Feature modules backed by the engine (hover statistics, vocabulary completion, ...). Asked
   * before the first configure and after each one; modules answer "not loaded yet" states
   * (or nothing) until the engine is ready.
   */
  features(): FeatureModule[];
  /**
   * What the provider is doing to the index now ("the index is being built from …"), or null
   * when nothing is under way. Optional: providers without long work leave it out.
   */
  activity?(): IndexActivity | null;
  dispose(): Promise<void>;
}

async function pathKind(path: string): Promise<'file' | 'dir' | null> {
  try {
    const s = await stat(path);
    return s.isDirectory() ? 'dir' : 'file';
  } catch {
    return null;
  }
}

/** Describes the configured index without opening it. */
export async function checkIndex(config: ResolvedConfig): Promise<ResourceStatus> {
  if (!config.index) {
    return {
      state: 'not-configured',
      path: null,
      message: 'No index configured: hover statistics and result previews need one.',
      fix: 'Set "index" in querylens.json (or the querylens.index setting) to a folder built with `querylens index`.',
    };
  }
  const kind = await pathKind(config.index);
  if (kind !== 'dir') {
    return {
      state: 'missing',
      path: config.index,
      message: kind === 'file' ? `The index path ${config.index} is a file, not an index folder.` : `No index at ${config.index}.`,
      fix: config.corpus
        ? `Build it with \`querylens index ${config.corpus} --out ${config.index}\`, or correct the "index" path.`
        : 'Build one with `querylens index <corpus> --out <folder>`, or correct the "index" path.',
    };
  }
  return { state: 'found', path: config.index, message: `Index folder found at ${config.index}; this version of the server does not load it yet.` };
}

/** Describes the configured weighting model without loading it. */
export async function checkModel(config: ResolvedConfig): Promise<ResourceStatus> {
  if (!config.model) {
    return {
      state: 'not-configured',
      path: null,
      message: 'No weighting model configured: weight suggestions need one.',
      fix: 'Set "model" in querylens.json (or the querylens.model setting) to the model file or folder.',
    };
  }
  const kind = await pathKind(config.model);
  if (!kind) {
    return {
      state: 'missing',
      path: config.model,
      message: `No model at ${config.model}.`,
      fix: 'Correct the "model" path, or train/export the model first (see the README).',
    };
  }
  return { state: 'found', path: config.model, message: `Model found at ${config.model}; this version of the server does not load it yet.` };
}

/** The provider used while no engine is plugged in: reports, contributes nothing. */
export class ResourceCheckProvider implements EngineProvider {
  readonly name = 'resource-check';
  private current: EngineStatus = {
    provider: this.name,
    index: { state: 'not-configured', path: null, message: 'Not configured yet.' },
    model: { state: 'not-configured', path: null, message: 'Not configured yet.' },
  };

  async configure(config: ResolvedConfig): Promise<EngineStatus> {
    const [index, model] = await Promise.all([checkIndex(config), checkModel(config)]);
    this.current = { provider: this.name, index, model };
    return this.current;
  }

  status(): EngineStatus {
    return this.current;
  }

  features(): FeatureModule[] {
    return [];
  }

  async dispose(): Promise<void> {}
}
