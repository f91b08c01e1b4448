/**
 * Configuration: querylens.json at the workspace root, client settings overriding it, and
 * a missing index or model shown to the user with the fix — never a crash.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Hover } from 'vscode-languageserver';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, freshUri, TestClient, type StartOptions } from './harness.js';

interface Status {
  index: { state: string; path: string | null; message: string; fix?: string };
  model: { state: string; path: string | null; message: string; fix?: string };
  configFile: string | null;
  configProblems: { source: string; message: string }[];
}

// Build before the tests: each test starts its own server.
beforeAll(() => ensureBuilt());

const clients: TestClient[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.stop()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function workspace(files: Record<string, string>, folders: string[] = []): string {
  const root = mkdtempSync(join(tmpdir(), 'querylens-lsp-'));
  dirs.push(root);
  for (const f of folders) mkdirSync(join(root, f), { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text);
  return root;
}

/** Starts a server and returns the first status it announces. */
async function check(options: StartOptions): Promise<{ client: TestClient; status: Status }> {
  const client = await TestClient.start(options);
  clients.push(client);
  const status = await client.until(() => client.notifications.find((n) => n.method === 'querylens/status')?.params as Status | undefined, 'querylens/status');
  return { client, status };
}

describe('configuration', () => {
  it('in a window without a folder, reads the nearest querylens.json above the first query file opened', async () => {
    const root = workspace({ 'querylens.json': JSON.stringify({ index: 'idx', corpus: 'docs.jsonl' }) }, ['queries/deep']);
    const { client, status } = await check({});
    expect(status.configFile).toBeNull();
    const file = join(root, 'queries/deep/q.indri');
    writeFileSync(file, '1\t#combine( a )\n');
    client.open(pathToFileURL(file).toString(), 'indri', '1\t#combine( a )\n');
    const found = await client.until(
      () => client.notifications.map((n) => n.params as Status).find((p) => p?.configFile === join(root, 'querylens.json')),
      'a status with the querylens.json above the file',
    );
    expect(found.index.path).toBe(join(root, 'idx'));
    expect(found.index.state).toBe('missing');
  });

  it('reports an index configured in querylens.json but absent, with the fix, as a warning', async () => {
    const root = workspace({ 'querylens.json': JSON.stringify({ index: 'idx', corpus: 'docs.jsonl' }) });
    const { client, status } = await check({ root });
    expect(status.index.state).toBe('missing');
    expect(status.index.path).toBe(join(root, 'idx'));
    expect(status.index.fix).toMatch(/querylens index .*docs\.jsonl/);
    expect(status.configFile).toBe(join(root, 'querylens.json'));
    const warning = await client.until(() => client.messages.find((m) => /No index at/.test(m.message)), 'a warning about the index');
    expect(warning.type).toBe(2);
    expect(status.model.state).toBe('not-configured');
  });

  it('lets client settings override the file', async () => {
    const root = workspace({ 'querylens.json': JSON.stringify({ index: 'missing-idx', model: 'nowhere.onnx' }) }, ['real-idx']);
    const { status } = await check({ root, settings: { querylens: { index: 'real-idx', model: null, scorer: { k1: 0.9 } } } });
    // The settings' folder is the one used (it exists, so it is not reported missing; an empty
    // folder is not a valid index, which the engine may report as an error).
    expect(status.index.path).toBe(join(root, 'real-idx'));
    expect(status.index.state).not.toBe('missing');
    // `null` means "not set" in VS Code: the file's model stays.
    expect(status.model.state).toBe('missing');
  });

  it('explains a broken querylens.json and keeps serving the grammar features', async () => {
    const root = workspace({ 'querylens.json': '{ "index": "idx", ' });
    const { client, status } = await check({ root });
    expect(status.configProblems[0].message).toMatch(/not valid JSON/);
    await client.until(() => client.messages.find((m) => /querylens\.json: not valid JSON/.test(m.message)), 'a message about the JSON');
    const uri = freshUri('indri');
    client.open(uri, 'indri', '1\t#combine( a )');
    expect(await client.diagnosticsFor(uri)).toEqual([]);
    const hover = await client.request<Hover | null>('textDocument/hover', { textDocument: { uri }, position: { line: 0, character: 4 } });
    expect(hover).not.toBeNull();
  });

  it('names wrong types and unknown keys', async () => {
    const root = workspace({ 'querylens.json': JSON.stringify({ device: 'tpu', scorer: { k1: 'high' }, indexx: 'a' }) });
    const { status } = await check({ root });
    const messages = status.configProblems.map((p) => p.message).join('\n');
    expect(messages).toMatch(/"device" must be one of "auto", "cpu", "cuda"/);
    expect(messages).toMatch(/"scorer\.k1" must be a number/);
    expect(messages).toMatch(/unknown key "indexx"/);
  });

  it('works without any workspace or configuration', async () => {
    const { status } = await check({});
    expect(status.index.state).toBe('not-configured');
    expect(status.index.fix).toMatch(/querylens\.json/);
    expect(status.configProblems).toEqual([]);
  });
});
