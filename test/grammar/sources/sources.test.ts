import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasErrors } from '../../../grammar/diagnostics.js';
import { entryDiagnosticsInFile, parseQueryFile, QuerySourceError, readQuerySource, sourceDiagnostics } from '../../../grammar/sources/index.js';
import { mapEndToFile, mapToFile } from '../../../grammar/sources/positions.js';
import type { QuerySourceResult } from '../../../grammar/sources/types.js';
import { DATA_DIR } from '../../support/data.js';

const FIXTURES = join(import.meta.dirname, 'fixtures');
const DATA = DATA_DIR;

interface Expected {
  format: string;
  dialect: string;
  entries: { qid: string; text: string; line: number; column: number }[];
  fileDiagnostics: { code: string; severity: string; line: number; column: number }[];
  parameters?: Record<string, unknown>;
}

/** Every query text must be found in the file where the entry says it starts. */
function expectEntriesInPlace(source: QuerySourceResult): void {
  const lines = source.text.split('\n');
  for (const e of source.entries) {
    // The first character of the query sits at (line, column) and at `offset`.
    expect(lines[e.line][e.column]).toBe(source.text[e.offset]);
    expect(source.text[e.offset]).toBe(e.text[0] === '<' || e.text[0] === '&' ? source.text[e.offset] : e.text[0]);
    expect(mapToFile(e.map, 0)).toBe(e.offset);
  }
}

describe('query file fixtures', () => {
  const files = readdirSync(FIXTURES).filter((f) => !f.endsWith('.expected.json'));
  for (const file of files) {
    it(file, () => {
      const expected = JSON.parse(readFileSync(join(FIXTURES, `${file}.expected.json`), 'utf8')) as Expected;
      const source = readQuerySource(join(FIXTURES, file));
      expect(source.format).toBe(expected.format);
      expect(source.dialect).toBe(expected.dialect);
      expect(source.entries.map((e) => ({ qid: e.qid, text: e.text, line: e.line, column: e.column }))).toEqual(expected.entries);
      const got = source.diagnostics.map((d) => ({ code: d.code, severity: d.severity, line: d.line, column: d.column }));
      const byPos = (a: { line: number; column: number }, b: { line: number; column: number }) => a.line - b.line || a.column - b.column;
      expect(got.sort(byPos)).toEqual([...expected.fileDiagnostics].sort(byPos));
      if (expected.parameters) expect(source.parameters).toEqual(expected.parameters);
      expectEntriesInPlace(source);
    });
  }
});

