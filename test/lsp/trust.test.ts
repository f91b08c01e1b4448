/**
 * Issue 11 item 4, the hostile-workspace suite: a cloned repository's querylens.json must not
 * make the server read, show or write anything outside the workspace (`..`, absolute paths,
 * symbolic links, a model elsewhere), the user's own settings stay trusted, and an untrusted
 * workspace (initializationOptions.trusted = false, or `querylens lsp --trust none`) gets
 * syntax, diagnostics, formatting and conversion only: no index opened or built, no engine.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { CodeAction, TextEdit } from 'vscode-languageserver';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { confineToWorkspace } from '../../server/lsp/config.js';
import { ensureBuilt, freshUri, REPO, TestClient, type StartOptions } from './harness.js';

interface Status {
  index: { state: string; path: string | null; message: string };
  model: { state: string; path: string | null; message: string };
  configProblems: { source: string; message: string; line?: number; column?: number }[];
  trusted: boolean;
}

const SECRET = 'zebracrossingsecret';
const corpus = (word: string) => `${JSON.stringify({ _id: 'p1', title: 'Private notes', text: `the ${word} of the private folder` })}\n`;

beforeAll(() => ensureBuilt(), 120_000);
const clients: TestClient[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.stop()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A parent folder holding `ws/` (the workspace) and `private/` (a folder the workspace must not reach, with a corpus). */
function layout(): { ws: string; outside: string } {
  const parent = mkdtempSync(join(tmpdir(), 'querylens-trust-'));
  dirs.push(parent);
  const ws = join(parent, 'ws');
  const outside = join(parent, 'private');
  mkdirSync(ws);
  mkdirSync(outside);
  writeFileSync(join(outside, 'corpus.jsonl'), corpus(SECRET));
  return { ws, outside };
}

async function start(options: StartOptions): Promise<{ client: TestClient; status: Status }> {
  const client = await TestClient.start(options);
  clients.push(client);
  const status = await client.until(() => client.notifications.find((n) => n.method === 'querylens/status')?.params as Status | undefined, 'querylens/status', 60_000);
  return { client, status };
}

describe('confineToWorkspace', () => {
  it('keeps paths inside, refuses `..`, absolute paths, symlinks out and the workspace itself as index', () => {
    const { ws, outside } = layout();
    mkdirSync(join(ws, 'data'));
    symlinkSync(outside, join(ws, 'link'));
    symlinkSync(join(ws, 'nowhere'), join(ws, 'dangling'));
    const text = JSON.stringify({ corpus: 'x', index: 'y', qrels: 'z', model: 'm' }, null, 2);
    const inside = confineToWorkspace({ corpus: 'data/c.jsonl', index: '.index', qrels: './data/../data/q.txt', model: 'data/model' }, {}, ws, text);
    expect(inside.problems).toEqual([]);
    const cases: [Record<string, string>, RegExp][] = [
      [{ corpus: '../private/corpus.jsonl' }, /"corpus" ignored: "..\/private\/corpus.jsonl" resolves to .*private.*outside the workspace folder/],
      [{ corpus: join(outside, 'corpus.jsonl') }, /"corpus" ignored/],
      [{ index: 'link/idx' }, /"index" ignored: "link\/idx" resolves to .*private\/idx/],
      [{ qrels: 'data/../../private/q' }, /"qrels" ignored/],
      [{ model: '/' }, /"model" ignored/],
      [{ index: '.' }, /"index" ignored: "." is the workspace folder itself/],
      [{ index: 'dangling/idx' }, /"index" ignored: "dangling\/idx" goes through a symbolic link that cannot be resolved/],
    ];
    for (const [config, message] of cases) {
      const key = Object.keys(config)[0]!;
      const result = confineToWorkspace(config, {}, ws, text);
      expect(result.config, key).toEqual({});
      expect(result.problems).toHaveLength(1);
      expect(result.problems[0]!.message).toMatch(message);
      // Located at the key in querylens.json, and says what to do.
      expect(result.problems[0]!.message).toMatch(new RegExp(`^querylens\\.json:\\d+:\\d+: "${key}"`));
      expect(result.problems[0]!.message).toMatch(new RegExp(`set "querylens\\.${key}" in your own user settings`));
    }
    // A key the user's settings override is not the file's to decide.
    expect(confineToWorkspace({ corpus: '/etc' }, { corpus: '/somewhere' }, ws).problems).toEqual([]);
  });
});

