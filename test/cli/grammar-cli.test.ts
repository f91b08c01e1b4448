/**
 * `querylens check | convert | format`, run as the user runs them: `node bin/querylens.js`
 * after a build.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { buildPrivateCli, privateDist, ROOT } from './grammar-cli-build.js';
import { dataPath } from '../support/data.js';

let BIN = '';
const SAMPLES = join(ROOT, 'samples');
let dir: string;

/** Runs the CLI without blocking the test worker (spawnSync would starve vitest's RPC). */
function run(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

function file(name: string, text: string | Buffer): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

const LINE = /^(.+):(\d+):(\d+): (error|warning|info|hint) (\S+) (.+)$/;

function expectNoStackTrace(stderr: string): void {
  expect(stderr).not.toContain('    at ');
}

beforeAll(() => {
  BIN = buildPrivateCli('grammar-cli');
  dir = mkdtempSync(join(tmpdir(), 'ql-cli-'));
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('querylens check', () => {
  it('passes the sample files with exit 0 and no output', async () => {
    const r = await run('check', join(SAMPLES, 'queries.indri'), join(SAMPLES, 'queries.lucene'));
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('');
    expect(r.code).toBe(0);
  });

  it('reports errors at 1-based file positions and exits 1', async () => {
    const p = file('broken.indri', '// comment\n1\t#combine( a b )\n22\t#weight( 1.0 a b )\n');
    const r = await run('check', p);
    expect(r.code).toBe(1);
    const lines = r.stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    const m = LINE.exec(lines[0])!;
    expect(m).not.toBeNull();
    expect(m[1]).toBe(p);
    expect(m[4]).toBe('error');
    expect(m[5]).toBe('indri/weight-expected');
    // `b` is on line 3; the query starts after `22<TAB>`, so `b` is at column 4 + 15 = 19.
    expect(Number(m[2])).toBe(3);
    expect(Number(m[3])).toBe('22\t#weight( 1.0 a b )'.indexOf('b') + 1);
  });

  it('prints JSON with --json', async () => {
    const p = file('broken2.lucene', '1\tfoo\n2\t(bar\n');
    const r = await run('check', '--json', p);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(out.length).toBeGreaterThan(0);
    for (const d of out) {
      expect(Object.keys(d).sort()).toEqual(['code', 'column', 'endColumn', 'endLine', 'file', 'line', 'message', 'qid', 'severity']);
      expect(d.file).toBe(p);
      expect(d.line).toBe(2);
      expect(d.qid).toBe('2');
    }
    expect(out.some((d) => d.severity === 'error')).toBe(true);
  });

  it('prints [] for a clean file with --json', async () => {
    const r = await run('check', '--json', join(SAMPLES, 'queries.lucene'));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
  });

  it('checks TREC topics with field selection', async () => {
    const r = await run('check', '--fields', 'title,desc', dataPath('topics/robust04.topics.txt'));
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
  });

  it('exits 2 with one line for a missing file', async () => {
    const r = await run('check', join(dir, 'nope.indri'));
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/nope\.indri: no such file/);
    expectNoStackTrace(r.stderr);
  });

  it('exits 2 for a directory and for a bad option value', async () => {
    const a = await run('check', dir);
    expect(a.code).toBe(2);
    expect(a.stderr.trim().split('\n')).toHaveLength(1);
    const b = await run('check', '--dialect', 'sql', join(SAMPLES, 'queries.indri'));
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/unknown dialect 'sql'/);
    expectNoStackTrace(a.stderr + b.stderr);
  });

  it('exits 2 with one line for usage errors', async () => {
    for (const args of [['check'], ['convert', '--bogus', 'x'], ['format']]) {
      const r = await run(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr).toMatch(/^error: /);
    }
  });

  it('reports malformed XML with its line and column', async () => {
    const p = file('bad.xml', '<parameters>\n  <query>#combine(a)</qery>\n</parameters>\n');
    const r = await run('check', p);
    expect(r.code).toBe(1);
    const m = LINE.exec(r.stdout.trim().split('\n')[0])!;
    expect(m[5]).toBe('source/xml-malformed');
    expect(Number(m[2])).toBe(2);
  });
});

describe('querylens convert', () => {
  for (const [from, to] of [
    ['queries.indri', 'lucene'],
    ['queries.lucene', 'indri'],
  ] as const) {
    it(`${from} --to ${to}: qids kept, output checks clean, warnings on stderr`, async () => {
      const src = join(SAMPLES, from);
      const r = await run('convert', '--to', to, src);
      expect(r.code).toBe(0);
      const lines = r.stdout.trim().split('\n');
      const qids = readFileSync(src, 'utf8')
        .split('\n')
        .filter((l) => l.trim() && !l.startsWith('//'))
        .map((l) => l.split('\t')[0]);
      expect(lines.map((l) => l.split('\t')[0])).toEqual(qids);
      for (const l of lines) expect(l.split('\t')[1].length).toBeGreaterThan(0);
      const out = file(`converted.${to}`, r.stdout);
      expect((await run('check', out)).code).toBe(0);
      for (const w of r.stderr.trim().split('\n').filter(Boolean)) {
        const m = LINE.exec(w)!;
        expect(m, w).not.toBeNull();
        expect(m[1]).toBe(src);
        expect(m[4]).toBe('warning');
        expect(m[5]).toMatch(/^translate\/(approximated|dropped)$/);
      }
    });
  }

  it('points a warning at the construct in the source file', async () => {
    const p = file('w.indri', '// x\n5\t#combine( a #uw8(b c) )\n');
    const r = await run('convert', '--to', 'lucene', p);
    expect(r.stdout).toBe('5\ta "b c"~8\n');
    const m = LINE.exec(r.stderr.trim())!;
    expect(m[5]).toBe('translate/approximated');
    expect(Number(m[2])).toBe(2);
    expect(Number(m[3])).toBe('5\t#combine( a #uw8(b c) )'.indexOf('#uw8') + 1);
  });

  it('keeps a query nothing of which converts as a comment with its id and text, so converting back loses nothing', async () => {
    const p = file('dropped.indri', '1\tapple\n3\t#prior( recency )\n');
    const r = await run('convert', '--to', 'lucene', p);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('1\tapple\n// 3\tnot converted: #prior( recency )\n');
    expect(r.stderr).toMatch(/dropped\.indri:2:3: warning translate\/dropped/);
  });

  it('converts to Terrier', async () => {
    const r = await run('convert', '--to', 'terrier', join(SAMPLES, 'queries.lucene'));
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^1\t#combine:0=2:3=0\.5\(#1\(similarity laws\) aeroelastic models #1\(heated high speed aircraft\)\)$/m);
  });

  it('prints each query as a cluster _search request body, with located fidelity warnings', async () => {
    const p = file('c.indri', '// x\n7\t#weight( 2 heat 1 #uw8(b c) )\n');
    for (const to of ['opensearch', 'elasticsearch']) {
      const r = await run('convert', '--to', to, '--search-fields', 'title,text', '-k', '20', p);
      expect(r.code).toBe(0);
      const [qid, json] = r.stdout.trim().split('\t');
      expect(qid).toBe('7');
      const body = JSON.parse(json);
      expect(body.size).toBe(20);
      expect(body.query.bool.should[0]).toEqual({ multi_match: { query: 'heat', fields: ['title', 'text'], type: 'most_fields', boost: 2 } });
      expect(body.query.bool.should[1].bool.should[0]).toEqual({ intervals: { title: { match: { query: 'b c', ordered: false, max_gaps: 6 } } } });
      const lines = r.stderr.trim().split('\n').filter((l) => !l.startsWith('npm warn'));
      const uw = lines.map((l) => LINE.exec(l)!).find((m) => m[6].includes('interval'))!;
      expect(Number(uw[2])).toBe(2);
      expect(Number(uw[3])).toBe('7\t#weight( 2 heat 1 #uw8(b c) )'.indexOf('#uw8') + 1);
      expectNoStackTrace(r.stderr);
    }
  });

  it('rejects an unknown target with exit 2', async () => {
    const r = await run('convert', '--to', 'solr', join(SAMPLES, 'queries.indri'));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown target 'solr'/);
    expectNoStackTrace(r.stderr);
  });
});