describe('diagnostic positions', () => {
  it('maps a query error to its place in the file, after the qid and tab', () => {
    const text = '1\t#combine( a b )\n2\t#combine( a b\n';
    const source = parseQueryFile(text, 'indri', 'x.indri');
    const errors = sourceDiagnostics(source).filter((d) => d.severity === 'error');
    expect(errors.length).toBeGreaterThan(0);
    for (const d of errors) {
      expect(d.qid).toBe('2');
      expect(d.line).toBe(1);
      expect(d.column).toBeGreaterThanOrEqual(2);
      // The diagnostic's file range is the query's range shifted by the query's offset.
      const entry = source.entries[1];
      const q = entry.result.diagnostics.find((x) => x.code === d.code)!;
      expect(d.range.start).toBe(entry.offset + q.range.start);
    }
    // A position named in a message is the file's ("opened at 1:1" of the query is 2:3 of the file).
    expect(errors.find((d) => d.code === 'syntax/missing-close')?.message).toBe('missing ")" to close #combine opened at 2:3');
  });

  it('maps through XML entities', () => {
    // `&amp;` stands for one character: a problem at the `b` after it must land on the `b`.
    const text = '<parameters><query><text>#combine( a &amp; b )</text></query></parameters>';
    const source = parseQueryFile(text, 'indri', 'q.xml');
    const entry = source.entries[0];
    expect(entry.text).toBe('#combine( a & b )');
    const b = entry.text.indexOf('b');
    expect(text[mapToFile(entry.map, b)]).toBe('b');
    const amp = entry.text.indexOf('&');
    expect(text.slice(mapToFile(entry.map, amp), mapToFile(entry.map, amp) + 5)).toBe('&amp;');
    for (const d of sourceDiagnostics(source)) {
      expect(d.range.start).toBeGreaterThanOrEqual(entry.offset);
      expect(d.range.end).toBeLessThanOrEqual(text.indexOf('</text>'));
    }
  });

  it('ends a range that ends on an entity after the whole entity', () => {
    const text = '<parameters><query><text>#syn( a b ) &lt;</text></query></parameters>';
    const source = parseQueryFile(text, 'indri', 'q.xml');
    const entry = source.entries[0];
    expect(entry.text).toBe('#syn( a b ) <');
    expect(mapEndToFile(entry.map, entry.text.length)).toBe(text.indexOf('</text>'));
    expect(mapEndToFile(entry.map, 4)).toBe(text.indexOf('( a'));
    // Whatever the parser says about the stray `<`, it stays inside the query's text.
    for (const d of sourceDiagnostics(source)) expect(d.range.end).toBeLessThanOrEqual(text.indexOf('</text>'));
  });

  it('maps joined TREC fields back to each field', () => {
    const text = '<top>\n<num> Number: 7\n<title> alpha beta\n<desc> Description:\ngamma\ndelta\n<narr> Narrative: x\n</top>\n';
    const source = parseQueryFile(text, 'text', 't.trec', { topicFields: ['title', 'desc'] });
    const e = source.entries[0];
    expect(e.text).toBe('alpha beta gamma delta');
    for (const word of ['alpha', 'beta', 'gamma', 'delta']) {
      const at = mapToFile(e.map, e.text.indexOf(word));
      expect(text.slice(at, at + word.length)).toBe(word);
    }
  });

  it('moves a diagnostic into the file with its own keys, in order, then the file position', () => {
    const source = parseQueryFile('1\ta b\n2\tc and d\n', 'lucene', 'k.lucene');
    const entry = source.entries[1];
    const at = (start: number, end: number) => ({ start, end });
    const plain = { code: 'x/plain', severity: 'warning' as const, message: 'm', range: at(0, 1) };
    const withData = { ...plain, data: { replacement: 'AND' } };
    // Any other key list (an extra key, another order) is kept as it is, like a spread.
    const other = { severity: 'info' as const, code: 'x/other', message: 'n', range: at(2, 5), extra: 1 };
    const moved = entryDiagnosticsInFile(source, entry, [plain, withData, other]);
    const position = ['line', 'column', 'endLine', 'endColumn', 'qid'];
    expect(moved.map((d) => Object.keys(d))).toEqual([
      ['code', 'severity', 'message', 'range', ...position],
      ['code', 'severity', 'message', 'range', 'data', ...position],
      ['severity', 'code', 'message', 'range', 'extra', ...position],
    ]);
    expect(moved[1]).toMatchObject({ data: { replacement: 'AND' }, range: at(entry.offset, entry.offset + 1), line: 1, column: 2, qid: '2' });
    expect(moved[2]).toMatchObject({ extra: 1, range: at(entry.offset + 2, entry.offset + 5), endColumn: 7 });
    // The parser's own lowercase-operator diagnostic (which carries data) comes through whole.
    const [lower] = sourceDiagnostics(source);
    expect(lower).toMatchObject({ code: 'lucene/lowercase-operator', data: { replacement: 'AND' }, line: 1, column: 4, qid: '2' });
  });

  it('reports duplicate qids with the first line', () => {
    const source = parseQueryFile('3\ta\n4\tb\n3\tc\n', 'lucene', 'd.lucene');
    const dup = source.diagnostics.filter((d) => d.code === 'source/duplicate-qid');
    expect(dup).toHaveLength(1);
    expect(dup[0].line).toBe(2);
    expect(dup[0].message).toContain('line 1');
    // The next id no query uses (4 is taken): the renumbering quick fix's data.
    expect(dup[0].data).toEqual({ qid: '3', next: '5' });
  });

  it('offers every duplicate of one id its own free id, in time linear in the file', () => {
    const n = 30_000;
    const lines = Array.from({ length: n }, (_, i) => (i === 1 ? '3\tb' : '1\ta'));
    const started = performance.now();
    const source = parseQueryFile(lines.join('\n') + '\n', 'indri', 'd.indri');
    const ms = performance.now() - started;
    const next = source.diagnostics.filter((d) => d.code === 'source/duplicate-qid').map((d) => (d.data as { next: string }).next);
    expect(next).toHaveLength(n - 2);
    expect(new Set(next).size).toBe(n - 2);
    expect(next.slice(0, 3)).toEqual(['2', '4', '5']);
    expect(next).not.toContain('3');
    // Searching from the id each time is quadratic: some 30 s for this file.
    expect(ms).toBeLessThan(5_000);
  });
});

