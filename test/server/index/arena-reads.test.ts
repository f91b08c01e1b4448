/**
 * Long lists' encoded bytes are read into the decoded-block arena's pages (DecodedChunkPool.takeBytes,
 * PagedFile.read's `memory`): the bytes read there are the file's, their pages are still checked,
 * the arena gives bytes at most half of itself, and an index whose long lists are read that way
 * ranks as the exhaustive path does.
 */
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseIndri } from '../../../grammar/indri/index.js';
import { buildIndex, openIndex } from '../../../server/engine/index/disk.js';
import { PAGE_BYTES, PageChecksumError, PagedFile, pagedPayload } from '../../../server/engine/index/paged-file.js';
import { DecodedChunkPool } from '../../../server/engine/index/postings-codec.js';
import { search } from '../../../server/engine/search.js';
import { seededRandom } from '../../support/random.js';

const work = mkdtempSync(join(tmpdir(), 'querylens-arena-reads-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A paged file of `data` (no header), open. */
function pagedFile(name: string, data: Uint8Array, damage?: number): { file: PagedFile; close: () => void } {
  const { payload } = pagedPayload(data);
  if (damage !== undefined) payload[damage] ^= 0xff;
  const path = join(work, name);
  writeFileSync(path, payload);
  const fd = openSync(path, 'r');
  return { file: PagedFile.open(fd, 0, payload.length).file, close: () => closeSync(fd) };
}

describe('reads into supplied memory', () => {
  const data = Uint8Array.from({ length: 5 * PAGE_BYTES + 123 }, (_, i) => (i * 7 + 3) & 0xff);

  it("gives the file's bytes, read into the memory supplied for the whole pages they touch", () => {
    const { file, close } = pagedFile('plain.bin', data);
    try {
      const asked: number[] = [];
      const memory = new Uint8Array(new SharedArrayBuffer(4 * PAGE_BYTES));
      const got = file.read(PAGE_BYTES + 10, 2 * PAGE_BYTES, (bytes) => {
        asked.push(bytes);
        return memory.subarray(0, bytes);
      });
      // Bytes 4,106..12,297 lie on pages 1–3.
      expect(asked).toEqual([3 * PAGE_BYTES]);
      expect(got.buffer).toBe(memory.buffer);
      expect([...got]).toEqual([...data.subarray(PAGE_BYTES + 10, 3 * PAGE_BYTES + 10)]);
      // Undefined from the supplier: a buffer of its own, the same bytes.
      const own = file.read(PAGE_BYTES + 10, 2 * PAGE_BYTES, () => undefined);
      expect(own.buffer).not.toBe(memory.buffer);
      expect([...own]).toEqual([...got]);
    } finally {
      close();
    }
  });

  it('still refuses a damaged page', () => {
    const { file, close } = pagedFile('damaged.bin', data, 2 * PAGE_BYTES + 5);
    try {
      const memory = new Uint8Array(new SharedArrayBuffer(4 * PAGE_BYTES));
      expect(() => file.read(PAGE_BYTES, 3 * PAGE_BYTES, (bytes) => memory.subarray(0, bytes))).toThrow(PageChecksumError);
      // Pages that are not damaged read as before.
      expect([...file.read(0, PAGE_BYTES, (bytes) => memory.subarray(0, bytes))]).toEqual([...data.subarray(0, PAGE_BYTES)]);
    } finally {
      close();
    }
  });
});

describe('the arena gives encoded bytes at most half of itself', () => {
  it('whole pages from the arena while they fit in half, then nothing; chunks still come from the rest', () => {
    // 16 pages: 8 for bytes at most; a decoded-block chunk is 8 pages (32 KiB).
    const pool = new DecodedChunkPool(4, 16 * PAGE_BYTES, 0);
    const a = pool.takeBytes(5000)!;
    expect(a.length).toBe(5000);
    expect(a.buffer).toBeInstanceOf(SharedArrayBuffer);
    const b = pool.takeBytes(6 * PAGE_BYTES)!;
    expect(b.buffer).toBe(a.buffer);
    // Pages do not overlap: 5,000 bytes took two.
    expect(b.byteOffset).toBe(a.byteOffset + 2 * PAGE_BYTES);
    expect(pool.takeBytes(1)).toBeUndefined();
    const chunk = pool.take()!;
    expect(chunk.buffer).toBe(a.buffer);
    expect(chunk.byteOffset).toBe(b.byteOffset + 6 * PAGE_BYTES);
    expect(new DecodedChunkPool(4).takeBytes(100)).toBeUndefined();
  });
});

describe('an index whose long lists are read into the arena', () => {
  it('ranks pruned as exhaustively', async () => {
    const rnd = seededRandom(11);
    // Two common words in about half of 120,000 short documents at random, with tfs up to 40: docs
    // parts past 64 KiB (with the reads into the arena skipped, the pages' checksums fail this test).
    const lines: string[] = [];
    for (let d = 0; d < 120_000; d++) {
      const words: string[] = [];
      if (rnd() < 0.5) for (let t = 1 + Math.floor(rnd() * 40); t > 0; t--) words.push('alpha');
      if (rnd() < 0.6) for (let t = 1 + Math.floor(rnd() * 40); t > 0; t--) words.push('bravo');
      for (let f = 1 + Math.floor(rnd() * 4); f > 0; f--) words.push(`w${String.fromCharCode(97 + Math.floor(rnd() * 26))}${String.fromCharCode(97 + Math.floor(rnd() * 26))}`);
      lines.push(JSON.stringify({ _id: `d${d}`, text: words.join(' ') }));
    }
    writeFileSync(join(work, 'corpus.jsonl'), lines.join('\n') + '\n');
    await buildIndex([join(work, 'corpus.jsonl')], join(work, 'index'), { profile: 'terrier' });
    const reader = openIndex(join(work, 'index'));
    expect(reader.postingBlocks('alpha')!.df).toBeGreaterThan(55_000);
    for (const text of ['#combine(alpha bravo wab)', '#combine(alpha wqz)', '#combine(bravo alpha)', '#weight(2 alpha 1 bravo 0.5 wzz)']) {
      const ast = parseIndri(text).ast;
      for (const k of [10, 1000]) {
        const pruned = search(reader, ast, { scorer: 'bm25', k, exhaustive: false });
        const all = search(reader, ast, { scorer: 'bm25', k, exhaustive: true });
        expect(pruned.pruned, text).toBe(true);
        expect(pruned.hits.map((h) => `${h.docno} ${h.score}`), text).toEqual(all.hits.map((h) => `${h.docno} ${h.score}`));
      }
    }
  }, 120_000);
});
