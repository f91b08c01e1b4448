import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIndex, FORMAT_VERSION, INDEX_FILES, IndexError, openIndex, verifyIndex } from '../../../server/engine/index/disk.js';
import { errorOf } from './index-error.js';
import { BLOCK_SIZE } from '../../../server/engine/index/postings-codec.js';
import { search } from '../../../server/engine/search.js';
import { parseIndri } from '../../../grammar/indri/index.js';
import { buildMemoryIndex } from '../../../server/engine/index/memory.js';
import { expectSameIndex } from './same-index.js';
import { loadJsonl } from './naive.js';
import { dataPath } from '../../support/data.js';

const CRANFIELD = dataPath('cranfield/corpus.jsonl');
const work = mkdtempSync(join(tmpdir(), 'querylens-disk-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const PAGED: string[] = ['postings.bin', 'direct.bin', 'store.bin', 'lexicon.bin', 'docs.bin'];

const openError = (dir: string): IndexError => errorOf(() => openIndex(dir));

describe('on-disk index: Cranfield', () => {
  for (const profile of ['terrier', 'lucene'] as const) {
    it(`answers exactly as the in-memory index (${profile})`, async () => {
      const out = join(work, `cran-${profile}`);
      const summary = await buildIndex([CRANFIELD], out, { profile });
      expect(summary.docs).toBe(1400);
      expect(summary.skipped).toBe(0);
      const disk = openIndex(out);
      const memory = buildMemoryIndex(loadJsonl(CRANFIELD), { profile });
      expect(summary.terms).toBe(memory.vocabularySize());
      expect(summary.tokens).toBe(memory.stats().totalTokens);
      expect(summary.bytesOnDisk).toBe(Object.values(summary.files).reduce((x, y) => x + y, 0));
      expect(disk.stats().numDocs).toBe(1400);
      expectSameIndex(memory, disk);
    });
  }

  it('keeps non-ASCII terms intact through front coding (surrogate pairs too)', async () => {
    const corpus = join(work, 'unicode.jsonl');
    const texts = ['𝐀𝐁𝐂 𝐀𝐁𝐃 𝐀x', 'naïve naïf Москва Московский 東京 東京都', 'éa éb e\u0301c'];
    writeFileSync(corpus, texts.map((t, i) => JSON.stringify({ _id: `u${i}`, title: '', text: t })).join('\n'));
    await buildIndex([corpus], join(work, 'unicode'), {});
    const disk = openIndex(join(work, 'unicode'));
    const memory = buildMemoryIndex(texts.map((t, i) => ({ docno: `u${i}`, fields: { title: '', text: t } })));
    expectSameIndex(memory, disk);
    expect([...disk.vocabulary()]).toContain('𝐀𝐁𝐃');
  });

  it('reads docnos back byte for byte: short ASCII ones, non-ASCII ones and long ones', async () => {
    const corpus = join(work, 'docnos.jsonl');
    // 32 bytes is where the ASCII fast path stops; 'é' and '東京' take the UTF-8 decoder.
    const docnos = ['184', 'é-1', '東京-2', 'a'.repeat(32), 'b'.repeat(33), `${'c'.repeat(31)}é`, 'MED-10', '\u007f'];
    writeFileSync(corpus, docnos.map((d) => JSON.stringify({ _id: d, title: '', text: 'word' })).join('\n'));
    await buildIndex([corpus], join(work, 'docnos'), {});
    const disk = openIndex(join(work, 'docnos'));
    expect(docnos.map((_, doc) => disk.docno(doc)).sort()).toEqual([...docnos].sort());
    for (const d of docnos) expect(disk.docno(disk.docByDocno(d)!)).toBe(d);
  });
});

describe('on-disk index: damage and versions', () => {
  const pristine = join(work, 'pristine');
  // direct.bin holds data only in an index without text (docs/INDEX_FORMAT.md): its damage is tried there.
  const pristineWithoutText = join(work, 'pristine-without-text');
  beforeAll(async () => {
    await buildIndex([CRANFIELD], pristine, {});
    await buildIndex([CRANFIELD], pristineWithoutText, { storeText: false });
  });

  function copyIndex(name: string, from = name.endsWith('direct.bin') ? pristineWithoutText : pristine): string {
    const dir = join(work, name);
    mkdirSync(dir);
    for (const f of INDEX_FILES) writeFileSync(join(dir, f), readFileSync(join(from, f)));
    return dir;
  }

  for (const file of INDEX_FILES) {
    it(`rejects a truncated ${file}`, () => {
      const dir = copyIndex(`trunc-${file}`);
      const size = readFileSync(join(dir, file)).length;
      truncateSync(join(dir, file), size - 7);
      const err = openError(dir);
      expect(err.message).toMatch(new RegExp(`^index file ${file.replace('.', '\\.')} is corrupt \\(truncated`));
      expect(err.message).toMatch(/rebuild with `querylens index .* --out /);
    });

    it(`rejects ${file} with one flipped payload byte (checksum mismatch)`, () => {
      const dir = copyIndex(`flip-${file}`);
      const data = readFileSync(join(dir, file));
      const at = 32 + Math.floor((data.length - 32) / 2);
      data[at]! ^= 0x10;
      writeFileSync(join(dir, file), data);
      const message = new RegExp(`^index file ${file.replace('.', '\\.')} is corrupt \\(checksum mismatch( in page \\d+, bytes \\d+–\\d+ of the data)?\\): rebuild`);
      if (!PAGED.includes(file)) {
        expect(openError(dir).message).toMatch(message);
        return;
      }
      // A lazily read file is not read whole at open: its damaged page is refused when read (at
      // open when opening reads it: the lexicon's directory, the document columns), and the full
      // verification (querylens verify-index) finds it.
      const located = new RegExp(`^index file ${file.replace('.', '\\.')} at \\S+ is corrupt \\([^:]+: checksum mismatch in page \\d+, bytes \\d+–\\d+ of the data\\): rebuild`);
      let opened = true;
      try {
        openIndex(dir);
      } catch (err) {
        opened = false;
        expect((err as Error).message).toMatch(located);
      }
      if (opened) expect(errorOf(() => verifyIndex(dir)).message).toMatch(message);
    });

    if (PAGED.includes(file)) {
      it(`rejects ${file} with a flipped byte in its page table at open`, () => {
        const dir = copyIndex(`flip-table-${file}`);
        const data = readFileSync(join(dir, file));
        data[data.length - 14]! ^= 0x01; // the last page checksum, just before the 12-byte trailer
        writeFileSync(join(dir, file), data);
        expect(openError(dir).message).toMatch(new RegExp(`^index file ${file.replace('.', '\\.')} is corrupt \\(checksum mismatch\\): rebuild`));
      });
    }
  }

  it('refuses the postings of a term whose page is damaged, and every search that reads them; other terms still answer', () => {
    const dir = copyIndex('flip-term');
    const pristineReader = openIndex(pristine);
    const data = readFileSync(join(dir, 'postings.bin'));
    // The lexicon is in term order and so is postings.bin: damage the last byte of the data,
    // inside the record of the last term; the first term's record lies in another page.
    const dataBytes = Number(data.readBigUInt64LE(data.length - 8));
    data[48 + dataBytes - 1]! ^= 0x04;
    writeFileSync(join(dir, 'postings.bin'), data);
    const reader = openIndex(dir);
    const vocab = [...reader.vocabulary()];
    const last = vocab[vocab.length - 1]!;
    const first = vocab[0]!;
    const corrupt = /^index file postings\.bin at .* is corrupt \(postings of term ".*": checksum mismatch in page \d+, bytes \d+–\d+ of the data\): rebuild with/;
    expect(errorOf(() => reader.postings(last)).message).toMatch(corrupt);
    expect(errorOf(() => reader.postingBlocks(last)).message).toMatch(corrupt);
    expect(errorOf(() => search(reader, parseIndri(`#combine(${last} ${first})`).ast, {})).message).toMatch(corrupt);
    expect(Array.from(reader.postings(first)!.docs)).toEqual(Array.from(pristineReader.postings(first)!.docs));
    expect(verifyIndex(pristine).terms).toBe(vocab.length);
  });

  it('rejects a flipped header byte', () => {
    const dir = copyIndex('flip-header');
    const data = readFileSync(join(dir, 'postings.bin'));
    data[14]! ^= 0x01; // inside the payload length
    writeFileSync(join(dir, 'postings.bin'), data);
    expect(openError(dir).message).toMatch(/^index file postings\.bin is corrupt \(header checksum mismatch\)/);
  });

  it('rejects a missing file', () => {
    const dir = copyIndex('missing');
    rmSync(join(dir, 'direct.bin'));
    expect(openError(dir).message).toMatch(/^index file direct\.bin is missing: rebuild/);
  });

  it('names both format versions when the index is from another version', () => {
    const dir = copyIndex('version');
    for (const file of INDEX_FILES) {
      const data = readFileSync(join(dir, file));
      data.writeUInt32LE(FORMAT_VERSION + 1, 4);
      data.writeUInt32LE(crc32(data.subarray(0, 24)) >>> 0, 24);
      writeFileSync(join(dir, file), data);
    }
    expect(openError(dir).message).toBe(
      `index built with format ${FORMAT_VERSION + 1}, this querylens reads format ${FORMAT_VERSION}: rebuild with \`querylens index CORPUS… --out ${dir}\``,
    );
  });

  it('says clearly when there is no index', () => {
    expect(openError(join(work, 'nothing-here')).message).toMatch(/^no index at .*nothing-here: build one/);
    mkdirSync(join(work, 'empty-dir'));
    expect(openError(join(work, 'empty-dir')).message).toMatch(/is not a querylens index \(no meta\.bin\)/);
  });
});

describe('on-disk index: atomic builds', () => {
  const small = join(work, 'small.jsonl');
  beforeAll(() => {
    writeFileSync(small, ['{"_id":"s1","text":"alpha beta"}', '{"_id":"s2","text":"gamma"}'].join('\n'));
  });

  const leftovers = (name: string) => readdirSync(work).filter((f) => f.startsWith(`.${name}.`));

  it('an aborted first build leaves nothing at outDir and no temp folder', async () => {
    const out = join(work, 'aborted-first');
    await expect(
      buildIndex([CRANFIELD], out, {
        onProgress: ({ docs }) => {
          if (docs === 700) throw new Error('interrupted');
        },
      }),
    ).rejects.toThrow('interrupted');
    expect(existsSync(out)).toBe(false);
    expect(leftovers('aborted-first')).toEqual([]);
  });

  it('an aborted rebuild keeps the previous index intact', async () => {
    const out = join(work, 'aborted-rebuild');
    await buildIndex([small], out, {});
    await expect(
      buildIndex([CRANFIELD], out, {
        onProgress: ({ docs }) => {
          if (docs === 1000) throw new Error('interrupted');
        },
      }),
    ).rejects.toThrow('interrupted');
    expect(openIndex(out).stats().numDocs).toBe(2);
    expect(leftovers('aborted-rebuild')).toEqual([]);
    // And a completed rebuild replaces it.
    await buildIndex([CRANFIELD], out, {});
    expect(openIndex(out).stats().numDocs).toBe(1400);
    expect(leftovers('aborted-rebuild')).toEqual([]);
  });

  it('a stop asked for after the last record was read (before the writing) keeps the previous index', async () => {
    // The language server's Cancel can arrive while the last chunk is read: the build makes one
    // more progress call, after an event-loop turn, before it writes anything.
    const out = join(work, 'late-cancel');
    await buildIndex([small], out, {});
    let stopAsked = false;
    const calls: number[] = [];
    await expect(
      buildIndex([small], out, {
        onProgress: ({ docs }) => {
          calls.push(docs);
          if (stopAsked) throw new Error('cancelled');
          // The stop arrives as an event right after the last record (a message on stdin would).
          if (docs === 2) setImmediate(() => (stopAsked = true));
        },
      }),
    ).rejects.toThrow('cancelled');
    // Both records were read before the stop was seen: it was the final call that saw it.
    expect(calls).toEqual([1, 2, 2]);
    expect(openIndex(out).stats().numDocs).toBe(2);
    expect(leftovers('late-cancel')).toEqual([]);
  });

  it('a build killed with SIGKILL keeps the previous index; the next build clears the debris', async () => {
    const out = join(work, 'killed');
    await buildIndex([small], out, {});
    const child = spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures/kill-build.ts'), CRANFIELD, out, '900'], {
      cwd: process.cwd(),
      encoding: 'utf8',
    });
    expect(child.signal).toBe('SIGKILL');
    expect(openIndex(out).stats().numDocs).toBe(2);
    const debris = leftovers('killed');
    expect(debris).toHaveLength(1);
    expect(() => openIndex(join(work, debris[0]!))).toThrow(/working folder of an interrupted index build/);
    await buildIndex([small], out, {});
    expect(leftovers('killed')).toEqual([]);
  });

  it('puts back a previous index that a build killed between its two renames left aside', async () => {
    const out = join(work, 'between');
    await buildIndex([small], out, {});
    // A pid that surely belongs to no running process any more.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    renameSync(out, join(work, `.between.old-${dead}-0000`));
    await expect(
      buildIndex([CRANFIELD], out, {
        onProgress: () => {
          throw new Error('interrupted');
        },
      }),
    ).rejects.toThrow('interrupted');
    expect(openIndex(out).stats().numDocs).toBe(2);
    expect(leftovers('between')).toEqual([]);
  });

  it('refuses to replace a folder that is not an index', async () => {
    const out = join(work, 'user-folder');
    mkdirSync(out);
    writeFileSync(join(out, 'notes.txt'), 'precious');
    await expect(buildIndex([small], out, {})).rejects.toThrow(/is not a querylens index: refusing to replace it/);
    expect(readFileSync(join(out, 'notes.txt'), 'utf8')).toBe('precious');
  });

  it('counts skipped records with skipBad and stops without it', async () => {
    const bad = join(work, 'bad.jsonl');
    writeFileSync(bad, ['{"_id":"a","text":"x"}', 'not json', '{"_id":"a","text":"dup"}', '{"_id":"b","text":"y"}'].join('\n'));
    const summary = await buildIndex([bad], join(work, 'skip'), { skipBad: true });
    expect(summary.docs).toBe(2);
    expect(summary.skipped).toBe(2);
    expect(summary.skippedExamples[0]).toMatch(/bad\.jsonl:2: invalid JSON/);
    await expect(buildIndex([bad], join(work, 'noskip'), {})).rejects.toThrow(/bad\.jsonl:2: invalid JSON/);
    expect(existsSync(join(work, 'noskip'))).toBe(false);
  });
});
