/**
 * Loading the index: a missing or broken index gives an explained status (and a warning)
 * instead of a crash or silent empty answers; a configured corpus without an index is built
 * on first use, with work-done progress, and the build can be cancelled from the client.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Diagnostic, Hover, MarkupContent } from 'vscode-languageserver';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_CAPABILITIES, REPO, freshUri, type TestClient } from '../harness.js';
import { makeWorkspace, startClient, startIn, type Workspace } from './fixture.js';

const clients: TestClient[] = [];
const workspaces: Workspace[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.stop()));
  for (const w of workspaces.splice(0)) w.dispose();
});

async function workspace(options: Parameters<typeof makeWorkspace>[0]): Promise<Workspace> {
  const w = await makeWorkspace(options);
  workspaces.push(w);
  return w;
}

const WITH_PROGRESS = { ...DEFAULT_CAPABILITIES, window: { workDoneProgress: true } };

interface ProgressParams {
  token: string | number;
  value: { kind: 'begin' | 'report' | 'end'; title?: string; cancellable?: boolean; percentage?: number };
}

describe('index status', () => {
  it('explains a missing index without a corpus, and keeps the grammar features working', async () => {
    const w = await workspace({ build: false, config: { index: 'nowhere' } });
    const { client, status } = await startIn(w.root);
    clients.push(client);
    expect(status.provider).toBe('local');
    expect(status.index.state).toBe('missing');
    expect(status.index.message).toMatch(/No index at .*nowhere/);
    expect(status.index.fix).toMatch(/querylens index/);
    await client.until(() => client.messages.find((m) => m.type === 2 && /No index at/.test(m.message)), 'the warning');
    const uri = freshUri('indri');
    client.open(uri, 'indri', '1\t#combine( zebra flow )');
    const diagnostics: Diagnostic[] = await client.diagnosticsFor(uri);
    expect(diagnostics).toEqual([]);
    const hover = await client.request<Hover | null>('textDocument/hover', { textDocument: { uri }, position: { line: 0, character: 4 } });
    expect((hover!.contents as MarkupContent).value).toMatch(/#combine/);
    const err = await client.request('querylens/preview', { uri, qid: '1' }).catch((e: Error) => e);
    expect(String((err as Error).message)).toMatch(/no index is loaded/);
  });

  it('explains a broken index with the fix', async () => {
    const w = await workspace({ build: true });
    writeFileSync(join(w.index, 'lexicon.bin'), 'garbage');
    const { client, status } = await startIn(w.root);
    clients.push(client);
    expect(status.index.state).toBe('error');
    expect(status.index.message).toMatch(/lexicon\.bin is corrupt/);
    expect(status.index.fix).toMatch(/Delete the folder and reload|querylens index/);
    await client.until(() => client.messages.find((m) => /lexicon\.bin is corrupt/.test(m.message)), 'the warning');
  });

  it('builds a configured corpus on first use, with progress, then serves the engine features', async () => {
    const w = await workspace({ build: false });
    expect(existsSync(w.index)).toBe(false);
    const client = await startClient(w.root, { capabilities: WITH_PROGRESS });
    clients.push(client);
    // Opened while the index is being built: its engine diagnostics arrive once it loads.
    const early = freshUri('indri');
    client.open(early, 'indri', '1\t#combine( flow zebra )');
    const status = await client.until(() => client.notifications.find((n) => n.method === 'querylens/status')?.params as { index: { state: string; message: string } } | undefined, 'status', 60_000);
    const refreshed = await client.until(
      () => client.diagnostics.get(early)?.find((p) => p.diagnostics.some((d) => d.code === 'engine/oov')),
      'engine diagnostics of the document opened before the index loaded',
    );
    expect(refreshed.diagnostics.map((d) => d.code).filter((c) => c !== 'engine/unjudged-top-k')).toEqual(['engine/oov']);
    expect(status.index.state).toBe('ready');
    expect(status.index.message).toMatch(/9 documents/);
    expect(existsSync(join(w.index, 'meta.bin'))).toBe(true);
    const progress = client.notifications.filter((n) => n.method === '$/progress').map((n) => n.params as ProgressParams);
    const begin = progress.find((p) => p.value.kind === 'begin' && /building the index/.test(p.value.title ?? ''));
    expect(begin?.value.cancellable).toBe(true);
    expect(progress.some((p) => p.token === begin!.token && p.value.kind === 'end')).toBe(true);
    const uri = freshUri('indri');
    client.open(uri, 'indri', '1\t#combine( zebra flow )');
    expect((await client.diagnosticsFor(uri)).map((d) => d.code).filter((c) => c !== 'engine/unjudged-top-k')).toEqual(['engine/oov']);
  });

  it('stops a build the user cancels and says how to build again', async () => {
    // Ten renumbered copies of the Cranfield sample (14,000 documents), so that a build that
    // ignored the cancel would run for seconds and end 'ready'.
    const w = await workspace({ build: false, config: { corpus: 'big.jsonl', index: 'idx' } });
    const sample = readFileSync(join(REPO, 'samples/cranfield/corpus.jsonl'), 'utf8').split('\n').filter((l) => l.trim());
    const copies: string[] = [];
    for (let c = 0; c < 10; c++) {
      for (const line of sample) {
        const doc = JSON.parse(line) as { _id: string };
        copies.push(JSON.stringify({ ...doc, _id: `${doc._id}-${c}` }));
      }
    }
    writeFileSync(join(w.root, 'big.jsonl'), copies.join('\n') + '\n');
    const client = await startClient(w.root, { capabilities: WITH_PROGRESS });
    clients.push(client);
    // Deterministic under any CPU load: the cancel is queued on the client's writer right behind
    // the answer to the build's window/workDoneProgress/create, so the server reads it before
    // its next turn of I/O, i.e. before the first document of the corpus is read. (Cancelling
    // once the `begin` arrived raced the build when this process was starved of CPU.)
    // Installed before the server can send the request: it only does so after reading
    // `initialized`, which needs another turn of this process's event loop.
    const created: (string | number)[] = [];
    client.connection.onRequest('window/workDoneProgress/create', (params: { token: string | number }) => {
      created.push(params.token);
      if (created.length === 1) {
        // After this handler's reply is queued (in the microtasks that follow it), before any I/O.
        setImmediate(() => void client.connection.sendNotification('window/workDoneProgress/cancel', { token: params.token }));
      }
      return null;
    });
    const status = await client.until(
      () => client.notifications.find((n) => n.method === 'querylens/status')?.params as { index: { state: string; message: string; fix?: string } } | undefined,
      'querylens/status',
      60_000,
    );
    // The first progress the server created was the cancellable build, and it was the one cancelled.
    const progress = client.notifications.filter((n) => n.method === '$/progress').map((n) => n.params as ProgressParams);
    const begin = progress.find((p) => p.value.kind === 'begin' && /building the index/.test(p.value.title ?? ''));
    expect(begin?.value.cancellable).toBe(true);
    expect(begin!.token).toBe(created[0]);
    expect(progress.some((p) => p.token === begin!.token && p.value.kind === 'end')).toBe(true);
    expect(status.index.state).toBe('missing');
    expect(status.index.message).toMatch(/was cancelled/);
    expect(status.index.fix).toMatch(/querylens index/);
    // Nothing half-built is left where the index should be, nor a temporary build folder beside it.
    expect(existsSync(join(w.index, 'meta.bin'))).toBe(false);
    expect(readdirSync(w.root).filter((f) => f.startsWith('.idx.tmp-'))).toEqual([]);
  });

  it('reopens nothing and keeps serving when only the scorer settings change', async () => {
    const w = await workspace({ build: true });
    mkdirSync(join(w.root, 'sub'));
    const { client, status } = await startIn(w.root);
    clients.push(client);
    expect(status.index.state).toBe('ready');
    writeFileSync(join(w.root, 'querylens.json'), JSON.stringify({ index: 'idx', qrels: 'data/qrels.txt', scorer: { name: 'ql' } }));
    await client.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: `file://${w.root}/querylens.json`, type: 2 }] });
    await client.until(() => client.notifications.filter((n) => n.method === 'querylens/status').length >= 2, 'a second status');
    const uri = freshUri('indri');
    client.open(uri, 'indri', '1\tflow');
    await client.diagnosticsFor(uri);
    const r = await client.request<{ scorer: { name: string } }>('querylens/preview', { uri, qid: '1' });
    expect(r.scorer.name).toBe('ql');
  });
});
