/**
 * `LocalEngineProvider`: the engine in the server's own process. On each configuration it
 * opens the configured index (building it first from the configured corpus when the folder
 * does not exist), reads the qrels, and serves the engine feature modules from the loaded
 * session. Loading is asynchronous and reported with LSP work-done progress; the build is
 * cancellable from the client. Every failure ends as a ResourceStatus with the fix.
 *
 * A new configure() supersedes one still running: an in-flight build for another target is
 * aborted; one for the same corpus and folder is awaited instead of started twice.
 *
 * `rebuildIndex` (the `querylens/buildIndex` request) runs the same build on demand, over an
 * existing index too, reporting on the client's progress token. A request that arrives while
 * a build of the same corpus and folder runs (e.g. the first-use build) joins it: its token
 * gets `begin` (with the latest report) at once, then every report and the `end`, and
 * cancelling it stops that one build (there is only one). The engine's build writes a
 * temporary folder and swaps it in only when complete, so a failed or cancelled build leaves
 * the previous index as it was.
 *
 * `indexActivity()` says when the index is being built or loaded, so that requests, lenses and
 * messages can say so instead of answering as if no index were configured.
 *
 * When querylens.json has a `backend` section the session ranks on that search cluster instead
 * (a `ClusterSession`; no local index is opened): the client is made with credentials from the
 * environment only, and one probe search checks that the cluster answers for the index. A bad
 * section, a credential problem or a failed probe is the index status (state "error", the
 * ClusterError's message and what to do); the session is kept after a failed probe, so a later
 * lens or request retries and says what failed. `ProviderOptions.cluster` is the test seam (a
 * replaying HTTP connection, an environment), used by in-process tests only.
 */
import { existsSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import {
  MessageType,
  ShowMessageNotification,
  type CancellationToken,
  type Connection,
  type WorkDoneProgressReporter,
  type WorkDoneProgressServerReporter,
} from 'vscode-languageserver';
import { readQrelsFile, type Qrels } from '../../engine/eval/index.js';
import type { ClusterBackendOptions } from '../../backends/remote/cluster-backend.js';
import type { ClusterConfig } from '../../backends/remote/config.js';
import { ClusterSession } from './cluster-session.js';
import { clusterFeaturesModule } from './cluster-features.js';
import { buildLocalIndex, IndexError, openLocalBackend, type BuildSummary } from '../../service/backend.js';
import { WEIGHT_MODEL_NAMES, type WeightModelName } from '../../model/runtime.js';
import { loadWeightModelOffThread } from '../../model/worker-model.js';
import type { ResolvedConfig } from '../config.js';
import { checkIndex, checkModel, type EngineProvider, type EngineStatus, type IndexActivity, type ResourceStatus } from '../engine.js';
import type { FeatureModule } from '../features.js';
import { engineDiagnosticsModule } from './engine-diagnostics.js';
import { expansionActionModule } from './expansion-action.js';
import { hoverStatsModule } from './hover-stats.js';
import { LiveDocuments } from './live-documents.js';
import { previewLensModule } from './preview-lens.js';
import { requestsModule } from './requests.js';
import { workbenchRequestsModule } from './workbench-requests.js';
import { panelRequestsModule } from './panel-requests.js';
import { EngineSession, PREVIEW_MEASURES } from './session.js';
import { vocabularyCompletionModule } from './vocabulary-completion.js';
import { unjudgedDiagnosticsModule } from './unjudged-diagnostics.js';
import { weightHintsModule } from './weight-hints.js';
import type { LoadedModel } from './weights.js';
import type { BuildOutcome, EngineContext, OnDemandProgress } from './context.js';
import { weightsActionModule } from './weights-action.js';
import { learnedExpansionModule } from './learned-expansion.js';
import { loadLearnedExpansion, learnedStatus, prepareLearned, type LoadedLearnedExpansion } from './learned-model.js';

class BuildCancelled extends Error {}

export interface ProviderOptions {
  /** Passed to every ClusterBackend the provider makes (tests: a connection replaying recorded responses, an environment). */
  cluster?: ClusterBackendOptions;
  /** Loads the configured model in place of the worker-thread loader (tests: a model that records what it is given). */
  loadModel?: typeof loadWeightModelOffThread;
}

interface Build {
  key: string;
  corpus: string;
  title: string;
  aborted: boolean;
  promise: Promise<BuildOutcome>;
  /** The requests waiting on this build (the first one and those that joined it): each gets the progress and may cancel. */
  participants: OnDemandProgress[];
  /** The latest progress report, replayed to a request that joins later. */
  last: { percentage: number; message: string } | null;
  docs: number;
}

export class LocalEngineProvider implements EngineProvider {
  readonly name = 'local';
  private current: EngineStatus = {
    provider: this.name,
    index: { state: 'not-configured', path: null, message: 'Not configured yet.' },
    model: { state: 'not-configured', path: null, message: 'Not configured yet.' },
  };
  private loaded: EngineSession | null = null;
  private clusterSession: ClusterSession | null = null;
  private weightModel: LoadedModel | null = null;
  private learned: LoadedLearnedExpansion | null = null;
  /** meta.bin mtime of the loaded index, to reopen only when the index changed. */
  private loadedStamp = '';
  private build: Build | null = null;
  private generation = 0;
  /** configure() calls in flight, and whether one ever finished (before that the configuration is still being read). */
  private configuring = 0;
  private configuredOnce = false;
  private readonly context: EngineContext;
  private readonly modules: FeatureModule[];

  constructor(
    private readonly connection?: Connection,
    private readonly options: ProviderOptions = {},
  ) {
    const documents = new LiveDocuments();
    this.context = {
      session: () => this.loaded,
      cluster: () => this.clusterSession,
      model: () => this.weightModel,
      modelStatus: () => this.current.model,
      learnedExpansion: () => this.learned,
      rebuildIndex: (config, progress) => this.rebuildIndex(config, progress),
      indexActivity: () => this.activity(),
      documents,
    };
    this.modules = [
      engineDiagnosticsModule(this.context),
      unjudgedDiagnosticsModule(this.context),
      hoverStatsModule(this.context),
      vocabularyCompletionModule(this.context),
      previewLensModule(this.context),
      expansionActionModule(this.context),
      requestsModule(this.context),
      workbenchRequestsModule(this.context),
      panelRequestsModule(this.context),
      weightsActionModule(this.context),
      weightHintsModule(this.context),
      learnedExpansionModule(this.context),
      clusterFeaturesModule(this.context),
    ];
  }

  async configure(config: ResolvedConfig): Promise<EngineStatus> {
    this.configuring++;
    try {
      return await this.configureNow(config);
    } finally {
      this.configuring--;
      this.configuredOnce = true;
    }
  }

  /** A build running now, else a (re)configuration in flight or not yet begun; null when the index is idle. */
  activity(): IndexActivity | null {
    const build = this.build;
    if (build && !build.aborted) {
      const docs = build.docs > 0 ? ` (${build.docs.toLocaleString('en-US')} documents so far)` : '';
      return { kind: 'building', message: `the index is being built from ${build.corpus}${docs}` };
    }
    if (this.configuring > 0 || !this.configuredOnce) return { kind: 'loading', message: 'the index and model are being loaded' };
    return null;
  }

  private async configureNow(config: ResolvedConfig): Promise<EngineStatus> {
    const generation = ++this.generation;
    let index: ResourceStatus;
    try {
      index = config.backend ? await this.openCluster(config, generation) : await this.loadIndex(config, generation);
    } catch (err) {
      // loadIndex turns every expected failure into a status; this is the safety net.
      index = { state: 'error', path: config.index, message: `Loading the index failed: ${describe(err)}`, fix: 'See the server log; rebuild the index with `querylens index`.' };
    }
    let model: ResourceStatus;
    try {
      model = await this.loadModel(config);
    } catch (err) {
      model = { state: 'error', path: config.model, message: `Loading the weighting model failed: ${describe(err)}`, fix: 'See the server log.' };
    }
    const cluster = this.clusterSession;
    if (model.state === 'ready' && cluster && this.weightModel?.model.readsStatistics) {
      // Where a collection-aware model's inputs come from on a cluster (server/backends/remote/cluster-statistics.ts).
      const shards = cluster.summary && cluster.summary.shards > 1 ? `one shard's of ${cluster.summary.shards} (_termvectors)` : 'from _termvectors';
      model = {
        ...model,
        message: `${model.message} It reads each query's statistics from the cluster: df by _count over every shard; cf, ictf and bo1 ${shards}; a #1 pair's cf is its document count.`,
      };
    }
    let learnedExpansion: ResourceStatus;
    try {
      learnedExpansion = await this.loadLearned(config);
    } catch (err) {
      learnedExpansion = { state: 'error', path: config.model, message: `Loading the learned-expansion model failed: ${describe(err)}`, fix: 'See the server log.' };
    }
    if (generation === this.generation) this.current = { provider: this.name, index, model, learnedExpansion };
    return this.current;
  }

  status(): EngineStatus {
    return this.current;
  }

  features(): FeatureModule[] {
    return this.modules;
  }

  async dispose(): Promise<void> {
    if (this.build) this.build.aborted = true;
    this.loaded = null;
    await this.closeCluster();
    const model = this.weightModel;
    this.weightModel = null;
    await model?.model.dispose().catch(() => undefined);
    const learned = this.learned;
    this.learned = null;
    await learned?.tools.model.release().catch(() => undefined);
  }

  /**
   * Loads the configured model (server/model loadWeightModel): a folder holding config.json,
   * or one of its .onnx files (the file name picks twbert or deepct). Reused while the folder,
   * name and device stay the same.
   */
  private async loadModel(config: ResolvedConfig): Promise<ResourceStatus> {
    if (!config.model || !existsSync(config.model)) {
      await this.dropModel();
      return checkModel(config);
    }
    const isFile = !statSync(config.model).isDirectory();
    const dir = isFile ? dirname(config.model) : config.model;
    const stem = isFile ? basename(config.model).replace(/\.onnx$/, '') : 'twbert';
    const name: WeightModelName = (WEIGHT_MODEL_NAMES as readonly string[]).includes(stem) ? (stem as WeightModelName) : 'twbert';
    const key = `${dir}\0${name}\0${config.device}`;
    if (this.weightModel?.key === key) return modelStatus(this.weightModel, config.model);
    await this.dropModel();
    const progress = await this.progress(`querylens: loading the ${name} model`, false);
    try {
      // In a worker thread: inference must not block the request thread (worker-model.ts).
      const result = await (this.options.loadModel ?? loadWeightModelOffThread)(dir, { model: name, device: config.device });
      if (!result.ok) {
        return {
          state: result.error.kind === 'missing-model' ? 'missing' : 'error',
          path: config.model,
          message: result.error.message,
          fix:
            result.error.kind === 'cuda-unavailable'
              ? 'Set "device" to "auto" or "cpu" in querylens.json.'
              : 'Point "model" at a folder with config.json, tokenizer.json and the .onnx file (model/artifacts), or remove it.',
        };
      }
      this.weightModel = { model: result.model, key, cache: new Map() };
      for (const notice of result.model.notices) this.log(`querylens: ${notice}`);
      return modelStatus(this.weightModel, config.model);
    } finally {
      progress?.done();
    }
  }

  /**
   * The learned-expansion model of the model folder (learned-expansion.ts), reused while the folder and device
   * stay the same; its resources are read for the loaded index here, off the request path.
   */
  private async loadLearned(config: ResolvedConfig): Promise<ResourceStatus> {
    const previous = this.learned;
    const { loaded, status } = await loadLearnedExpansion(config, previous);
    this.learned = loaded;
    if (previous && previous !== loaded) await previous.tools.model.release().catch(() => undefined);
    if (!loaded || !this.loaded) return status;
    const progress = await this.progress('querylens: reading the learned expansion\'s word lists', false);
    try {
      await new Promise((r) => setImmediate(r));
      prepareLearned(loaded, this.loaded);
    } finally {
      progress?.done();
    }
    return learnedStatus(loaded, status.path!);
  }

  private async dropModel(): Promise<void> {
    const model = this.weightModel;
    this.weightModel = null;
    await model?.model.dispose().catch(() => undefined);
  }

  /** The loaded session, for tests and benches in-process. */
  session(): EngineSession | null {
    return this.loaded;
  }

  private async closeCluster(): Promise<void> {
    const cluster = this.clusterSession;
    this.clusterSession = null;
    await cluster?.close().catch(() => undefined);
  }

  /** The session on querylens.json's `backend` cluster (see the file comment); the status says whether it answers. */
  private async openCluster(config: ResolvedConfig, generation: number): Promise<ResourceStatus> {
    this.loaded = null;
    this.loadedStamp = '';
    await this.closeCluster();
    const configFile = config.root ? `${config.root}/querylens.json` : null;
    const backend = config.backend!;
    if ('error' in backend) {
      return {
        state: 'error',
        path: configFile,
        message: `The "backend" section cannot be used: ${backend.error}.`,
        fix: 'Correct the "backend" section of querylens.json (README, "Use a cluster"), or remove it to use the local index.',
      };
    }
    const cluster = backend.config;
    const where = clusterLocation(cluster);
    const { ClusterBackend } = await import('../../backends/remote/cluster-backend.js');
    const { ClusterConfigError } = await import('../../backends/remote/config.js');
    const { ClusterError } = await import('../../backends/remote/errors.js');
    let client: InstanceType<typeof ClusterBackend>;
    try {
      client = new ClusterBackend(cluster, this.options.cluster);
    } catch (err) {
      if (!(err instanceof ClusterConfigError)) throw err;
      return { state: 'error', path: where, message: `The cluster cannot be used: ${err.message}.`, fix: 'Set the credential variables in the environment the editor starts the server from, then reload.' };
    }
    if (generation !== this.generation) {
      await client.close().catch(() => undefined);
      return this.current.index;
    }
    const qrels = this.readQrels(config);
    const session = new ClusterSession(client, config, qrels.qrels, PREVIEW_MEASURES);
    this.clusterSession = session;
    const progress = await this.progress(`querylens: connecting to ${where}`, false);
    try {
      session.summary = await client.probe();
    } catch (err) {
      if (!(err instanceof ClusterError)) throw err;
      if (generation !== this.generation) return this.current.index;
      return {
        state: 'error',
        path: where,
        message: `The cluster cannot be used: ${err.message} (${err.code}).`,
        fix: 'Fix the cause, then save querylens.json (or reload) to connect again; previews and requests retry meanwhile and say what failed.',
      };
    } finally {
      progress?.done();
    }
    if (generation !== this.generation) return this.current.index;
    // Issue 12 §2: say when the index's similarity (its k1/b or mu) is not the one the queries are written for.
    let similarityNote: string | null;
    try {
      similarityNote = await session.similarityNote();
    } catch (err) {
      if (!(err instanceof ClusterError)) throw err;
      similarityNote = `the index's similarity settings could not be read (${err.message}), so querylens cannot say whether the cluster scores as the ${config.scorer.name} scorer the queries are written for`;
    }
    if (generation !== this.generation) return this.current.index;
    const { numDocs, shards } = session.summary;
    const qrelsNote = qrels.qrels ? `, qrels for ${qrels.qrels.size} queries` : '';
    const shardNote =
      shards > 1 && !cluster.dfsQueryThenFetch
        ? ` Note: the index has ${shards} shards and each scores with its own term statistics; set "dfsQueryThenFetch": true in "backend" for whole-index statistics.`
        : '';
    this.log(`querylens: ranking on ${where}: ${numDocs} documents, ${shards} shard${shards === 1 ? '' : 's'}`);
    return {
      state: 'ready',
      path: where,
      message: `Ranking on ${where}: ${numDocs.toLocaleString('en-US')} documents, ${shards} shard${shards === 1 ? '' : 's'}${qrelsNote}.${shardNote}${similarityNote ? ` Note: ${similarityNote}.` : ''}${qrels.problem ? ` Note: ${qrels.problem}.` : ''}`,
    };
  }

  private async loadIndex(config: ResolvedConfig, generation: number): Promise<ResourceStatus> {
    await this.closeCluster();
    if (!config.index) {
      this.loaded = null;
      return checkIndex(config);
    }
    const path = config.index;
    if (!existsSync(path)) {
      if (!config.corpus) {
        this.loaded = null;
        return checkIndex(config);
      }
      if (!existsSync(config.corpus)) {
        this.loaded = null;
        return {
          state: 'missing',
          path,
          message: `No index at ${path}, and the corpus ${config.corpus} to build it from does not exist.`,
          fix: `Correct "corpus" (or "index") in querylens.json, or build the index yourself with \`querylens index ${config.corpus} --out ${path}\`.`,
        };
      }
      const built = (await this.buildOnce(config.corpus, path)).status;
      if (built.state !== 'ready') {
        if (generation === this.generation) this.loaded = null;
        return built;
      }
    }
    if (generation !== this.generation) return this.current.index;

    const stamp = indexStamp(path);
    if (this.loaded && this.loaded.indexPath === path && this.loadedStamp === stamp) {
      // Same index: only the qrels and scorer settings may have changed.
      const qrels = this.readQrels(config);
      this.loaded = new EngineSession(this.loaded.backend, config, qrels.qrels, path);
      return readyStatus(this.loaded, qrels.problem);
    }

    const progress = await this.progress('querylens: opening the index', false);
    try {
      // Let the initialize/initialized exchange and queued requests through before the synchronous open.
      await new Promise((r) => setImmediate(r));
      const started = performance.now();
      // The editor asks about the same queries again and again (lenses, hover, preview, explain).
      const backend = openLocalBackend(path, { reuseCompiledQueries: true });
      const qrels = this.readQrels(config);
      if (generation !== this.generation) return this.current.index;
      this.loaded = new EngineSession(backend, config, qrels.qrels, path);
      this.loadedStamp = stamp;
      this.log(`querylens: opened ${path} in ${(performance.now() - started).toFixed(0)} ms`);
      return readyStatus(this.loaded, qrels.problem);
    } catch (err) {
      this.loaded = null;
      const message = err instanceof IndexError ? err.message : `cannot open the index: ${describe(err)}`;
      return {
        state: 'error',
        path,
        message: `The index at ${path} cannot be used: ${message}.`,
        fix: config.corpus
          ? `Delete the folder and reload (the server rebuilds it from ${config.corpus}), or run \`querylens index ${config.corpus} --out ${path}\`.`
          : `Rebuild it with \`querylens index <corpus> --out ${path}\`, or point "index" at a valid index.`,
      };
    } finally {
      progress?.done();
    }
  }

  /**
   * The `querylens/buildIndex` request: builds the configured corpus into the configured index
   * folder (replacing an existing index only once the new one is complete). The caller reloads
   * the configuration afterwards so the new index is opened and announced.
   */
  rebuildIndex(config: ResolvedConfig, progress: OnDemandProgress): Promise<BuildOutcome> {
    if (!config.index || !config.corpus) {
      const missing = !config.corpus ? 'corpus' : 'index';
      return Promise.resolve({
        status: {
          state: 'not-configured',
          path: config.index,
          message: `No ${missing} configured: building an index needs both "corpus" and "index".`,
          fix: `Set "${missing}" in querylens.json (or the querylens.${missing} setting).`,
        },
        summary: null,
        cancelled: false,
      });
    }
    if (!existsSync(config.corpus)) {
      return Promise.resolve({
        status: {
          state: 'missing',
          path: config.index,
          message: `The corpus ${config.corpus} does not exist.`,
          fix: 'Correct "corpus" in querylens.json (or the querylens.corpus setting).',
        },
        summary: null,
        cancelled: false,
      });
    }
    return this.buildOnce(config.corpus, config.index, progress);
  }

  /** Builds corpus → folder; a request for an identical build that is already running joins it. */
  private buildOnce(corpus: string, path: string, onDemand?: OnDemandProgress): Promise<BuildOutcome> {
    const key = `${corpus}\0${path}`;
    const running = this.build;
    if (running && !running.aborted && running.key === key) {
      if (onDemand) this.join(running, onDemand);
      return running.promise;
    }
    if (running) running.aborted = true;
    const build: Build = {
      key,
      corpus,
      title: `querylens: building the index from ${corpus}`,
      aborted: false,
      promise: Promise.resolve(undefined as never),
      participants: [],
      last: null,
      docs: 0,
    };
    this.build = build;
    if (onDemand) this.join(build, onDemand);
    build.promise = this.runBuild(corpus, path, build, !onDemand?.reporter).finally(() => {
      if (this.build === build) this.build = null;
    });
    return build.promise;
  }

  /** Adds a request to a build: its token gets `begin` now (and the latest report), then what the build reports. */
  private join(build: Build, onDemand: OnDemandProgress): void {
    build.participants.push(onDemand);
    onDemand.reporter?.begin(build.title, build.last?.percentage ?? 0, build.last?.message, true);
  }

  /** `ownProgress`: the server asks the client for a progress token (the first-use build, or a request that sent none). */
  private async runBuild(corpus: string, path: string, build: Build, ownProgress: boolean): Promise<BuildOutcome> {
    const own = ownProgress ? await this.progress(build.title, true) : null;
    const cancelled = () =>
      build.aborted || !!own?.token.isCancellationRequested || build.participants.some((p) => p.token.isCancellationRequested);
    const reporters = () => [own, ...build.participants.map((p) => p.reporter)].filter((r): r is WorkDoneProgressReporter => r !== null);
    let lastReport = 0;
    try {
      const summary = await buildLocalIndex([corpus], path, {
        onProgress: (p) => {
          if (cancelled()) throw new BuildCancelled();
          build.docs = p.docs;
          const now = Date.now();
          if (now - lastReport > 100) {
            lastReport = now;
            const percentage = p.totalBytes > 0 ? Math.min(99, Math.floor((100 * p.bytesRead) / p.totalBytes)) : 0;
            build.last = { percentage, message: `${p.docs.toLocaleString('en-US')} documents` };
            for (const reporter of reporters()) reporter.report(build.last.percentage, build.last.message);
          }
        },
      });
      this.log(`querylens: built ${path}: ${summary.docs} documents, ${summary.terms} terms in ${summary.seconds.toFixed(1)} s`);
      return { status: { state: 'ready', path, message: `Built from ${corpus}.` }, summary, cancelled: false };
    } catch (err) {
      if (err instanceof BuildCancelled || cancelled()) {
        const status: ResourceStatus = {
          state: 'missing',
          path,
          message: `Building the index at ${path} was cancelled.`,
          fix: `Reload the window or save querylens.json to build it again, or run \`querylens index ${corpus} --out ${path}\`.`,
        };
        return { status, summary: null, cancelled: true };
      }
      const status: ResourceStatus = {
        state: 'error',
        path,
        message: `Building the index from ${corpus} failed: ${describe(err)}.`,
        fix: `Check the corpus file (JSONL, TREC or a folder), then reload; or run \`querylens index ${corpus} --out ${path}\` to see the details.`,
      };
      return { status, summary: null, cancelled: false };
    } finally {
      for (const reporter of reporters()) reporter.done();
    }
  }

  private readQrels(config: ResolvedConfig): { qrels: Qrels | null; problem?: string } {
    if (!config.qrels) return { qrels: null };
    try {
      return { qrels: readQrelsFile(config.qrels) };
    } catch (err) {
      const problem = `the qrels ${config.qrels} cannot be read (${describe(err)}); previews show no metrics`;
      this.warn(`querylens: ${problem}. Correct "qrels" in querylens.json.`);
      return { qrels: null, problem };
    }
  }

  private async progress(title: string, cancellable: boolean): Promise<WorkDoneProgressServerReporter | null> {
    if (!this.connection) return null;
    try {
      const reporter = await this.connection.window.createWorkDoneProgress();
      reporter.begin(title, 0, undefined, cancellable);
      return reporter;
    } catch {
      // A client that refuses the progress token still gets the result.
      return null;
    }
  }

  private log(message: string): void {
    this.connection?.console.log(message);
  }

  private warn(message: string): void {
    void this.connection?.sendNotification(ShowMessageNotification.type, { type: MessageType.Warning, message });
  }
}

/** "OpenSearch index 'docs' at https://host:9200", for the status. */
function clusterLocation(c: ClusterConfig): string {
  return `${c.type === 'opensearch' ? 'OpenSearch' : 'Elasticsearch'} index '${c.index}' at ${c.url}`;
}

function modelStatus(loaded: LoadedModel, path: string): ResourceStatus {
  const m = loaded.model;
  const notices = m.notices.length ? ` ${m.notices.join(' ')}` : '';
  return { state: 'ready', path, message: `Weighting model ${m.name} loaded (${m.device}).${notices}` };
}

function readyStatus(session: EngineSession, qrelsProblem: string | undefined): ResourceStatus {
  const s = session.backend.collectionStatistics();
  const qrels = session.qrels ? `, qrels for ${session.qrels.size} queries` : '';
  return {
    state: 'ready',
    path: session.indexPath,
    message: `Index loaded: ${s.numDocs.toLocaleString('en-US')} documents, ${session.backend.vocabularySize().toLocaleString('en-US')} terms (${session.backend.profile} profile)${qrels}.${qrelsProblem ? ` Note: ${qrelsProblem}.` : ''}${session.settingsProblem ? ` Note: ${session.settingsProblem}.` : ''}`,
  };
}

function indexStamp(path: string): string {
  try {
    return String(statSync(`${path}/meta.bin`).mtimeMs);
  } catch {
    return '';
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