describe('implied query ids', () => {
  it('a line without an id is numbered after its line, marked implied, and never a duplicate', () => {
    // Line 2 has no id and is numbered 2; line 3's written id 2 is not "used again".
    const source = parseQueryFile('1\ta\nb\n2\tc\n', 'indri', 'q.indri');
    expect(source.entries.map((e) => [e.qid, e.implicitQid ?? false])).toEqual([
      ['1', false],
      ['2', true],
      ['2', false],
    ]);
    expect(source.diagnostics.filter((d) => d.code === 'source/duplicate-qid')).toEqual([]);
    const clash = source.diagnostics.filter((d) => d.code === 'source/implied-qid-clash');
    expect(clash).toHaveLength(1);
    expect(clash[0]).toMatchObject({ line: 1, column: 0, qid: '2' });
    expect(clash[0].message).toContain('line 3');
  });

  it('two lines without ids never clash, and written ids still do', () => {
    const source = parseQueryFile('a\nb\n7\tc\n7\td\n', 'lucene', 'q.lucene');
    expect(source.diagnostics.map((d) => d.code)).toEqual(['source/duplicate-qid']);
    expect(source.diagnostics[0].line).toBe(3);
  });

  it('an Indri parameter query without <number> has an implied id', () => {
    const source = parseQueryFile('<parameters><query><text>a</text></query><query><number>9</number><text>b</text></query></parameters>', 'indri', 'p.xml');
    expect(source.entries.map((e) => [e.qid, e.implicitQid ?? false])).toEqual([
      ['0', true],
      ['9', false],
    ]);
  });
});

describe('a number followed by spaces (an editor that inserts spaces for TAB)', () => {
  it('is a warning with the spaces to replace by a TAB as typed data', () => {
    const text = '// c\n12   heat transfer\n13\tok\n';
    const source = parseQueryFile(text, 'indri', 'q.indri');
    const [d] = source.diagnostics.filter((x) => x.code === 'source/spaces-after-qid');
    expect(d).toMatchObject({ severity: 'warning', line: 1, column: 0, data: { qid: '12' } });
    const { spaces } = d.data as { spaces: { start: number; end: number } };
    expect(text.slice(spaces.start, spaces.end)).toBe('   ');
    // After the fix the line has a written id.
    const fixed = text.slice(0, spaces.start) + '\t' + text.slice(spaces.end);
    const after = parseQueryFile(fixed, 'indri', 'q.indri');
    expect(after.entries.map((e) => e.qid)).toEqual(['12', '13']);
    expect(after.diagnostics).toEqual([]);
  });

  it('is not reported for a written id, a query that starts with a word, or a lone number', () => {
    const source = parseQueryFile('5\t12 heat\nheat 12\n42\n', 'indri', 'q.indri');
    expect(source.diagnostics.filter((x) => x.code === 'source/spaces-after-qid')).toEqual([]);
  });
});

