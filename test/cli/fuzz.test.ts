/**
 * `querylens check | search | explain` on random and mutated Indri and Lucene queries against a
 * small index (issue 11: queries must not hang or poison the engine). Bounded: fixed seeds,
 * 300 queries in two files (one process per command and scorer), a few explains. Every run
 * exits 0 or 1 (explain: 0, 1 or 2, usage errors included), prints no stack trace, writes no
 * NaN or Infinity into a run, and every error line says where: `file:line:col:` (explain's
 * one-line query: `query:offset:`), no line longer than a readable excerpt.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../support/build.js';
import { seededRandom } from '../support/random.js';

const BIN = join(ROOT, 'bin', 'querylens.js');
/** Generous: the machine is shared; a hang or a super-linear blow-up still shows. */
const TIME_LIMIT_MS = 60_000;
/** Longest stderr line accepted: messages quote excerpts, never a whole megabyte pattern. */
const MAX_LINE = 2_000;
let dir: string;
let index: string;

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: TIME_LIMIT_MS, maxBuffer: 256 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
      resolve({ code, stdout: stdout ?? '', stderr: stderr ?? '' });
    });
  });
}

const rng = seededRandom;

const WORDS = ['heat', 'slab', 'wing', 'flow', 'boundary', 'layer', 'the', 'zeppelin', 'mach', 'shock'];
const INDRI_SEEDS = [
  '#combine( heat slab )', '#weight( 0 heat 0 slab )', '#weight( 2 wing 0.5 #1(boundary layer) )', '#wsum( 1 heat -1 flow )',
  '#syn( heat flow wing )', '#wsyn( 0 heat 0 slab )', '#uw8( shock wave )', '#or( heat #not( slab ) )', '#filreq( wing #combine( flow ) )',
  '#wand( 1e300 heat 1e300 flow )', 'heat.title', '#band( heat wing )', 'heat* wi?g', '#max( heat mach )',
];
const LUCENE_SEEDS = [
  'heat slab', 'heat^0 slab^0', '+wing -flow', '"boundary layer"~2', '/(.*.*)*q/', '/h[a-e]at/', '/~(heat)/', '/<1-20>/', 'wing~2',
  'heat* AND w?ng', '[a TO c]', 'title:heat^2', '(heat OR flow)^0', '/a{1000}{1000}/', 'heat^1e38 flow', '*:*',
];
const NOISE = ['(', ')', '"', '^0', '^2', '~2', '/', '\\', '*', '?', '#', '#weight(', '#syn(', '0', '-1', ' ', '{', '}', '[', ']', ':', '&', '|', '~', '@', '<1-9>', 'é', '\u0000'];

function mutate(q: string, random: () => number): string {
  let s = q;
  for (let e = 1 + Math.floor(random() * 4); e > 0; e--) {
    const at = Math.floor(random() * (s.length + 1));
    const r = random();
    if (r < 0.5) s = s.slice(0, at) + NOISE[Math.floor(random() * NOISE.length)] + s.slice(at);
    else if (r < 0.8) s = s.slice(0, at) + s.slice(at + 1 + Math.floor(random() * 3));
    else s = s.slice(0, at) + WORDS[Math.floor(random() * WORDS.length)] + ' ' + s.slice(at);
  }
  return s;
}

function queries(seeds: string[], seed: number, n: number): string[] {
  const random = rng(seed);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    let q: string;
    if (random() < 0.7) q = mutate(seeds[Math.floor(random() * seeds.length)]!, random);
    else q = Array.from({ length: 1 + Math.floor(random() * 8) }, () => (random() < 0.5 ? WORDS : NOISE)[Math.floor(random() * 10)]!).join('');
    out.push(q.replace(/[\t\r\n]/g, ' '));
  }
  return out;
}

const LOCATED = /^(.+):(\d+):(\d+): (error|warning|info|hint) \S+ .+$/;
/** search's per-file summaries: stopwords counted per file, and the ids of the queries it did not rank. */
const FILE_SUMMARY = /^(.+): warning engine\/stopword \d+ stopwords? in \d+ quer(y|ies) contribute nothing to the score: .+$|^querylens: \d+ quer(y|ies) with syntax errors not ranked \(.+\); fix them, or rank the recovered queries with --recover$/;

