/**
 * Streaming file access for ingest: plain or gzip, as text, line by line or chunk by chunk,
 * without reading a whole file into memory.
 */
import { createReadStream, openSync, readSync, closeSync } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { IngestError } from './types.js';

/** True when the file starts with the gzip magic bytes (whatever its name). */
export function isGzip(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(2);
    const n = readSync(fd, head, 0, 2, 0);
    return n === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    closeSync(fd);
  }
}

/** The first `bytes` bytes of the (decompressed) file as text, for format sniffing. */
export async function peekText(path: string, bytes = 4096): Promise<string> {
  const stream = openText(path);
  let text = '';
  try {
    for await (const chunk of stream) {
      text += chunk as string;
      if (text.length >= bytes) break;
    }
  } catch (err) {
    throw readError(path, err);
  } finally {
    stream.destroy();
  }
  return text;
}

/**
 * A text stream of the file, gunzipped when it is gzip. `onRead` gets the number of raw
 * (compressed) bytes as they are read, for progress. With `latin1` every byte is one char, so
 * that the readers can check the UTF-8 themselves and say where it is broken (a UTF-8 stream
 * would turn bad bytes into U+FFFD without a word).
 */
export function openText(path: string, onRead?: (bytes: number) => void, encoding: 'utf8' | 'latin1' = 'utf8'): Readable {
  const raw = createReadStream(path, { highWaterMark: 1 << 16 });
  if (onRead) raw.on('data', (chunk) => onRead((chunk as Buffer).length));
  let stream: Readable = raw;
  if (isGzip(path)) {
    const gunzip = createGunzip();
    raw.on('error', (err) => gunzip.destroy(err));
    stream = raw.pipe(gunzip);
  }
  stream.setEncoding(encoding);
  return stream;
}

/** Lines of a file as latin1 strings (one char a byte) with 1-based line numbers; a trailing '\r' is removed. */
export async function* readByteLines(
  path: string,
  onRead?: (bytes: number) => void,
): AsyncGenerator<{ line: string; lineNo: number }> {
  const rl = createInterface({ input: openText(path, onRead, 'latin1'), crlfDelay: Infinity });
  let lineNo = 0;
  try {
    for await (const line of rl) {
      lineNo++;
      yield { line, lineNo };
    }
  } catch (err) {
    throw readError(path, err, lineNo + 1);
  } finally {
    rl.close();
  }
}

/** Chunks of the file as latin1 strings (one char a byte). */
export async function* readByteChunks(path: string, onRead?: (bytes: number) => void): AsyncGenerator<string> {
  const stream = openText(path, onRead, 'latin1');
  try {
    for await (const chunk of stream) yield chunk as string;
  } catch (err) {
    throw readError(path, err);
  } finally {
    stream.destroy();
  }
}

function readError(path: string, err: unknown, line?: number): IngestError {
  if (err instanceof IngestError) return err;
  const code = (err as NodeJS.ErrnoException).code;
  const message = err instanceof Error ? err.message : String(err);
  if (code && code.startsWith('Z_')) return new IngestError(path, `not a valid gzip file (${message})`, line);
  return new IngestError(path, `cannot read: ${message}`, line);
}
