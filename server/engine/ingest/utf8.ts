/**
 * Strict UTF-8 for ingest: a corpus byte that is not UTF-8 is reported, never silently turned
 * into U+FFFD (which would change the user's text and ids without a word).
 */
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Offset of the first byte that does not start or continue a valid UTF-8 sequence, or -1. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    if (b >= 0xc2 && b <= 0xdf) (need = 1), (min = 0x80);
    else if (b >= 0xe0 && b <= 0xef) (need = 2), (min = 0x800);
    else if (b >= 0xf0 && b <= 0xf4) (need = 3), (min = 0x10000);
    else return i;
    if (i + need >= n) return i;
    let cp = b & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return -1;
}

/** The text of `bytes`, or the offset of the first invalid byte. */
export function decodeUtf8Strict(bytes: Uint8Array): { text: string } | { invalidAt: number } {
  try {
    return { text: strict.decode(bytes) };
  } catch {
    const at = firstInvalidUtf8(bytes);
    return { invalidAt: at < 0 ? 0 : at };
  }
}

/** The reason text for an invalid byte: `invalid UTF-8 (byte 0xFF)`. */
export function invalidUtf8Reason(bytes: Uint8Array, at: number, what = 'text'): string {
  const b = bytes[at];
  return `${what} is not valid UTF-8 (byte 0x${(b ?? 0).toString(16).toUpperCase().padStart(2, '0')}); fix the file's encoding`;
}

/** Newlines in bytes[0, end). */
export function countNewlineBytes(bytes: Uint8Array, end: number): number {
  let n = 0;
  for (let i = 0; i < end; i++) if (bytes[i] === 0x0a) n++;
  return n;
}

/**
 * Why `id` cannot be a document id, or undefined when it can: a TREC run separates its columns
 * by whitespace, so an id with whitespace (or an empty one) would make run files that `eval`
 * and trec_eval reject.
 */
export function badDocumentId(id: string): string | undefined {
  if (id === '') return 'empty document id';
  const ws = /\s/.exec(id);
  if (ws) {
    const name = ws[0] === ' ' ? 'a space' : ws[0] === '\t' ? 'a tab' : ws[0] === '\n' || ws[0] === '\r' ? 'a line break' : `whitespace U+${ws[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
    return `document id ${JSON.stringify(id)} contains ${name}, which a TREC run cannot hold: change the id`;
  }
  return undefined;
}