describe('querylens format', () => {
  const tempFiles = () => readdirSync(dir).filter((f) => f.endsWith('.tmp'));

  it('prints the formatted file, keeping comments and qids', async () => {
    const p = file('messy.indri', '// keep me\n1\t#combine(   a    b )\n\n2\t#weight(2 x 1 y)\n');
    const r = await run('format', p);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('// keep me');
    expect(lines[1].startsWith('1\t#combine(')).toBe(true);
    expect(lines[1]).not.toContain('   ');
    expect(lines[2]).toBe('');
    expect(lines[3].startsWith('2\t#weight(')).toBe(true);
    // The file itself is unchanged without --write.
    expect(readFileSync(p, 'utf8')).toBe('// keep me\n1\t#combine(   a    b )\n\n2\t#weight(2 x 1 y)\n');
  });

  it('--write rewrites in place and leaves no temp file', async () => {
    const p = file('w1.lucene', '1\ta    AND    b\n');
    const expected = (await run('format', p)).stdout;
    const r = await run('format', '--write', p);
    expect(r.code).toBe(0);
    expect(readFileSync(p, 'utf8')).toBe(expected);
    expect(tempFiles()).toEqual([]);
    expect((await run('check', p)).code).toBe(0);
  });

  it('--write leaves a file with syntax errors byte for byte untouched', async () => {
    const original = '1\t#combine( a b\n2\t#combine(   c )\n';
    const p = file('w2.indri', original);
    const r = await run('format', '--write', p);
    expect(r.code).toBe(1);
    expect(readFileSync(p, 'utf8')).toBe(original);
    expect(r.stderr).toMatch(/w2\.indri:1:\d+: error /);
    expect(r.stderr).toMatch(/unchanged/);
    expect(tempFiles()).toEqual([]);
    expectNoStackTrace(r.stderr);
  });

  it('--write leaves a file with invalid UTF-8 untouched', async () => {
    const original = Buffer.concat([Buffer.from('1\t#combine(   a '), Buffer.from([0xc3, 0x28]), Buffer.from(' )\n')]);
    const p = file('w3.indri', original);
    const r = await run('format', '--write', p);
    expect(r.code).toBe(1);
    expect(readFileSync(p).equals(original)).toBe(true);
    expect(tempFiles()).toEqual([]);
  });

  it('formats queries inside an Indri parameter file', async () => {
    const p = file('p.xml', '<parameters>\n  <query><number>1</number><text>#combine(  a   &lt;b c&gt; )</text></query>\n</parameters>\n');
    const r = await run('format', p);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('<number>1</number><text>#combine(');
    expect(r.stdout).toContain('&lt;');
    expect((await run('check', file('p2.xml', r.stdout))).code).toBe(0);
  });

  it('refuses .tsv topic files and bad widths with exit 2', async () => {
    const a = await run('format', dataPath('cranfield/queries.tsv'));
    expect(a.code).toBe(2);
    expect(a.stderr.trim().split('\n')).toHaveLength(1);
    const b = await run('format', '--width', 'wide', join(SAMPLES, 'queries.indri'));
    expect(b.code).toBe(2);
    expectNoStackTrace(a.stderr + b.stderr);
  });
});

