/** `querylens search|explain --scorer bm25f --param w.<field>=x …` on an on-disk index, as the user runs it. */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseText } from '../../grammar/text/index.js';
import { buildMemoryIndex } from '../../server/engine/index/index.js';
import { formatRunLines, search } from '../../server/engine/search.js';
import { ensureBuilt, ROOT } from '../support/build.js';

function ql(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [join(ROOT, 'bin', 'querylens.js'), ...args], { cwd: ROOT, encoding: 'utf8' }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr });
    });
  });
}

const DOCS = [
  { docno: 'a', fields: { title: 'wing flow', text: 'lift drag wing heat' } },
  { docno: 'b', fields: { title: 'heat', text: 'wing wing flow flow heat air jet' } },
  { docno: 'c', fields: { title: 'shock wave', text: 'wing shock' } },
  { docno: 'd', fields: { title: 'air', text: 'speed wave flow' } },
];

let dir: string;
let index: string;
beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'querylens-bm25f-'));
  writeFileSync(join(dir, 'corpus.jsonl'), DOCS.map((d) => JSON.stringify({ _id: d.docno, title: d.fields.title, text: d.fields.text })).join('\n') + '\n');
  writeFileSync(join(dir, 'q.tsv'), '1\twing flow\n2\theat wave\n');
  index = join(dir, 'idx');
  const built = await ql('index', join(dir, 'corpus.jsonl'), '--out', index, '--no-progress');
  expect(built.code, built.stderr).toBe(0);
}, 300_000);

describe('querylens search --scorer bm25f', () => {
  it('ranks with the per-field parameters given, as the engine does on the same corpus', async () => {
    const r = await ql('search', '--index', index, join(dir, 'q.tsv'), '--scorer', 'bm25f', '--param', 'w.title=2', '--param', 'c.text=0.5', '--run-id', 'f');
    expect(r.code, r.stderr).toBe(0);
    const reader = buildMemoryIndex(DOCS, { profile: 'terrier' });
    const options = { scorer: 'bm25f' as const, fieldParams: { 'w.title': 2, 'c.text': 0.5 } };
    const want = formatRunLines('1', search(reader, parseText('wing flow').ast, options).hits, 'f') + formatRunLines('2', search(reader, parseText('heat wave').ast, options).hits, 'f');
    expect(r.stdout).toBe(want);
    const defaults = await ql('search', '--index', index, join(dir, 'q.tsv'), '--scorer', 'bm25f', '--run-id', 'f');
    expect(defaults.stdout).not.toBe(r.stdout);
  });

  it('explain shows each field\'s part', async () => {
    const r = await ql('explain', '--index', index, '--scorer', 'bm25f', '--param', 'w.title=2', '--query', 'wing', '--doc', 'a');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/BM25F \(Terrier, k1 = 1\.2, k3 = 8; title: w = 2, c = 1, len = 2, avglen = 1\.5000; text: w = 1, c = 1, len = 4, avglen = 4\)/);
    expect(r.stdout).toMatch(/title: w·tf\/\(1 − c \+ c·len\/avglen\) = 2·1\/\(1 − 1 \+ 1·2\/1\.5000\) = 1\.5000/);
  });

  it('refuses bad parameters in one line', async () => {
    const unknown = await ql('search', '--index', index, join(dir, 'q.tsv'), '--scorer', 'bm25f', '--param', 'w.titel=2');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/--param w\.titel: the index has no field 'titel' \(its fields: title, text\)/);
    const wrongScorer = await ql('search', '--index', index, join(dir, 'q.tsv'), '--param', 'w.title=2');
    expect(wrongScorer.stderr).toMatch(/--param w\.<field>\/c\.<field> applies to --scorer bm25f only/);
    const malformed = await ql('search', '--index', index, join(dir, 'q.tsv'), '--scorer', 'bm25f', '--param', 'title=2');
    expect(malformed.stderr).toMatch(/--param must be w\.<field>=x or c\.<field>=x, got 'title=2'/);
    const range = await ql('search', '--index', index, join(dir, 'q.tsv'), '--scorer', 'bm25f', '--param', 'c.text=2');
    expect(range.stderr).toMatch(/c\.text must lie in \[0, 1\]/);
    for (const r of [unknown, wrongScorer, malformed, range]) expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
