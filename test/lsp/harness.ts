/**
 * LSP-level test harness: starts the REAL server (`node bin/querylens.js lsp --stdio`) and
 * talks JSON-RPC to it over its stdin/stdout, like any editor would.
 *
 * Fixtures mark positions in the document text: `<|>` is the cursor, `<|…|>` a range.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmdirSync, statSync, readdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-languageserver/node';
import type {
  ClientCapabilities,
  Diagnostic,
  InitializeResult,
  Position,
  PublishDiagnosticsParams,
  Range,
  TextEdit,
} from 'vscode-languageserver';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));

// ---------------------------------------------------------------- build

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Compiles with tsc when a source is newer than the server in dist/. A lock directory keeps
 * parallel test files from compiling at the same time.
 */
export function ensureBuilt(): Promise<void> {
  // Once per test process: sources edited while a file runs must not rebuild mid-test.
  built ??= buildIfStale();
  return built;
}
let built: Promise<void> | undefined;

async function buildIfStale(): Promise<void> {
  const built = join(REPO, 'dist/server/lsp/server.js');
  const lock = join(REPO, 'dist/.lsp-test-build.lock');
  const stale = () => !existsSync(built) || statSync(built).mtimeMs < Math.max(newestMtime(join(REPO, 'server')), newestMtime(join(REPO, 'grammar')));
  if (!stale()) return;
  mkdirSync(join(REPO, 'dist'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    if (!stale()) return;
    try {
      execFileSync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: REPO, stdio: 'pipe' });
    } catch {
      // Type errors elsewhere in the tree still emit JavaScript; the tests below decide.
    }
  } finally {
    rmdirSync(lock);
  }
}

// ---------------------------------------------------------------- markers

export interface Marked {
  /** The text with every marker removed. */
  text: string;
  /** Offset of `<|>`, if present. */
  cursor?: number;
  /** `<|…|>` ranges, in order of their start. */
  ranges: { start: number; end: number }[];
}

export function parseMarkers(input: string): Marked {
  let text = '';
  let cursor: number | undefined;
  const ranges: { start: number; end: number }[] = [];
  const open: number[] = [];
  for (let i = 0; i < input.length; ) {
    if (input.startsWith('<|>', i)) {
      cursor = text.length;
      i += 3;
    } else if (input.startsWith('<|', i)) {
      open.push(text.length);
      i += 2;
    } else if (input.startsWith('|>', i) && open.length) {
      ranges.push({ start: open.pop()!, end: text.length });
      i += 2;
    } else {
      text += input[i++];
    }
  }
  ranges.sort((a, b) => a.start - b.start);
  return { text, cursor, ranges };
}

export function positionAt(text: string, offset: number): Position {
  const before = text.slice(0, offset);
  const line = before.split('\n').length - 1;
  return { line, character: offset - (before.lastIndexOf('\n') + 1) };
}

export function offsetAt(text: string, position: Position): number {
  const lines = text.split('\n');
  let offset = 0;
  for (let i = 0; i < position.line; i++) offset += lines[i].length + 1;
  return offset + position.character;
}

export function rangeOf(text: string, r: { start: number; end: number }): Range {
  return { start: positionAt(text, r.start), end: positionAt(text, r.end) };
}

/** The text a range covers. */
export function textOf(text: string, range: Range): string {
  return text.slice(offsetAt(text, range.start), offsetAt(text, range.end));
}

/** Applies non-overlapping edits (any order) to a text. */
export function applyEdits(text: string, edits: TextEdit[]): string {
  const sorted = [...edits].sort((a, b) => offsetAt(text, b.range.start) - offsetAt(text, a.range.start));
  let out = text;
  for (const e of sorted) out = out.slice(0, offsetAt(out, e.range.start)) + e.newText + out.slice(offsetAt(out, e.range.end));
  return out;
}

// ---------------------------------------------------------------- client

export interface StartOptions {
  /** Folder used as workspace root (querylens.json is read from it). */
  root?: string;
  capabilities?: ClientCapabilities;
  initializationOptions?: unknown;
  /** Answers to workspace/configuration (per section). Absent: the client has no configuration capability. */
  settings?: Record<string, unknown>;
  /** Extra arguments after `querylens lsp --stdio` (e.g. `--trust none`). */
  args?: string[];
}

export const DEFAULT_CAPABILITIES: ClientCapabilities = {
  textDocument: {
    hover: { contentFormat: ['markdown', 'plaintext'] },
    completion: { completionItem: { snippetSupport: true } },
    publishDiagnostics: { versionSupport: true },
    semanticTokens: { requests: { full: true }, tokenTypes: [], tokenModifiers: [], formats: ['relative'] },
  },
  workspace: { workspaceEdit: { documentChanges: true, resourceOperations: ['create'] } },
};