describe('npm start main job', () => {
  it('checks and translates both samples, indexes Cranfield, ranks and evaluates, then prints a summary', async () => {
    const { runMainJob } = (await import(join(privateDist(BIN), 'server/cli/main-job.js'))) as typeof import('../../server/cli/main-job.js');
    const lines: string[] = [];
    const indexDir = join(mkdtempSync(join(tmpdir(), 'querylens-mainjob-')), 'index');
    const code = await runMainJob({ root: ROOT, indexDir, write: (l) => lines.push(l) });
    expect(code).toBe(0);
    for (const header of [
      '== check samples/queries.indri (indri, 16 queries): clean',
      '== check samples/queries.lucene (lucene, 16 queries): clean',
      '== convert samples/queries.indri --to lucene',
      '== convert samples/queries.indri --to terrier',
      '== convert samples/queries.lucene --to indri',
      '== convert samples/queries.lucene --to terrier',
    ]) {
      expect(lines).toContain(header);
    }
    expect(lines.filter((l) => l.startsWith('== convert samples/queries.indri --to indri'))).toEqual([]);
    expect(lines.at(-1)).toMatch(
      /^querylens: 2 files, 32 queries, 0 errors, 0 warnings; 64 translations with \d+ approximation warnings; 6 runs over 1400 Cranfield documents$/,
    );
    // The index is built on the first run, then reused.
    expect(lines.some((l) => /^== index .*: 1400 documents, \d+ terms, \d+ tokens in /.test(l))).toBe(true);
    // Ranked results: query 2's best document under BM25 is relevant (Cranfield qrels).
    const q2 = lines.lastIndexOf('2\t#combine( structural aeroelastic problems #1(high speed) aircraft flight )');
    expect(q2).toBeGreaterThan(0);
    expect(lines[q2 + 1]).toMatch(/^ {2}1\. \d+ +\d+\.\d{4} {2}\[rel \d\] /);
    // One metrics table per sample file, with the baseline and its comparisons.
    const tables = lines.filter((l) => /^measure +bm25 \(baseline\)/.test(l));
    expect(tables).toHaveLength(2);
    expect(lines.filter((l) => /^map +0\.\d{4} /.test(l))).toHaveLength(2);
    const again: string[] = [];
    await runMainJob({ root: ROOT, indexDir, write: (l) => again.push(l) });
    expect(again.some((l) => l.includes('1400 documents (built earlier'))).toBe(true);
    for (const l of lines.filter((x) => x.includes(': warning '))) expect(l).toMatch(/^samples\/queries\.(indri|lucene):\d+:\d+: warning translate\//);
  });
});
