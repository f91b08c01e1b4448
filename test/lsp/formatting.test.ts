/**
 * Document formatting with the grammar's formatters: spacing normalised, one query per
 * line kept in line files, wrapping at the configured width in Indri parameter files, and
 * broken queries left exactly as written.
 */
import type { TextEdit } from 'vscode-languageserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyEdits, TestClient } from './harness.js';

let client: TestClient;
beforeAll(async () => {
  client = await TestClient.start({ settings: { querylens: { formatting: { width: 40 } } } });
  await client.until(() => client.notifications.some((n) => n.method === 'querylens/status'), 'configuration loaded');
});
afterAll(async () => {
  await client?.stop();
});

let n = 0;
async function check(fileName: string, languageId: string, before: string, after: string): Promise<void> {
  const uri = `untitled:${++n}-${fileName}`;
  client.open(uri, languageId, before);
  const edits = await client.request<TextEdit[]>('textDocument/formatting', { textDocument: { uri }, options: { tabSize: 2, insertSpaces: true } });
  const formatted = applyEdits(before, edits);
  expect(formatted).toBe(after);
  // Formatting is stable: a second pass changes nothing.
  client.change(uri, formatted);
  expect(await client.request<TextEdit[]>('textDocument/formatting', { textDocument: { uri }, options: { tabSize: 2, insertSpaces: true } })).toEqual([]);
}

describe('formatting', () => {
  it('normalises Indri spacing and keeps one query per line, comments untouched', async () => {
    await check(
      'a.indri',
      'indri',
      '//   keep  me\n1\t#combine(a   b #uw8(c d))\n2\t#weight(0.85 #combine(white house) 0.1 #combine(#1(white house)) 0.05 #combine(#uw8(white house)))',
      '//   keep  me\n1\t#combine( a b #uw8(c d) )\n2\t#weight( 0.85 #combine( white house ) 0.1 #combine( #1(white house) ) 0.05 #combine( #uw8(white house) ) )',
    );
  });

  it('normalises Lucene spacing', async () => {
    await check('b.lucene', 'lucene', '1\ttitle:(a    OR b)   AND  c^2', '1\ttitle:(a OR b) AND c^2');
  });

  it('leaves a query with a syntax error as written, formatting the others', async () => {
    await check('c.indri', 'indri', '1\t#combine(  a\n2\t#combine(b)', '1\t#combine(  a\n2\t#combine( b )');
  });

  it('wraps long queries of a parameter file at the configured width, indented under the query', async () => {
    const before = '<parameters><query><number>1</number>\n  <text>#weight(0.85 #combine(white house) 0.1 #combine(#1(white house)) 0.05 #combine(#uw8(white house)))</text>\n</query></parameters>';
    const after = [
      '<parameters><query><number>1</number>',
      '  <text>#weight(',
      '          0.85 #combine( white house )',
      '          0.1 #combine( #1(white house) )',
      '          0.05 #combine( #uw8(white house) )',
      '        )</text>',
      '</query></parameters>',
    ].join('\n');
    await check('q.param', 'indri', before, after);
  });
});