function expectClean(r: { code: number | null; stdout: string; stderr: string }, what: string, codes: number[]): void {
  expect(r.code, `${what} did not finish: ${r.stderr.slice(0, 300)}`).not.toBeNull();
  expect(codes, `${what} exited ${r.code}: ${r.stderr.slice(0, 300)}`).toContain(r.code);
  expect(r.stderr, what).not.toContain('    at ');
  for (const line of r.stderr.split('\n').filter(Boolean)) expect(line.length, `${what}: ${line.slice(0, 200)}…`).toBeLessThanOrEqual(MAX_LINE);
}

beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'ql-cli-fuzz-'));
  const random = rng(99);
  const docs = Array.from({ length: 60 }, (_, i) => ({
    _id: `d${i}`,
    title: WORDS[i % WORDS.length],
    text: Array.from({ length: 5 + Math.floor(random() * 30) }, () => WORDS[Math.floor(random() * random() * WORDS.length)]).join(' ') + ` n${i} ${'a'.repeat(1 + (i % 20))}q` +
      // A term on which a backtracking /(.*.*)*q/ runs for minutes.
      (i === 0 ? ` ${'z'.repeat(18)}` : ''),
  }));
  writeFileSync(join(dir, 'corpus.jsonl'), docs.map((d) => JSON.stringify(d)).join('\n') + '\n');
  index = join(dir, 'index');
  const built = await run(['index', join(dir, 'corpus.jsonl'), '--out', index, '--no-progress']);
  expect(built.code, built.stderr).toBe(0);
}, 180_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('CLI fuzz: check, search, explain on random and mutated queries', () => {
  const files = [
    { ext: 'indri', qs: [...INDRI_SEEDS, ...queries(INDRI_SEEDS, 1, 150)] },
    { ext: 'lucene', qs: [...LUCENE_SEEDS, ...queries(LUCENE_SEEDS, 2, 150)] },
  ];

  for (const { ext, qs } of files) {
    it(`.${ext}: check and search under every scorer`, async () => {
      const path = join(dir, `fuzz.${ext}`);
      writeFileSync(path, qs.map((q, i) => `${i + 1}\t${q}`).join('\n') + '\n');
      const check = await run(['check', path]);
      expectClean(check, `check ${path}`, [0, 1]);
      for (const line of `${check.stdout}\n${check.stderr}`.split('\n').filter((l) => / error /.test(l))) expect(line, 'check error line').toMatch(LOCATED);

      for (const scorer of ['bm25', 'bm25-lucene', 'ql']) {
        const r = await run(['search', '--index', index, '--scorer', scorer, '-k', '20', path]);
        expectClean(r, `search --scorer ${scorer} ${path}`, [0, 1]);
        for (const line of r.stderr.split('\n').filter(Boolean)) {
          if (!FILE_SUMMARY.test(line)) expect(line, `search --scorer ${scorer}: stderr line`).toMatch(LOCATED);
        }
        for (const line of r.stdout.split('\n').filter(Boolean)) {
          const cols = line.split(' ');
          expect(cols, line).toHaveLength(6);
          expect(Number.isFinite(Number(cols[4])), `${scorer}: ${line}`).toBe(true);
        }
      }
    }, 300_000);
  }

  it('explain on a sample of the queries', async () => {
    const random = rng(3);
    for (let i = 0; i < 6; i++) {
      const { ext, qs } = files[i % 2]!;
      const q = qs[Math.floor(random() * qs.length)]!;
      const r = await run(['explain', '--index', index, '--dialect', ext, '--query', q, '--doc', `d${i * 7}`, '--scorer', ['bm25', 'bm25-lucene', 'ql'][i % 3]!]);
      expectClean(r, `explain ${q}`, [0, 1, 2]);
      for (const line of r.stderr.split('\n').filter(Boolean)) expect(line, `explain ${q}`).toMatch(/^(query:\d+: (error|warning|info|hint) \S+ .+|querylens: .+)$/);
      expect(r.stdout, `explain ${q}`).not.toMatch(/\bNaN\b|\bInfinity\b/);
    }
  }, 300_000);
});
