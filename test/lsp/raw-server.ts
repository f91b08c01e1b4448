/**
 * The built server (`querylens lsp --stdio`) driven over raw bytes, for the framing and fuzz
 * suites: what is written to its stdin is exactly the bytes given, framing errors included; its
 * output (well framed) is read with the library's reader.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { StreamMessageReader, type Message } from 'vscode-languageserver/node';
import { REPO } from './harness.js';

export const frame = (body: string, length = Buffer.byteLength(body)) => `Content-Length: ${length}\r\n\r\n${body}`;
export const request = (id: number, method: string, params: unknown = null) => JSON.stringify({ jsonrpc: '2.0', id, method, params });
export const INITIALIZE = frame(request(1, 'initialize', { processId: null, rootUri: null, capabilities: {} })) + frame(JSON.stringify({ jsonrpc: '2.0', method: 'initialized', params: {} }));
export const STATUS = (id: number) => frame(request(id, 'querylens/status'));

export class RawServer {
  readonly responses = new Map<number | string | null, { result?: unknown; error?: { code: number; message: string } }>();
  readonly nullIdErrors: { code: number; message: string }[] = [];
  /** Notifications from the server (showMessage, logMessage, status, diagnostics), in order. */
  readonly notifications: { method: string; params: unknown }[] = [];
  stderr = '';
  exited: number | null = null;

  constructor(readonly child: ChildProcess) {
    child.stderr!.on('data', (d) => (this.stderr += String(d)));
    child.on('exit', (code) => (this.exited = code ?? -1));
    // The server's own output is well framed: read it with the library's reader.
    const reader = new StreamMessageReader(child.stdout!);
    reader.listen((m: Message) => {
      const r = m as { id?: number | string | null; result?: unknown; error?: { code: number; message: string }; method?: string; params?: unknown };
      if (r.method !== undefined && r.id !== undefined) {
        // A request to the client (progress token, registration, refresh): accept it, as an editor would.
        this.write(frame(JSON.stringify({ jsonrpc: '2.0', id: r.id, result: null })));
        return;
      }
      if (r.method !== undefined) {
        this.notifications.push({ method: r.method, params: r.params });
        return;
      }
      if (r.id === null && r.error) this.nullIdErrors.push(r.error);
      else this.responses.set(r.id!, r);
    });
  }

  static start(args: string[] = []): RawServer {
    return new RawServer(spawn(process.execPath, ['bin/querylens.js', 'lsp', '--stdio', ...args], { cwd: REPO, stdio: ['pipe', 'pipe', 'pipe'] }));
  }

  write(bytes: string | Buffer): void {
    this.child.stdin!.write(bytes);
  }

  async answer(id: number, timeoutMs = 5000): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
    const deadline = Date.now() + timeoutMs;
    while (!this.responses.has(id)) {
      if (this.exited !== null) throw new Error(`the server exited (${this.exited}) before answering ${id}:\n${this.stderr}`);
      if (Date.now() > deadline) throw new Error(`no answer to request ${id} within ${timeoutMs} ms; stderr:\n${this.stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return this.responses.get(id)!;
  }

  stop(): void {
    if (this.exited === null) this.child.kill('SIGKILL');
  }
}

