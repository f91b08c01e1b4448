/**
 * Code actions: text before, diagnostic code, text after (the quick fix is built from the
 * diagnostic's typed data), and the Indri ↔ Lucene conversion.
 */
import type { CodeAction, Diagnostic, TextDocumentEdit, TextEdit, WorkspaceEdit } from 'vscode-languageserver';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyEdits, freshUri, TestClient } from './harness.js';

let client: TestClient;
beforeAll(async () => {
  client = await TestClient.start();
});
afterAll(async () => {
  await client?.stop();
});

async function actionsFor(uri: string, text: string, diagnostics: Diagnostic[], only?: string[]): Promise<CodeAction[]> {
  const lines = text.split('\n');
  return client.request<CodeAction[]>('textDocument/codeAction', {
    textDocument: { uri },
    range: { start: { line: 0, character: 0 }, end: { line: lines.length - 1, character: lines.at(-1)!.length } },
    context: { diagnostics, only },
  });
}

/** Opens `before`, takes the diagnostic with `code`, applies its quick fix and expects `after`. */
async function check(languageId: string, before: string, code: string, after: string, title?: RegExp): Promise<void> {
  const uri = freshUri(languageId);
  client.open(uri, languageId, before);
  const diagnostic = (await client.diagnosticsFor(uri)).find((d) => d.code === code);
  expect(diagnostic, `a ${code} diagnostic`).toBeDefined();
  const actions = await actionsFor(uri, before, [diagnostic!], ['quickfix']);
  expect(actions.length).toBe(1);
  const [fix] = actions;
  expect(fix.kind).toBe('quickfix');
  expect(fix.diagnostics?.[0].code).toBe(code);
  if (title) expect(fix.title).toMatch(title);
  expect(applyEdits(before, fix.edit!.changes![uri])).toBe(after);
  // The fixed text has no diagnostic of that code left.
  client.change(uri, after);
  expect((await client.diagnosticsFor(uri)).map((d) => d.code)).not.toContain(code);
}

