/** Document symbols: the outline lists one entry per query, named by its qid. */
import type { DocumentSymbol } from 'vscode-languageserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshUri, parseMarkers, rangeOf, TestClient } from './harness.js';

let client: TestClient;
beforeAll(async () => {
  client = await TestClient.start();
});
afterAll(async () => {
  await client?.stop();
});

/** Each `<|…|>` is a query; `names` are the expected symbol names in order. */
async function check(languageId: string, input: string, names: string[]): Promise<void> {
  const { text, ranges } = parseMarkers(input);
  const uri = freshUri(languageId);
  client.open(uri, languageId, text);
  const symbols = await client.request<DocumentSymbol[]>('textDocument/documentSymbol', { textDocument: { uri } });
  expect(symbols.map((s) => s.name)).toEqual(names);
  symbols.forEach((s, i) => expect(s.range).toEqual(rangeOf(text, ranges[i])));
}

describe('document symbols', () => {
  it('names each query by its qid and skips comments and blank lines', async () => {
    await check('indri', '// topics\n301\t<|#combine( a b )|>\n\n302\t<|#weight( 1 c 2 d )|>', ['301', '302']);
  });

  it('numbers queries without a qid by their line', async () => {
    await check('lucene', '<|cat dog|>\n<|mouse|>', ['1', '2']);
  });

  it('shows the query text as detail', async () => {
    const uri = freshUri('indri');
    client.open(uri, 'indri', 'a\t#combine( white   house )');
    const [symbol] = await client.request<DocumentSymbol[]>('textDocument/documentSymbol', { textDocument: { uri } });
    expect(symbol.detail).toBe('#combine( white house )');
  });
});
