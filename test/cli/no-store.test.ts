/**
 * `querylens index --no-store`: an index that keeps no document text (as Anserini without -storeRaw).
 * Its rankings are those of the same corpus indexed with its text, to the bit; documents come back
 * with their docno only; meta.bin says so; store.bin shrinks to the docnos; verify-index passes.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseIndri } from '../../grammar/indri/index.js';
import { contentOf } from '../../server/engine/index/content.js';
import { buildIndex, openIndex } from '../../server/engine/index/disk.js';
import { search } from '../../server/engine/search.js';
import { ensureBuilt, ROOT } from '../support/build.js';

function ql(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [join(ROOT, 'bin', 'querylens.js'), ...args], { cwd: ROOT, encoding: 'utf8' }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr });
    });
  });
}

const WORDS = ['wing', 'flow', 'heat', 'shock', 'wave', 'drag', 'lift', 'jet', 'air', 'speed', 'naïve', 'café', 'boundary', 'layer'];

/** 400 documents with titles, repeated words and non-ASCII text. */
function corpusLines(): string[] {
  let s = 7;
  const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  const words = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(rnd() * rnd() * WORDS.length)]!).join(' ');
  return Array.from({ length: 400 }, (_, i) => JSON.stringify({ _id: `d${i}`, title: words(3), text: words(5 + Math.floor(rnd() * 40)) }));
}

let dir: string;
let stored: string;
let bare: string;
let bareOutput: string;
beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'querylens-no-store-'));
  writeFileSync(join(dir, 'corpus.jsonl'), corpusLines().join('\n') + '\n');
  writeFileSync(join(dir, 'q.tsv'), '1\twing flow\n2\theat wave café\n3\t#1(boundary layer) jet\n');
  stored = join(dir, 'stored');
  bare = join(dir, 'bare');
  const a = await ql('index', join(dir, 'corpus.jsonl'), '--out', stored, '--no-progress');
  expect(a.code, a.stderr).toBe(0);
  const b = await ql('index', join(dir, 'corpus.jsonl'), '--out', bare, '--no-progress', '--no-store');
  expect(b.code, b.stderr).toBe(0);
  bareOutput = b.stdout;
}, 300_000);

describe('querylens index --no-store', () => {
  it('ranks exactly as the index with text, for every scorer', async () => {
    for (const scorer of ['bm25', 'bm25-lucene', 'ql']) {
      const withText = await ql('search', join(dir, 'q.tsv'), '--index', stored, '--scorer', scorer, '-k', '100');
      const without = await ql('search', join(dir, 'q.tsv'), '--index', bare, '--scorer', scorer, '-k', '100');
      expect(withText.code, withText.stderr).toBe(0);
      expect(without.code, without.stderr).toBe(0);
      expect(without.stdout.split('\n').length).toBeGreaterThan(100);
      expect(without.stdout, scorer).toBe(withText.stdout);
    }
  }, 120_000);

  it('keeps the docnos only, says so, and keeps the term vectors apart instead', async () => {
    expect(bareOutput).toContain('no stored text');
    const withText = openIndex(stored);
    const without = openIndex(bare);
    expect(contentOf(withText).storedText).toBe(true);
    expect(contentOf(without).storedText).toBe(false);
    for (const doc of [0, 17, 399]) {
      expect(withText.document(doc).fields.text!.length).toBeGreaterThan(0);
      expect(without.document(doc)).toEqual({ docno: withText.docno(doc), title: '', fields: {} });
    }
    expect(statSync(join(bare, 'store.bin')).size).toBeLessThan(statSync(join(stored, 'store.bin')).size / 3);
    for (const file of ['postings.bin', 'lexicon.bin']) expect(statSync(join(bare, file)).size, file).toBe(statSync(join(stored, file)).size);
    // Without text to analyse them from, the document vectors are kept in direct.bin; with text, they are not.
    expect(contentOf(without).docVectors).toBe('stored');
    expect(contentOf(withText).docVectors).toBe('text');
    expect(statSync(join(bare, 'direct.bin')).size).toBeGreaterThan(statSync(join(stored, 'direct.bin')).size + 1000);
    expect(without.docVector(17)).toEqual(withText.docVector(17));
    const verified = await ql('verify-index', bare);
    expect(verified.code, verified.stderr).toBe(0);
  });

  it('keeps no text when the corpus is analysed in a worker thread too', async () => {
    const out = join(dir, 'bare-worker');
    await buildIndex([join(dir, 'corpus.jsonl')], out, { storeText: false, worker: true });
    const reader = openIndex(out);
    expect(contentOf(reader).storedText).toBe(false);
    expect(reader.document(5)).toEqual({ docno: 'd5', title: '', fields: {} });
    const q = parseIndri('#combine( wing heat )').ast;
    expect(search(reader, q, { k: 50 }).hits).toEqual(search(openIndex(stored), q, { k: 50 }).hits);
  });

  it('is refused with --deepct, whose index keeps the text its model read', async () => {
    const r = await ql('index', join(dir, 'corpus.jsonl'), '--out', join(dir, 'x'), '--deepct', '--no-store', '--no-progress');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--no-store does not apply to --deepct');
  });
});
