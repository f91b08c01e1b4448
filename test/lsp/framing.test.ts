/**
 * Issue 11 item 5: framing errors on the server's stdin. Before, after a wrong or missing
 * Content-Length or a garbage header, the server stayed alive but never answered again. Now
 * it resynchronises on the next Content-Length header, logs what it dropped, answers a lost
 * request with a ParseError when it can read its id, and keeps answering.
 *
 * Each case runs against the built server (`querylens lsp --stdio`) over raw bytes, and ends
 * with a valid request that must be answered within a few seconds.
 */
import type { Message } from 'vscode-languageserver/node';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FrameParser, type FrameProblem } from '../../server/lsp/framing.js';
import { ensureBuilt } from './harness.js';
import { frame, INITIALIZE, RawServer, request, STATUS } from './raw-server.js';

beforeAll(() => ensureBuilt(), 120_000);
const servers: RawServer[] = [];
afterEach(() => servers.splice(0).forEach((s) => s.stop()));

async function started(): Promise<RawServer> {
  const server = RawServer.start();
  servers.push(server);
  server.write(INITIALIZE);
  await server.answer(1, 20_000);
  return server;
}

describe('framing errors over stdio', () => {
  it('Content-Length too small: the cut request gets a ParseError, the next one its answer', async () => {
    const server = await started();
    const body = request(10, 'querylens/status');
    server.write(frame(body, body.length - 5) + STATUS(11));
    expect((await server.answer(10)).error?.code).toBe(-32700);
    expect((await server.answer(11)).result).toBeTruthy();
    expect(server.stderr).toMatch(/dropped/);
  }, 30_000);

  it('Content-Length too big, with a message after it: both are answered', async () => {
    const server = await started();
    const body = request(10, 'querylens/status');
    server.write(frame(body, body.length + 30) + STATUS(11));
    expect((await server.answer(10)).result).toBeTruthy();
    expect((await server.answer(11)).result).toBeTruthy();
    expect(server.stderr).toMatch(/larger than the message/);
  }, 30_000);

  it('Content-Length too big by less than a header (found by the fuzz suite): both requests are answered', async () => {
    const server = await started();
    const body = request(10, 'querylens/status');
    for (const extra of [1, 7, 16, 19]) server.write(frame(body, body.length + extra) + STATUS(100 + extra));
    expect((await server.answer(10)).result).toBeTruthy();
    for (const extra of [1, 7, 16, 19]) expect((await server.answer(100 + extra)).result).toBeTruthy();
  }, 30_000);

  it('Content-Length too big, nothing after it: the request is answered once the input is quiet', async () => {
    const server = await started();
    const body = request(10, 'querylens/status');
    server.write(frame(body, body.length + 1000));
    expect((await server.answer(10)).result).toBeTruthy();
    server.write(STATUS(11));
    expect((await server.answer(11)).result).toBeTruthy();
  }, 30_000);

  it('missing Content-Length: the frame is dropped and logged, the next request answered', async () => {
    const server = await started();
    server.write(`Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n${request(10, 'querylens/status')}` + STATUS(11));
    expect((await server.answer(11)).result).toBeTruthy();
    expect(server.stderr).toMatch(/without a valid Content-Length|garbage/);
  }, 30_000);

  it('garbage header lines and a non-numeric Content-Length: resynchronised on the next header', async () => {
    const server = await started();
    server.write('hello world\r\nthis is not a header\r\n\r\n');
    server.write('Content-Length: twelve\r\n\r\n{}');
    server.write('\u0000\u0001 binary junk \xff\r\n' + STATUS(11));
    expect((await server.answer(11)).result).toBeTruthy();
    // Garbage lines before a valid Content-Length in the same header block.
    server.write(`X-Junk\r\n${STATUS(12)}`);
    expect((await server.answer(12)).result).toBeTruthy();
  }, 30_000);

  it('a header block with a bad Content-Length and nothing after it (found by the fuzz suite: the reader spun forever)', async () => {
    const server = await started();
    server.write('Content-Length: 123456789x\r\n\r\n');
    await new Promise((r) => setTimeout(r, 200));
    server.write(STATUS(11));
    expect((await server.answer(11)).result).toBeTruthy();
  }, 30_000);

  it('a body that is not JSON: a ParseError for its id (or null), then the next request answered', async () => {
    const server = await started();
    server.write(frame('{"jsonrpc":"2.0","id":10,"method":"querylens/status", oops}') + frame('hello') + STATUS(11));
    expect((await server.answer(10)).error?.code).toBe(-32700);
    expect((await server.answer(11)).result).toBeTruthy();
    expect(server.nullIdErrors.map((e) => e.code)).toContain(-32700);
  }, 30_000);

  it('a 20 MB message is read and answered, and so is the next one', async () => {
    const server = await started();
    const padding = 'x'.repeat(20 * 1024 * 1024);
    server.write(frame(JSON.stringify({ jsonrpc: '2.0', id: 10, method: 'querylens/status', params: { padding } })));
    expect((await server.answer(10, 15_000)).result).toBeTruthy();
    server.write(STATUS(11));
    expect((await server.answer(11)).result).toBeTruthy();
  }, 40_000);
});

describe('FrameParser', () => {
  function parse(chunks: (string | Buffer)[], maxMessageBytes?: number): { messages: Message[]; problems: FrameProblem[] } {
    const messages: Message[] = [];
    const problems: FrameProblem[] = [];
    const parser = new FrameParser((m) => messages.push(m), { maxMessageBytes, onProblem: (p) => problems.push(p) });
    for (const c of chunks) parser.push(Buffer.isBuffer(c) ? c : Buffer.from(c, 'utf8'));
    parser.dispose();
    return { messages, problems };
  }

  it('reads messages split at every byte', () => {
    const text = STATUS(1) + frame('{"jsonrpc":"2.0","method":"x","params":{"t":"é €😀"}}') + STATUS(2);
    const bytes = Buffer.from(text, 'utf8');
    const { messages, problems } = parse([...bytes].map((b) => Buffer.from([b])));
    expect(messages.map((m) => (m as { method: string }).method)).toEqual(['querylens/status', 'x', 'querylens/status']);
    expect(problems).toEqual([]);
  });

  it('skips a message over the size limit without keeping it, answering its id', () => {
    const big = request(7, 'querylens/status', { padding: 'y'.repeat(5000) });
    const { messages, problems } = parse([frame(big).slice(0, 100), frame(big).slice(100), STATUS(8)], 1000);
    expect(messages.map((m) => (m as { id: number }).id)).toEqual([8]);
    expect(problems[0]!.answer).toMatchObject({ id: 7, code: -32600 });
  });

  it('does not take a Content-Length inside a JSON string for a header', () => {
    const body = JSON.stringify({ jsonrpc: '2.0', method: 'x', params: { text: 'Content-Length: 5\r\n\r\nabc' } });
    const { messages, problems } = parse([frame(body)]);
    expect(messages).toHaveLength(1);
    expect(problems).toEqual([]);
  });
});
