/**
 * Issue 11 item 1: a failure that escapes a feature module (here a module whose diagnostics
 * are not a list, which breaks validate() outside the per-module guard) is logged to the
 * client's log and shown once as an error message; the server goes on answering. Before,
 * `void validate(…)` left the rejection unhandled and Node ended the process.
 *
 * In-process (the server on a pair of in-memory streams) so that a test module can be plugged in.
 */
import { PassThrough } from 'node:stream';
import {
  createConnection,
  createMessageConnection,
  ProposedFeatures,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-languageserver/node';
import { afterAll, describe, expect, it } from 'vitest';
import { ResourceCheckProvider } from '../../server/lsp/engine.js';
import type { FeatureModule } from '../../server/lsp/features.js';
import { startLanguageServer } from '../../server/lsp/server.js';

const broken: FeatureModule = {
  id: 'test/broken-diagnostics',
  // Not a list: the server's merge loop throws a TypeError outside the module call.
  diagnostics: (doc) => (doc.document.getText().includes('boom') ? (42 as never) : []),
};

const toServer = new PassThrough();
const fromServer = new PassThrough();
const serverConnection = createConnection(ProposedFeatures.all, new StreamMessageReader(toServer), new StreamMessageWriter(fromServer));
startLanguageServer({ engine: new ResourceCheckProvider(), features: [broken] }, serverConnection);
const client: MessageConnection = createMessageConnection(new StreamMessageReader(fromServer), new StreamMessageWriter(toServer));
const shown: { type: number; message: string }[] = [];
const logged: string[] = [];
const published: { uri: string; version?: number }[] = [];
client.onNotification('window/showMessage', (p: { type: number; message: string }) => shown.push(p));
client.onNotification('window/logMessage', (p: { message: string }) => logged.push(p.message));
client.onNotification('textDocument/publishDiagnostics', (p: { uri: string; version?: number }) => published.push(p));
client.listen();
afterAll(() => client.dispose());

async function until(predicate: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('a failure outside every module guard', () => {
  it('is logged and shown, and the server keeps answering', async () => {
    await client.sendRequest('initialize', { processId: null, rootUri: null, capabilities: {} });
    await client.sendNotification('initialized', {});
    await client.sendNotification('textDocument/didOpen', { textDocument: { uri: 'untitled:boom.indri', languageId: 'indri', version: 1, text: '1\tboom' } });
    await until(() => shown.some((m) => /validating untitled:boom\.indri failed/.test(m.message)), 'the error message');
    expect(shown.find((m) => /validating/.test(m.message))!.type).toBe(1);
    await until(() => logged.some((m) => /validating untitled:boom\.indri failed: TypeError/.test(m)), 'the log line with the stack');
    // Still serving: another document is validated and a hover is answered.
    await client.sendNotification('textDocument/didOpen', { textDocument: { uri: 'untitled:fine.indri', languageId: 'indri', version: 1, text: '1\t#combine( a )' } });
    await until(() => published.some((p) => p.uri === 'untitled:fine.indri'), 'diagnostics of the other document');
    const hover = await client.sendRequest('textDocument/hover', { textDocument: { uri: 'untitled:fine.indri' }, position: { line: 0, character: 4 } });
    expect(hover).not.toBeNull();
  });
});
