import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { detectFormat, IngestError, readCorpus, type IngestDocument } from '../../../server/engine/ingest/index.js';
import { dataPath } from '../../support/data.js';

const dir = mkdtempSync(join(tmpdir(), 'querylens-ingest-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
  return path;
}

async function collect(paths: string[], skipBad = false): Promise<{ docs: IngestDocument[]; bad: IngestError[] }> {
  const docs: IngestDocument[] = [];
  const bad: IngestError[] = [];
  for await (const d of readCorpus(paths, { skipBad, onBad: (e) => bad.push(e) })) docs.push(d);
  return { docs, bad };
}

async function firstError(paths: string[]): Promise<IngestError> {
  try {
    await collect(paths);
  } catch (err) {
    expect(err).toBeInstanceOf(IngestError);
    return err as IngestError;
  }
  throw new Error('expected an IngestError');
}

const jsonl = [
  '{"_id": "d1", "title": "Wing flutter", "text": "Flutter of swept wings.", "url": "http://x", "meta": {"a": 1}}',
  '',
  '{"text": "no title here", "_id": "d2"}',
  '{"_id": 3, "title": "numeric id", "text": "ok", "author": "Smith"}',
].join('\n');

describe('BEIR JSONL', () => {
  it('reads records, keeps other string fields, title first', async () => {
    const path = write('good.jsonl', jsonl);
    const { docs } = await collect([path]);
    expect(docs.map((d) => d.docno)).toEqual(['d1', 'd2', '3']);
    expect(docs[0]!.fields).toEqual({ title: 'Wing flutter', text: 'Flutter of swept wings.', url: 'http://x' });
    expect(Object.keys(docs[0]!.fields)[0]).toBe('title');
    expect(docs[1]!.fields).toEqual({ text: 'no title here' });
    expect(Object.keys(docs[2]!.fields)).toEqual(['title', 'text', 'author']);
    expect(docs[2]!.source).toEqual({ file: path, line: 4 });
  });

  it('reads the same records gzipped, whatever the file name', async () => {
    const path = write('good.jsonl.gz', gzipSync(jsonl));
    const other = write('corpus.data', gzipSync(jsonl));
    expect((await collect([path])).docs.map((d) => d.docno)).toEqual(['d1', 'd2', '3']);
    expect(await detectFormat(other)).toBe('jsonl');
  });

  const malformed: [name: string, lines: string[], line: number, reason: RegExp][] = [
    ['broken JSON', ['{"_id": "a", "text": "x"}', '{"_id": "b", "text": '], 2, /invalid JSON/],
    ['missing _id', ['{"_id": "a", "text": "x"}', '', '{"text": "y"}'], 3, /no "_id"/],
    ['empty _id', ['{"_id": "", "text": "x"}'], 1, /no "_id"/],
    ['not an object', ['{"_id": "a", "text": "x"}', '{"_id": "c", "text": "x"}', '[1, 2]'], 3, /expected a JSON object/],
    ['duplicate docno', ['{"_id": "a", "text": "x"}', '{"_id": "a", "text": "y"}'], 2, /duplicate docno 'a' \(first at .*:1\)/],
  ];
  for (const [name, lines, line, reason] of malformed) {
    it(`stops at a record with ${name}, naming file and line`, async () => {
      const path = write(`bad-${name.replace(/\W/g, '')}.jsonl`, lines.join('\n'));
      const err = await firstError([path]);
      expect(err.file).toBe(path);
      expect(err.line).toBe(line);
      expect(err.message).toMatch(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:${line}: `));
      expect(err.message).toMatch(reason);
    });
  }

  it('skips and counts malformed records with skipBad', async () => {
    const path = write(
      'mixed.jsonl',
      ['{"_id": "a", "text": "x"}', 'garbage', '{"_id": "b"}', '{"_id": "a", "text": "dup"}', '{"title": "no id"}', '{"_id": "c"}'].join('\n'),
    );
    const { docs, bad } = await collect([path], true);
    expect(docs.map((d) => d.docno)).toEqual(['a', 'b', 'c']);
    expect(bad.map((e) => e.line)).toEqual([2, 4, 5]);
  });

  it('finds duplicates across files', async () => {
    const a = write('dupA.jsonl', '{"_id": "x", "text": "1"}\n');
    const b = write('dupB.jsonl', '{"_id": "y", "text": "1"}\n{"_id": "x", "text": "2"}\n');
    const err = await firstError([a, b]);
    expect(err.file).toBe(b);
    expect(err.line).toBe(2);
    expect(err.message).toContain(`first at ${a}:1`);
  });

  it('reads the real Cranfield corpus: 1,400 documents', async () => {
    const { docs } = await collect([dataPath('cranfield/corpus.jsonl')]);
    expect(docs).toHaveLength(1400);
    expect(new Set(docs.map((d) => d.docno)).size).toBe(1400);
  });
});

const trec = `<DOC>
<DOCNO> FT911-1 </DOCNO>
<HEAD>Aircraft &amp; wings</HEAD>
<TEXT>
Flutter of <B>swept</B> wings.
</TEXT>
<DATE>1991</DATE>
</DOC>

<doc>
<DOCNO>LA-2</DOCNO>
<TITLE>Second</TITLE><HEADLINE>Headline too</HEADLINE>
<TEXT>Body &#233;t&#xE9;</TEXT>
</doc>
<DOC>
<DOCNO>NOTEXT</DOCNO>
</DOC>
`;

describe('TREC SGML', () => {
  it('reads DOCNO, title (TITLE/HEAD/HEADLINE) and text (everything else, tags out)', async () => {
    const path = write('good.trec', trec);
    const { docs } = await collect([path]);
    expect(docs).toEqual([
      { docno: 'FT911-1', fields: { title: 'Aircraft & wings', text: 'Flutter of swept wings. 1991' }, source: { file: path, line: 1 } },
      { docno: 'LA-2', fields: { title: 'Second Headline too', text: 'Body été' }, source: { file: path, line: 10 } },
      { docno: 'NOTEXT', fields: { text: '' }, source: { file: path, line: 15 } },
    ]);
  });

  it('reads gzip and survives documents split across many chunks', async () => {
    const big = Array.from({ length: 3000 }, (_, i) => `<DOC>\n<DOCNO>D${i}</DOCNO>\n<TEXT>${'word '.repeat(i % 50)}</TEXT>\n</DOC>\n`).join('');
    const path = write('big.sgml.gz', gzipSync(big));
    const { docs } = await collect([path]);
    expect(docs).toHaveLength(3000);
    expect(docs[2999]!.docno).toBe('D2999');
    expect(docs[2999]!.source!.line).toBe(2999 * 4 + 1);
    expect(docs[49]!.fields.text).toBe('word '.repeat(49).trim());
  });

  const malformed: [name: string, text: string, line: number, reason: RegExp][] = [
    ['no DOCNO', '<DOC>\n<DOCNO>a</DOCNO>\n</DOC>\n<DOC>\n<TEXT>x</TEXT>\n</DOC>\n', 4, /without a <DOCNO>/],
    ['two DOCNOs', '<DOC><DOCNO>a</DOCNO><DOCNO>b</DOCNO></DOC>', 1, /more than one <DOCNO>/],
    ['unclosed DOC before the next', '<DOC><DOCNO>a</DOCNO>\n<TEXT>x\n<DOC><DOCNO>b</DOCNO></DOC>\n', 1, /no <\/DOC> before the next <DOC>/],
    ['unclosed DOC at the end', '<DOC><DOCNO>a</DOCNO></DOC>\n\n<DOC><DOCNO>b</DOCNO>\n', 3, /before the end of the file/],
    ['stray text', '<DOC><DOCNO>a</DOCNO></DOC>\nstray words\n<DOC><DOCNO>b</DOCNO></DOC>', 2, /text outside <DOC>/],
    ['duplicate docno', '<DOC><DOCNO>a</DOCNO></DOC>\n<DOC><DOCNO>a</DOCNO></DOC>', 2, /duplicate docno 'a'/],
  ];
  for (const [name, text, line, reason] of malformed) {
    it(`reports ${name} with file and line`, async () => {
      const path = write(`bad-${name.replace(/\W/g, '')}.trec`, text);
      const err = await firstError([path]);
      expect(err.message).toMatch(reason);
      expect(err.file).toBe(path);
      expect(err.line).toBe(line);
    });
  }

  it('skips and counts with skipBad, keeping the good documents', async () => {
    const path = write(
      'mixed.trec',
      '<DOC><DOCNO>a</DOCNO></DOC>\n<DOC><TEXT>no docno</TEXT></DOC>\n<DOC><DOCNO>b</DOCNO>\n<DOC><DOCNO>c</DOCNO></DOC>\n<DOC><DOCNO>c</DOCNO></DOC>\n',
    );
    const { docs, bad } = await collect([path], true);
    expect(docs.map((d) => d.docno)).toEqual(['a', 'c']);
    expect(bad.map((e) => e.line)).toEqual([2, 3, 5]);
  });
});

describe('folder of .txt / .md files', () => {
  it('reads files recursively in path order; docno = relative path; title from heading or first line', async () => {
    const root = join(dir, 'notes');
    write('notes/b.md', 'intro line\n\n## The Heading ##\nbody text\n');
    write('notes/a.txt', '\n\nFirst line title\nsecond line\n');
    write('notes/sub/c.md', 'no heading at all\nmore');
    write('notes/skip.pdf', 'x');
    write('notes/.hidden/d.txt', 'hidden');
    const { docs } = await collect([root]);
    expect(docs.map((d) => d.docno)).toEqual(['a.txt', 'b.md', 'sub/c.md']);
    expect(docs[0]!.fields).toEqual({ title: 'First line title', text: 'second line' });
    expect(docs[1]!.fields).toEqual({ title: 'The Heading', text: 'intro line\n\nbody text' });
    expect(docs[2]!.fields).toEqual({ title: 'no heading at all', text: 'more' });
  });

  it('reports a file that is not UTF-8 and skips it with skipBad', async () => {
    const root = join(dir, 'binary');
    write('binary/ok.txt', 'fine');
    const badFile = write('binary/bad.txt', Buffer.from([0x66, 0xff, 0xfe, 0x00]));
    const err = await firstError([root]);
    expect(err.file).toBe(badFile);
    expect(err.message).toMatch(/not valid UTF-8/);
    const { docs, bad } = await collect([root], true);
    expect(docs.map((d) => d.docno)).toEqual(['ok.txt']);
    expect(bad).toHaveLength(1);
  });
});

describe('inputs', () => {
  it('fails clearly on a missing path before reading anything', async () => {
    const err = await firstError([write('fine.jsonl', '{"_id":"a"}'), join(dir, 'missing.jsonl')]);
    expect(err.message).toMatch(/missing\.jsonl: no such file or folder/);
  });

  it('fails clearly on a lone text file (a folder of them is a corpus)', async () => {
    expect((await firstError([write('qrels.txt', '1 0 d1 1\n')])).message).toMatch(/a single text file is not a corpus/);
  });

  it('fails clearly on an unrecognised file', async () => {
    const err = await firstError([write('data.csv', 'id,title\n1,x\n')]);
    expect(err.message).toMatch(/unrecognised format/);
  });

  it('fails clearly on a corrupt gzip file', async () => {
    const gz = gzipSync('{"_id": "a", "text": "x"}\n'.repeat(2000));
    const path = write('corrupt.jsonl.gz', Buffer.concat([gz.subarray(0, 40), Buffer.alloc(200, 7)]));
    const err = await firstError([path]);
    expect(err.file).toBe(path);
  });
});
