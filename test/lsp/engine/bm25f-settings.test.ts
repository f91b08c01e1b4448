/**
 * querylens.json with `"scorer": {"name": "bm25f", "w.title": 2, …}` through the real server: the
 * hover shows BM25F's per-field parts, the preview's explanation has each field's part, and a
 * parameter for a field the index lacks is said once in the status instead of failing every request.
 */
import type { Hover, MarkupContent } from 'vscode-languageserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshUri, parseMarkers, positionAt, type TestClient } from '../harness.js';
import { makeWorkspace, startIn, type Status, type Workspace } from './fixture.js';

let ws: Workspace;
let client: TestClient;
let status: Status;
beforeAll(async () => {
  ws = await makeWorkspace({ config: { corpus: 'data/corpus.jsonl', index: 'idx', qrels: 'data/qrels.txt', scorer: { name: 'bm25f', 'w.title': 2, 'c.text': 0.5, 'w.titel': 3 } } });
  ({ client, status } = await startIn(ws.root));
});
afterAll(async () => {
  await client?.stop();
  ws?.dispose();
});

describe('bm25f from querylens.json', () => {
  it('the status says which parameter names a field the index lacks', () => {
    expect(status.index.state).toBe('ready');
    expect(status.index.message).toContain('Note: scorer "w.titel" ignored: the index has no such field (its fields: title, text).');
  });

  it('the hover shows each field with its statistics, w and c', async () => {
    const { text, cursor } = parseMarkers('1\t#combine( fl<|>ow boundary )');
    const uri = freshUri('indri');
    client.open(uri, 'indri', text);
    const hover = await client.request<Hover | null>('textDocument/hover', { textDocument: { uri }, position: positionAt(text, cursor!) });
    const value = (hover!.contents as MarkupContent).value;
    // "flow": in d1's title, and in the texts of d1, d3 and d5 (fixture.ts).
    expect(value).toContain('| title | 1 | 1 | 2 | 1 |');
    expect(value).toContain('| text | 3 | 3 | 1 | 0.500 |');
  });
});
