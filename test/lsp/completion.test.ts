/**
 * Operator completion: snippets a user can tab through, and the sequential-dependence
 * template built from the query's own terms.
 */
import type { CompletionItem, CompletionList } from 'vscode-languageserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyEdits, freshUri, parseMarkers, positionAt, TestClient } from './harness.js';

let client: TestClient;
beforeAll(async () => {
  client = await TestClient.start();
});
afterAll(async () => {
  await client?.stop();
});

async function complete(languageId: string, input: string): Promise<{ text: string; items: CompletionItem[] }> {
  const { text, cursor } = parseMarkers(input);
  const uri = freshUri(languageId);
  client.open(uri, languageId, text);
  const result = await client.request<CompletionItem[] | CompletionList>('textDocument/completion', {
    textDocument: { uri },
    position: positionAt(text, cursor!),
    context: { triggerKind: 2, triggerCharacter: '#' },
  });
  return { text, items: Array.isArray(result) ? result : result.items };
}

/** Completes at `<|>`, picks `label`, and expects the document to read `expected` (snippet syntax kept). */
async function check(languageId: string, input: string, label: string, expected: string): Promise<void> {
  const { text, items } = await complete(languageId, input);
  const item = items.find((i) => i.label === label);
  expect(item, `completion ${label} among ${items.map((i) => i.label).join(' ')}`).toBeDefined();
  const edit = item!.textEdit as { range: never; newText: string };
  expect(applyEdits(text, [edit, ...(item!.additionalTextEdits ?? [])])).toBe(expected);
}

describe('completion', () => {
  it('offers #weight as a snippet with a weight and a term placeholder', async () => {
    await check('indri', '1\t#combine( a #<|> )', '#weight', '1\t#combine( a #weight( ${1:1.0} ${2:term} ) )');
  });

  it('replaces the operator prefix already typed', async () => {
    await check('indri', '1\t#combine( a #we<|> )', '#weight', '1\t#combine( a #weight( ${1:1.0} ${2:term} ) )');
    await check('indri', '1\t#u<|>', '#uwN', '1\t#uw${1:8}( ${2:a} ${3:b} )');
  });

  it('lists every operator with its description, snippets marked as such', async () => {
    const { items } = await complete('indri', '1\t#<|>');
    const labels = items.map((i) => i.label);
    for (const op of ['#combine', '#weight', '#wand', '#wsum', '#or', '#not', '#max', '#odN', '#uwN', '#N', '#syn', '#wsyn', '#band', '#filreq', '#filrej', '#prior']) {
      expect(labels).toContain(op);
    }
    const combine = items.find((i) => i.label === '#combine')!;
    expect(combine.insertTextFormat).toBe(2);
    expect(combine.detail).toMatch(/mean of the children/);
  });

  it('builds the sequential-dependence template from the query terms', async () => {
    await check(
      'indri',
      '1\twhite house tour #sd<|>',
      '#sdm',
      '1\t#weight( 0.85 #combine( white house tour ) 0.1 #combine( #1(white house) #1(house tour) ) 0.05 #combine( #uw8(white house) #uw8(house tour) ) )',
    );
  });

  it('gives the same query back when the template is applied to an SDM query', async () => {
    const sdm = '#weight( 0.85 #combine( a b ) 0.1 #combine( #1(a b) ) 0.05 #combine( #uw8(a b) ) )';
    await check('indri', `1\t${sdm}<|>`, '#sdm', `1\t${sdm}`);
  });

  it('offers no template for a one-term query', async () => {
    const { items } = await complete('indri', '1\tcat #<|>');
    expect(items.map((i) => i.label)).not.toContain('#sdm');
  });

  it('completes Lucene boolean keywords', async () => {
    await check('lucene', '1\tcat A<|> dog', 'AND', '1\tcat AND dog');
  });
});
