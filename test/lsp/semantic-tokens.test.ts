/**
 * Semantic tokens: each token of the fixture, decoded from the LSP encoding, as
 * "text:type". What a user sees coloured: operators, weights, fields, terms, strings, numbers.
 */
import type { SemanticTokens } from 'vscode-languageserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshUri, TestClient } from './harness.js';

let client: TestClient;
let legend: string[];
beforeAll(async () => {
  client = await TestClient.start();
  legend = client.initializeResult.capabilities.semanticTokensProvider!.legend.tokenTypes;
});
afterAll(async () => {
  await client?.stop();
});

async function check(languageId: string, text: string, expected: string[]): Promise<void> {
  const uri = freshUri(languageId);
  client.open(uri, languageId, text);
  const tokens = await client.request<SemanticTokens>('textDocument/semanticTokens/full', { textDocument: { uri } });
  const lines = text.split('\n');
  const decoded: string[] = [];
  let line = 0;
  let char = 0;
  for (let i = 0; i < tokens.data.length; i += 5) {
    const [dLine, dChar, length, type] = tokens.data.slice(i, i + 4);
    line += dLine;
    char = dLine === 0 ? char + dChar : dChar;
    decoded.push(`${lines[line].slice(char, char + length)}:${legend[type]}`);
  }
  expect(decoded).toEqual(expected);
}

describe('semantic tokens', () => {
  it('colours Indri operators, weights, terms, fields, raw terms and numbers', async () => {
    await check('indri', '// note\n1\t#weight( 0.7 white.title 0.3 #uw8( "raw" 42 ) )', [
      '// note:comment',
      '#weight:operator',
      '0.7:weight',
      'white:term',
      'title:field',
      '0.3:weight',
      '#uw8:operator',
      '"raw":string',
      '42:number',
    ]);
  });

  it('colours numeric field comparisons and extent restrictions', async () => {
    await check('indri', '1\t#filreq( #less( year 2000 ) #combine[title]( a ) )', [
      '#filreq:operator',
      '#less:operator',
      'year:field',
      '2000:number',
      '#combine:operator',
      '[title]:field',
      'a:term',
    ]);
  });

  it('colours Lucene fields, phrases, keywords, boosts and slops', async () => {
    await check('lucene', '1\t+title:cat AND "white house"~2 dog^2.5', [
      '+:operator',
      'title:field',
      'cat:term',
      'AND:keyword',
      '"white house":string',
      '~:operator',
      '2:number',
      'dog:term',
      '^:operator',
      '2.5:number',
    ]);
  });

  it('colours every field of a list, contexts, dates, #any and unknown operators from the AST', async () => {
    await check('indri', '1\t#combine( white.title,h1 #1( a b ).(body) #any:person #dateafter( 11/01/2004 ) #foo( x ) )', [
      '#combine:operator',
      'white:term',
      'title:field',
      'h1:field',
      '#1:operator',
      'a:term',
      'b:term',
      'body:field',
      '#any:operator',
      'person:field',
      '#dateafter:operator',
      '11/01/2004:string',
      '#foo:operator',
    ]);
  });

  it('colours a Lucene group field, fuzzy distances and a field written on a range', async () => {
    await check('lucene', '1\ttitle:(cat dog~1) date:[a TO b] roam~', [
      'title:field',
      'cat:term',
      'dog:term',
      '~:operator',
      '1:number',
      'date:field',
      '[a TO b]:string',
      'roam:term',
      '~:operator',
    ]);
  });
});
