/**
 * CIFF export and import (server/engine/index/ciff.ts): index → export → import keeps every
 * posting, document length, docno and statistic, and BM25 ranks the same to the bit; an impact
 * index round-trips as impacts; a CIFF file written byte by byte from the message definitions
 * (independently of the codec) imports to the postings it spells; truncated and corrupt files are
 * errors at a byte offset, with nothing built; an import has no positions, so phrases are refused.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseIndri } from '../../../grammar/indri/index.js';
import { parseText } from '../../../grammar/text/index.js';
import { exportCiff, importCiff } from '../../../server/engine/index/ciff.js';
import { buildIndex, openIndex, verifyIndex } from '../../../server/engine/index/disk.js';
import type { IndexReader } from '../../../server/engine/index/reader.js';
import { search } from '../../../server/engine/search.js';
import { dataPath } from '../../support/data.js';

const work = mkdtempSync(join(tmpdir(), 'querylens-ciff-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function exportTo(reader: IndexReader, file: string): Buffer {
  const chunks: Uint8Array[] = [];
  exportCiff(reader, { write: (d) => chunks.push(d) });
  const bytes = Buffer.concat(chunks);
  writeFileSync(file, bytes);
  return bytes;
}

function expectSameIndex(a: IndexReader, b: IndexReader): void {
  expect(b.stats()).toEqual(a.stats());
  expect([...b.vocabulary()]).toEqual([...a.vocabulary()]);
  for (const t of a.vocabulary()) {
    const pa = a.postings(t)!;
    const pb = b.postings(t)!;
    expect(pb.docs).toEqual(pa.docs);
    expect(pb.tfs).toEqual(pa.tfs);
    expect(b.termStats(t)).toEqual(a.termStats(t));
  }
  for (let d = 0; d < a.stats().numDocs; d++) {
    expect(b.docno(d)).toBe(a.docno(d));
    expect(b.docLength(d)).toBe(a.docLength(d));
    expect(b.docVector(d)).toEqual(a.docVector(d));
  }
}

describe('CIFF round trip', () => {
  let cran: IndexReader;
  let ciff: Buffer;
  beforeAll(async () => {
    await buildIndex([dataPath('cranfield/corpus.jsonl')], join(work, 'cran'), {});
    cran = openIndex(join(work, 'cran'));
    ciff = exportTo(cran, join(work, 'cran.ciff'));
  });

  it('index → export → import: same postings, lengths, docnos and statistics; BM25 top 100 identical to the bit', async () => {
    // Small passes and a small run budget: the inversion takes several passes, the build several runs.
    const summary = await importCiff(join(work, 'cran.ciff'), join(work, 'cran-imported'), { postingsPerPass: 15_000, memoryBudgetBytes: 300_000 });
    expect(summary.runs).toBeGreaterThan(1);
    const imported = openIndex(join(work, 'cran-imported'));
    expect(imported.content).toEqual({ postings: 'frequencies', positions: false, preTokenised: false, storedText: false, source: 'ciff', docVectors: 'stored' });
    expect(imported.profile).toBe('terrier');
    expectSameIndex(cran, imported);
    expect(verifyIndex(join(work, 'cran-imported')).docs).toBe(1400);
    const queries = readFileSync(dataPath('cranfield/queries.tsv'), 'utf8').trim().split('\n').slice(0, 40);
    for (const line of queries) {
      const ast = parseText(line.split('\t')[1]!).ast;
      for (const scorer of ['bm25', 'bm25-lucene'] as const) {
        const a = search(cran, ast, { scorer, k: 100 });
        const b = search(imported, ast, { scorer, k: 100 });
        expect(b.hits.map((h) => h.docno)).toEqual(a.hits.map((h) => h.docno));
        b.hits.forEach((h, i) => expect(Object.is(h.score, a.hits[i]!.score)).toBe(true));
      }
    }
    // Exporting the import gives the same bytes.
    expect(exportTo(imported, join(work, 'again.ciff'))).toEqual(ciff);
    // No positions: a phrase is refused, not an empty result.
    expect(() => search(imported, parseIndri('#1( boundary layer )').ast)).toThrow(/needs term positions, and this index has none \(imported from CIFF\)/);
  });

  it('an impact index round-trips as impacts', async () => {
    const vectors = Array.from({ length: 300 }, (_, i) => ({ id: `p${i}`, contents: '', vector: { [`t${i % 7}`]: 1 + (i % 13), [`u${i % 11}`]: 2 + (i % 5), '##ing': i % 3 } }));
    writeFileSync(join(work, 'vectors.jsonl'), vectors.map((v) => JSON.stringify(v)).join('\n'));
    await buildIndex([join(work, 'vectors.jsonl')], join(work, 'vec'), { input: 'jsonvector' });
    const vec = openIndex(join(work, 'vec'));
    exportTo(vec, join(work, 'vec.ciff'));
    await importCiff(join(work, 'vec.ciff'), join(work, 'vec-imported'));
    const imported = openIndex(join(work, 'vec-imported'));
    expect(imported.content).toEqual({ postings: 'impacts', positions: false, preTokenised: true, storedText: false, source: 'ciff', docVectors: 'stored' });
    expectSameIndex(vec, imported);
    const ast = parseIndri('#weight( 2 t3 0.5 u4 )').ast;
    const a = search(vec, ast, { scorer: 'impact', k: 50 });
    const b = search(imported, ast, { scorer: 'impact', k: 50 });
    expect(b.hits).toEqual(a.hits);
    expect(() => search(imported, ast, { scorer: 'bm25' })).toThrow(/holds impacts \(imported from CIFF\)/);
  });
});

// ---- a CIFF file spelled out byte by byte (protobuf wire format), without the codec ----------

function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
  return out;
}
const key = (field: number, wire: number) => varint(field * 8 + wire);
const vint = (field: number, n: number) => [...key(field, 0), ...varint(n)];
const bytesField = (field: number, b: number[]) => [...key(field, 2), ...varint(b.length), ...b];
const str = (field: number, s: string) => bytesField(field, [...Buffer.from(s, 'utf8')]);
const delimited = (m: number[]) => [...varint(m.length), ...m];
const double = (field: number, x: number) => {
  const b = Buffer.alloc(8);
  b.writeDoubleLE(x);
  return [...key(field, 1), ...b];
};

/** Header, "apple" in docs 0 (tf 1) and 2 (tf 2), "pear" in doc 1 (tf 4), three DocRecords. */
function tinyCiff(change: { appleDf?: number; pearGap?: number; secondDocid?: number; trailing?: boolean } = {}): Buffer {
  const header = [...vint(1, 1), ...vint(2, 2), ...vint(3, 3), ...vint(4, 2), ...vint(5, 3), ...vint(6, 9), ...double(7, 3), ...str(8, 'hand-written')];
  // docid 0 written explicitly (proto3 writers leave it out; readers must accept both), and unknown fields (9 in a
  // list, 5 in a posting) that a reader skips.
  const apple = [...str(1, 'apple'), ...vint(2, change.appleDf ?? 2), ...vint(3, 3), ...bytesField(4, [...vint(1, 0), ...vint(2, 1)]), ...bytesField(4, [...vint(1, 2), ...vint(2, 2)]), ...vint(9, 5)];
  const pear = [...str(1, 'pear'), ...vint(2, 1), ...vint(3, 4), ...bytesField(4, [...vint(1, change.pearGap ?? 1), ...vint(5, 1), ...vint(2, 4)])];
  const docs = [
    [...str(2, 'A'), ...vint(3, 2)],
    [...vint(1, change.secondDocid ?? 1), ...str(2, 'B'), ...vint(3, 4)],
    [...vint(1, 2), ...str(2, 'C'), ...vint(3, 3)],
  ];
  return Buffer.from([...delimited(header), ...delimited(apple), ...delimited(pear), ...docs.flatMap(delimited), ...(change.trailing ? [0] : [])]);
}

