import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openIndex } from '../../../server/engine/index/disk.js';
import { dataPath } from '../../support/data.js';

const work = mkdtempSync(join(tmpdir(), 'querylens-cli-index-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

beforeAll(() => {
  // The CLI runs from dist/. tsc may report errors in files still being written by others;
  // it emits anyway, so only a missing entry point is fatal here.
  spawnSync('npx', ['tsc', '-p', 'tsconfig.json'], { encoding: 'utf8' });
});

function querylens(...args: string[]) {
  const r = spawnSync(process.execPath, ['bin/querylens.js', ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('querylens index', () => {
  it('indexes Cranfield and prints a one-line summary', () => {
    const out = join(work, 'cran');
    const r = querylens('index', dataPath('cranfield/corpus.jsonl'), '--out', out);
    expect(r.stderr).toBe(''); // no progress bar when stderr is not a terminal
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const reader = openIndex(out);
    const { numDocs, totalTokens } = reader.stats();
    expect(numDocs).toBe(1400);
    expect(lines[0]).toContain('indexed 1,400 docs');
    expect(lines[0]).toContain(`${reader.vocabularySize().toLocaleString('en-US')} terms`);
    expect(lines[0]).toContain(`${totalTokens.toLocaleString('en-US')} tokens`);
    expect(lines[0]).toMatch(/ in \d+\.\d s; [\d.]+ (KiB|MiB) on disk at .*\(profile terrier\)$/);
  });

  // `script` (util-linux) gives the child a terminal, the only case where the bar is drawn.
  const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
  it.skipIf(!hasScript)('draws a progress bar (documents, docs/s, ETA) when stderr is a terminal', () => {
    const out = join(work, 'tty');
    const command = `${process.execPath} bin/querylens.js index ${dataPath('cranfield/corpus.jsonl')} --out ${out}`;
    const r = spawnSync('script', ['-qec', command, '/dev/null'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/indexing \|.*\| \d+% \| [\d,]+ docs \| \d+ docs\/s \| ETA /);
    expect(r.stdout).toContain('indexed 1,400 docs');
  });

  it('verify-index checks every page: exit 0 on an intact index, one line naming the damaged file and exit 1 otherwise', () => {
    const out = join(work, 'cran');
    const ok = querylens('verify-index', out);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^index at .* is intact: 1,400 docs, [\d,]+ terms, [\d,]+ bytes of postings, term vectors and stored documents checked in /);
    const damaged = join(work, 'cran-damaged');
    cpSync(out, damaged, { recursive: true });
    const store = readFileSync(join(damaged, 'store.bin'));
    store[48 + 10_000]! ^= 0x20; // inside a stored document: an open does not read it
    writeFileSync(join(damaged, 'store.bin'), store);
    openIndex(damaged);
    const bad = querylens('verify-index', damaged);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split('\n')).toEqual([
      `querylens: index file store.bin is corrupt (checksum mismatch in page 2, bytes 8192–12288 of the data): rebuild with \`querylens index CORPUS… --out ${damaged}\``,
    ]);
  });

  it('takes a memory budget (--memory MB), and refuses one that is not a whole number of MB', () => {
    const out = join(work, 'budget');
    const r = querylens('index', dataPath('cranfield/corpus.jsonl'), '--out', out, '--memory', '1');
    expect(r.code).toBe(0);
    expect(openIndex(out).stats().numDocs).toBe(1400);
    for (const bad of ['0', '1.5', 'lots']) {
      const refused = querylens('index', dataPath('cranfield/corpus.jsonl'), '--out', join(work, 'budget-bad'), '--memory', bad);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr.trim()).toBe(`querylens: --memory '${bad}' is not a whole number of megabytes (at least 1)`);
    }
  });

  it('builds with the lucene profile', () => {
    const out = join(work, 'lucene');
    expect(querylens('index', dataPath('cranfield/corpus.jsonl'), '--out', out, '--profile', 'lucene').code).toBe(0);
    expect(openIndex(out).profile).toBe('lucene');
  });

  it('stops at a malformed record with file:line, or skips and counts with --skip-bad', () => {
    const bad = join(work, 'bad.jsonl');
    writeFileSync(bad, ['{"_id":"a","text":"x"}', '{"_id":', '{"_id":"b","text":"y"}'].join('\n'));
    const stop = querylens('index', bad, '--out', join(work, 'bad'));
    expect(stop.code).not.toBe(0);
    expect(stop.stderr.trim().split('\n')).toHaveLength(1);
    expect(stop.stderr).toContain(`${bad}:2: invalid JSON`);
    expect(stop.stderr).toContain('--skip-bad');
    const skip = querylens('index', bad, '--out', join(work, 'bad'), '--skip-bad');
    expect(skip.code).toBe(0);
    expect(skip.stdout).toMatch(/indexed 2 docs, 1 skipped/);
    expect(skip.stderr).toContain(`skipped ${bad}:2: invalid JSON`);
  });

  const wrong: [string, string[], RegExp][] = [
    ['a missing path', ['/no/such/corpus.jsonl'], /\/no\/such\/corpus\.jsonl: no such file or folder/],
    ['an unrecognised file', [dataPath('cranfield/queries.tsv')], /unrecognised format/],
    ['a lone text file', [dataPath('cranfield/qrels.txt')], /a single text file is not a corpus/],
    ['an unknown profile', [dataPath('cranfield/corpus.jsonl'), '--profile', 'krovetz'], /unknown --profile 'krovetz'/],
  ];
  for (const [name, args, message] of wrong) {
    it(`fails with one clear line on ${name}`, () => {
      const r = querylens('index', ...args, '--out', join(work, 'never'));
      expect(r.code).not.toBe(0);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\s+at .*\.js:\d+/); // no stack trace
    });
  }
});
