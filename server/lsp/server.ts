/**
 * The querylens language server: LSP plumbing only. Each feature lives in its own module
 * (diagnostics.ts, hover.ts, …) and works on the parsed-document cache (documents.ts);
 * hover, completion, code actions, diagnostics and code lenses fan out to `FeatureModule`s
 * so that engine features plug in through an `EngineProvider` without touching this file.
 *
 * The engine's modules (and their custom requests) are in place from `initialized` on, before
 * the first configuration has loaded the index: a request that arrives while the first-use
 * build runs is answered by the engine ("the index is being built"), never "method not found".
 *
 * Invariant: no request handler throws to the client because of user input, a missing
 * index/model or a broken querylens.json; those become diagnostics, status notifications
 * or messages.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  CancellationToken,
  CodeActionKind,
  CodeLensRefreshRequest,
  DiagnosticSeverity,
  ErrorCodes,
  ResponseError,
  DidChangeConfigurationNotification,
  DidChangeWatchedFilesNotification,
  MessageType,
  ShowMessageNotification,
  TextDocumentSyncKind,
  TextDocuments,
  type CodeAction,
  type CodeLens,
  type CompletionItem,
  type Connection,
  type Diagnostic,
  type InitializeParams,
  type InitializeResult,
  type InlayHint,
  type MarkupContent,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { grammarCodeActionsModule, CONVERT_ACTION_KIND } from './code-actions.js';
import { operatorCompletionModule } from './completion.js';
import {
  CONFIG_FILE_NAME,
  configFolderAbove,
  confineToWorkspace,
  mergeConfig,
  readConfigFile,
  resolveConfig,
  validateConfig,
  type ConfigProblem,
  type ResolvedConfig,
} from './config.js';
import { configFileDiagnostics } from './config-diagnostics.js';
import { convertDocument, otherDialect, type ConvertResult, type ConvertTarget } from './convert.js';
import { grammarDiagnosticsModule } from './diagnostics.js';
import { LANGUAGE_IDS, QueryDocuments, entryAt, isLanguageId, isTooLarge, tooLargeMessage, type QueryDocument } from './documents.js';
import { type EngineProvider, type EngineStatus, type ResourceStatus } from './engine.js';
import type { FeatureHost, FeatureModule } from './features.js';
import { LocalEngineProvider } from './engine/provider.js';
import { foldingRanges } from './folding.js';
import { formattingEdits } from './formatting.js';
import { operatorHoverModule } from './hover.js';
import { impliedQidHintsModule } from './qid-hints.js';
import { SEMANTIC_TOKENS_LEGEND, semanticTokens } from './semantic-tokens.js';
import { documentSymbols } from './symbols.js';
import { createServerConnection } from './transport.js';
import { DEFAULT_TRUST_POLICY, RestrictedProvider, type TrustPolicy } from './trust.js';

/** Custom protocol (docs/LSP_EXTENSIONS.md). */
export const STATUS_NOTIFICATION = 'querylens/status';
export const STATUS_REQUEST = 'querylens/status';
export const CONVERT_REQUEST = 'querylens/convert';

export interface ConvertParams {
  uri: string;
  /** Target dialect; default: the other one. */
  to?: ConvertTarget;
}

/** Payload of `querylens/status`: engine state plus configuration problems. */
export interface ServerStatus extends EngineStatus {
  configFile: string | null;
  configProblems: ConfigProblem[];
  /** False in restricted mode (trust.ts): the workspace is not trusted, the engine is off. */
  trusted: boolean;
}

export interface ServerOptions {
  /** The engine; default LocalEngineProvider (the engine in this process). ResourceCheckProvider (engine.ts) is the engine-free alternative. */
  engine?: EngineProvider;
  /** Extra feature modules (tests, experiments). */
  features?: FeatureModule[];
  /**
   * `querylens lsp --trust`: `none` is restricted mode whatever the client says; `workspace`
   * (the default) leaves it to the client's `initializationOptions.trusted` (absent: trusted).
   */
  trust?: TrustPolicy;
}

