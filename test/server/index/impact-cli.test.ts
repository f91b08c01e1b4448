/**
 * The command line of impact indexes and CIFF: `querylens index --format jsonvector`, `search
 * --scorer impact`, `ciff export`, `ciff import`, and their one-line errors.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const work = mkdtempSync(join(tmpdir(), 'querylens-impact-cli-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

beforeAll(() => {
  // The CLI runs from dist/ (tsc emits even while other files have errors: see cli.test.ts).
  spawnSync('npx', ['tsc', '-p', 'tsconfig.json'], { encoding: 'utf8' });
});

function querylens(...args: string[]) {
  const r = spawnSync(process.execPath, ['bin/querylens.js', ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const vectors = [
  { id: 'd1', contents: 'the cat sat', vector: { cat: 5, sat: 2, '##s': 1 } },
  { id: 'd2', contents: 'dogs bark', vector: { dog: 7, bark: 3, cat: 1 } },
  { id: 'd3', contents: 'a cat and a dog', vector: { cat: 3, dog: 3 } },
];

describe('querylens with impact indexes and CIFF', () => {
  it('index --format jsonvector, search --scorer impact, ciff export and import', () => {
    writeFileSync(join(work, 'v.jsonl'), vectors.map((v) => JSON.stringify(v)).join('\n') + '\n');
    const idx = join(work, 'idx');
    const built = querylens('index', join(work, 'v.jsonl'), '--format', 'jsonvector', '--out', idx);
    expect(built.stderr).toBe('');
    expect(built.stdout).toMatch(/^indexed 3 docs: 5 terms, 25 tokens in .* \(impact index, terms as written\)\n$/);
    writeFileSync(join(work, 'q.tsv'), '1\tcat dog\n');
    const run = querylens('search', '--index', idx, '--scorer', 'impact', join(work, 'q.tsv'));
    expect(run.code).toBe(0);
    // d3: 3 + 3, d2: 1 + 7, d1: 5.
    expect(run.stdout).toBe('1 Q0 d2 1 8 querylens\n1 Q0 d3 2 6 querylens\n1 Q0 d1 3 5 querylens\n');
    const refused = querylens('search', '--index', idx, join(work, 'q.tsv'));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^querylens: this index holds impacts .*use --scorer impact/);

    const ciff = join(work, 'idx.ciff');
    expect(querylens('ciff', 'export', idx, ciff).stdout).toBe(`exported 5 postings lists and 3 documents to ${ciff}\n`);
    const imported = join(work, 'imported');
    const imp = querylens('ciff', 'import', ciff, imported);
    expect(imp.code).toBe(0);
    expect(imp.stdout).toMatch(/^imported 3 docs, 5 terms, 8 postings \(impacts, no positions, no stored text; analyser none\) into /);
    expect(querylens('verify-index', imported).code).toBe(0);
    expect(querylens('search', '--index', imported, '--scorer', 'impact', join(work, 'q.tsv')).stdout).toBe(run.stdout);
  });

  it('a bad vector record, an unknown format and a truncated CIFF file are one-line errors; nothing is written', () => {
    writeFileSync(join(work, 'bad.jsonl'), '{"id": "a", "contents": "", "vector": {"t": 1}}\n{"id": "b", "contents": "", "vector": {"t": 0.5}}\n');
    const bad = querylens('index', join(work, 'bad.jsonl'), '--format', 'jsonvector', '--out', join(work, 'bad-idx'));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(`querylens: ${join(work, 'bad.jsonl')}:2: document 'b': impact of "t" is 0.5, not a non-negative integer (quantise the weights first, as Anserini does) (use --skip-bad to skip malformed records)\n`);
    expect(existsSync(join(work, 'bad-idx'))).toBe(false);
    expect(querylens('index', join(work, 'bad.jsonl'), '--format', 'vectors', '--out', join(work, 'x')).stderr).toBe("querylens: unknown --format 'vectors': use auto or jsonvector\n");
    expect(querylens('index', join(work, 'bad.jsonl'), '--format', 'jsonvector', '--profile', 'lucene', '--out', join(work, 'x')).stderr).toBe(
      'querylens: --profile does not apply to --format jsonvector: vector terms are indexed as written, never analysed\n',
    );
    const ciff = readFileSync(join(work, 'idx.ciff'));
    writeFileSync(join(work, 'cut.ciff'), ciff.subarray(0, ciff.length - 3));
    const cut = querylens('ciff', 'import', join(work, 'cut.ciff'), join(work, 'cut-idx'));
    expect(cut.code).toBe(1);
    expect(cut.stderr).toMatch(/^querylens: .*cut\.ciff \(byte \d+\): truncated: DocRecord 3 of 3 is \d+ bytes long, the file ends after \d+\n$/);
    expect(existsSync(join(work, 'cut-idx'))).toBe(false);
  });
});
