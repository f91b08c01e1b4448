/** `querylens search` and `querylens explain`, run as the user runs them (node bin/querylens.js) on an on-disk index. */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../../support/build.js';
import { DATA_DIR, hasCollection } from './helpers/collections.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
let dir: string;
let index: string;

/** Runs the CLI without blocking the test worker (spawnSync would starve vitest's RPC on a loaded machine). */
function qlIn(cwd: string, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [join(ROOT, 'bin', 'querylens.js'), ...args], { cwd, encoding: 'utf8', maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
      done({ code, stdout, stderr });
    });
  });
}

function ql(...args: string[]) {
  return qlIn(ROOT, ...args);
}

describe.skipIf(!hasCollection('cranfield'))('querylens search / explain', () => {
  beforeAll(async () => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'querylens-search-'));
    index = join(dir, 'cran');
    const built = await ql('index', `${DATA_DIR}/cranfield/corpus.jsonl`, '--out', index, '--no-progress');
    expect(built.code, built.stderr).toBe(0);
    writeFileSync(join(dir, 'q.indri'), '#combine( #1(boundary layer) heat.title )\n');
  }, 600_000);

  it('prints the same TREC run as the golden file (disk index = memory index)', async () => {
    const r = await ql('search', '--index', index, `${DATA_DIR}/cranfield/queries.tsv`, '-k', '20', '--run-id', 'cranfield.bm25');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(readFileSync(join(ROOT, 'test/golden/cranfield.bm25.run'), 'utf8'));
    // Stopword warnings are summarised in one line per file; other warnings keep their file positions.
    expect(r.stderr).toMatch(/queries\.tsv: warning engine\/stopword \d+ stopwords in \d+ queries contribute nothing to the score: (\w+ ×\d+, ){7}/);
    expect(r.stderr).not.toMatch(/queries\.tsv:1:3: warning engine\/stopword/);
    expect(r.stderr.trim().split('\n').length).toBeLessThan(20);
    const quiet = await ql('search', '--index', index, `${DATA_DIR}/cranfield/queries.tsv`, '-k', '20', '--run-id', 'cranfield.bm25', '--quiet');
    expect(quiet.stdout).toBe(r.stdout);
    expect(quiet.stderr).toBe('');
  });

  it('--expand bo1 gives the golden Bo1 run', async () => {
    const r = await ql('search', '--index', index, `${DATA_DIR}/cranfield/queries.tsv`, '-k', '20', '--run-id', 'cranfield.bm25.bo1', '--expand', 'bo1', '--fb-docs', '3', '--fb-terms', '10');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(readFileSync(join(ROOT, 'test/golden/cranfield.bm25.bo1.run'), 'utf8'));
  });

  it('runs Indri query files with other scorers', async () => {
    const r = await ql('search', '--index', index, join(dir, 'q.indri'), '--scorer', 'ql', '-k', '5');
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/^1 Q0 \S+ 1 -\d+\.\d+ querylens$/);
  });

  it('explain prints the formula tree whose value is the run score', async () => {
    const run = (await ql('search', '--index', index, join(dir, 'q.indri'), '-k', '1')).stdout.trim().split(' ');
    const [docno, score] = [run[2]!, Number(run[4])];
    const r = await ql('explain', '--index', index, '--query', '#combine( #1(boundary layer) heat.title )', '--doc', docno);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${docno}: rank 1 of`);
    expect(r.stdout).toMatch(/idf = log2\(\(N − df \+ 0\.5\)\/\(df \+ 0\.5\)\) = log2\(\(1400 − \d+ \+ 0\.5\)/);
    const json = JSON.parse((await ql('explain', '--index', index, '--query', '#combine( #1(boundary layer) heat.title )', '--doc', docno, '--json')).stdout);
    expect(json.explanation.value).toBe(score);
    expect(json.rank).toBe(1);
  });

  it('explain says why a document is not retrieved', async () => {
    const r = await ql('explain', '--index', index, '--query', '+boundary -layer', '--dialect', 'lucene', '--doc', '1');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/not retrieved/);
  });

  it('a query with syntax errors is reported and not ranked (exit 1) unless --recover asks for the recovered query', async () => {
    const file = join(dir, 'broken.indri');
    writeFileSync(file, '1\t#combine( boundary layer\n2\t#combine( heat transfer )\n');
    const r = await ql('search', '--index', index, file, '-k', '3');
    expect(r.code).toBe(1);
    expect(new Set(r.stdout.trim().split('\n').map((l) => l.split(' ')[0]))).toEqual(new Set(['2']));
    expect(r.stderr).toMatch(/broken\.indri:1:\d+: error /);
    expect(r.stderr).toMatch(/1 query with syntax errors not ranked \(1\)/);
    const recovered = await ql('search', '--index', index, file, '-k', '3', '--recover');
    expect(new Set(recovered.stdout.trim().split('\n').map((l) => l.split(' ')[0]))).toEqual(new Set(['1', '2']));

    const explained = await ql('explain', '--index', index, '--query', '#combine( boundary layer', '--doc', '1');
    expect(explained.code).not.toBe(0);
    expect(explained.stdout).toBe('');
    expect(explained.stderr).toMatch(/syntax errors/);
    expect((await ql('explain', '--index', index, '--query', '#combine( boundary layer', '--doc', '1', '--recover')).code).toBe(0);
  });

  it('without --index, search uses the index of the nearest querylens.json (current folder or above)', async () => {
    const work = join(dir, 'ws');
    mkdirSync(join(work, 'sub'), { recursive: true });
    writeFileSync(join(work, 'querylens.json'), JSON.stringify({ index: '../cran' }));
    const fromConfig = await qlIn(join(work, 'sub'), 'search', join(dir, 'q.indri'), '-k', '3');
    expect(fromConfig.code, fromConfig.stderr).toBe(0);
    expect(fromConfig.stdout).toBe((await ql('search', '--index', index, join(dir, 'q.indri'), '-k', '3')).stdout);
    const none = await qlIn(tmpdir(), 'search', join(dir, 'q.indri'));
    expect(none.code).not.toBe(0);
    expect(none.stderr).toMatch(/^querylens: no --index given, and no querylens\.json in .* pass --index DIR\n$/);
  });

  it('one clear line, non-zero exit, for a missing index, a bad parameter, an unknown document', async () => {
    for (const args of [
      ['search', '--index', join(dir, 'nope'), `${DATA_DIR}/cranfield/queries.tsv`],
      ['search', '--index', index, `${DATA_DIR}/cranfield/queries.tsv`, '--b', '3'],
      ['search', '--index', index, `${DATA_DIR}/cranfield/queries.tsv`, '--scorer', 'tfidf'],
      ['search', '--index', dir, `${DATA_DIR}/cranfield/queries.tsv`],
      ['explain', '--index', index, '--query', 'wing', '--doc', 'no-such-doc'],
    ]) {
      const r = await ql(...args);
      expect(r.code, args.join(' ')).not.toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
      expect(r.stderr).toMatch(/^querylens: /);
    }
  });
});
