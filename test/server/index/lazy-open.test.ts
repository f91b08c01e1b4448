/**
 * Opening an index reads no column whole (issue 13 §2: opening an 8.8 M-document index read the
 * document lengths, the docno ranks, the record directory and the lexicon's block directory, about
 * 90 MB, before the first query). Shown with damage: a page of the lengths column, of the docno
 * ranks or of the lexicon's block directory made unreadable (its page checksum no longer matches)
 * does not stop the index from opening, and the first operation that needs it fails with the file
 * named, never with a wrong answer.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseIndri } from '../../../grammar/indri/index.js';
import { buildIndex, openIndex } from '../../../server/engine/index/disk.js';
import { errorOf } from './index-error.js';
import { search } from '../../../server/engine/search.js';
import { dataPath } from '../../support/data.js';

const CRANFIELD = dataPath('cranfield/corpus.jsonl');
const work = mkdtempSync(join(tmpdir(), 'querylens-lazy-open-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const pristine = join(work, 'pristine');
const HEADER = 48;

beforeAll(async () => {
  await buildIndex([CRANFIELD], pristine, { profile: 'terrier' });
}, 120_000);

/** The data length of a paged file (its last 8 bytes). */
function dataBytes(file: Buffer): number {
  return Number(file.readBigUInt64LE(file.length - 8));
}

/** A copy of the index with one byte of `name`'s data flipped at `offset(data)` (its page checksum then fails). */
function damaged(label: string, name: string, offset: (file: Buffer, dataLength: number) => number): string {
  const dir = join(work, label);
  cpSync(pristine, dir, { recursive: true });
  const path = join(dir, name);
  const file = readFileSync(path);
  const at = HEADER + offset(file, dataBytes(file));
  file[at] = file[at]! ^ 0xff;
  writeFileSync(path, file);
  return dir;
}

/** docs.bin's column starts (docno bytes, docno ends, lengths, ranks, docs by docno, block directory), from its trailer. */
function docsStarts(file: Buffer, dataLength: number): number[] {
  const trailer = HEADER + dataLength - 56;
  return Array.from({ length: 6 }, (_, i) => file.readDoubleLE(trailer + i * 8));
}

describe('opening reads no column whole', () => {
  const query = parseIndri('#combine(boundary layer flow)').ast;

  it('a damaged page of the document lengths: the index opens, the first ranking fails naming docs.bin', () => {
    const dir = damaged('lengths', 'docs.bin', (file, n) => docsStarts(file, n)[2]! + 100);
    const reader = openIndex(dir);
    expect(reader.stats().numDocs).toBe(1400);
    expect(errorOf(() => search(reader, query, { k: 10 })).message).toMatch(/docs\.bin.*(document lengths|checksum)/);
  });

  it('a damaged page of the docno ranks: the index opens, the first ranking fails naming docs.bin', () => {
    // The column's last bytes: a page the lengths column does not share.
    const dir = damaged('ranks', 'docs.bin', (file, n) => docsStarts(file, n)[3]! + 1400 * 4 - 8);
    const reader = openIndex(dir);
    expect(errorOf(() => search(reader, query, { k: 10 })).message).toMatch(/docs\.bin.*docno ranks/);
  });

  it("a damaged page of the lexicon's block directory: the index opens, the first term looked up fails naming lexicon.bin", async () => {
    // 24,000 distinct words: a block directory of several pages, so its first page is not the trailer's.
    const words = (d: number) => Array.from({ length: 12 }, (_, i) => `z${(d * 12 + i).toString(26).replace(/[0-9]/g, (c) => 'qrstuvwxyz'[Number(c)]!)}k`);
    const corpus = join(work, 'words.jsonl');
    writeFileSync(corpus, Array.from({ length: 2000 }, (_, d) => JSON.stringify({ _id: `d${d}`, text: words(d).join(' ') })).join('\n') + '\n');
    await buildIndex([corpus], join(work, 'words'), { profile: 'terrier' });
    const source = join(work, 'words', 'lexicon.bin');
    const file = readFileSync(source);
    const n = dataBytes(file);
    const directoryOffset = file.readDoubleLE(HEADER + n - 16);
    expect(Math.floor(directoryOffset / 4096)).toBeLessThan(Math.floor((n - 16) / 4096));
    file[HEADER + directoryOffset + 1] = file[HEADER + directoryOffset + 1]! ^ 0xff;
    writeFileSync(source, file);
    const reader = openIndex(join(work, 'words'));
    expect(reader.stats().numDocs).toBe(2000);
    expect(errorOf(() => reader.termStats('zak')).message).toMatch(/lexicon\.bin.*block directory/);
  }, 60_000);

  it('the pristine index answers as before', () => {
    const reader = openIndex(pristine);
    const hits = search(reader, query, { k: 10 }).hits;
    expect(hits).toHaveLength(10);
    expect(reader.termStats('boundari')!.df).toBeGreaterThan(0);
  });
});
