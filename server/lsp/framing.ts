/**
 * Reads LSP base-protocol frames (`Content-Length: N\r\n…\r\n\r\n` + N bytes of JSON) and
 * recovers from every framing error instead of waiting forever (issue 11 item 5: after a
 * wrong or missing Content-Length or a garbage header, vscode-jsonrpc's reader kept the bad
 * bytes at the head of its buffer and never delivered another message).
 *
 * Recovery rules; each drop is reported through `onProblem` (the server logs it):
 * - Header block without a valid `Content-Length`, or bytes that are no header at all: the
 *   bytes up to the next `Content-Length:` are dropped (resynchronisation on the next header).
 *   Unknown header lines next to a valid Content-Length are ignored, as the spec allows.
 * - Content-Length too small: the body is a cut JSON text; it is answered with a ParseError,
 *   and the rest of it is garbage before the next header (previous rule).
 * - Content-Length too big: the body in progress then holds the next message's header. A
 *   raw `Content-Length: <digits>\r\n` cannot occur in a JSON text (JSON strings cannot hold a
 *   raw CR, and outside strings those letters are not JSON), so as soon as one shows up the
 *   body is cut there: the part before it is delivered when it is a JSON message (only its
 *   length was wrong), else answered with a ParseError, and reading resumes at that header.
 *   When nothing more arrives for QUIET_MS and the bytes received so far are a complete JSON
 *   message, it is delivered too (the client is waiting for its answer).
 * - Body that is not JSON: answered with a ParseError (JSON-RPC 2.0 §5.1) for the request's id
 *   when one can be read from its start, so that the client's request does not wait forever.
 * - Body larger than `maxMessageBytes`: skipped without being held in memory, answered with an
 *   error for its id (read from its first kilobyte).
 */
import { AbstractMessageReader, type DataCallback, type Disposable, type Message } from 'vscode-languageserver/node';

/** Bodies above this are skipped (a 50 MB document is a fair thing to open; 512 MB is no longer a string V8 can make). */
export const DEFAULT_MAX_MESSAGE_BYTES = 256 * 1024 * 1024;
/** A header block longer than this without its blank line is garbage. */
const MAX_HEADER_BYTES = 8 * 1024;
/** How long a body may stall before the bytes received are checked for a complete message. */
export const QUIET_MS = 500;