describe('a hostile querylens.json', () => {
  it('cannot index a private folder, write outside or show its text (absolute corpus, `..` index)', async () => {
    const { ws, outside } = layout();
    const config = { corpus: join(outside, 'corpus.jsonl'), index: `../${basename(outside)}/idx`, qrels: '../../../../../../etc/passwd' };
    writeFileSync(join(ws, 'querylens.json'), JSON.stringify(config, null, 2));
    const { client, status } = await start({ root: ws });
    const problems = status.configProblems.map((p) => p.message).join('\n');
    expect(problems).toMatch(/querylens\.json:2:\d+: "corpus" ignored/);
    expect(problems).toMatch(/querylens\.json:3:\d+: "index" ignored/);
    expect(problems).toMatch(/querylens\.json:4:\d+: "qrels" ignored/);
    expect(status.index.state).toBe('not-configured');
    await client.until(() => client.messages.find((m) => /"corpus" ignored/.test(m.message)), 'the message about the corpus');
    const uri = freshUri('indri');
    client.open(uri, 'indri', `1\t${SECRET}`);
    await client.diagnosticsFor(uri);
    const preview = await client.request('querylens/preview', { uri, qid: '1' }).then(JSON.stringify, (err: Error) => err.message);
    expect(preview).not.toContain('private folder');
    expect(readdirSync(outside)).toEqual(['corpus.jsonl']);
    expect(existsSync(join(ws, 'idx'))).toBe(false);
  }, 60_000);

  it('cannot reach outside through a symbolic link, nor load a model from elsewhere', async () => {
    const { ws, outside } = layout();
    symlinkSync(outside, join(ws, 'data'));
    const modelDir = join(outside, 'model');
    mkdirSync(modelDir);
    writeFileSync(join(ws, 'querylens.json'), JSON.stringify({ corpus: 'data/corpus.jsonl', index: 'data/idx', model: modelDir }));
    const { status } = await start({ root: ws });
    const problems = status.configProblems.map((p) => p.message).join('\n');
    expect(problems).toMatch(/"corpus" ignored: "data\/corpus.jsonl" resolves to .*private\/corpus.jsonl/);
    expect(problems).toMatch(/"index" ignored/);
    expect(problems).toMatch(/"model" ignored/);
    expect(status.model.state).toBe('not-configured');
    await new Promise((r) => setTimeout(r, 500));
    expect(readdirSync(outside).sort()).toEqual(['corpus.jsonl', 'model']);
  }, 60_000);

  it("honours the user's own settings (trusted): an index built from a corpus outside the workspace", async () => {
    const { ws, outside } = layout();
    writeFileSync(join(ws, 'querylens.json'), JSON.stringify({ corpus: '../private/corpus.jsonl', index: 'idx' }));
    const { status } = await start({ root: ws, settings: { querylens: { corpus: join(outside, 'corpus.jsonl') } } });
    expect(status.configProblems).toEqual([]);
    expect(status.index.state).toBe('ready');
    expect(existsSync(join(ws, 'idx'))).toBe(true);
  }, 60_000);
});

describe('an untrusted workspace (restricted mode)', () => {
  async function restricted(options: Partial<StartOptions>): Promise<{ client: TestClient; status: Status; ws: string }> {
    const { ws } = layout();
    mkdirSync(join(ws, 'data'));
    writeFileSync(join(ws, 'data/corpus.jsonl'), corpus('inside'));
    writeFileSync(join(ws, 'querylens.json'), JSON.stringify({ corpus: 'data/corpus.jsonl', index: 'idx', formatting: { width: 20 } }));
    const { client, status } = await start({ root: ws, ...options });
    return { client, status, ws };
  }

  for (const [how, options] of [
    ['initializationOptions.trusted = false', { initializationOptions: { trusted: false } }],
    ['querylens lsp --trust none', { args: ['--trust', 'none'], initializationOptions: { trusted: true } }],
  ] as const) {
    it(`${how}: grammar features only, no index built, the status says why`, async () => {
      const { client, status, ws } = await restricted(options);
      expect(status.trusted).toBe(false);
      expect(status.index.state).toBe('untrusted');
      expect(status.index.message).toMatch(/Workspace not trusted/);
      const uri = freshUri('indri');
      client.open(uri, 'indri', '1\t#combine( heat flow\n2\t#combine( a b c d e f g h i j k )');
      expect((await client.diagnosticsFor(uri)).length).toBeGreaterThan(0);
      const edits = await client.request<TextEdit[]>('textDocument/formatting', { textDocument: { uri }, options: { tabSize: 2, insertSpaces: true } });
      expect(Array.isArray(edits)).toBe(true);
      const converted = await client.request<{ text: string } | null>('querylens/convert', { uri });
      expect(converted?.text).toBeTruthy();
      const actions = await client.request<CodeAction[]>('textDocument/codeAction', {
        textDocument: { uri },
        range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
        context: { diagnostics: [] },
      });
      expect(actions.filter((a) => a.kind?.startsWith('source.convert'))).toEqual([]);
      const error = await client.request('querylens/preview', { uri, qid: '2' }).then(
        () => null,
        (err: Error) => err.message,
      );
      expect(error).toMatch(/not trusted/);
      await new Promise((r) => setTimeout(r, 500));
      expect(existsSync(join(ws, 'idx'))).toBe(false);
    }, 60_000);
  }

  it('`querylens lsp --trust` refuses an unknown policy with a one-line error', async () => {
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) =>
      execFile(process.execPath, ['bin/querylens.js', 'lsp', '--trust', 'everything'], { cwd: REPO }, (err, _stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stderr }),
      ),
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/--trust must be one of workspace, none/);
  }, 30_000);
});
