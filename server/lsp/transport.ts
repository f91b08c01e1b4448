/**
 * The server's connection, with one change to how messages are written: each Diagnostic of a
 * `textDocument/publishDiagnostics` is serialised once per object and kept (a WeakMap), so a
 * publish costs one copy of the already encoded diagnostics rather than a JSON.stringify and a
 * UTF-8 encoding of the whole list. The engine caches its diagnostics already placed
 * (engine-diagnostics.ts), so after a one-line edit of a 1,000-query file only that query's
 * diagnostics are new objects; the rest are the objects published before (issue 4 §4: a publish
 * of 5,000 stopword notes is 1.4 MB of JSON, and encoding it was most of the server's time).
 *
 * The bytes are exactly those of the default encoder (`JSON.stringify(message)`, UTF-8); any
 * other message, or a publish whose params do not end with the diagnostics, goes through
 * JSON.stringify as before. Diagnostics are never mutated after they are published (nothing
 * in server/lsp does; a cached object that changed would be published with its old text).
 *
 * Transport: `--stdio` is set up like vscode-languageserver does it (stdin ends → exit, 0 after
 * `shutdown` and 1 otherwise; console output goes to the client's log, never to stdout), only
 * with this writer and with a reader that recovers from framing errors (framing.ts: it
 * resynchronises on the next Content-Length header, logs what it dropped, and answers a lost
 * request with a ParseError); `--node-ipc`, `--socket` and `--pipe` keep the library's own setup.
 */
import { format } from 'node:util';
import {
  ProposedFeatures,
  StreamMessageWriter,
  createConnection,
  type Connection,
  type ContentTypeEncoder,
  type Message,
} from 'vscode-languageserver/node';
import { ResyncingMessageReader, type FrameProblem } from './framing.js';

const encoded = new WeakMap<object, Buffer>();
const COMMA = Buffer.from(',');
const TAIL = Buffer.from(']}}');
const EMPTY_TAIL = '"diagnostics":[]}}';

interface PublishMessage {
  method: 'textDocument/publishDiagnostics';
  params: { diagnostics: object[] };
}

function isPublish(msg: Message): msg is Message & PublishMessage {
  const m = msg as Partial<PublishMessage>;
  return m.method === 'textDocument/publishDiagnostics' && Array.isArray(m.params?.diagnostics);
}

/** The encoded message: JSON.stringify(msg) in `charset`, with each diagnostic's bytes reused. */
export function encodeMessage(msg: Message, charset: BufferEncoding): Buffer {
  if (isPublish(msg) && charset === 'utf-8' && msg.params.diagnostics.length > 0) {
    const head = JSON.stringify({ ...msg, params: { ...msg.params, diagnostics: [] } });
    // The diagnostics must be the last member of params, and params the last of the message.
    if (head.endsWith(EMPTY_TAIL)) {
      const parts: Buffer[] = [Buffer.from(head.slice(0, head.length - 3), charset)];
      let first = true;
      for (const d of msg.params.diagnostics) {
        let bytes = encoded.get(d);
        if (!bytes) {
          bytes = Buffer.from(JSON.stringify(d), charset);
          encoded.set(d, bytes);
        }
        if (!first) parts.push(COMMA);
        first = false;
        parts.push(bytes);
      }
      parts.push(TAIL);
      return Buffer.concat(parts);
    }
  }
  return Buffer.from(JSON.stringify(msg), charset);
}

export const diagnosticsReusingEncoder: ContentTypeEncoder = {
  name: 'application/json',
  encode: (msg, options) => {
    try {
      return Promise.resolve(encodeMessage(msg, (options.charset ?? 'utf-8') as BufferEncoding));
    } catch (err) {
      return Promise.reject(err);
    }
  },
};

/** Console output during a stdio session goes to the client's log (stdout carries the protocol). */
function redirectConsole(connection: Connection): void {
  const log = (...args: unknown[]) => connection.console.log(format(...args));
  const error = (...args: unknown[]) => connection.console.error(format(...args));
  console.log = log;
  console.info = (...args: unknown[]) => connection.console.info(format(...args));
  console.debug = log;
  console.trace = log;
  console.dir = (arg: unknown) => connection.console.log(format(arg));
  console.warn = (...args: unknown[]) => connection.console.warn(format(...args));
  console.error = error;
}

/** The connection `querylens lsp` serves on, from the command line's transport argument. */
export function createServerConnection(): Connection {
  if (!process.argv.slice(2).includes('--stdio')) return createConnection(ProposedFeatures.all);
  const writer = new StreamMessageWriter(process.stdout, { charset: 'utf-8', contentTypeEncoder: diagnosticsReusingEncoder });
  let connection: Connection | null = null;
  const onProblem = (problem: FrameProblem) => {
    process.stderr.write(`${problem.message}\n`);
    connection?.console.error(problem.message);
    if (problem.answer) {
      const { id, code, message } = problem.answer;
      writer.write({ jsonrpc: '2.0', id, error: { code, message } } as never).catch(() => undefined);
    }
  };
  const reader = new ResyncingMessageReader(process.stdin, { onProblem });
  connection = createConnection(ProposedFeatures.all, reader, writer);
  // What the library does for a stdin stream (it does not for a reader): the client is gone.
  const exit = () => process.exit(reader.shutdownRequested ? 0 : 1);
  process.stdin.on('end', exit);
  process.stdin.on('close', exit);
  redirectConsole(connection);
  return connection;
}
