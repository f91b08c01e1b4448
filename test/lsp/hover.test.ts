/** Hover over operators: the user reads what the operator does and an example. */
import type { Hover, MarkupContent } from 'vscode-languageserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshUri, parseMarkers, positionAt, TestClient } from './harness.js';

let client: TestClient;
beforeAll(async () => {
  client = await TestClient.start();
});
afterAll(async () => {
  await client?.stop();
});

/** Hovers at `<|>`; `expected` null means no hover, else every pattern must match the markdown. */
async function check(languageId: string, input: string, expected: RegExp[] | null): Promise<void> {
  const { text, cursor } = parseMarkers(input);
  const uri = freshUri(languageId);
  client.open(uri, languageId, text);
  const hover = await client.request<Hover | null>('textDocument/hover', { textDocument: { uri }, position: positionAt(text, cursor!) });
  if (expected === null) {
    expect(hover).toBeNull();
    return;
  }
  expect(hover).not.toBeNull();
  const value = (hover!.contents as MarkupContent).value;
  expect((hover!.contents as MarkupContent).kind).toBe('markdown');
  for (const pattern of expected) expect(value).toMatch(pattern);
}

describe('hover', () => {
  it('describes #weight with an example', async () => {
    await check('indri', '1\t#wei<|>ght( 1.0 a 2.0 b )', [/\*\*#weight\*\*/, /normalised by the sum/, /```indri\n#weight\( 1\.0 #1\(white house\)/]);
  });

  it('works with the cursor at either end of the operator token', async () => {
    await check('indri', '1\t<|>#combine( a b )', [/\*\*#combine\*\*/]);
    await check('indri', '1\t#combine<|>( a b )', [/\*\*#combine\*\*/]);
  });

  it('gives window sizes', async () => {
    await check('indri', '1\t#combine( #uw<|>12( a b ) )', [/\*\*#uwN\*\* \(window of 12\)/, /Unordered window/]);
    await check('indri', '1\t#combine( #<|>1( a b ) )', [/\*\*#N\*\* \(window of 1\)/, /exact phrase/]);
  });

  it('says nothing over terms and unknown operators', async () => {
    await check('indri', '1\t#combine( wh<|>ite house )', null);
    await check('indri', '1\t#frob<|>nicate( a )', null);
  });

  it('explains Lucene boolean operators, boosts and fuzziness from the AST', async () => {
    await check('lucene', '1\tcat A<|>ND dog', [/\*\*AND\*\*/, /required/, /```lucene/]);
    await check('lucene', '1\t<|>-cat dog', [/excluded/]);
    await check('lucene', '1\tcat^<|>2 dog', [/Boost/]);
    await check('lucene', '1\troam~<|>1', [/fuzzy/]);
  });

  it('does not take a hyphen inside a Lucene term for an operator', async () => {
    await check('lucene', '1\te-<|>mail', null);
  });
});
