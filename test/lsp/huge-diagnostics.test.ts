/**
 * Issue 11 item 1: a document with more diagnostics than a call stack holds arguments (a 1 MB
 * file of `1<TAB>heat` lines: one duplicate-qid problem per line) must not take the server
 * down. One publish carries at most MAX_PUBLISHED_DIAGNOSTICS plus one summary diagnostic
 * that says how many more there are, and the server goes on answering.
 */
import type { Hover } from 'vscode-languageserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, freshUri, TestClient } from './harness.js';

let client: TestClient;
beforeAll(async () => {
  await ensureBuilt();
  client = await TestClient.start();
}, 120_000);
afterAll(() => client?.stop());

describe('a document with more diagnostics than fit in one publish', () => {
  it('publishes the first 10,000 and a summary, and keeps answering', async () => {
    const uri = freshUri('indri');
    const text = '1\theat\n'.repeat(150_000);
    expect(text.length).toBeGreaterThanOrEqual(1_000_000);
    client.open(uri, 'indri', text);
    const diagnostics = await client.diagnosticsFor(uri);
    expect(diagnostics.length).toBe(10_001);
    const summary = diagnostics[10_000]!;
    expect(summary.code).toBe('lsp/too-many-diagnostics');
    expect(summary.message).toMatch(/^\d[\d,]* more problems not shown/);
    const more = Number(summary.message.match(/^([\d,]+)/)![1]!.replace(/,/g, ''));
    expect(more).toBeGreaterThan(100_000);
    // Still alive: a hover and a small document's diagnostics.
    const hover = await client.request<Hover | null>('textDocument/hover', { textDocument: { uri }, position: { line: 0, character: 3 } });
    expect(hover === null || typeof hover === 'object').toBe(true);
    const small = freshUri('indri');
    client.open(small, 'indri', '1\t#combine( a');
    expect((await client.diagnosticsFor(small)).length).toBeGreaterThan(0);
    expect(client.process.exitCode).toBeNull();
  }, 60_000);
});