describe('a hand-built CIFF file', () => {
  it('imports to the postings, docnos and lengths it spells', async () => {
    writeFileSync(join(work, 'tiny.ciff'), tinyCiff());
    const summary = await importCiff(join(work, 'tiny.ciff'), join(work, 'tiny'));
    expect(summary.header).toMatchObject({ version: 1, numPostingsLists: 2, numDocRecords: 3, totalTermsInCollection: 9, averageDocLength: 3, description: 'hand-written' });
    const r = openIndex(join(work, 'tiny'));
    expect(r.profile).toBe('none');
    expect(r.content).toMatchObject({ postings: 'frequencies', positions: false, preTokenised: true, storedText: false });
    expect([...r.vocabulary()]).toEqual(['apple', 'pear']);
    expect([...r.postings('apple')!.docs]).toEqual([0, 2]);
    expect([...r.postings('apple')!.tfs]).toEqual([1, 2]);
    expect([...r.postings('pear')!.docs]).toEqual([1]);
    expect([...r.postings('pear')!.tfs]).toEqual([4]);
    expect([0, 1, 2].map((d) => [r.docno(d), r.docLength(d)])).toEqual([['A', 2], ['B', 4], ['C', 3]]);
    expect(r.stats()).toEqual({ numDocs: 3, totalTokens: 9, avgDocLength: 3 });
    expect(r.document(1)).toEqual({ docno: 'B', title: '', fields: {} });
  });

  it.each([
    ['truncated inside the header', (b: Buffer) => b.subarray(0, 20), /\(byte 1\): truncated: the Header is \d+ bytes long, the file ends after 19/],
    ['truncated inside a postings list', (b: Buffer) => b.subarray(0, 45), /\(byte 37\): truncated: PostingsList 1 of 2 is \d+ bytes long/],
    ['truncated before the last record', (b: Buffer) => b.subarray(0, b.length - 7), /truncated: .*DocRecord 3 of 3/],
    ['df differs from the postings', () => tinyCiff({ appleDf: 3 }), /\(byte \d+\): PostingsList 1 of 2: df 3, but 2 postings/],
    ['a docid past the documents', () => tinyCiff({ pearGap: 7 }), /PostingsList 2 of 2: posting 1 names document 7, past the last of the 3 DocRecords/],
    ['documents out of order', () => tinyCiff({ secondDocid: 5 }), /DocRecord 2 of 3: docid 5, expected 1/],
    ['bytes after the last record', () => tinyCiff({ trailing: true }), /1 bytes after the last DocRecord/],
  ])('%s: an error at its byte offset, nothing built', async (_, damage, message) => {
    const file = join(work, 'bad.ciff');
    writeFileSync(file, damage(tinyCiff()));
    const out = join(work, 'bad-index');
    await expect(importCiff(file, out)).rejects.toThrow(message);
    await expect(importCiff(file, out)).rejects.toThrow(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(byte \\d+\\): `));
    expect(existsSync(out)).toBe(false);
  });
});