const GRAMMAR_FEATURES: FeatureModule[] = [grammarDiagnosticsModule, operatorHoverModule, operatorCompletionModule, grammarCodeActionsModule, impliedQidHintsModule];

/**
 * The most diagnostics one publish carries; the rest are counted in one summary diagnostic
 * (`lsp/too-many-diagnostics`). A 1 MB file can hold 150,000 problems, which no editor shows
 * usefully and which is 30 MB of JSON per publish.
 */
export const MAX_PUBLISHED_DIAGNOSTICS = 10_000;
export const TOO_MANY_DIAGNOSTICS_CODE = 'lsp/too-many-diagnostics';
/** The one diagnostic of a document over MAX_DOCUMENT_CHARS (documents.ts). */
export const TOO_LARGE_CODE = 'lsp/document-too-large';

/**
 * Appends `items` to `target` one by one: `target.push(...items)` passes every item as an
 * argument, and a list of ~120,000 overflows the call stack (issue 11 item 1).
 */
export function appendAll<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}

/** The first MAX_PUBLISHED_DIAGNOSTICS diagnostics, plus one that counts the others when there are more. */
export function capDiagnostics(diagnostics: Diagnostic[], max = MAX_PUBLISHED_DIAGNOSTICS): Diagnostic[] {
  if (diagnostics.length <= max) return diagnostics;
  const hidden = diagnostics.length - max;
  const kept = diagnostics.slice(0, max);
  const at = diagnostics[max]!.range.start;
  kept.push({
    range: { start: at, end: at },
    severity: DiagnosticSeverity.Warning,
    code: TOO_MANY_DIAGNOSTICS_CODE,
    source: 'querylens',
    message: `${hidden.toLocaleString('en-US')} more problems not shown: querylens publishes at most ${max.toLocaleString('en-US')} per document (the first hidden one is here).`,
  });
  return kept;
}