export class TestClient {
  readonly diagnostics = new Map<string, PublishDiagnosticsParams[]>();
  readonly notifications: { method: string; params: unknown }[] = [];
  readonly messages: { type: number; message: string }[] = [];
  readonly stderr: string[] = [];
  private versions = new Map<string, number>();
  private waiters: (() => void)[] = [];
  initializeResult!: InitializeResult;

  constructor(
    readonly process: ChildProcess,
    readonly connection: MessageConnection,
  ) {}

  private notifyWaiters(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Waits until `predicate` holds, re-checking after every message from the server. */
  async until<T>(predicate: () => T | undefined | false, what: string, timeoutMs = 15_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = predicate();
      if (value) return value;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; server stderr:\n${this.stderr.join('')}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  static async start(options: StartOptions = {}): Promise<TestClient> {
    await ensureBuilt();
    const child = spawn(process.execPath, ['bin/querylens.js', 'lsp', '--stdio', ...(options.args ?? [])], { cwd: REPO, stdio: ['pipe', 'pipe', 'pipe'] });
    const connection = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
    const client = new TestClient(child, connection);
    child.stderr!.on('data', (d) => client.stderr.push(String(d)));
    connection.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
      const list = client.diagnostics.get(p.uri) ?? [];
      list.push(p);
      client.diagnostics.set(p.uri, list);
      client.notifyWaiters();
    });
    connection.onNotification('window/showMessage', (p: { type: number; message: string }) => {
      client.messages.push(p);
      client.notifyWaiters();
    });
    connection.onNotification((method: string, params: unknown) => {
      client.notifications.push({ method, params });
      client.notifyWaiters();
    });
    connection.onRequest('client/registerCapability', () => null);
    connection.onRequest('window/workDoneProgress/create', () => null);
    if (options.settings) {
      const settings = options.settings;
      connection.onRequest('workspace/configuration', (p: { items: { section?: string }[] }) => p.items.map((i) => settings[i.section ?? ''] ?? null));
    }
    connection.listen();
    const capabilities: ClientCapabilities = structuredClone(options.capabilities ?? DEFAULT_CAPABILITIES);
    if (options.settings) capabilities.workspace = { ...capabilities.workspace, configuration: true };
    client.initializeResult = await connection.sendRequest('initialize', {
      processId: process.pid,
      rootUri: options.root ? pathToFileURL(options.root).toString() : null,
      workspaceFolders: options.root ? [{ uri: pathToFileURL(options.root).toString(), name: 'ws' }] : null,
      capabilities,
      initializationOptions: options.initializationOptions,
    });
    await connection.sendNotification('initialized', {});
    return client;
  }

  open(uri: string, languageId: string, text: string): void {
    this.versions.set(uri, 1);
    void this.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId, version: 1, text } });
  }

  change(uri: string, text: string): void {
    const version = (this.versions.get(uri) ?? 1) + 1;
    this.versions.set(uri, version);
    void this.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text }] });
  }

  /** Diagnostics published for the current version of `uri`. */
  async diagnosticsFor(uri: string): Promise<Diagnostic[]> {
    const version = this.versions.get(uri);
    const published = await this.until(
      () => this.diagnostics.get(uri)?.find((p) => p.version === version),
      `diagnostics for ${uri} v${version}`,
    );
    return published.diagnostics;
  }

  request<R>(method: string, params: unknown): Promise<R> {
    return this.connection.sendRequest(method, params) as Promise<R>;
  }

  async stop(): Promise<void> {
    try {
      await Promise.race([this.connection.sendRequest('shutdown'), new Promise((r) => setTimeout(r, 2000))]);
      void this.connection.sendNotification('exit');
    } catch {
      // The server may already be gone; kill below.
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.process.kill('SIGKILL');
        resolve();
      }, 2000);
      this.process.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    this.connection.dispose();
  }
}

let uriCounter = 0;
/** A fresh untitled URI per fixture, so documents never interfere. */
export function freshUri(languageId: string, scheme: 'untitled' | 'file' = 'untitled'): string {
  uriCounter++;
  // File fixtures live outside the repository: a server without a workspace folder reads the nearest
  // querylens.json above an opened file, and the repository's own would load the sample index.
  return scheme === 'file'
    ? pathToFileURL(join(tmpdir(), `querylens-fixtures-${process.pid}`, `fixture-${uriCounter}.${languageId}`)).toString()
    : `untitled:fixture-${uriCounter}.${languageId}`;
}
