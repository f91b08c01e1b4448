/**
 * The implied query id as an inlay hint (qid-hints.ts), through the real server without any index
 * or model: a query line without a written id gets `qid N (implied)` before it, a query with one
 * gets nothing, and the hints follow the requested range and the dialect.
 */
import type { InlayHint } from 'vscode-languageserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshUri, TestClient } from './harness.js';

let client: TestClient;
beforeAll(async () => {
  client = await TestClient.start();
});
afterAll(async () => {
  await client?.stop();
});

const hints = (uri: string, from = 0, to = 100) =>
  client.request<InlayHint[]>('textDocument/inlayHint', { textDocument: { uri }, range: { start: { line: from, character: 0 }, end: { line: to, character: 0 } } });

describe('implied query id hints', () => {
  it('are announced in the capabilities, so every client asks for them', () => {
    expect(client.initializeResult.capabilities.inlayHintProvider).toBe(true);
  });

  it('show the implied id before a query written without one, and nothing before a written id', async () => {
    const uri = freshUri('indri');
    client.open(uri, 'indri', '// topics\n21\t#combine( heat )\n  #combine( supersonic heat transfer wings )\n\n#combine( flow )');
    const got = await hints(uri);
    expect(got.map((h) => [h.position, h.label])).toEqual([
      [{ line: 2, character: 2 }, 'qid 3 (implied)'],
      [{ line: 4, character: 0 }, 'qid 5 (implied)'],
    ]);
    expect(got[0]!.tooltip).toMatch(/no written id: it is query 3 .* not judged against topic 3/);
    expect((await hints(uri, 3, 4)).map((h) => h.label)).toEqual(['qid 5 (implied)']);
  });

  it('work for Lucene files too', async () => {
    const uri = freshUri('lucene');
    client.open(uri, 'lucene', '7\tflow\nheat AND transfer');
    expect((await hints(uri)).map((h) => h.label)).toEqual(['qid 2 (implied)']);
  });
});
