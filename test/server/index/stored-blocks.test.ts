/**
 * store.bin holds the stored records compressed in blocks (server/engine/index/stored-blocks.ts,
 * docs/INDEX_FORMAT.md `store.bin`): documents round-trip exactly, a document needs one block, and
 * a damaged block is an IndexError naming store.bin and the document, found by verify-index too.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIndex, IndexError, openIndex, verifyIndex } from '../../../server/engine/index/disk.js';
import { errorOf } from './index-error.js';
import { BLOCK_TARGET_BYTES, DICTIONARY_BYTES, DICTIONARY_MIN_STREAM } from '../../../server/engine/index/stored-blocks.js';
import { seededRandom } from '../../support/random.js';
import { tamper } from './tamper.js';

const work = mkdtempSync(join(tmpdir(), 'querylens-store-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const HEADER_BYTES = 48;

interface Doc {
  _id: string;
  title?: string;
  text: string;
  abstract?: string;
}

/** Random documents: titles or none, empty fields, non-ASCII text, and a few larger than a block. */
function randomCorpus(seed: number, docs: number): Doc[] {
  const random = seededRandom(seed);
  const words = ['flow', 'the', 'naïve', 'Москва', '東京', '𝐀𝐁𝐂', 'wing', '"quoted"', 'back\\slash', 'tab\there', 'e\u0301', '42', 'boundary', 'layer'];
  const text = (n: number) => Array.from({ length: n }, () => words[Math.floor(random() * words.length)]).join(random() < 0.1 ? '\n' : ' ');
  const out: Doc[] = [];
  for (let d = 0; d < docs; d++) {
    const doc: Doc = { _id: `doc-${d}-${words[d % words.length]!.replace(/\s/g, '_')}`, text: '' };
    const r = random();
    if (r < 0.4) doc.title = text(1 + Math.floor(random() * 6));
    else if (r < 0.5) doc.title = '';
    const size = random();
    // About one document in 60 is several blocks long on its own.
    doc.text = size < 0.05 ? '' : size < 0.067 ? text(BLOCK_TARGET_BYTES / 2 + Math.floor(random() * BLOCK_TARGET_BYTES)) : text(Math.floor(random() * 80));
    if (random() < 0.2) doc.abstract = random() < 0.3 ? '' : text(Math.floor(random() * 20));
    out.push(doc);
  }
  return out;
}

function writeCorpus(path: string, docs: Doc[]): void {
  writeFileSync(path, docs.map((d) => JSON.stringify(d)).join('\n') + '\n');
}

/** What document() must give back for a corpus record. */
function expected(doc: Doc) {
  const { _id, title, ...fields } = doc;
  return { docno: _id, title: title ?? '', fields };
}

/** store.bin's trailer and block directory (docs/INDEX_FORMAT.md `store.bin`). */
function storeLayout(dir: string): { dataBytes: number; numBlocks: number; dictionaryBytes: number; recordsStart: number[]; blockStart: number[] } {
  const file = readFileSync(join(dir, 'store.bin'));
  const payload = file.subarray(HEADER_BYTES);
  const dataBytes = Number(payload.readBigUInt64LE(payload.length - 8));
  const data = payload.subarray(0, dataBytes);
  const directoryOffset = data.readDoubleLE(dataBytes - 16);
  const numBlocks = data.readUInt32LE(dataBytes - 8);
  const dictionaryBytes = data.readUInt32LE(dataBytes - 4);
  const recordsStart: number[] = [];
  const blockStart: number[] = [];
  for (let b = 0; b <= numBlocks; b++) {
    recordsStart.push(data.readDoubleLE(directoryOffset + b * 24));
    blockStart.push(data.readDoubleLE(directoryOffset + b * 24 + 8));
  }
  return { dataBytes, numBlocks, dictionaryBytes, recordsStart, blockStart };
}

const corpusDocs = randomCorpus(13, 1500);
const corpus = join(work, 'random.jsonl');
const small = join(work, 'small.jsonl');
const smallDocs = randomCorpus(5, 12).map((d) => ({ ...d, text: d.text.slice(0, 200) }));
const built = join(work, 'random');

beforeAll(async () => {
  writeCorpus(corpus, corpusDocs);
  writeCorpus(small, smallDocs);
  await buildIndex([corpus], built, {});
});