function describeError(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Errors that escape every handler (a rejected promise nobody awaited, a throw in a timer)
 * are logged instead of ending the process: one document must never take the server down.
 * Installed once per process; `report` is the latest server's (one per process in practice).
 */
let reportEscaped: ((what: string, err: unknown) => void) | null = null;
function installProcessGuard(report: (what: string, err: unknown) => void): void {
  const first = reportEscaped === null;
  reportEscaped = report;
  if (!first) return;
  process.on('unhandledRejection', (reason) => reportEscaped?.('an unhandled rejection', reason));
  process.on('uncaughtException', (err) => {
    // The client is gone (stdout closed): nothing can be reported to it, so end as the library would.
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED') process.exit(1);
    reportEscaped?.('an uncaught exception', err);
  });
}

function rootOf(params: InitializeParams): string | null {
  const uri = params.workspaceFolders?.[0]?.uri ?? params.rootUri ?? null;
  if (uri?.startsWith('file:')) return fileURLToPath(uri);
  return params.rootPath ?? null;
}

export function startLanguageServer(options: ServerOptions = {}, connection: Connection = createServerConnection()): Connection {
  const documents = new TextDocuments(TextDocument);
  const parsed = new QueryDocuments();
  let engine: EngineProvider = options.engine ?? new LocalEngineProvider(connection);
  // The engine's modules from the start: they answer "not loaded yet" states until it is configured.
  let modules: FeatureModule[] = [...GRAMMAR_FEATURES, ...(options.features ?? []), ...engine.features()];
  /** Whether the workspace is trusted (trust.ts); decided at `initialize`. */
  let trusted = true;

  let root: string | null = null;
  let canAskConfiguration = false;
  let canWatchFiles = false;
  let resourceOperations = false;
  let canRefreshCodeLenses = false;
  let initialized = false;
  let initializationSettings: unknown = undefined;
  let config: ResolvedConfig = resolveConfig({}, null);
  let status: ServerStatus = { ...engine.status(), configFile: null, configProblems: [], trusted };
  const shownMessages = new Set<string>();

  /**
   * A failure no handler expected: written to the client's log with its stack, and shown once
   * as an error message, so that a bug is visible without taking the server down.
   */
  let reporting = false;
  function reportFailure(what: string, err: unknown): void {
    // A failure while reporting (e.g. the connection itself is broken) must not recurse.
    if (reporting) return;
    reporting = true;
    try {
      const detail = err instanceof Error ? (err.stack ?? err.message) : String(err);
      process.stderr.write(`querylens: ${what} failed: ${detail}\n`);
      connection.console.error(`querylens: ${what} failed: ${detail}`);
      showOnce(MessageType.Error, `querylens: ${what} failed (${describeError(err)}); the server keeps running. Details are in the querylens output.`);
    } catch {
      // Nothing more can be done: stderr has the details.
    } finally {
      reporting = false;
    }
  }
  installProcessGuard(reportFailure);

  /**
   * A request handler whose unexpected failures are reported (reportFailure) and answered with
   * an InternalError; deliberate ResponseErrors (stale, cancelled, bad params) pass unchanged.
   */
  function guarded<P, R>(what: string, handler: (params: P, token: CancellationToken) => R | Promise<R>): (params: P, token: CancellationToken) => Promise<R> {
    return async (params, token) => {
      try {
        return await handler(params, token);
      } catch (err) {
        if (err instanceof ResponseError) throw err;
        reportFailure(what, err);
        throw new ResponseError(ErrorCodes.InternalError, `querylens: ${what} failed: ${describeError(err)}`);
      }
    };
  }

  /** Resolves once the configuration has been read for the first time (requests that need it wait for it). */
  let configRead!: () => void;
  const firstConfigRead = new Promise<void>((resolve) => (configRead = resolve));

  const registered = new Set<FeatureModule>();
  /**
   * Lets modules add their custom requests, once each. Called at `initialized` (modules may
   * register capabilities dynamically, which the client accepts only from then on) and after
   * every configuration (a provider may contribute new modules).
   */
  function registerModules(): void {
    if (!initialized) return;
    for (const module of modules) {
      if (registered.has(module)) continue;
      registered.add(module);
      module.register?.(connection, host);
    }
  }

  const host: FeatureHost = {
    config: () => config,
    refreshDiagnostics: () => documents.all().forEach((d) => scheduleValidation(d)),
    reloadConfiguration: () => reloadConfiguration(),
    configuration: async () => {
      await firstConfigRead;
      return config;
    },
    refreshCodeLenses: () => {
      if (canRefreshCodeLenses) void connection.sendRequest(CodeLensRefreshRequest.type).catch(() => undefined);
    },
  };

  const parsedDocument = (uri: string): QueryDocument | undefined => {
    const document = documents.get(uri);
    return document ? parsed.get(document) : undefined;
  };

  /** Runs one module call; a failing module is logged and skipped, never fatal. */
  async function safely<T>(module: FeatureModule, what: string, call: () => Promise<T> | T): Promise<T | undefined> {
    try {
      return await call();
    } catch (err) {
      connection.console.error(`querylens: ${module.id} failed in ${what}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      return undefined;
    }
  }

  // ---- Diagnostics (pushed, so that every client, Neovim 0.7 included, receives them) ----
  // No keystroke debounce timer: parsing is incremental (documents.ts) and engine diagnostics
  // are cached per query, so re-validating a 1,000-query file after an edit costs a few ms, and a
  // fixed delay would be most of the "diagnostics after an edit" latency (issue 4 §4, < 50 ms).
  // Validation waits two turns of the event loop instead: vscode-jsonrpc handles one queued
  // message per turn, so every didChange already received (a burst of keystrokes, or edits that
  // piled up while a slow validation ran) is applied first and cancels this one; a burst costs
  // one validation, of its last version.
  const pending = new Map<string, { cancelled: boolean }>();
  function cancelValidation(uri: string): void {
    const scheduled = pending.get(uri);
    if (scheduled) scheduled.cancelled = true;
    pending.delete(uri);
  }
  function scheduleValidation(document: TextDocument): void {
    cancelValidation(document.uri);
    const scheduled = { cancelled: false };
    pending.set(document.uri, scheduled);
    setImmediate(() =>
      setImmediate(() => {
        if (scheduled.cancelled) return;
        pending.delete(document.uri);
        validate(document).catch((err) => reportFailure(`validating ${document.uri}`, err));
      }),
    );
  }

  async function validate(document: TextDocument): Promise<void> {
    if (isLanguageId(document.languageId) && isTooLarge(document)) {
      // Not parsed (documents.ts): say so where diagnostics go, and once as a message.
      const message = tooLargeMessage(document);
      showOnce(MessageType.Warning, `querylens: ${document.uri}: ${message}`);
      const at = { line: 0, character: 0 };
      const notice: Diagnostic = { range: { start: at, end: at }, severity: DiagnosticSeverity.Warning, code: TOO_LARGE_CODE, source: 'querylens', message };
      await connection.sendDiagnostics({ uri: document.uri, version: document.version, diagnostics: [notice] });
      return;
    }
    const doc = parsed.get(document);
    if (!doc) return;
    const token = CancellationToken.None;
    const diagnostics: Diagnostic[] = [];
    for (const module of modules) {
      if (!module.diagnostics) continue;
      const found = await safely(module, 'diagnostics', () => module.diagnostics!(doc, token));
      if (found) appendAll(diagnostics, found);
    }
    // A newer version may have arrived while engine modules were busy: publish only the latest.
    if (documents.get(document.uri)?.version !== document.version) return;
    await connection.sendDiagnostics({ uri: document.uri, version: document.version, diagnostics: capDiagnostics(diagnostics) });
  }

  // ---- Configuration and engine status ----
  function showOnce(type: MessageType, message: string): void {
    if (shownMessages.has(message)) return;
    shownMessages.add(message);
    // The notification, not window/showMessageRequest: every client handles it and nothing waits on an answer.
    connection.sendNotification(ShowMessageNotification.type, { type, message }).catch(() => undefined);
  }

  function explain(what: string, resource: ResourceStatus): void {
    if (resource.state === 'missing' || resource.state === 'error') {
      showOnce(MessageType.Warning, `querylens ${what}: ${resource.message}${resource.fix ? ` ${resource.fix}` : ''}`);
    }
  }

  /** querylens.json's URI while diagnostics are shown on it (cleared when its problems are gone). */
  let configDiagnosticsUri: string | null = null;
  async function publishConfigDiagnostics(file: { uri: string; text: string } | null, problems: readonly ConfigProblem[], backendProblem: ConfigProblem | null): Promise<void> {
    const diagnostics = file ? configFileDiagnostics(file.text, problems, backendProblem) : [];
    const uri = file?.uri ?? null;
    if (configDiagnosticsUri && (configDiagnosticsUri !== uri || diagnostics.length === 0)) await connection.sendDiagnostics({ uri: configDiagnosticsUri, diagnostics: [] });
    configDiagnosticsUri = null;
    if (uri && diagnostics.length) {
      await connection.sendDiagnostics({ uri, diagnostics });
      configDiagnosticsUri = uri;
    }
  }

  // One reload at a time, in order: a settings change and a querylens.json change arriving
  // together must not let an older engine status overwrite a newer one.
  let reloading: Promise<void> = Promise.resolve();
  /** Whether a configuration has finished once (its status was sent). */
  let configuredOnce = false;
  function reloadConfiguration(): Promise<void> {
    reloading = reloading.then(reloadConfigurationNow).catch((err) => reportFailure('reloading the configuration', err));
    return reloading;
  }

  async function reloadConfigurationNow(): Promise<void> {
    try {
      const file = await readConfigFile(root);
      let settingsRaw: unknown = initializationSettings;
      if (canAskConfiguration) {
        try {
          settingsRaw = await connection.workspace.getConfiguration('querylens');
        } catch {
          settingsRaw = initializationSettings;
        }
      }
      const settings = validateConfig(settingsRaw, 'settings');
      // The workspace's file may only name paths inside the workspace; the user's settings are trusted.
      const confined = confineToWorkspace(file.config, settings.config, root, file.text);
      // A backend section from querylens.json is checked against the file's text, so its errors are located there.
      const backendFile = settings.config.backend === undefined && file.text !== undefined && root ? { path: join(root, CONFIG_FILE_NAME), text: file.text } : undefined;
      config = resolveConfig(mergeConfig(confined.config, settings.config), root, backendFile);
      configRead();
      const backendProblem: ConfigProblem[] =
        config.backend && 'error' in config.backend
          ? [{ source: backendFile ? 'querylens.json' : 'settings', message: config.backend.error, ...(config.backend.line ? { line: config.backend.line, column: config.backend.column } : {}) }]
          : [];
      const problems = [...file.problems, ...confined.problems, ...settings.problems, ...backendProblem];
      for (const p of problems) showOnce(MessageType.Warning, `querylens: ${p.source}: ${p.message}`);
      await publishConfigDiagnostics(file.text !== undefined && root ? { uri: pathToFileURL(join(root, CONFIG_FILE_NAME)).href, text: file.text } : null, problems, backendProblem[0] ?? null);
      const engineStatus = await engine.configure(config);
      explain('index', engineStatus.index);
      explain('model', engineStatus.model);
      if (!trusted) showOnce(MessageType.Info, `querylens: ${engineStatus.index.message} ${engineStatus.index.fix ?? ''}`.trim());
      status = { ...engineStatus, configFile: file.found && root ? `${root}/${CONFIG_FILE_NAME}` : null, configProblems: problems, trusted };
      modules = [...GRAMMAR_FEATURES, ...(options.features ?? []), ...engine.features()];
      registerModules();
    } catch (err) {
      // Reading configuration must never take the server down.
      configRead();
      showOnce(MessageType.Error, `querylens: could not load the configuration: ${err instanceof Error ? err.message : String(err)}`);
    }
    configuredOnce = true;
    await connection.sendNotification(STATUS_NOTIFICATION, status);
    host.refreshDiagnostics();
    // The result-preview lenses said "being built" or showed the previous index: ask again.
    host.refreshCodeLenses();
  }

  /**
   * The last status sent, except before the first configuration has finished: that one may be
   * building the index for minutes, and "Not configured yet." would be wrong meanwhile.
   */
  function liveStatus(): ServerStatus {
    const activity = configuredOnce ? null : engine.activity?.();
    if (!activity) return status;
    const message = activity.message.charAt(0).toUpperCase() + activity.message.slice(1);
    return {
      ...status,
      index: { state: 'loading', path: config.index, message: `${message}.` },
      model: config.model ? { state: 'loading', path: config.model, message: 'Loaded once the index is ready.' } : status.model,
    };
  }

  connection.onInitialize((params: InitializeParams): InitializeResult => {
    root = rootOf(params);
    const caps = params.capabilities;
    canAskConfiguration = !!caps.workspace?.configuration;
    canWatchFiles = !!caps.workspace?.didChangeWatchedFiles?.dynamicRegistration;
    resourceOperations = !!caps.workspace?.workspaceEdit?.resourceOperations?.includes('create');
    canRefreshCodeLenses = !!caps.workspace?.codeLens?.refreshSupport;
    const init = params.initializationOptions as { settings?: unknown; trusted?: unknown } | undefined;
    initializationSettings = init?.settings;
    // Restricted mode (trust.ts) when the server was started with --trust none or the client says the workspace is not trusted.
    const policy = options.trust ?? DEFAULT_TRUST_POLICY;
    trusted = policy !== 'none' && init?.trusted !== false;
    if (!trusted) {
      void engine.dispose();
      engine = new RestrictedProvider(policy !== 'none');
      modules = [...GRAMMAR_FEATURES, ...(options.features ?? []), ...engine.features()];
      status = { ...engine.status(), configFile: null, configProblems: [], trusted };
    }
    return {
      capabilities: {
        textDocumentSync: TextDocumentSyncKind.Incremental,
        hoverProvider: true,
        completionProvider: { triggerCharacters: ['#'], resolveProvider: false },
        documentFormattingProvider: true,
        documentSymbolProvider: true,
        foldingRangeProvider: true,
        semanticTokensProvider: { legend: SEMANTIC_TOKENS_LEGEND, full: true, range: false },
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, CONVERT_ACTION_KIND] },
        // Answered by the engine's result-preview module: a lens per query with its results, or,
        // while the index is being built or loaded, one that says so (preview-lens.ts).
        codeLensProvider: { resolveProvider: false },
        // Answered by the modules' inlayHints (the implied-qid hints; the model's weights when one is loaded).
        inlayHintProvider: true,
      },
      serverInfo: { name: 'querylens', version: '0.1.0' },
    };
  });

  connection.onInitialized(async () => {
    // Before the first configuration (which may build the index for minutes): the engine's
    // requests must exist while it runs. Synchronous, so no request is read before it.
    initialized = true;
    registerModules();
    if (canAskConfiguration) {
      void connection.client.register(DidChangeConfigurationNotification.type, { section: 'querylens' }).catch(() => undefined);
    }
    if (canWatchFiles) {
      void connection.client
        .register(DidChangeWatchedFilesNotification.type, { watchers: [{ globPattern: `**/${CONFIG_FILE_NAME}` }] })
        .catch(() => undefined);
    }
    await reloadConfiguration();
  });

  connection.onDidChangeConfiguration((change) => {
    const settings = (change.settings as { querylens?: unknown } | undefined)?.querylens;
    if (!canAskConfiguration && settings !== undefined) initializationSettings = settings;
    void reloadConfiguration();
  });

  connection.onDidChangeWatchedFiles((change) => {
    if (change.changes.some((c) => c.uri.endsWith(`/${CONFIG_FILE_NAME}`))) void reloadConfiguration();
  });

  connection.onRequest(STATUS_REQUEST, guarded('querylens/status', (): ServerStatus => liveStatus()));

  connection.onRequest(
    CONVERT_REQUEST,
    guarded('querylens/convert', (params: ConvertParams): ConvertResult | null => {
      const doc = parsedDocument(params.uri);
      if (!doc) return null;
      const to = params.to ?? otherDialect(doc.dialect);
      return to ? convertDocument(doc, to) : null;
    }),
  );

  // ---- Documents ----
  documents.onDidChangeContent((e) => scheduleValidation(e.document));
  // A window without a folder: the configuration is the nearest querylens.json above the first query
  // file opened, and that file's folder plays the workspace (its paths are confined to it).
  documents.onDidOpen((e) => {
    if (root !== null || !e.document.uri.startsWith('file:')) return;
    const folder = configFolderAbove(dirname(fileURLToPath(e.document.uri)));
    if (folder === null) return;
    root = folder;
    void reloadConfiguration();
  });
  documents.onDidClose((e) => {
    cancelValidation(e.document.uri);
    parsed.forget(e.document.uri);
    connection.sendDiagnostics({ uri: e.document.uri, diagnostics: [] }).catch((err) => reportFailure('clearing diagnostics', err));
  });

  // ---- Grammar-level requests ----
  connection.onDocumentSymbol(
    guarded('document symbols', (params) => {
      const doc = parsedDocument(params.textDocument.uri);
      return doc ? documentSymbols(doc) : [];
    }),
  );

  connection.onFoldingRanges(
    guarded('folding ranges', (params) => {
      const doc = parsedDocument(params.textDocument.uri);
      return doc ? foldingRanges(doc) : [];
    }),
  );

  connection.languages.semanticTokens.on(
    guarded('semantic tokens', (params) => {
      const doc = parsedDocument(params.textDocument.uri);
      return doc ? semanticTokens(doc) : { data: [] };
    }),
  );

  connection.onDocumentFormatting(
    guarded('formatting', (params) => {
      const doc = parsedDocument(params.textDocument.uri);
      return doc ? formattingEdits(doc, config.formatting.width) : [];
    }),
  );

  // ---- Fan-out requests ----
  connection.onHover(
    guarded('hover', async (params, token) => {
      const doc = parsedDocument(params.textDocument.uri);
      const located = doc && entryAt(doc, params.position);
      if (!doc || !located) return null;
      const sections: MarkupContent[] = [];
      for (const module of modules) {
        if (!module.hover) continue;
        const section = await safely(module, 'hover', () => module.hover!({ doc, ...located }, token));
        if (section) sections.push(section);
      }
      if (sections.length === 0) return null;
      return { contents: { kind: 'markdown', value: sections.map((s) => s.value).join('\n\n---\n\n') } };
    }),
  );

  connection.onCompletion(
    guarded('completion', async (params, token) => {
      const doc = parsedDocument(params.textDocument.uri);
      const located = doc && entryAt(doc, params.position);
      if (!doc || !located) return [];
      const items: CompletionItem[] = [];
      for (const module of modules) {
        if (!module.completion) continue;
        const found = await safely(module, 'completion', () => module.completion!({ doc, ...located }, token));
        if (found) appendAll(items, found);
      }
      return items;
    }),
  );

  connection.onCodeAction(
    guarded('code actions', async (params, token) => {
      const doc = parsedDocument(params.textDocument.uri);
      if (!doc) return [];
      const actions: CodeAction[] = [];
      const request = { doc, range: params.range, context: params.context, clientCapabilities: { resourceOperations } };
      for (const module of modules) {
        if (!module.codeActions) continue;
        const found = await safely(module, 'code actions', () => module.codeActions!(request, token));
        if (found) appendAll(actions, found);
      }
      // Restricted mode writes no file: the convert action creates one (the convert request's preview stays).
      return trusted ? actions : actions.filter((a) => a.kind !== CONVERT_ACTION_KIND);
    }),
  );

  connection.onCodeLens(
    guarded('code lenses', async (params, token) => {
      const document = documents.get(params.textDocument.uri);
      if (document && isLanguageId(document.languageId) && isTooLarge(document)) {
        const at = { line: 0, character: 0 };
        return [{ range: { start: at, end: at }, command: { title: '▷ querylens: this document is too large for result previews (see its diagnostic)', command: '' } }];
      }
      const doc = parsedDocument(params.textDocument.uri);
      if (!doc) return [];
      const lenses: CodeLens[] = [];
      for (const module of modules) {
        if (!module.codeLenses) continue;
        const found = await safely(module, 'code lenses', () => module.codeLenses!(doc, token));
        if (found) appendAll(lenses, found);
      }
      return lenses;
    }),
  );

  connection.languages.inlayHint.on(
    guarded('inlay hints', async (params, token) => {
      const document = documents.get(params.textDocument.uri);
      if (!document || !isLanguageId(document.languageId) || isTooLarge(document)) return [];
      const doc = parsedDocument(params.textDocument.uri);
      if (!doc) return [];
      const hints: InlayHint[] = [];
      for (const module of modules) {
        if (!module.inlayHints) continue;
        // A stale or cancelled request (ContentModified, RequestCancelled) fails as a whole: hints
        // placed on an older text are worse than none. Any other failure loses that module's hints only.
        const found = await safely(module, 'inlay hints', async () => {
          try {
            return { hints: await module.inlayHints!(doc, params.range, token) };
          } catch (err) {
            if (err instanceof ResponseError) return { error: err };
            throw err;
          }
        });
        if (found?.error) throw found.error;
        if (found?.hints) appendAll(hints, found.hints);
      }
      return hints;
    }),
  );

  connection.onShutdown(async () => {
    await engine.dispose();
  });

  documents.listen(connection);
  connection.listen();
  return connection;
}

export { LANGUAGE_IDS };
