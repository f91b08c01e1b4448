/**
 * While the index is being built (the first-use build, or a querylens/buildIndex over an
 * existing index), through the real server over stdio:
 * - `querylens/buildIndex` sent during the first-use build is answered (never "method not
 *   found"): it joins that build, its own work-done token gets begin/report/end, the corpus is
 *   built once, and cancelling the joined request stops the build;
 * - `querylens/preview` and `querylens/runFile` answer InvalidRequest "the index is being
 *   built …" with `data: { index: 'building' }`, `querylens/weighFile` "the model is not
 *   loaded yet";
 * - the result-preview code lenses never go empty: a lens per query that says the index is
 *   being built, then (after `workspace/codeLens/refresh`) the results; during a rebuild the
 *   previous index's results, marked `· index being rebuilt`.
 */
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { CancellationTokenSource, type CodeLens } from 'vscode-languageserver';
import { afterEach, describe, expect, it } from 'vitest';
import type { BuildIndexResult } from '../../../server/lsp/engine/protocol.js';
import { DEFAULT_CAPABILITIES, REPO, freshUri, type TestClient } from '../harness.js';
import { makeWorkspace, startClient, type Status, type Workspace, failure } from './fixture.js';

const clients: TestClient[] = [];
const workspaces: Workspace[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.stop()));
  for (const w of workspaces.splice(0)) w.dispose();
});

const CAPABILITIES = {
  ...DEFAULT_CAPABILITIES,
  window: { workDoneProgress: true },
  workspace: { ...DEFAULT_CAPABILITIES.workspace, codeLens: { refreshSupport: true } },
};

/** `copies` renumbered copies of the Cranfield sample (1,400 documents each): a build that lasts seconds. */
function bigCorpus(path: string, copies: number): number {
  const sample = readFileSync(join(REPO, 'samples/cranfield/corpus.jsonl'), 'utf8').split('\n').filter((l) => l.trim());
  const lines: string[] = [];
  for (let c = 0; c < copies; c++) {
    for (const line of sample) {
      const doc = JSON.parse(line) as { _id: string };
      lines.push(JSON.stringify({ ...doc, _id: `${doc._id}-${c}` }));
    }
  }
  writeFileSync(path, lines.join('\n') + '\n');
  return lines.length;
}

interface Progress {
  token: string | number;
  value: { kind: 'begin' | 'report' | 'end'; title?: string; cancellable?: boolean; message?: string; percentage?: number };
}

function progress(client: TestClient): Progress[] {
  return client.notifications.filter((n) => n.method === '$/progress').map((n) => n.params as Progress);
}

function progressOf(client: TestClient, token: string | number): Progress['value'][] {
  return progress(client)
    .filter((p) => p.token === token)
    .map((p) => p.value);
}

function statuses(client: TestClient): Status[] {
  return client.notifications.filter((n) => n.method === 'querylens/status').map((n) => n.params as Status);
}

/** Log lines of completed builds (provider.ts logs one per build). */
function builds(client: TestClient): string[] {
  return client.notifications
    .filter((n) => n.method === 'window/logMessage')
    .map((n) => (n.params as { message: string }).message)
    .filter((m) => /^querylens: built /.test(m));
}

/** Starts the server and records its workspace/codeLens/refresh requests. */
async function start(root: string): Promise<{ client: TestClient; refreshes: number[] }> {
  const client = await startClient(root, { capabilities: CAPABILITIES });
  clients.push(client);
  const refreshes: number[] = [];
  client.connection.onRequest('workspace/codeLens/refresh', () => {
    refreshes.push(statuses(client).length);
    return null;
  });
  return { client, refreshes };
}

/** The token of the server's own first-use build progress, once its `begin` has arrived. */
function firstUseBuild(client: TestClient): Promise<string | number> {
  return client.until(
    () => progress(client).find((p) => p.value.kind === 'begin' && /building the index/.test(p.value.title ?? ''))?.token,
    'the begin of the first-use build',
    60_000,
  );
}

const lenses = (client: TestClient, uri: string) => client.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } });

