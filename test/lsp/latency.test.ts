/**
 * Latency a user feels, measured through the real server: diagnostics of a large query
 * file after opening it and after one edit, completion and hover in it. The bounds are
 * generous (a shared 2-core machine); the figures are printed for the report.
 */
import type { CompletionItem, SemanticTokens } from 'vscode-languageserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshUri, TestClient } from './harness.js';

let client: TestClient;
beforeAll(async () => {
  client = await TestClient.start();
});
afterAll(async () => {
  await client?.stop();
});

const QUERIES = 2000;

function bigFile(broken: number): string {
  const lines = ['// generated'];
  for (let i = 1; i <= QUERIES; i++) {
    const q = `#weight( 0.85 #combine( term${i} house ) 0.1 #combine( #1(term${i} house) ) 0.05 #combine( #uw8(term${i} house) ) )`;
    lines.push(`${i}\t${i === broken ? q.slice(0, -2) : q}`);
  }
  return lines.join('\n');
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t = performance.now();
  const value = await fn();
  return [value, performance.now() - t];
}

describe(`latency on a ${QUERIES}-query file`, () => {
  it('publishes diagnostics, tokens, completions and hovers quickly', async () => {
    const uri = freshUri('indri');
    const [opened, openMs] = await timed(async () => {
      client.open(uri, 'indri', bigFile(1500));
      return client.diagnosticsFor(uri);
    });
    expect(opened.map((d) => d.range.start.line)).toEqual([1500]);

    const [edited, editMs] = await timed(async () => {
      client.change(uri, bigFile(-1));
      return client.diagnosticsFor(uri);
    });
    expect(edited).toEqual([]);

    const [tokens, tokensMs] = await timed(() => client.request<SemanticTokens>('textDocument/semanticTokens/full', { textDocument: { uri } }));
    expect(tokens.data.length / 5).toBeGreaterThan(QUERIES * 10);

    const [items, completionMs] = await timed(() =>
      client.request<CompletionItem[]>('textDocument/completion', { textDocument: { uri }, position: { line: 1000, character: 6 } }),
    );
    expect(items.some((i) => i.label === '#weight')).toBe(true);

    const [, hoverMs] = await timed(() => client.request('textDocument/hover', { textDocument: { uri }, position: { line: 1000, character: 6 } }));

    const figures = { openMs, editMs, tokensMs, completionMs, hoverMs };
    console.log(`LSP latency, ${QUERIES} queries (ms): ${JSON.stringify(Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, Math.round(v)])))}`);
    expect(openMs).toBeLessThan(10_000);
    expect(editMs).toBeLessThan(10_000);
    expect(completionMs).toBeLessThan(1_000);
    expect(hoverMs).toBeLessThan(1_000);
  });
});
