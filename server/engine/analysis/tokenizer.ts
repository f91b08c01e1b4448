/**
 * The tokeniser of both profiles (SEMANTICS.md §5 analysis, see index.ts): a token is a maximal run
 * of Unicode letters and digits, i.e. a match of `[\p{L}\p{N}]+` (flag u).
 *
 * Why not the regex itself: it is the indexing hot path, and a char-code scanner with an
 * ASCII table and a memo of each non-ASCII code unit's class is about twice as fast. A
 * property test (test/server/analysis/tokenizer.test.ts) checks the two agree.
 */

/** 1 = letter or digit, 2 = neither, 0 = not yet classified. Index = UTF-16 code unit (BMP). */
const bmpClass = new Uint8Array(0x10000);
for (let c = 0; c < 128; c++) {
  const word = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
  bmpClass[c] = word ? 1 : 2;
}
const astralClass = new Map<number, boolean>();
const WORD_CHAR = /^[\p{L}\p{N}]$/u;

function isWordBmp(code: number): boolean {
  let cls = bmpClass[code]!;
  if (cls === 0) {
    // A lone surrogate is not a letter; pairs are handled by the caller.
    cls = WORD_CHAR.test(String.fromCharCode(code)) ? 1 : 2;
    bmpClass[code] = cls;
  }
  return cls === 1;
}

function isWordAstral(codePoint: number): boolean {
  let word = astralClass.get(codePoint);
  if (word === undefined) {
    word = WORD_CHAR.test(String.fromCodePoint(codePoint));
    astralClass.set(codePoint, word);
  }
  return word;
}

/** Length in code units of the letter/digit character at i, or 0 if there is none. */
function wordCharLength(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c < 0xd800 || c > 0xdbff) return isWordBmp(c) ? 1 : 0;
  const next = text.charCodeAt(i + 1);
  if (next >= 0xdc00 && next <= 0xdfff) {
    return isWordAstral(((c - 0xd800) << 10) + (next - 0xdc00) + 0x10000) ? 2 : 0;
  }
  return 0;
}

/** Calls `onToken(surface, start, end)` for every token of `text`, in order. */
export function forEachToken(text: string, onToken: (surface: string, start: number, end: number) => void): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    let len = wordCharLength(text, i);
    if (len === 0) {
      // Skip a non-word character (a whole surrogate pair at once).
      const c = text.charCodeAt(i);
      i += c >= 0xd800 && c <= 0xdbff && i + 1 < n && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
      continue;
    }
    const start = i;
    do {
      i += len;
      len = i < n ? wordCharLength(text, i) : 0;
    } while (len > 0);
    onToken(text.slice(start, i), start, i);
  }
}
