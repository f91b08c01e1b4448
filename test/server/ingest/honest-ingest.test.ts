/**
 * Nothing of the user's corpus is changed or dropped without a word (issue 11, item 9): invalid
 * UTF-8 (also in ids), ids a TREC run cannot hold, and symbolic links in a folder corpus are each
 * reported with file:line, stop the read, or with skipBad are skipped and counted.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { IngestError, readCorpus, type IngestDocument } from '../../../server/engine/ingest/index.js';
import { buildIndex } from '../../../server/engine/index/disk.js';
import { firstInvalidUtf8 } from '../../../server/engine/ingest/utf8.js';

const dir = mkdtempSync(join(tmpdir(), 'querylens-honest-ingest-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
  return path;
}

async function collect(paths: string[], skipBad: boolean): Promise<{ docs: IngestDocument[]; bad: string[] }> {
  const docs: IngestDocument[] = [];
  const bad: string[] = [];
  for await (const d of readCorpus(paths, { skipBad, onBad: (e) => bad.push(e.message) })) docs.push(d);
  return { docs, bad };
}

async function stopsWith(paths: string[]): Promise<string> {
  try {
    await collect(paths, false);
  } catch (err) {
    expect(err).toBeInstanceOf(IngestError);
    return (err as Error).message;
  }
  throw new Error('expected the read to stop');
}

const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));

describe('invalid UTF-8', () => {
  it('JSONL: in a text and in an _id, located, never read as U+FFFD', async () => {
    const file = write(
      'bad-utf8.jsonl',
      bytes('{"_id":"ok1","text":"caf\u00e9 fine"}\n', '{"_id":"d2","text":"bad ', [0xff], ' byte"}\n', '{"_id":"id', [0xc3, 0x28], '","text":"x"}\n', '{"_id":"ok2","text":"\ufffd is a real U+FFFD"}\n'),
    );
    expect(await stopsWith([file])).toBe(`${file}:2: the line is not valid UTF-8 (byte 0xFF); fix the file's encoding`);
    const { docs, bad } = await collect([file], true);
    expect(docs.map((d) => d.docno)).toEqual(['ok1', 'ok2']);
    expect(docs[1]!.fields.text).toBe('\ufffd is a real U+FFFD');
    expect(bad).toEqual([`${file}:2: the line is not valid UTF-8 (byte 0xFF); fix the file's encoding`, `${file}:3: the line is not valid UTF-8 (byte 0xC3); fix the file's encoding`]);
  });

  it('TREC (plain and gzip): in a text and in a DOCNO, at the line of the bad byte', async () => {
    const content = bytes(
      '<DOC>\n<DOCNO>t1</DOCNO>\n<TEXT>fine caf\u00e9</TEXT>\n</DOC>\n',
      '<DOC>\n<DOCNO>t2</DOCNO>\n<TEXT>\nline one\nbad ',
      [0xe9],
      ' here\n</TEXT>\n</DOC>\n',
      '<DOC><DOCNO>t',
      [0x80],
      '3</DOCNO>x</DOC>\n',
      '<DOC><DOCNO>t4</DOCNO>ok</DOC>\n',
    );
    for (const [name, data] of [
      ['bad.trec', content],
      ['bad.trec.gz', gzipSync(content)],
    ] as const) {
      const file = write(name, data);
      expect(await stopsWith([file])).toBe(`${file}:9: the <DOC> at line 5 is not valid UTF-8 (byte 0xE9); fix the file's encoding`);
      const { docs, bad } = await collect([file], true);
      expect(docs.map((d) => [d.docno, d.fields.text])).toEqual([
        ['t1', 'fine caf\u00e9'],
        ['t4', 'ok'],
      ]);
      expect(bad).toHaveLength(2);
      expect(bad[1]).toBe(`${file}:12: the <DOC> at line 12 is not valid UTF-8 (byte 0x80); fix the file's encoding`);
    }
  });

  it('TREC: a UTF-8 byte order mark is not stray text', async () => {
    const file = write('bom.trec', bytes([0xef, 0xbb, 0xbf], '<DOC><DOCNO>b1</DOCNO>text</DOC>\n'));
    const { docs, bad } = await collect([file], false);
    expect(docs.map((d) => d.docno)).toEqual(['b1']);
    expect(bad).toEqual([]);
  });

  it('folder: the file and the line of the bad byte', async () => {
    write('utf8-folder/a.txt', 'fine');
    const badFile = write('utf8-folder/b.txt', bytes('title\nsecond\nthird ', [0xfe], '\n'));
    expect(await stopsWith([join(dir, 'utf8-folder')])).toBe(`${badFile}:3: the file is not valid UTF-8 (byte 0xFE); fix the file's encoding`);
  });

  it('finds the first invalid byte as the WHATWG decoder does (overlong, surrogates, truncated)', () => {
    const cases: [number[], number][] = [
      [[0x61, 0x62], -1],
      [[0xc3, 0xa9], -1],
      [[0xf0, 0x9f, 0x98, 0x80], -1],
      [[0x61, 0xc0, 0xaf], 1],
      [[0xe0, 0x80, 0xaf], 0],
      [[0xed, 0xa0, 0x80], 0],
      [[0xf4, 0x90, 0x80, 0x80], 0],
      [[0x61, 0xe2, 0x82], 1],
      [[0x80], 0],
    ];
    for (const [input, at] of cases) {
      expect(firstInvalidUtf8(Uint8Array.from(input)), JSON.stringify(input)).toBe(at);
      let valid = true;
      try {
        new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(input));
      } catch {
        valid = false;
      }
      expect(valid).toBe(at === -1);
    }
  });
});

describe('ids a TREC run cannot hold', () => {
  it('JSONL: spaces, tabs, line breaks and empty ids are refused with the line', async () => {
    const file = write(
      'ids.jsonl',
      ['{"_id":"good","text":"a"}', '{"_id":"has space","text":"b"}', '{"_id":"tab\\there","text":"c"}', '{"_id":"new\\nline","text":"d"}', '{"_id":"","text":"e"}', '{"_id":" ","text":"f"}'].join('\n'),
    );
    expect(await stopsWith([file])).toBe(`${file}:2: document id "has space" contains a space, which a TREC run cannot hold: change the id`);
    const { docs, bad } = await collect([file], true);
    expect(docs.map((d) => d.docno)).toEqual(['good']);
    expect(bad).toEqual([
      `${file}:2: document id "has space" contains a space, which a TREC run cannot hold: change the id`,
      `${file}:3: document id "tab\\there" contains a tab, which a TREC run cannot hold: change the id`,
      `${file}:4: document id "new\\nline" contains a line break, which a TREC run cannot hold: change the id`,
      `${file}:5: record has no "_id" (a non-empty string)`,
      `${file}:6: document id " " contains a space, which a TREC run cannot hold: change the id`,
    ]);
  });

  it('TREC: a DOCNO with inner whitespace is refused', async () => {
    const file = write('ids.trec', '<DOC><DOCNO>ok</DOCNO>a</DOC>\n<DOC>\n<DOCNO> two words </DOCNO>b</DOC>\n');
    expect(await stopsWith([file])).toBe(`${file}:2: document id "two words" contains a space, which a TREC run cannot hold: change the id`);
  });

  it('folder: a file name with a space is refused (its path is its id)', async () => {
    write('space-folder/good.txt', 'x');
    const spaced = write('space-folder/my notes.txt', 'y');
    const { docs, bad } = await collect([join(dir, 'space-folder')], true);
    expect(docs.map((d) => d.docno)).toEqual(['good.txt']);
    expect(bad).toEqual([`${spaced}:1: document id "my notes.txt" contains a space, which a TREC run cannot hold: change the id (the id of a file is its path in the folder: rename the file)`]);
  });
});

describe('symbolic links in a folder corpus', () => {
  const root = join(dir, 'linked');
  const outside = write('outside/secret.txt', 'private text');
  write('linked/a.txt', 'alpha');
  write('linked/sub/b.md', '# Bee\nbody');
  symlinkSync(join(root, 'a.txt'), join(root, 'link-to-a.txt'));
  symlinkSync('sub', join(root, 'sublink'));
  symlinkSync(outside, join(root, 'out.txt'));
  symlinkSync(join(dir, 'nowhere.txt'), join(root, 'dangling.txt'));
  symlinkSync('..', join(root, 'sub', 'loop'));

  it('follows links inside the folder, reports links outside or to nothing, and never loops', async () => {
    const { docs, bad } = await collect([root], true);
    expect(docs.map((d) => d.docno)).toEqual(['a.txt', 'link-to-a.txt', 'sub/b.md', 'sublink/b.md']);
    expect(docs.find((d) => d.docno === 'link-to-a.txt')!.fields.title).toBe('alpha');
    expect(bad).toEqual([
      `${join(root, 'dangling.txt')}: symbolic link to nothing (its target does not exist): not indexed`,
      `${join(root, 'out.txt')}: symbolic link to ${outside}, outside the corpus folder: not indexed (copy the file into the folder to index it)`,
      `${join(root, 'sub', 'loop')}: symbolic link to a folder that contains it (a loop): not followed`,
      `${join(root, 'sublink', 'loop')}: symbolic link to a folder that contains it (a loop): not followed`,
    ]);
    expect(docs.some((d) => JSON.stringify(d.fields).includes('private'))).toBe(false);
  });

  it('stops at the first such link without skipBad, and the build summary counts them with it', async () => {
    expect(await stopsWith([root])).toMatch(/dangling\.txt: symbolic link to nothing/);
    const summary = await buildIndex([root], join(dir, 'linked-index'), { skipBad: true });
    expect(summary.docs).toBe(4);
    expect(summary.skipped).toBe(4);
  });
});
