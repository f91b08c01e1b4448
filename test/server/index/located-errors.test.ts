/**
 * Errors met while decoding an index lazily (postings, term vectors, stored documents) name the
 * file, the index and what to do (issue 11, item 10: "data ends inside a number" with no file).
 * Such an index can only be made by hand: its damage is hidden behind recomputed checksums.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIndex, openIndex } from '../../../server/engine/index/disk.js';
import { errorOf } from './index-error.js';
import { ensureBuilt, ROOT } from '../../support/build.js';
import { tamper } from './tamper.js';

const work = mkdtempSync(join(tmpdir(), 'querylens-located-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const corpus = join(work, 'c.jsonl');

beforeAll(() => {
  writeFileSync(corpus, '{"_id":"d1","text":"heat transfer slab"}\n{"_id":"d2","text":"zebra heat"}\n');
});

describe('errors of lazily decoded index data', () => {
  it('postings: names postings.bin, the term, the index and how to rebuild', async () => {
    const dir = join(work, 'postings');
    await buildIndex([corpus], dir, {});
    tamper(dir, 'postings.bin', (p) => (p[p.length - 1] = 0x80));
    const reader = openIndex(dir);
    expect(errorOf(() => reader.postings('zebra')).message).toBe(
      `index file postings.bin at ${dir} is inconsistent (postings of term "zebra": bad bit width 128): rebuild with \`querylens index CORPUS… --out ${dir}\``,
    );
  });

  it('term vectors: names direct.bin and the document', async () => {
    // An index that keeps its text analyses the vectors from it; one without keeps them in direct.bin.
    const dir = join(work, 'direct');
    await buildIndex([corpus], dir, { storeText: false });
    tamper(dir, 'direct.bin', (p) => (p[0] = 0x7f));
    expect(errorOf(() => openIndex(dir).docVector(0)).message).toMatch(/^index file direct\.bin at .* is inconsistent \(term vector of document "d1": data ends inside a number\): rebuild with/);
  });

  it('stored documents: names store.bin, the document and its block instead of a bare zlib error', async () => {
    const dir = join(work, 'store');
    await buildIndex([corpus], dir, {});
    // A two-document corpus has no dictionary: byte 0 is the first of block 0's DEFLATE stream (BTYPE 11, invalid).
    tamper(dir, 'store.bin', (p) => (p[0] = 0x07));
    expect(errorOf(() => openIndex(dir).document(0)).message).toMatch(/^index file store\.bin at .* is inconsistent \(stored document "d1": block 0 does not inflate \(.+\)\): rebuild with/);
  });

  it('the CLI prints it as one line with a non-zero status', async () => {
    ensureBuilt();
    const dir = join(work, 'postings');
    const queries = join(work, 'q.indri');
    writeFileSync(queries, '1\tzebra\n');
    const r = await new Promise<{ code: number; stderr: string }>((resolve) =>
      execFile(process.execPath, [join(ROOT, 'bin/querylens.js'), 'search', '--index', dir, queries], { encoding: 'utf8' }, (err, _out, stderr) =>
        resolve({ code: err ? Number(err.code) : 0, stderr }),
      ),
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split('\n')).toEqual([
      `querylens: index file postings.bin at ${dir} is inconsistent (postings of term "zebra": bad bit width 128): rebuild with \`querylens index CORPUS… --out ${dir}\``,
    ]);
  }, 120_000);

  it('index --out where a file is in the way: one line with the path and what to do', async () => {
    ensureBuilt();
    const file = join(work, 'a-file');
    writeFileSync(file, 'x');
    const r = await new Promise<{ code: number; stderr: string }>((resolve) =>
      execFile(process.execPath, [join(ROOT, 'bin/querylens.js'), 'index', corpus, '--out', join(file, 'idx')], { encoding: 'utf8' }, (err, _out, stderr) =>
        resolve({ code: err ? Number(err.code) : 0, stderr }),
      ),
    );
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      `querylens: cannot write the index at ${join(file, 'idx')}: a file is in the way (${file}): choose another --out (any previous index there is unchanged)`,
    ]);
  }, 120_000);
});
