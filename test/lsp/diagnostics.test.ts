/**
 * Diagnostics over LSP: the parser's code, exact range (marked `<|…|>` in the fixture) and
 * typed `data` reach the client unchanged, for every document scheme.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshUri, parseMarkers, rangeOf, TestClient } from './harness.js';

let client: TestClient;
beforeAll(async () => {
  client = await TestClient.start();
});
afterAll(async () => {
  await client?.stop();
});

interface Expected {
  code: string;
  severity?: number;
  data?: unknown;
  message?: RegExp;
}

/** Opens `input` (markers removed) and expects one diagnostic per `<|…|>` range, in order. */
async function check(languageId: string, input: string, expected: Expected[], uri = freshUri(languageId)): Promise<void> {
  const { text, ranges } = parseMarkers(input);
  client.open(uri, languageId, text);
  const diagnostics = await client.diagnosticsFor(uri);
  const sorted = [...diagnostics].sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
  expect(sorted.map((d) => d.code)).toEqual(expected.map((e) => e.code));
  sorted.forEach((d, i) => {
    expect(d.range, `range of ${d.code}`).toEqual(rangeOf(text, ranges[i]));
    expect(d.source).toBe('querylens');
    if (expected[i].severity !== undefined) expect(d.severity).toBe(expected[i].severity);
    if (expected[i].data !== undefined) expect(d.data).toEqual(expected[i].data);
    if (expected[i].message) expect(d.message).toMatch(expected[i].message!);
  });
}

describe('diagnostics', () => {
  it('reports nothing for valid queries', async () => {
    await check('indri', '1\t#weight( 0.85 #combine( white house ) 0.15 #1(white house) )\n// a comment\n2\t#uw8( a b ) c.title', []);
    await check('lucene', '1\t+title:"white house"~2 -obama house^2.5\n2\t(cat OR dog) AND NOT mouse', []);
  });

  it('marks an unclosed operator at its opening, with the insertion point in data', async () => {
    await check('indri', 'q1\t<|#combine(|> white house', [
      { code: 'syntax/missing-close', severity: 1, data: { insert: ')', offset: 21, name: '#combine', openedAt: 0 }, message: /missing "\)" to close #combine opened at 1:4/ },
    ]);
  });

  it('marks a #weight item without a weight', async () => {
    await check('indri', 'q1\t#weight( <|white|> 1.0 house )', [{ code: 'indri/weight-expected', data: { offset: 9, suggestedWeight: 1 } }]);
  });

  it('marks a term Indri cannot parse and carries its base64 form', async () => {
    await check('indri', 'q1\t#combine( <|a@b|> c )', [{ code: 'indri/needs-base64', data: { encoded: 'YUBi', quote: false } }]);
  });

  it('places diagnostics of later lines on their own line', async () => {
    await check('indri', '// header\n1\t#combine( a b )\n\n2\t#weight( <|c|> 1 d )\n3\t<|#od2(|> e f', [
      { code: 'indri/weight-expected' },
      { code: 'syntax/missing-close' },
    ]);
  });

  it('reports file-level problems such as a repeated qid', async () => {
    const uri = freshUri('indri');
    const { text } = parseMarkers('7\t#combine( a )\n7\t#combine( b )');
    client.open(uri, 'indri', text);
    const diagnostics = await client.diagnosticsFor(uri);
    expect(diagnostics.length).toBe(1);
    expect(String(diagnostics[0].code)).toMatch(/duplicate/);
    expect(diagnostics[0].range.start.line).toBe(1);
  });

  it('checks Lucene documents with the Lucene parser', async () => {
    const uri = freshUri('lucene');
    client.open(uri, 'lucene', '1\ttitle:(white house');
    const diagnostics = await client.diagnosticsFor(uri);
    expect(diagnostics.length).toBeGreaterThan(0);
    expect(diagnostics.every((d) => d.range.start.line === 0)).toBe(true);
    // Checked as Lucene: Indri-only codes never appear.
    expect(diagnostics.some((d) => String(d.code).startsWith('indri/'))).toBe(false);
  });

  it('serves untitled documents, notebook cells and files alike', async () => {
    for (const uri of ['untitled:Untitled-1', 'vscode-notebook-cell:/work/nb.ipynb#W0sZmlsZQ%3D%3D', freshUri('indri', 'file')]) {
      await check('indri', '1\t<|#combine(|> a', [{ code: 'syntax/missing-close' }], uri);
    }
  });

  it('republishes for each new version and clears fixed problems', async () => {
    const uri = freshUri('indri');
    client.open(uri, 'indri', '1\t#combine( a');
    expect((await client.diagnosticsFor(uri)).length).toBe(1);
    client.change(uri, '1\t#combine( a )');
    expect(await client.diagnosticsFor(uri)).toEqual([]);
  });

  it('ignores documents of other languages', async () => {
    const uri = 'untitled:notes.txt';
    client.open(uri, 'plaintext', '#combine( a');
    const hover = await client.request('textDocument/hover', { textDocument: { uri }, position: { line: 0, character: 2 } });
    expect(hover).toBeNull();
    expect(client.diagnostics.get(uri)).toBeUndefined();
  });
  it('after a burst of edits publishes the last version, never an older one after a newer one', async () => {
    const uri = freshUri('indri');
    client.open(uri, 'indri', '1\t#combine( a');
    await client.diagnosticsFor(uri);
    // Twenty keystrokes sent back to back: the server may coalesce them (free scheduling,
    // server.ts) but what it publishes last is the last text's problems.
    let text = '1\t#combine( a';
    for (let i = 0; i < 20; i++) {
      text += i % 2 ? ' b' : ' #od2( c';
      client.change(uri, text);
    }
    const last = await client.diagnosticsFor(uri);
    expect(last.map((d) => d.code)).toEqual(Array(11).fill('syntax/missing-close'));
    const versions = client.diagnostics.get(uri)!.map((p) => p.version!);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(versions.at(-1)).toBe(21);
  });

  it('after random edit sequences, equal the diagnostics of the same text opened fresh (incremental parse)', async () => {
    const lines = fc.constantFrom(
      '1\t#combine( white house )',
      '2\t#weight( a 1.0 b )',
      '3\t#od2( e f',
      '// comment',
      '',
      '3\t#uw8( a b )',
      'q\t',
      'a@b c',
      '#combine( x y',
    );
    await fc.assert(
      fc.asyncProperty(fc.array(lines, { minLength: 1, maxLength: 8 }), fc.array(fc.tuple(fc.nat(), lines, fc.boolean()), { minLength: 1, maxLength: 6 }), async (initial, edits) => {
        const uri = freshUri('indri');
        const current = [...initial];
        client.open(uri, 'indri', current.join('\n'));
        await client.diagnosticsFor(uri);
        for (const [at, line, insert] of edits) {
          if (insert) current.splice(at % (current.length + 1), 0, line);
          else current[at % current.length] = line;
          client.change(uri, current.join('\n'));
          const incremental = await client.diagnosticsFor(uri);
          const fresh = freshUri('indri');
          client.open(fresh, 'indri', current.join('\n'));
          expect(incremental).toEqual(await client.diagnosticsFor(fresh));
        }
      }),
      { numRuns: 8 },
    );
  });
});