describe('compressed stored text (store.bin)', () => {
  it('gives back every document exactly: titles, empty fields, non-ASCII text, documents larger than a block', () => {
    const reader = openIndex(built);
    expect(reader.stats().numDocs).toBe(corpusDocs.length);
    expect(corpusDocs.some((d) => d.text.length > BLOCK_TARGET_BYTES)).toBe(true);
    // In order, backwards and in a random order: the block cache never serves the wrong block.
    const random = seededRandom(3);
    const order = [...corpusDocs.keys(), ...[...corpusDocs.keys()].reverse(), ...Array.from({ length: 2000 }, () => Math.floor(random() * corpusDocs.length))];
    for (const d of order) expect(reader.document(d)).toEqual(expected(corpusDocs[d]!));
  });

  it('compresses the records in blocks of about the target size, with the stream’s first bytes as the dictionary', () => {
    const layout = storeLayout(built);
    const raw = recordStart(corpusDocs.length);
    expect(raw).toBeGreaterThan(DICTIONARY_MIN_STREAM);
    expect(layout.recordsStart[layout.numBlocks]).toBe(raw);
    expect(layout.dictionaryBytes).toBe(DICTIONARY_BYTES);
    expect(layout.numBlocks).toBeGreaterThan(20);
    // Raw JSON of random words from a small list: well under half its size once compressed.
    expect(layout.dataBytes).toBeLessThan(0.5 * raw);
    // A block closes at the record that reaches the target, so only a large record makes it much bigger.
    for (let b = 0; b < layout.numBlocks - 1; b++) expect(layout.recordsStart[b + 1]! - layout.recordsStart[b]!).toBeGreaterThanOrEqual(BLOCK_TARGET_BYTES);
  });

  it('a collection too small to pay for a dictionary has none, and still round-trips', async () => {
    const dir = join(work, 'small');
    await buildIndex([small], dir, {});
    expect(storeLayout(dir).dictionaryBytes).toBe(0);
    const reader = openIndex(dir);
    smallDocs.forEach((doc, d) => expect(reader.document(d)).toEqual(expected(doc)));
  });

  it('a flipped byte in a block: the documents of that block are a located IndexError, the others still read, verify-index refuses', async () => {
    const dir = join(work, 'damaged');
    await buildIndex([corpus], dir, {});
    const layout = storeLayout(dir);
    const b = Math.floor(layout.numBlocks / 2);
    const file = readFileSync(join(dir, 'store.bin'));
    const at = Math.floor((layout.blockStart[b]! + layout.blockStart[b + 1]!) / 2);
    file[HEADER_BYTES + at]! ^= 0x10;
    writeFileSync(join(dir, 'store.bin'), file);
    const reader = openIndex(dir);
    const inBlock = corpusDocs.findIndex((_, d) => recordStart(d) >= layout.recordsStart[b]! && recordStart(d) < layout.recordsStart[b + 1]!);
    const page = Math.floor(at / 4096);
    expect(errorOf(() => reader.document(inBlock)).message).toBe(
      `index file store.bin at ${dir} is corrupt (stored document ${JSON.stringify(corpusDocs[inBlock]!._id)}: checksum mismatch in page ${page}, bytes ${page * 4096}–${(page + 1) * 4096} of the data): rebuild with \`querylens index CORPUS… --out ${dir}\``,
    );
    // Documents of blocks on other pages need only their own block.
    const elsewhere = corpusDocs.findIndex((_, d) => recordStart(d) >= layout.recordsStart[b + 2]! && Math.floor(layout.blockStart[b + 2]! / 4096) > page);
    expect(reader.document(elsewhere)).toEqual(expected(corpusDocs[elsewhere]!));
    expect(errorOf(() => verifyIndex(dir)).message).toMatch(/^index file store\.bin is corrupt \(checksum mismatch in page \d+/);
  });

  it('a block altered behind recomputed checksums: a located IndexError, never wrong text', async () => {
    const layout = storeLayout(built);
    const b = 1;
    const docInBlock = corpusDocs.findIndex((_, d) => recordStart(d) >= layout.recordsStart[b]!);
    for (const [i, offset] of [0.25, 0.5, 0.75].entries()) {
      const dir = join(work, `altered-${i}`);
      await buildIndex([corpus], dir, {});
      const at = Math.floor(layout.blockStart[b]! + offset * (layout.blockStart[b + 1]! - layout.blockStart[b]!));
      tamper(dir, 'store.bin', (p) => (p[at]! ^= 0x55));
      const message = `^index file store\\.bin at .* is inconsistent \\(stored document ${JSON.stringify(corpusDocs[docInBlock]!._id)}: block 1 (does not inflate|inflates to)`;
      expect(errorOf(() => openIndex(dir).document(docInBlock)).message).toMatch(new RegExp(message));
      expect(errorOf(() => verifyIndex(dir)).message).toMatch(/^index file store\.bin at .* is inconsistent \(stored document .*: block 1 /);
    }
  });
});

/** Where each document's record starts in the uncompressed stream (the records in document order). */
const recordStarts = corpusDocs.reduce<number[]>((starts, doc) => {
  const { _id, title, ...fields } = doc;
  starts.push(starts[starts.length - 1]! + Buffer.byteLength(JSON.stringify([_id, title ?? '', fields])));
  return starts;
}, [0]);
function recordStart(d: number): number {
  return recordStarts[d]!;
}