describe('quick fixes', () => {
  it('inserts a missing closing parenthesis', async () => {
    await check('indri', '1\t#combine( white house', 'syntax/missing-close', '1\t#combine( white house)', /Insert missing '\)'/);
    await check('indri', '// c\n2\t#weight( 0.5 #combine( a b ) 0.5 c', 'syntax/missing-close', '// c\n2\t#weight( 0.5 #combine( a b ) 0.5 c)');
  });

  it('inserts the suggested weight before an unweighted #weight item', async () => {
    await check('indri', '1\t#weight( white 2.0 house )', 'indri/weight-expected', '1\t#weight( 1.0 white 2.0 house )', /Insert weight 1\.0/);
  });

  it('replaces an unparseable term by its #base64 form', async () => {
    await check('indri', '1\t#combine( a@b c )', 'indri/needs-base64', '1\t#combine( #base64(YUBi) c )', /#base64\(YUBi\)/);
  });

  it('upper-cases a Lucene operator written in lower case', async () => {
    await check('lucene', '1\tcat and dog', 'lucene/lowercase-operator', '1\tcat AND dog', /Use the operator AND/);
  });

  it('turns the spaces after a leading number into a TAB, making the number the query id', async () => {
    await check('indri', '// c\n12   #combine( heat flow )', 'source/spaces-after-qid', '// c\n12\t#combine( heat flow )', /Make '12' the query id/);
  });

  it('puts each weight before its item when all were written after (the query then has no error)', async () => {
    await check('indri', '1\t#weight( heat 0.5 )', 'indri/weight-expected', '1\t#weight( 0.5 heat )', /Put each weight before its item: 0\.5 heat/);
    await check('indri', '1\t#combine( #weight( heat 0.5 #1(flow rate) 2 ) x )', 'indri/weight-expected', '1\t#combine( #weight( 0.5 heat 2 #1(flow rate) ) x )');
    for (const after of ['1\t#weight( 0.5 heat )', '1\t#combine( #weight( 0.5 heat 2 #1(flow rate) ) x )']) {
      const uri = freshUri('indri');
      client.open(uri, 'indri', after);
      expect((await client.diagnosticsFor(uri)).filter((d) => d.severity === 1)).toEqual([]);
    }
  });

  it('removes a closing parenthesis that closes nothing, with the blank before it', async () => {
    await check('indri', '1\t#combine( heat flow ) )', 'syntax/unmatched-close', '1\t#combine( heat flow )', /Remove the extra '\)'/);
    await check('lucene', '1\t(heat flow))', 'syntax/unmatched-close', '1\t(heat flow)');
    await check('lucene', '1\theat ] flow', 'syntax/unmatched-close', '1\theat flow');
  });

  it('replaces an unknown operator by the closest known one', async () => {
    await check('indri', '1\t#weigth( 1 heat 2 flow )', 'indri/unknown-operator', '1\t#weight( 1 heat 2 flow )', /Change to #weight/);
    await check('indri', '1\t#comb( heat flow )', 'indri/unknown-operator', '1\t#combine( heat flow )');
  });

  it('renumbers a duplicate query id to the next id no query uses', async () => {
    await check('indri', '3\theat\n4\tflow\n3\twing', 'source/duplicate-qid', '3\theat\n4\tflow\n5\twing', /Renumber this query '5'/);
    await check('indri', 'q07\theat\nq07\tflow', 'source/duplicate-qid', 'q07\theat\nq08\tflow');
  });

  it('names the file position of an unclosed operator, not the query one', async () => {
    const uri = freshUri('indri');
    client.open(uri, 'indri', '// c\n7\t#combine( heat #1( a b )');
    const missing = (await client.diagnosticsFor(uri)).find((d) => d.code === 'syntax/missing-close');
    expect(missing?.message).toBe('missing ")" to close #combine opened at 2:3');
  });

  it('builds the fix from data alone: a diagnostic with unusable data gets no fix', async () => {
    const uri = freshUri('indri');
    const text = '1\t#combine( a';
    client.open(uri, 'indri', text);
    const [diagnostic] = await client.diagnosticsFor(uri);
    const actions = await actionsFor(uri, text, [{ ...diagnostic, data: { insert: 42 } }], ['quickfix']);
    expect(actions).toEqual([]);
  });
});

describe('convert', () => {
  it('writes the Lucene translation next to an Indri file, approximations noted', async () => {
    const uri = freshUri('indri', 'file');
    const text = '1\t#weight( 2.0 white 1.0 house )\n2\t#combine( #uw8( a b ) c )';
    client.open(uri, 'indri', text);
    await client.diagnosticsFor(uri);
    const actions = await actionsFor(uri, text, [], ['source.convert']);
    expect(actions.length).toBe(1);
    const [convert] = actions;
    expect(convert.title).toMatch(/^Convert to Lucene → fixture-.*\.lucene \(\d+ approximations?\)$/);
    const changes = (convert.edit as WorkspaceEdit).documentChanges!;
    expect(changes[0]).toMatchObject({ kind: 'create', uri: uri.replace(/\.indri$/, '.lucene') });
    const written = ((changes[1] as TextDocumentEdit).edits[0] as TextEdit).newText;
    expect(written).toMatch(/^1\twhite\^2 house$/m);
    expect(written).toMatch(/^\/\/ 2: /m);
    expect(written).toMatch(/^2\t/m);
  });

  it('never replaces an existing file: it creates the next free name, and the create refuses to overwrite', async () => {
    const uri = freshUri('indri', 'file');
    const existing = fileURLToPath(uri.replace(/\.indri$/, '.lucene'));
    mkdirSync(dirname(existing), { recursive: true });
    writeFileSync(existing, '// hand-written, must survive\n1\t+keep -me\n');
    try {
      const text = '1\t#weight( 2.0 white 1.0 house )';
      client.open(uri, 'indri', text);
      await client.diagnosticsFor(uri);
      const [convert] = await actionsFor(uri, text, [], ['source.convert']);
      const create = (convert.edit as WorkspaceEdit).documentChanges![0] as { kind: string; uri: string; options: Record<string, boolean> };
      expect(create.uri).toBe(uri.replace(/\.indri$/, '.converted.lucene'));
      expect(create.options).toEqual({ overwrite: false, ignoreIfExists: false });
      expect(convert.title).toContain('.converted.lucene');
    } finally {
      rmSync(existing, { force: true });
    }
  });

  it('answers querylens/convert with the whole file for clients without file creation', async () => {
    const uri = freshUri('lucene');
    client.open(uri, 'lucene', '1\twhite^2 house\n2\t(broken');
    await client.diagnosticsFor(uri);
    const result = await client.request<{ to: string; text: string; skipped: number }>('querylens/convert', { uri });
    expect(result.to).toBe('indri');
    expect(result.skipped).toBe(1);
    expect(result.text).toMatch(/^1\t#weight\(/m);
    expect(result.text).toMatch(/^\/\/ 2: not converted/m);
  });
});