const HEADER_END = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH_LINE = /^content-length[ \t]*:[ \t]*(\d+)[ \t]*$/i;
/** A header that cannot be part of a JSON text (see above). */
const EMBEDDED_HEADER = /^content-length[ \t]*:[ \t]*\d+[ \t]*\r\n/i;
/** The id of a request, when it comes before any nested object or array. */
const LEADING_ID = /^\s*\{[^{}[\]]*?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/;

export type MessageId = number | string | null;

export interface FrameProblem {
  /** One line for the log. */
  message: string;
  /**
   * Set when the problem lost a message that may have been a request: the id to answer with
   * an error (null when none could be read), and the JSON-RPC error code.
   */
  answer?: { id: MessageId; code: number; message: string };
}

export interface FrameReaderOptions {
  maxMessageBytes?: number;
  onProblem: (problem: FrameProblem) => void;
}

/** Where in a latin1 view of `buf` (from `from`) the next `Content-Length:` header name starts, or -1. */
function nextHeaderStart(buf: Buffer, from: number): number {
  const text = buf.toString('latin1');
  const re = /content-length[ \t]*:/gi;
  re.lastIndex = from;
  const m = re.exec(text);
  return m ? m.index : -1;
}

const HEADER_NAMES = [Buffer.from('Content-Length'), Buffer.from('content-length'), Buffer.from('CONTENT-LENGTH')];

/**
 * Where a complete `Content-Length: <digits>\r\n` header starts in `bytes`, or -1. Searched
 * bytewise (a body may be 50 MB; decoding every chunk to a string cost 4× the JSON.parse).
 */
function embeddedHeader(bytes: Buffer): number {
  let best = -1;
  for (const name of HEADER_NAMES) {
    for (let at = bytes.indexOf(name); at >= 0; at = bytes.indexOf(name, at + 1)) {
      if (EMBEDDED_HEADER.test(bytes.subarray(at, at + 64).toString('latin1'))) {
        if (best < 0 || at < best) best = at;
        break;
      }
    }
  }
  return best;
}

/** A start of `Content-Length: <digits>\r\n\r\n`, cut anywhere. */
const HEADER_WITH_VALUE_PREFIX = /^content-length[ \t]*:[ \t]*\d*[ \t]*(\r(\n(\r)?)?)?$/i;

function isHeaderPrefix(tail: string): boolean {
  return 'content-length:'.startsWith(tail.toLowerCase()) || HEADER_WITH_VALUE_PREFIX.test(tail);
}

/**
 * Where the start of a header begins at the end of a body that is a JSON object followed by it
 * (the body's Content-Length was too big by less than a header), or -1. Cheap: only the bytes
 * after the last `}` are looked at, and JSON.parse is left to `finish`.
 */
function trailingHeaderStart(bytes: Buffer): number {
  const brace = bytes.lastIndexOf(0x7d);
  if (brace < 0 || bytes.length - brace - 1 > 40) return -1;
  const tail = bytes.subarray(brace + 1).toString('latin1');
  return tail.length > 0 && isHeaderPrefix(tail) ? brace + 1 : -1;
}

/** The length of the longest end of `bytes` that begins `Content-Length:` (case-insensitive), at most that header name's length. */
function partialHeaderNameAtEnd(bytes: Buffer): number {
  const name = 'content-length:';
  for (let k = Math.min(bytes.length, name.length - 1); k > 0; k--) {
    if (name.startsWith(bytes.subarray(bytes.length - k).toString('latin1').toLowerCase())) return k;
  }
  return 0;
}

function preview(bytes: Buffer): string {
  const text = bytes.subarray(0, 80).toString('utf8');
  return JSON.stringify(bytes.length > 80 ? `${text}…` : text);
}

function leadingId(body: string): MessageId {
  const m = LEADING_ID.exec(body.slice(0, 1024));
  if (!m) return null;
  try {
    return JSON.parse(m[1]!) as number | string;
  } catch {
    return null;
  }
}

function isMessage(value: unknown): value is Message {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The framing state machine, independent of streams: `push` bytes in, messages come out of
 * `deliver`. Used by `ResyncingMessageReader` over stdin, and directly by tests.
 */
export class FrameParser {
  /** Bytes not yet consumed while looking for a header. */
  private head: Buffer = Buffer.alloc(0);
  /** The body in progress: its declared length, and the chunks received (no copying until complete). */
  private body: { length: number; chunks: Buffer[]; have: number; skip: boolean; start: Buffer } | null = null;
  private quietTimer: NodeJS.Timeout | null = null;
  private readonly maxMessageBytes: number;

  constructor(
    private readonly deliver: (message: Message) => void,
    private readonly options: FrameReaderOptions,
  ) {
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  }

  push(chunk: Buffer): void {
    this.clearQuietTimer();
    let rest: Buffer | null = chunk;
    while (rest && rest.length > 0) {
      rest = this.body ? this.pushBody(rest) : this.pushHead(rest);
    }
    if (this.body && !this.body.skip) this.quietTimer = setTimeout(() => this.onQuiet(), QUIET_MS);
  }

  dispose(): void {
    this.clearQuietTimer();
  }

  private clearQuietTimer(): void {
    if (this.quietTimer) clearTimeout(this.quietTimer);
    this.quietTimer = null;
  }

  private problem(problem: FrameProblem): void {
    this.options.onProblem(problem);
  }

  /** Consumes header bytes; returns what is left over once a body starts (null: wait for more). */
  private pushHead(chunk: Buffer): Buffer | null {
    this.head = this.head.length ? Buffer.concat([this.head, chunk]) : chunk;
    for (;;) {
      const end = this.head.indexOf(HEADER_END);
      if (end < 0) {
        if (this.head.length > MAX_HEADER_BYTES) this.dropToNextHeader(1, 'bytes that are no header');
        return null;
      }
      const lines = this.head.subarray(0, end).toString('latin1').split('\r\n');
      let length: number | null = null;
      const ignored: string[] = [];
      for (const line of lines) {
        const m = CONTENT_LENGTH_LINE.exec(line);
        if (m && length === null) length = Number(m[1]);
        else if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+[ \t]*:/.test(line)) ignored.push(line);
      }
      if (length === null || !Number.isSafeInteger(length) || ignored.length > 0) {
        // Garbage before (or instead of) a header: resynchronise on the next Content-Length.
        const at = nextHeaderStart(this.head, 0);
        if (at > 0 && at < end) {
          this.drop(at, 'garbage before a header');
          continue;
        }
        if (length === null || !Number.isSafeInteger(length)) {
          this.dropToNextHeader(1, 'a header without a valid Content-Length');
          continue;
        }
      }
      if (ignored.length) this.problem({ message: `querylens: ignored header lines ${ignored.map((l) => JSON.stringify(l.slice(0, 80))).join(', ')}` });
      const after = this.head.subarray(end + HEADER_END.length);
      this.head = Buffer.alloc(0);
      const skip = length > this.maxMessageBytes;
      this.body = { length, chunks: [], have: 0, skip, start: Buffer.alloc(0) };
      if (length === 0) {
        this.body = null;
        this.problem({ message: 'querylens: dropped a message with Content-Length 0', answer: { id: null, code: -32700, message: 'querylens: empty message body' } });
      }
      return after;
    }
  }

  /** Drops the first `count` bytes of the header buffer. */
  private drop(count: number, what: string): void {
    this.problem({ message: `querylens: dropped ${count} bytes of ${what}: ${preview(this.head.subarray(0, count))}` });
    this.head = this.head.subarray(count);
  }

  /**
   * Drops everything before the next `Content-Length:` found from `from` on; when there is none,
   * everything but a tail that may be the start of one cut by the chunk boundary. Always drops
   * at least one byte, so the header loop cannot spin on the same bytes.
   */
  private dropToNextHeader(from: number, what: string): void {
    const at = nextHeaderStart(this.head, from);
    if (at > 0) {
      this.drop(at, what);
      return;
    }
    const keep = partialHeaderNameAtEnd(this.head);
    this.drop(Math.max(1, this.head.length - keep), what);
  }

  /** Consumes body bytes; returns the bytes after the body (null: wait for more). */
  private pushBody(chunk: Buffer): Buffer | null {
    const body = this.body!;
    const need = body.length - body.have;
    const part = chunk.length > need ? chunk.subarray(0, need) : chunk;
    const rest = chunk.length > need ? chunk.subarray(need) : null;
    if (body.skip) {
      if (body.start.length < 1024) body.start = Buffer.concat([body.start, part.subarray(0, 1024 - body.start.length)]);
      body.have += part.length;
      if (body.have === body.length) {
        this.body = null;
        const limit = `${Math.round(this.maxMessageBytes / (1024 * 1024))} MiB`;
        const id = leadingId(body.start.toString('utf8'));
        const message = `querylens: skipped a message of ${body.length.toLocaleString('en-US')} bytes (the limit is ${limit})`;
        this.problem({ message, answer: { id, code: -32600, message } });
      }
      return rest;
    }
    // A header inside the body: the declared length was too big (see the file comment). Look at
    // the new bytes with a little of the previous chunk, in case the header straddles them.
    const overlap = body.chunks.length ? body.chunks[body.chunks.length - 1]!.subarray(-40) : Buffer.alloc(0);
    const window = overlap.length ? Buffer.concat([overlap, part]) : part;
    const embedded = embeddedHeader(window);
    if (embedded >= 0) {
      const cut = body.have - overlap.length + embedded;
      const all = Buffer.concat([...body.chunks, part]);
      this.body = null;
      this.finish(all.subarray(0, cut), `its Content-Length ${body.length} is larger than the message (${cut} bytes)`);
      // Resume at the header, with whatever followed the body's declared end.
      return rest ? Buffer.concat([all.subarray(cut), rest]) : all.subarray(cut);
    }
    body.chunks.push(part);
    body.have += part.length;
    if (body.have < body.length) return rest;
    this.body = null;
    const bytes = body.chunks.length === 1 ? body.chunks[0]! : Buffer.concat(body.chunks);
    // Too big by less than a header: the body ends with the start of the next message's header.
    const split = trailingHeaderStart(bytes);
    if (split > 0) {
      this.finish(bytes.subarray(0, split), `its Content-Length ${body.length} is larger than the message (${split} bytes)`);
      return rest ? Buffer.concat([bytes.subarray(split), rest]) : bytes.subarray(split);
    }
    this.finish(bytes, null);
    return rest;
  }

  /** Nothing arrived for a while in the middle of a body: deliver it if what came is a whole message. */
  private onQuiet(): void {
    this.quietTimer = null;
    const body = this.body;
    if (!body || body.skip || body.have === 0) return;
    const received = Buffer.concat(body.chunks);
    const text = received.toString('utf8').trimEnd();
    if (!text.endsWith('}')) return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return;
    }
    if (!isMessage(value)) return;
    this.body = null;
    this.problem({ message: `querylens: a message's Content-Length ${body.length} is larger than the message (${received.length} bytes); read it as complete` });
    this.deliver(value);
  }

  /** A complete body: delivered when it is a JSON object, else answered with a ParseError. */
  private finish(bytes: Buffer, lengthProblem: string | null): void {
    const text = bytes.toString('utf8');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      const why = lengthProblem ?? 'its body is not JSON';
      const message = `querylens: dropped a message (${why}: ${err instanceof Error ? err.message : String(err)}): ${preview(bytes)}`;
      this.problem({ message, answer: { id: leadingId(text), code: -32700, message: `querylens: parse error: ${why}` } });
      return;
    }
    if (!isMessage(value)) {
      const message = `querylens: dropped a message that is not a JSON object: ${preview(bytes)}`;
      this.problem({ message, answer: { id: null, code: -32600, message: 'querylens: invalid request: not a JSON object' } });
      return;
    }
    if (lengthProblem) this.problem({ message: `querylens: ${lengthProblem}; read it as complete` });
    this.deliver(value);
  }
}

/** A MessageReader over a byte stream (stdin) that recovers from framing errors (FrameParser). */
export class ResyncingMessageReader extends AbstractMessageReader {
  private parser: FrameParser | null = null;
  /** Whether a `shutdown` request was read (the exit status when the input ends then is 0). */
  shutdownRequested = false;

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly options: FrameReaderOptions,
  ) {
    super();
  }

  listen(callback: DataCallback): Disposable {
    const parser = new FrameParser((message) => {
      if ((message as { method?: unknown }).method === 'shutdown') this.shutdownRequested = true;
      callback(message);
    }, this.options);
    this.parser = parser;
    const onData = (chunk: Buffer | string) => {
      try {
        parser.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
      } catch (err) {
        this.fireError(err);
      }
    };
    const onError = (err: Error) => this.fireError(err);
    const onClose = () => this.fireClose();
    this.input.on('data', onData);
    this.input.on('error', onError);
    this.input.on('close', onClose);
    return {
      dispose: () => {
        parser.dispose();
        this.input.off('data', onData);
        this.input.off('error', onError);
        this.input.off('close', onClose);
      },
    };
  }

  override dispose(): void {
    this.parser?.dispose();
    super.dispose();
  }
}
