/**
 * readQuerySource reports `source/invalid-utf8` exactly when the bytes are not UTF-8 as the
 * WHATWG fatal decoder sees it (grammar/sources/index.ts checks with buffer.isUtf8 instead
 * of decoding twice), at the first U+FFFD of the decoded text.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readQuerySource } from '../../../grammar/sources/index.js';

const dir = mkdtempSync(join(tmpdir(), 'ql-utf8-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CASES: [string, number[]][] = [
  ['plain ASCII', []],
  ['a BOM', [0xef, 0xbb, 0xbf]],
  ['é', [0xc3, 0xa9]],
  ['an emoji', [0xf0, 0x9f, 0x98, 0x80]],
  ['a lone 0xFF', [0xff]],
  ['a truncated 2-byte sequence', [0xc3, 0x28]],
  ['a truncated 3-byte sequence', [0xe2, 0x82]],
  ['an encoded surrogate (CESU-8)', [0xed, 0xa0, 0x80]],
  ['an overlong slash', [0xc0, 0xaf]],
  ['a code point past U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
  ['a real U+FFFD before a bad byte', [0xef, 0xbf, 0xbd, 0x20, 0xff]],
];

describe('invalid UTF-8 in query files', () => {
  it.each(CASES)('%s', (name, bytes) => {
    const data = Buffer.concat([Buffer.from('1\t#combine( a '), Buffer.from(bytes), Buffer.from(' b )\n')]);
    const path = join(dir, `${name.replace(/\W+/g, '-')}.indri`);
    writeFileSync(path, data);
    let valid = true;
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(data);
    } catch {
      valid = false;
    }
    const source = readQuerySource(path);
    const reported = source.diagnostics.filter((d) => d.code === 'source/invalid-utf8');
    expect(reported.length).toBe(valid ? 0 : 1);
    if (!valid) expect(reported[0].range.start).toBe(source.text.indexOf('\ufffd'));
  });
});
