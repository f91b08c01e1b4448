/**
 * The language server in-process on a workspace whose querylens.json has a `backend` section, its cluster
 * client's HTTP connection replaying recorded responses (test/support/mock-cluster.ts) through the
 * provider's test seam (`ProviderOptions.cluster`); shared by the cluster LSP tests.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';
import {
  createConnection,
  createMessageConnection,
  ProposedFeatures,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-languageserver/node';
import type { CodeLens, Diagnostic, PublishDiagnosticsParams } from 'vscode-languageserver';
import { afterEach } from 'vitest';
import { LocalEngineProvider } from '../../server/lsp/engine/provider.js';
import { startLanguageServer, type ServerStatus } from '../../server/lsp/server.js';
import type { ClusterKind } from '../../server/backends/search-request.js';
import type { WeightModel } from '../../server/model/runtime.js';
import { replay, type RecordedRequest, type Replay, type Reply } from '../support/mock-cluster.js';

export const QUERIES = '1\t#combine( boundary layer #1( hypersonic flow ) )\n2\tskin friction\n';
export const QRELS = '1 0 184 1\n1 0 29 0\n1 0 77 2\n';

/** The cluster's answers by request: the probe (size 0), search, explain, term vectors, document. */
export function healthy(overrides: { probe?: Reply; search?: Reply; settings?: Reply } = {}): (r: RecordedRequest) => Reply {
  return (r) => {
    // The index's settings: none for the similarity (the cluster's default BM25, k1 1.2, b 0.75).
    if (r.path.endsWith('/_settings')) return overrides.settings ?? { status: 200, text: JSON.stringify({ docs: { settings: { index: { number_of_shards: '1' } } } }) };
    if (r.path.endsWith('/_search')) {
      const probe = (r.body as { size?: number } | undefined)?.size === 0;
      return probe ? (overrides.probe ?? { status: 200, fixture: 'count-1-shard.json' }) : (overrides.search ?? { status: 200, fixture: 'search.json' });
    }
    if (r.path.includes('/_explain/')) return { status: 200, fixture: 'explain.json' };
    if (r.path.includes('/_termvectors')) return { status: 200, fixture: 'termvectors-artificial.json' };
    if (r.path.includes('/_doc/')) return { status: 200, fixture: 'get.json' };
    return { status: 404, fixture: 'error-404-index.json' };
  };
}

export interface Session {
  client: MessageConnection;
  requests: RecordedRequest[];
  statuses: ServerStatus[];
  messages: { type: number; message: string }[];
  diagnostics: Map<string, PublishDiagnosticsParams[]>;
  uri: string;
  root: string;
  engine: LocalEngineProvider;
  mock: Replay;
}

const running: Session[] = [];
/** Closes every server `start` made in the calling file's tests, after each. */
export function closeSessionsAfterEach(): void {
  afterEach(closeSessions);
}
async function closeSessions(): Promise<void> {
  for (const s of running.splice(0)) {
    s.client.dispose();
    await s.engine.dispose();
    rmSync(s.root, { recursive: true, force: true });
  }
}

export async function until<T>(predicate: () => T | undefined | false, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = predicate();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A workspace with querylens.json (`backend` plus qrels), the server on it, and the query file open. */
export async function start(
  answer: (r: RecordedRequest) => Reply,
  options: {
    kind?: ClusterKind;
    backend?: Record<string, unknown>;
    env?: NodeJS.ProcessEnv;
    configText?: string;
    initializationOptions?: unknown;
    /** The query file's text (default QUERIES). */
    queries?: string;
    /** Other keys of querylens.json. */
    config?: Record<string, unknown>;
    /** A model for `"model": "model"` (a folder made in the workspace), loaded in place of model/artifacts. */
    model?: WeightModel;
  } = {},
): Promise<Session> {
  const kind = options.kind ?? 'opensearch';
  const root = mkdtempSync(join(tmpdir(), 'querylens-cluster-lsp-'));
  const backend = { type: kind, url: 'http://localhost:9200', index: 'docs', fields: ['title', 'text'], maxRetries: 0, ...options.backend };
  if (options.model) mkdirSync(join(root, 'model'));
  const config = { qrels: 'qrels.txt', backend, ...(options.model ? { model: 'model' } : {}), ...options.config };
  writeFileSync(join(root, 'querylens.json'), options.configText ?? JSON.stringify(config, null, 2));
  writeFileSync(join(root, 'qrels.txt'), QRELS);
  const queries = options.queries ?? QUERIES;
  writeFileSync(join(root, 'q.indri'), queries);
  const mock = replay(kind, answer);
  const toServer = new PassThrough();
  const fromServer = new PassThrough();
  const serverConnection = createConnection(ProposedFeatures.all, new StreamMessageReader(toServer), new StreamMessageWriter(fromServer));
  const model = options.model;
  const engine = new LocalEngineProvider(serverConnection, {
    cluster: { Connection: mock.Connection, env: options.env ?? {} },
    ...(model ? { loadModel: async () => ({ ok: true as const, model }) } : {}),
  });
  startLanguageServer({ engine }, serverConnection);
  const client = createMessageConnection(new StreamMessageReader(fromServer), new StreamMessageWriter(toServer));
  const session: Session = { client, requests: mock.requests, statuses: [], messages: [], diagnostics: new Map(), uri: pathToFileURL(join(root, 'q.indri')).href, root, engine, mock };
  running.push(session);
  client.onNotification('querylens/status', (p: ServerStatus) => session.statuses.push(p));
  client.onNotification('window/showMessage', (p: { type: number; message: string }) => session.messages.push(p));
  client.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
    session.diagnostics.set(p.uri, [...(session.diagnostics.get(p.uri) ?? []), p]);
  });
  client.onRequest('window/workDoneProgress/create', () => null);
  client.onRequest('client/registerCapability', () => null);
  client.listen();
  const rootUri = pathToFileURL(root).href;
  await client.sendRequest('initialize', { processId: null, rootUri, workspaceFolders: [{ uri: rootUri, name: 'ws' }], capabilities: {}, initializationOptions: options.initializationOptions });
  await client.sendNotification('initialized', {});
  await until(() => session.statuses.length > 0, 'the status notification');
  await client.sendNotification('textDocument/didOpen', { textDocument: { uri: session.uri, languageId: 'indri', version: 1, text: queries } });
  return session;
}

