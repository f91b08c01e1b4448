/**
 * Issue 11, tests asked: the language server fuzzed over raw stdio with a fixed seed and a
 * bounded number of steps. Random and mutated Indri and Lucene queries arrive as didOpen and
 * didChange, mixed with hover, completion, code lens, semantic tokens, symbols, folding,
 * formatting and inlay-hint requests, framing errors (wrong and missing Content-Length,
 * garbage headers, bodies that are not JSON) and a few large messages. The server must never
 * exit, answer every well-framed request within ANSWER_BOUND_MS, and answer a valid request at the end.
 * The engine is loaded (a small index), so hover statistics and previews run searches.
 * On a failure the error lists the last messages sent; QUERYLENS_FUZZ_DUMP=<file> also writes
 * the documents as they were. The pieces include Lucene regexes that backtrack catastrophically
 * in a JavaScript RegExp (`/(.*.*)*q/`): the engine matches them as automata in linear time.
 */
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from './harness.js';
import { makeWorkspace, type Workspace } from './engine/fixture.js';
import { frame, RawServer, request } from './raw-server.js';
import { seededRandom } from '../support/random.js';

const SEED = 20261125;
const STEPS = 400;
const ANSWER_BOUND_MS = 10_000;

const prng = seededRandom;

const PIECES = [
  'heat', 'flow', 'boundary', 'layer', 'the', 'slab*', 'he?t', 'zz1*', '#combine(', '#weight(', '#od2(', '#uw8(', '#syn(', '#band(',
  '#filreq(', '#not(', '#any:title', '#1(', ')', '(', ' ', ' ', ' ', '\t', '\n', '0.5', '1e308', '-3', 'NaN', '"', '"heat flow"~3',
  '^2', '^', '~', '~0.5', '/[a-z]+/', '/(.*.*)*q/', '/((a|b)*)*c/', 'title:', 'text:(', 'AND', 'OR', 'NOT', '+', '-', '&&', '||', '!', '\\', '\\u00', '[a TO z]',
  '{a TO z}', '*', '?', ':', 'é', '😀', '\u0000', '\u2028', '\r', '//', '#base64(aGVhdA==)', '#combine:w=1(', '.',
];

