/** Folding: multi-line operators (in Indri parameter files) and blocks of comment lines. */
import type { FoldingRange } from 'vscode-languageserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClient } from './harness.js';

let client: TestClient;
beforeAll(async () => {
  client = await TestClient.start();
});
afterAll(async () => {
  await client?.stop();
});

let n = 0;
/** `expected`: [startLine, endLine, kind?] triples, in order. */
async function check(fileName: string, languageId: string, text: string, expected: [number, number, string?][]): Promise<void> {
  const uri = `untitled:${++n}-${fileName}`;
  client.open(uri, languageId, text);
  const ranges = await client.request<FoldingRange[]>('textDocument/foldingRange', { textDocument: { uri } });
  expect(ranges.map((r) => (r.kind ? [r.startLine, r.endLine, r.kind] : [r.startLine, r.endLine]))).toEqual(expected);
}

describe('folding', () => {
  it('folds blocks of two or more comment lines, not single ones', async () => {
    await check('a.indri', 'indri', '// one\n// two\n// three\n1\t#combine( a )\n// alone\n2\tb', [[0, 2, 'comment']]);
  });

  it('folds operators spanning lines, keeping the closing line visible', async () => {
    const text = [
      '<parameters>',
      '  <query>',
      '    <number>1</number>',
      '    <text>#weight(',
      '      0.7 #combine(',
      '        white',
      '        house )',
      '      0.3 dog',
      '    )</text>',
      '  </query>',
      '</parameters>',
    ].join('\n');
    await check('q.param', 'indri', text, [
      [3, 7],
      [4, 5],
    ]);
  });

  it('gives no ranges for one-line queries', async () => {
    await check('b.lucene', 'lucene', '1\t(a OR b) AND c\n2\td', []);
  });
});
