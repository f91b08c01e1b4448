/**
 * The server's message encoder (server/lsp/transport.ts) reuses each diagnostic's encoded bytes
 * across publishes; what it writes must be byte for byte what JSON.stringify would write.
 */
import { describe, expect, it } from 'vitest';
import { encodeMessage } from '../../server/lsp/transport.js';

const diagnostic = (line: number, message: string, data?: unknown) => ({
  range: { start: { line, character: 3 }, end: { line, character: 6 } },
  severity: 3,
  code: 'engine/stopword',
  source: 'querylens',
  message,
  ...(data === undefined ? {} : { data }),
});

const publish = (diagnostics: unknown[], version?: number) => ({
  jsonrpc: '2.0',
  method: 'textDocument/publishDiagnostics',
  params: { uri: 'file:///tmp/a%20b.indri', ...(version === undefined ? {} : { version }), diagnostics },
});

const plain = (msg: unknown) => Buffer.from(JSON.stringify(msg), 'utf-8');

describe('encodeMessage', () => {
  it('writes exactly the JSON of the message, also when the diagnostics were encoded before', () => {
    const shared = [diagnostic(0, '"the" is a stopword', { term: 'the' }), diagnostic(1, 'naïve “quotes” \u2028 and \\ escapes "é" 😀')];
    const first = publish([...shared, diagnostic(2, 'fresh')], 7);
    expect(encodeMessage(first, 'utf-8')).toEqual(plain(first));
    // The same objects again (cached bytes), in another order, among new ones.
    const second = publish([diagnostic(5, 'new', { term: 'x', analysed: ['x'] }), shared[1], shared[0]], 8);
    expect(encodeMessage(second, 'utf-8')).toEqual(plain(second));
    const once = publish([shared[0]]);
    expect(encodeMessage(once, 'utf-8')).toEqual(plain(once));
  });

  it('encodes other messages and empty publishes as JSON.stringify does', () => {
    const messages = [
      publish([]),
      { jsonrpc: '2.0', id: 3, result: { items: [{ label: 'é' }] } },
      { jsonrpc: '2.0', method: 'textDocument/publishDiagnostics', params: { diagnostics: [diagnostic(0, 'm')], uri: 'untitled:x', version: 2 } },
    ];
    for (const msg of messages) expect(encodeMessage(msg as never, 'utf-8')).toEqual(plain(msg));
  });
});