describe('during the first-use build', () => {
  it('joins querylens/buildIndex to the running build, answers previews with "being built", and shows lenses that say so', async () => {
    // A model path too: the model loads after the index, so weighFile must say it is not loaded yet.
    const w = await makeWorkspace({ build: false, config: { corpus: 'big.jsonl', index: 'idx', model: 'no-model-here' } });
    workspaces.push(w);
    const docs = bigCorpus(join(w.root, 'big.jsonl'), 6);
    const { client, refreshes } = await start(w.root);
    const uri = freshUri('indri');
    client.open(uri, 'indri', '1\t#combine( boundary layer )\n2\t#combine( broken \n3\tflow');
    const serverToken = await firstUseBuild(client);

    // All sent while the build runs (it takes seconds; these are read within milliseconds).
    const joined = client.request<BuildIndexResult>('querylens/buildIndex', { workDoneToken: 'joined' });
    const preview = failure(client.request('querylens/preview', { uri, qid: '1' }));
    const runFile = failure(client.request('querylens/runFile', { uri }));
    const weighFile = failure(client.request('querylens/weighFile', { uri }));
    const statusDuring = client.request<Status>('querylens/status');
    const during = await lenses(client, uri);

    for (const err of [await preview, await runFile]) {
      expect(err.code).toBe(-32600);
      expect(err.message).toMatch(/the index is being built from .*big\.jsonl.*; try again when it is ready/);
      expect(err.data).toEqual({ index: 'building' });
    }
    // Asked for while the build runs, the status says so (not "Not configured yet.").
    const live = await statusDuring;
    expect(live.index).toMatchObject({ state: 'loading', path: w.index });
    expect(live.index.message).toMatch(/^The index is being built from .*big\.jsonl/);
    expect(live.model).toMatchObject({ state: 'loading', message: 'Loaded once the index is ready.' });
    const weighing = await weighFile;
    expect(weighing.code).toBe(-32600);
    expect(weighing.message).toMatch(/the term-weighting model is not loaded yet \(the server loads it after the index, and the index is being built from .*big\.jsonl/);
    expect(weighing.data).toEqual({ model: 'building' });
    // One lens per query without errors (1 and 3), saying what is going on; nothing to open yet.
    expect(during.map((l) => l.range.start.line)).toEqual([0, 2]);
    for (const lens of during) {
      expect(lens.command!.title).toMatch(/^▷ The index is being built from .*big\.jsonl.*: results appear when it is ready$/);
      expect(lens.command!.command).toBe('');
    }
    expect(statuses(client)).toEqual([]);

    const result = await joined;
    expect(result).toMatchObject({ index: w.index, docs });
    // The joined request's own token: begin (cancellable), reports, end.
    const mine = progressOf(client, 'joined');
    expect(mine[0]).toMatchObject({ kind: 'begin', title: `querylens: building the index from ${join(w.root, 'big.jsonl')}`, cancellable: true });
    expect(mine.filter((p) => p.kind === 'report').length).toBeGreaterThan(0);
    expect(mine.filter((p) => p.kind === 'report').every((p) => /documents$/.test(p.message!))).toBe(true);
    expect(mine.at(-1)!.kind).toBe('end');
    expect(progressOf(client, serverToken).at(-1)!.kind).toBe('end');
    // Built once, not twice.
    expect(builds(client)).toHaveLength(1);

    const status = await client.until(() => statuses(client).find((s) => s.index.state === 'ready'), 'the ready status');
    expect(status.index.message).toMatch(new RegExp(`Index loaded: ${docs.toLocaleString('en-US')} documents`));
    // From then on the request answers what the notification said.
    expect((await client.request<Status>('querylens/status')).index).toEqual(status.index);
    // Told to ask again once the index is ready, and then the lenses show results.
    await client.until(() => refreshes.some((at) => at > 0), 'workspace/codeLens/refresh after the index loaded');
    const after = await lenses(client, uri);
    expect(after.map((l) => l.range.start.line)).toEqual([0, 2]);
    for (const lens of after) {
      expect(lens.command!.title).toMatch(/^▶ [\d,]+ results · top: /);
      expect(lens.command!.command).toBe('querylens.showResults');
    }
    expect(builds(client)).toHaveLength(1);
  }, 120_000);

  it('stops the build when the joined request is cancelled', async () => {
    const w = await makeWorkspace({ build: false, config: { corpus: 'big.jsonl', index: 'idx' } });
    workspaces.push(w);
    // 28,000 documents, and the cancel goes as soon as the join is acknowledged (its `begin`): on an idle
    // machine 14,000 documents were built before a cancel sent after the first report got through.
    bigCorpus(join(w.root, 'big.jsonl'), 20);
    const { client } = await start(w.root);
    const serverToken = await firstUseBuild(client);
    const source = new CancellationTokenSource();
    const joined = client.connection.sendRequest<BuildIndexResult>('querylens/buildIndex', { workDoneToken: 'joined' }, source.token);
    await client.until(() => progressOf(client, 'joined').some((p) => p.kind === 'begin'), 'the begin on the joined token', 60_000);
    source.cancel();
    const err = await failure(joined);
    expect(err.code).toBe(-32800);
    expect(err.message).toMatch(/building the index was cancelled; nothing was written at .*idx/);
    const status = await client.until(() => statuses(client)[0], 'querylens/status', 60_000);
    expect(status.index.state).toBe('missing');
    expect(status.index.message).toMatch(/was cancelled/);
    expect(progressOf(client, serverToken).at(-1)!.kind).toBe('end');
    expect(progressOf(client, 'joined').at(-1)!.kind).toBe('end');
    expect(existsSync(join(w.index, 'meta.bin'))).toBe(false);
    expect(builds(client)).toEqual([]);
  }, 120_000);
});

describe('during a rebuild over an existing index', () => {
  it('joins a second querylens/buildIndex to the running one: both tokens get the progress, the corpus is built once', async () => {
    const w = await makeWorkspace({ build: true, config: { corpus: 'big.jsonl', index: 'idx' } });
    workspaces.push(w);
    const docs = bigCorpus(join(w.root, 'big.jsonl'), 6);
    const { client } = await start(w.root);
    await client.until(() => statuses(client)[0], 'querylens/status', 60_000);
    const first = client.request<BuildIndexResult>('querylens/buildIndex', { workDoneToken: 'first' });
    await client.until(() => progressOf(client, 'first').some((p) => p.kind === 'report'), 'a report of the first build', 60_000);
    const second = client.request<BuildIndexResult>('querylens/buildIndex', { workDoneToken: 'second' });
    const [a, b] = await Promise.all([first, second]);
    expect(a).toMatchObject({ index: w.index, docs });
    expect(b).toEqual(a);
    const mine = progressOf(client, 'second');
    // Joined mid-way: `begin` already carries how far the build is, then its reports and the end.
    expect(mine[0]).toMatchObject({ kind: 'begin', title: `querylens: building the index from ${join(w.root, 'big.jsonl')}`, cancellable: true });
    expect(mine[0]!.message).toMatch(/documents$/);
    expect(mine.at(-1)!.kind).toBe('end');
    expect(progressOf(client, 'first').at(-1)!.kind).toBe('end');
    expect(builds(client)).toHaveLength(1);
  }, 120_000);

  it('keeps the previous results in the lenses, marked as being rebuilt, then refreshes them', async () => {
    // The index holds the 9-document fixture; querylens.json names a 8,400-document corpus.
    const w = await makeWorkspace({ build: true, config: { corpus: 'big.jsonl', index: 'idx' } });
    workspaces.push(w);
    bigCorpus(join(w.root, 'big.jsonl'), 6);
    const { client, refreshes } = await start(w.root);
    await client.until(() => statuses(client)[0], 'querylens/status', 60_000);
    const uri = freshUri('indri');
    client.open(uri, 'indri', '1\tflow');
    await client.diagnosticsFor(uri);
    const before = await lenses(client, uri);
    expect(before.map((l) => l.command!.title)).toEqual(['▶ 3 results · top: Flow over a flat plate']);

    const refreshesBefore = refreshes.length;
    const build = client.request<BuildIndexResult>('querylens/buildIndex', { workDoneToken: 'rebuild' });
    await client.until(() => progressOf(client, 'rebuild').some((p) => p.kind === 'report'), 'a report of the rebuild', 60_000);
    // Told to ask again when the build starts, and the previous results stay, marked.
    expect(refreshes.length).toBeGreaterThan(refreshesBefore);
    const during = await lenses(client, uri);
    expect(during.map((l) => l.command!.title)).toEqual(['▶ 3 results · top: Flow over a flat plate · index being rebuilt']);
    expect(during[0]!.command!.command).toBe('querylens.showResults');

    await build;
    const statusCount = statuses(client).length;
    expect(statusCount).toBe(2);
    expect(refreshes.at(-1)).toBe(statusCount);
    const after = await lenses(client, uri);
    expect(after[0]!.command!.title).toMatch(/^▶ [\d,]+ results · top: /);
    expect(after[0]!.command!.title).not.toMatch(/^▶ 3 results|rebuilt/);
  }, 120_000);
});
