/**
 * Restricted mode: what the server does in a workspace the user has not trusted
 * (docs/ARCHITECTURE.md, "Trust model"). The VS Code extension says whether the workspace is
 * trusted (`initializationOptions.trusted`); other editors choose with `querylens lsp --trust`.
 * Untrusted, the server offers syntax, diagnostics, formatting and the conversion preview only:
 * it opens, builds and reads no index, corpus, qrels or model, runs no engine, and proposes no
 * edit that creates a file. The engine's custom requests answer why instead of "method not found".
 */
import { ErrorCodes, ResponseError, type Connection } from 'vscode-languageserver';
import type { ResolvedConfig } from './config.js';
import type { EngineProvider, EngineStatus, ResourceStatus } from './engine.js';
import { BUILD_INDEX_REQUEST, COMPARE_REQUEST, EXPLAIN_REQUEST, PREVIEW_REQUEST, RUN_FILE_REQUEST, WEIGH_FILE_REQUEST } from './engine/protocol.js';
import { MODEL_STATS_REQUEST } from './engine/weight-hints.js';
import { ANALYZE_REQUEST, COMPARE_TRIES_REQUEST, DOCUMENT_REQUEST, INDEX_TERMS_REQUEST, JUDGE_REQUEST, POSTINGS_REQUEST, SWEEP_REQUEST } from './engine/workbench-protocol.js';
import type { FeatureModule } from './features.js';

/** `querylens lsp --trust`: `workspace` (default) honours the workspace's querylens.json, confined to the workspace; `none` is restricted mode. */
export type TrustPolicy = 'workspace' | 'none';
export const TRUST_POLICIES: readonly TrustPolicy[] = ['workspace', 'none'];
export const DEFAULT_TRUST_POLICY: TrustPolicy = 'workspace';

/** The `--trust` value among the process arguments (`--trust none` or `--trust=none`); the default when absent, null when invalid. */
export function trustPolicyFromArgv(argv: readonly string[]): TrustPolicy | null {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = arg === '--trust' ? argv[i + 1] : arg.startsWith('--trust=') ? arg.slice('--trust='.length) : undefined;
    if (arg === '--trust' || arg.startsWith('--trust=')) return (TRUST_POLICIES as readonly string[]).includes(value ?? '') ? (value as TrustPolicy) : null;
  }
  return DEFAULT_TRUST_POLICY;
}

/** Why the engine is off, for messages and the status. */
export function untrustedReason(byClient: boolean): string {
  return byClient
    ? 'Workspace not trusted: querylens runs in restricted mode (syntax, diagnostics, formatting and conversion preview; no index, engine or model, no file writes).'
    : 'Workspace not trusted (`querylens lsp --trust none`): querylens runs in restricted mode (syntax, diagnostics, formatting and conversion preview; no index, engine or model, no file writes).';
}

export function untrustedFix(byClient: boolean): string {
  return byClient ? 'Trust the workspace (Workspaces: Manage Workspace Trust) to turn the engine on.' : 'Start the server with `querylens lsp --trust workspace` to turn the engine on.';
}

const ENGINE_REQUESTS = [
  PREVIEW_REQUEST,
  EXPLAIN_REQUEST,
  COMPARE_REQUEST,
  RUN_FILE_REQUEST,
  WEIGH_FILE_REQUEST,
  BUILD_INDEX_REQUEST,
  MODEL_STATS_REQUEST,
  SWEEP_REQUEST,
  INDEX_TERMS_REQUEST,
  POSTINGS_REQUEST,
  DOCUMENT_REQUEST,
  ANALYZE_REQUEST,
  JUDGE_REQUEST,
  COMPARE_TRIES_REQUEST,
];

/** The provider of restricted mode: touches no file, contributes only the answers above. */
export class RestrictedProvider implements EngineProvider {
  readonly name = 'restricted';
  private readonly current: EngineStatus;
  private readonly module: FeatureModule;

  constructor(byClient: boolean) {
    const resource: ResourceStatus = { state: 'untrusted', path: null, message: untrustedReason(byClient), fix: untrustedFix(byClient) };
    this.current = { provider: this.name, index: resource, model: resource };
    const message = `querylens: ${untrustedReason(byClient)} ${untrustedFix(byClient)}`;
    this.module = {
      id: 'restricted/engine-requests',
      register(connection: Connection) {
        const disposables = ENGINE_REQUESTS.map((method) =>
          connection.onRequest(method, () => {
            throw new ResponseError(ErrorCodes.InvalidRequest, message, { trusted: false });
          }),
        );
        return { dispose: () => disposables.forEach((d) => d.dispose()) };
      },
    };
  }

  async configure(_config: ResolvedConfig): Promise<EngineStatus> {
    return this.current;
  }

  status(): EngineStatus {
    return this.current;
  }

  features(): FeatureModule[] {
    return [this.module];
  }

  async dispose(): Promise<void> {}
}