export const status = (s: Session) => s.statuses.at(-1)!;
export const lenses = (s: Session) => s.client.sendRequest('textDocument/codeLens', { textDocument: { uri: s.uri } }) as Promise<CodeLens[]>;
export const searches = (s: Session) => s.requests.filter((r) => r.path.endsWith('/_search') && (r.body as { size?: number }).size !== 0);

export async function diagnostics(s: Session): Promise<Diagnostic[]> {
  // The last publication after the status (the server republishes every document once configured).
  const published = await until(() => s.diagnostics.get(s.uri)?.at(-1), 'diagnostics');
  await new Promise((r) => setTimeout(r, 100));
  return s.diagnostics.get(s.uri)!.at(-1)!.diagnostics ?? published.diagnostics;
}

export function lineOf(text: string, line: number, start: number, end: number): string {
  return text.split('\n')[line]!.slice(start, end);
}

export async function rejection(p: Promise<unknown>): Promise<{ code: number; message: string; data?: unknown }> {
  try {
    await p;
  } catch (err) {
    return err as { code: number; message: string; data?: unknown };
  }
  throw new Error('expected the request to fail');
}

/** A `_termvectors` response of `field` with `terms` (term → [tf, df, ttf]). */
export function termVectors(field: string, terms: Record<string, [number, number, number]>, docCount = 1400, sumTtf = 181024): Reply {
  const body = {
    found: true,
    term_vectors: {
      [field]: {
        field_statistics: { sum_doc_freq: 92345, doc_count: docCount, sum_ttf: sumTtf },
        terms: Object.fromEntries(Object.entries(terms).map(([t, [tf, df, ttf]]) => [t, { term_freq: tf, doc_freq: df, ttf }])),
      },
    },
  };
  return { status: 200, text: JSON.stringify(body) };
}

/** What a cluster read the words and the feedback documents 184, 29, 1002 (the top 3 of search.json) as. */
export function withTermVectors(fallback: (r: RecordedRequest) => Reply): (r: RecordedRequest) => Reply {
  const docs: Record<string, Record<string, [number, number, number]>> = {
    '184': { skin: [1, 10, 20], lamin: [2, 50, 100] },
    '29': { skin: [2, 10, 20], friction: [1, 30, 40], lamin: [1, 50, 100] },
    '1002': { lamin: [1, 50, 100], plate: [3, 5, 9] },
  };
  return (r) => {
    if (!r.path.startsWith('/docs/_termvectors')) return fallback(r);
    const params = { ...Object.fromEntries(new URLSearchParams(r.querystring)), ...(r.body as object) } as { fields?: string | string[]; doc?: Record<string, string> };
    const field = String(params.fields);
    const id = r.path.split('/')[3];
    if (id === undefined) {
      const word = Object.values(params.doc ?? {})[0]!;
      return termVectors(field, { [word.toLowerCase()]: [1, 0, 0] });
    }
    // Only the text field holds these words; the title field's vector is empty.
    return field === 'text' ? termVectors('text', docs[id]!) : { status: 200, text: JSON.stringify({ found: true, term_vectors: {} }) };
  };
}