describe('comment lines', () => {
  it('are skipped in .indri and .lucene files but are topics in .tsv', () => {
    const text = '// note\n1\tx\n';
    expect(parseQueryFile(text, 'indri', 'a.indri').entries.map((e) => e.qid)).toEqual(['1']);
    expect(parseQueryFile(text, 'lucene', 'a.lucene').entries.map((e) => e.qid)).toEqual(['1']);
    expect(parseQueryFile(text, 'text', 'a.tsv').entries.map((e) => e.text)).toEqual(['// note', 'x']);
  });

  it('`//` lines would not be meaningful queries in either grammar', () => {
    // Indri: no query starts with `/` (SEMANTICS.md §1.1), so `//` cannot be a lost query.
    expect(hasErrors(parseQueryFile('// a comment', 'indri', 'x.txt', { format: 'tsv' }).entries[0].result.diagnostics)).toBe(true);
    // Lucene: `//` is an empty regular expression (SEMANTICS.md §3), a clause that matches nothing useful.
    const lucene = parseQueryFile('// a comment', 'lucene', 'x.txt', { format: 'tsv' }).entries[0].result.ast.root;
    expect(lucene?.kind).toBe('boolean');
    if (lucene?.kind === 'boolean') expect(lucene.clauses[0].node).toMatchObject({ kind: 'regex', pattern: '' });
  });
});

describe('dialect and format detection', () => {
  it('follows the extension, with an override', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ql-src-'));
    try {
      const p = join(dir, 'q.indri');
      writeFileSync(p, '1\ttitle:foo\n');
      expect(readQuerySource(p).dialect).toBe('indri');
      expect(readQuerySource(p, { dialect: 'lucene' }).dialect).toBe('lucene');
      expect(hasErrors(readQuerySource(p, { dialect: 'lucene' }).entries[0].result.diagnostics)).toBe(false);
      const t = join(dir, 'topics.txt');
      writeFileSync(t, '<top>\n<num> Number: 5\n<title> hello world\n</top>\n');
      expect(readQuerySource(t).format).toBe('trec-topics');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('throws QuerySourceError for a missing path or a directory', () => {
    expect(() => readQuerySource('/nonexistent/queries.indri')).toThrow(QuerySourceError);
    expect(() => readQuerySource(FIXTURES)).toThrow(QuerySourceError);
  });

  it('reports invalid UTF-8 once, at the bad byte', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ql-src-'));
    try {
      const p = join(dir, 'bad.lucene');
      writeFileSync(p, Buffer.concat([Buffer.from('1\tab'), Buffer.from([0xff, 0xfe]), Buffer.from('cd\n')]));
      const s = readQuerySource(p);
      const bad = s.diagnostics.filter((d) => d.code === 'source/invalid-utf8');
      expect(bad).toHaveLength(1);
      expect(bad[0].column).toBe(4);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('shared data', () => {
  const robust = join(DATA, 'topics/robust04.topics.txt');
  it('reads all 250 Robust04 topics with each field selection', () => {
    const title = readQuerySource(robust);
    expect(title.format).toBe('trec-topics');
    expect(title.entries).toHaveLength(250);
    expect(title.entries[0]).toMatchObject({ qid: '301', text: 'International Organized Crime' });
    expect(title.entries.at(-1)!.qid).toBe('700');
    const desc = readQuerySource(robust, { topicFields: ['desc'] });
    expect(desc.entries[0].text).toMatch(/^Identify organizations that participate in international criminal\s+activity/);
    const narr = readQuerySource(robust, { topicFields: ['narr'] });
    expect(narr.entries[0].text).toMatch(/^A relevant document must as a minimum/);
    expect(narr.entries[0].text).not.toMatch(/Narrative/);
    const all = readQuerySource(robust, { topicFields: ['title', 'desc', 'narr'] });
    expect(all.entries[0].text.startsWith('International Organized Crime Identify')).toBe(true);
    for (const s of [title, desc, narr, all]) {
      expect(s.diagnostics).toEqual([]);
      expect(new Set(s.entries.map((e) => e.qid)).size).toBe(250);
      for (const e of s.entries) expect(e.result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    }
  });

  for (const rel of ['cranfield/queries.tsv', 'cacm/queries.tsv', 'scifact/queries.test.tsv', 'scifact/queries.train.tsv']) {
    it(`every topic of ${rel} parses without errors`, () => {
      const path = join(DATA, rel);
      if (!existsSync(path)) throw new Error(`missing shared data file ${path}`);
      const source = readQuerySource(path);
      expect(source.dialect).toBe('text');
      const lines = readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() !== '');
      expect(source.entries).toHaveLength(lines.length);
      expect(sourceDiagnostics(source).filter((d) => d.severity === 'error')).toEqual([]);
    });
  }
});