describe('the language server under fuzzed input over raw stdio', () => {
  let ws: Workspace;
  let server: RawServer;
  beforeAll(async () => {
    await ensureBuilt();
    ws = await makeWorkspace();
  }, 120_000);
  afterAll(() => {
    server?.stop();
    ws?.dispose();
  });

  it(`never exits, answers every request within ${ANSWER_BOUND_MS / 1000} s, and still answers at the end (seed ${SEED}, ${STEPS} steps)`, async () => {
    const random = prng(SEED);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
    const int = (n: number) => Math.floor(random() * n);

    const root = pathToFileURL(ws.root).toString();
    server = RawServer.start();
    server.write(frame(request(1, 'initialize', { processId: null, rootUri: root, workspaceFolders: [{ uri: root, name: 'ws' }], capabilities: { workspace: { codeLens: { refreshSupport: true } } } })));
    server.write(frame(JSON.stringify({ jsonrpc: '2.0', method: 'initialized', params: {} })));
    expect((await server.answer(1, 20_000)).result).toBeTruthy();

    const queryText = (): string => {
      let q = '';
      const n = 1 + int(25);
      for (let i = 0; i < n; i++) q += pick(PIECES);
      return q;
    };
    const documentText = (): string => {
      const lines: string[] = [];
      const n = 1 + int(12);
      for (let i = 0; i < n; i++) lines.push(random() < 0.7 ? `${int(5)}\t${queryText()}` : queryText());
      return lines.join(pick(['\n', '\r\n', '\n\n']));
    };
    const mutate = (text: string): string => {
      const at = int(text.length + 1);
      switch (int(4)) {
        case 0:
          return text.slice(0, at) + pick(PIECES) + text.slice(at);
        case 1:
          return text.slice(0, at) + text.slice(at + 1 + int(5));
        case 2:
          return text.slice(0, at) + text.slice(at).split('').reverse().join('');
        default:
          return text + '\n' + '#combine( '.repeat(1 + int(300)) + 'heat' + ' )'.repeat(int(300));
      }
    };

    const uris = ['untitled:fuzz-a.indri', 'untitled:fuzz-b.lucene', `${root}/fuzz-c.indri`];
    const texts = new Map<string, string>();
    const versions = new Map<string, number>();
    const sent = new Map<number, { method: string; at: number }>();
    let nextId = 100;
    const notify = (method: string, params: unknown) => server.write(frame(JSON.stringify({ jsonrpc: '2.0', method, params })));
    const ask = (method: string, params: unknown) => {
      const id = nextId++;
      sent.set(id, { method, at: Date.now() });
      server.write(frame(request(id, method, params)));
    };
    const counts: Record<string, number> = {};
    /** What each step sent (shortened), to show the steps before a failure. */
    const trace: string[] = [];
    const count = (what: string) => (counts[what] = (counts[what] ?? 0) + 1);
    const origWrite = server.write.bind(server);
    server.write = (bytes: string | Buffer) => {
      trace.push(JSON.stringify(String(bytes).slice(0, 300)));
      origWrite(bytes);
    };

    for (let step = 0; step < STEPS; step++) {
      const uri = pick(uris);
      const languageId = uri.endsWith('.lucene') ? 'lucene' : 'indri';
      const roll = random();
      if (step === 100) {
        // A large message: a 1 MB document of 30,000 short queries (then edited like the others).
        const text = `1\theat ${'flow '.repeat(5)}\n`.repeat(30_000);
        texts.set(uri, text);
        versions.set(uri, 1);
        notify('textDocument/didOpen', { textDocument: { uri, languageId, version: 1, text } });
        count('large didOpen');
      } else if (step === 300) {
        // A large request: a hover carrying 8 MB of an unknown parameter.
        ask('textDocument/hover', { textDocument: { uri }, position: { line: 0, character: 2 }, padding: 'p'.repeat(8 * 1024 * 1024) });
        count('large request');
      } else if (!texts.has(uri) || roll < 0.12) {
        const text = documentText();
        texts.set(uri, text);
        versions.set(uri, 1);
        notify('textDocument/didOpen', { textDocument: { uri, languageId, version: 1, text } });
        count('didOpen');
      } else if (roll < 0.4) {
        const text = mutate(texts.get(uri)!);
        const version = versions.get(uri)! + 1;
        texts.set(uri, text);
        versions.set(uri, version);
        notify('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text }] });
        count('didChange');
      } else if (roll < 0.9) {
        const lines = texts.get(uri)!.split('\n');
        const line = int(lines.length + 1);
        const position = { line, character: int((lines[line]?.length ?? 0) + 3) };
        const method = pick([
          'textDocument/hover',
          'textDocument/completion',
          'textDocument/codeLens',
          'textDocument/semanticTokens/full',
          'textDocument/documentSymbol',
          'textDocument/foldingRange',
          'textDocument/formatting',
          'textDocument/inlayHint',
          'textDocument/codeAction',
          'querylens/preview',
        ]);
        const params: Record<string, unknown> = { textDocument: { uri } };
        if (method === 'textDocument/hover' || method === 'textDocument/completion') params.position = position;
        if (method === 'textDocument/formatting') params.options = { tabSize: 2, insertSpaces: true };
        if (method === 'textDocument/inlayHint' || method === 'textDocument/codeAction') params.range = { start: { line: 0, character: 0 }, end: position };
        if (method === 'textDocument/codeAction') params.context = { diagnostics: [] };
        if (method === 'querylens/preview') Object.assign(params, { uri, qid: String(int(5)) });
        ask(method, params);
        count(method);
      } else {
        // A framing error; its request ids are not tracked (such a request may be lost).
        const body = request(900_000 + step, 'querylens/status');
        const garbage = [
          frame(body, Math.max(1, body.length - 1 - int(20))),
          frame(body, body.length + 1 + int(50)),
          `Content-Type: application/json\r\n\r\n${body}`,
          `garbage ${step}\r\nmore: \u0000\xff\r\n\r\n`,
          `Content-Length: ${int(1e9)}x\r\n\r\n`,
          frame(`{"jsonrpc":"2.0","id":${900_000 + step},"method":`),
          frame('[1,2,3]'),
          frame('"a string"'),
          frame('{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"nowhere"}}}'),
        ];
        server.write(pick(garbage));
        count('framing error');
      }
      if (step % 20 === 19) {
        // Let the server catch up and check the bound on what was asked so far.
        await waitForAnswers(server, sent, trace).catch((err) => {
          if (process.env.QUERYLENS_FUZZ_DUMP) writeFileSync(process.env.QUERYLENS_FUZZ_DUMP, JSON.stringify([...texts]));
          throw err;
        });
      }
      expect(server.exited, `the server exited at step ${step}; stderr:\n${server.stderr.slice(-4000)}`).toBeNull();
    }
    await waitForAnswers(server, sent, trace);
    // Still serving: a valid request after everything.
    const id = nextId++;
    server.write(frame(request(id, 'querylens/status')));
    expect((await server.answer(id)).result).toBeTruthy();
    console.log('fuzz steps:', JSON.stringify(counts), `requests answered: ${sent.size}`);
    const failures = server.notifications.filter((n) => n.method === 'window/showMessage' && /failed \(/.test((n.params as { message: string }).message));
    expect(failures, 'unexpected handler failures (reported by the guard)').toEqual([]);
  }, 120_000);
});

/** Waits until every sent request is answered, failing when one waits longer than ANSWER_BOUND_MS. */
async function waitForAnswers(server: RawServer, sent: Map<number, { method: string; at: number }>, trace: string[]): Promise<void> {
  for (;;) {
    let waiting = 0;
    for (const [id, { method, at }] of sent) {
      if (server.responses.has(id)) continue;
      waiting++;
      if (Date.now() - at > ANSWER_BOUND_MS) {
        const last = trace.slice(-12).join('\n');
        throw new Error(`request ${id} (${method}) not answered within ${ANSWER_BOUND_MS} ms; last messages sent:\n${last}\nstderr:\n${server.stderr.slice(-4000)}`);
      }
    }
    if (waiting === 0) return;
    if (server.exited !== null) throw new Error(`the server exited (${server.exited}); stderr:\n${server.stderr.slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
