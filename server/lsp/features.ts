/**
 * The plug-in points of the language server. Every hover, completion, code action,
 * diagnostic and code-lens provider is a `FeatureModule`; the server asks each module in
 * turn and merges the answers. Grammar-level features (server/lsp/*.ts) are modules like
 * the engine features (hover statistics, vocabulary completion, result preview, Bo1 and
 * weights actions, custom requests; server/lsp/engine/), which arrive through an
 * `EngineProvider` (engine.ts) and never need a change in server.ts. See docs/LSP_EXTENSIONS.md.
 */
import type {
  CancellationToken,
  CodeAction,
  CodeActionContext,
  CodeLens,
  CompletionItem,
  Connection,
  Diagnostic,
  Disposable,
  InlayHint,
  MarkupContent,
  Range,
} from 'vscode-languageserver';
import type { QueryEntry } from '../../grammar/index.js';
import type { ResolvedConfig } from './config.js';
import type { QueryDocument } from './documents.js';

/** A position inside one query of a document. */
export interface QueryPosition {
  doc: QueryDocument;
  entry: QueryEntry;
  /** Offset into `entry.text`. */
  offset: number;
}

export interface CodeActionRequest {
  doc: QueryDocument;
  range: Range;
  /** The diagnostics the client sent back, with `code` and `data` as published. */
  context: CodeActionContext;
  /** What the client can apply (e.g. whether a WorkspaceEdit may create files). */
  clientCapabilities: { resourceOperations: boolean };
}

/** Read-only view of the server that modules may use. */
export interface FeatureHost {
  config(): ResolvedConfig;
  /** Recompute and republish diagnostics of every open document (e.g. after an index loads). */
  refreshDiagnostics(): void;
  /** Re-read the configuration and reconfigure the engine (e.g. after querylens/buildIndex replaced the index); resolves once the new status is sent. */
  reloadConfiguration(): Promise<void>;
  /** The configuration once it has been read at least once (a request that arrives first waits for it). */
  configuration(): Promise<ResolvedConfig>;
  /** Ask the client to request code lenses again (`workspace/codeLens/refresh`, when it supports it). */
  refreshCodeLenses(): void;
}

/** A feature module answers any subset of the requests; unanswered ones are skipped. */
export interface FeatureModule {
  readonly id: string;
  /** Markdown sections for the hover; the server joins all modules' sections with rules. */
  hover?(at: QueryPosition, token: CancellationToken): Promise<MarkupContent | null> | MarkupContent | null;
  completion?(at: QueryPosition, token: CancellationToken): Promise<CompletionItem[]> | CompletionItem[];
  codeActions?(request: CodeActionRequest, token: CancellationToken): Promise<CodeAction[]> | CodeAction[];
  /** Extra diagnostics for a document (published together with the parser's). */
  diagnostics?(doc: QueryDocument, token: CancellationToken): Promise<Diagnostic[]> | Diagnostic[];
  codeLenses?(doc: QueryDocument, token: CancellationToken): Promise<CodeLens[]> | CodeLens[];
  /** Inlay hints of the lines in `range`; the server merges every module's. */
  inlayHints?(doc: QueryDocument, range: Range, token: CancellationToken): Promise<InlayHint[]> | InlayHint[];
  /** Custom requests and notifications (documented in docs/LSP_EXTENSIONS.md). */
  register?(connection: Connection, host: FeatureHost): Disposable | void;
}
