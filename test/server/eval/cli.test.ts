/** `querylens eval` and `querylens compare`, run as the user runs them (node bin/querylens.js). */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../../support/build.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
let dir: string;

function ql(...args: string[]) {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'querylens.js'), ...args], { cwd: ROOT, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'querylens-eval-'));
  writeFileSync(join(dir, 'qrels'), ['q1 0 d1 1', 'q1 0 d2 2', 'q1 0 d3 0', 'q1 0 d5 1', 'q2 0 d10 1', 'q2 0 x 0'].join('\n') + '\n');
  writeFileSync(
    join(dir, 'a.run'),
    ['q1 Q0 d1 1 3.0 a', 'q1 Q0 d4 2 2.0 a', 'q1 Q0 d2 3 1.0 a', 'q1 Q0 d3 4 0.5 a', 'q2 Q0 d10 1 1.0 a', 'q2 Q0 d9 2 1.0 a'].join('\n') + '\n',
  );
  writeFileSync(join(dir, 'b.run'), ['# a comment', 'q1 Q0 d2 1 3 b', 'q1 Q0 d1 2 2 b', 'q1 Q0 d5 3 1 b', 'q2 Q0 d10 1 1 b'].join('\n') + '\n');
  writeFileSync(join(dir, 'dup.run'), 'q1 Q0 d1 1 3 x\nq1 Q0 d2 2 2 x\nq1 Q0 d1 3 1 x\n');
  writeFileSync(join(dir, 'bad.qrels'), 'q1 0 d1 1\nq1 0 d2\n');
}, 600_000);

describe('querylens eval', () => {
  it('prints trec_eval lines, per query with -q', () => {
    const r = ql('eval', join(dir, 'qrels'), join(dir, 'a.run'), '--metrics', 'map,P_5,num_ret', '--per-query');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'map                   \tq1\t0.5556',
        'P_5                   \tq1\t0.4000',
        'num_ret               \tq1\t4',
        'map                   \tq2\t0.5000',
        'P_5                   \tq2\t0.2000',
        'num_ret               \tq2\t2',
        'map                   \tall\t0.5278',
        'P_5                   \tall\t0.3000',
        'num_ret               \tall\t6',
        '',
      ].join('\n'),
    );
  });

  it('several runs: one block each, headed by runid', () => {
    const r = ql('eval', join(dir, 'qrels'), join(dir, 'a.run'), join(dir, 'b.run'), '-m', 'recip_rank');
    expect(r.stdout.split('\n')).toEqual([
      'runid                 \tall\ta',
      'recip_rank            \tall\t0.7500',
      'runid                 \tall\tb',
      'recip_rank            \tall\t1.0000',
      '',
    ]);
  });

  it('-M truncates the rankings (MRR@1)', () => {
    const r = ql('eval', join(dir, 'qrels'), join(dir, 'a.run'), '-m', 'recip_rank', '-M', '1');
    expect(r.stdout).toBe('recip_rank            \tall\t0.5000\n');
  });

  it('--json gives the numbers unrounded', () => {
    const r = ql('eval', join(dir, 'qrels'), join(dir, 'a.run'), '-m', 'map', '--json');
    const json = JSON.parse(r.stdout);
    expect(json.mean.map).toBeCloseTo(((1 + 2 / 3) / 3 + 0.5) / 2, 12);
    expect(json.numQueries).toBe(2);
  });

  it.each([
    [['dup.run'], /dup\.run:3: duplicate docno "d1" for query q1 \(first at line 1\)/],
    [['missing.run'], /missing\.run: cannot read run file: no such file/],
  ])('a bad run file is one line with file:line and a non-zero exit (%s)', (files, message) => {
    const r = ql('eval', join(dir, 'qrels'), ...files.map((f) => join(dir, f)));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('malformed qrels and unknown measures are one-line errors', () => {
    const q = ql('eval', join(dir, 'bad.qrels'), join(dir, 'a.run'));
    expect(q.code).not.toBe(0);
    expect(q.stderr).toMatch(/bad\.qrels:2: expected 4 columns/);
    const m = ql('eval', join(dir, 'qrels'), join(dir, 'a.run'), '-m', 'map,nDCG@10');
    expect(m.code).not.toBe(0);
    expect(m.stderr).toMatch(/unknown measure "nDCG@10"/);
  });
});

describe('querylens compare', () => {
  it('prints a table with the test named, relative change and p-values', () => {
    const r = ql('compare', join(dir, 'qrels'), join(dir, 'a.run'), join(dir, 'b.run'), '-m', 'map,recip_rank', '--test', 'randomization');
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toContain('two-sided paired randomisation test (exact, all 4 sign assignments)');
    expect(lines[1]).toMatch(/^measure\s+a \(baseline\)\s+b$/);
    // b: q1 AP = (1 + 1 + 1)/3 = 1 (d2, d1, d5 at ranks 1-3); q2 AP = 1.
    // Two measures make two tests: Holm doubles the smaller p (0.5 → 1).
    expect(lines.find((l) => l.startsWith('map'))).toMatch(/^map\s+0\.5278\s+1\.0000 \(\+89\.5%, p=0\.5000, Holm p=1\.0000\)$/);
  });

  it('keeps the table of one test as it was: p alone, † = p < 0.05', () => {
    const r = ql('compare', join(dir, 'qrels'), join(dir, 'a.run'), join(dir, 'b.run'), '-m', 'map');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(/two-sided paired t-test against the baseline \(first run\), over 2 queries; † = p < 0\.05\.$/);
    expect(r.stdout).toMatch(/^map\s+0\.5278\s+1\.0000† \(\+89\.5%, p=0\.0374\)$/m);
  });

  it('compares three runs against the first, Holm across every (run × measure) test', () => {
    // c: q1 d3 (not relevant) then d1, so AP = (1/2)/3 and RR = 1/2; q2 d10 first: AP = RR = 1.
    writeFileSync(join(dir, 'c.run'), 'q1 Q0 d3 1 2 c\nq1 Q0 d1 2 1 c\nq2 Q0 d10 1 1 c\n');
    const r = ql('compare', join(dir, 'qrels'), join(dir, 'a.run'), join(dir, 'b.run'), join(dir, 'c.run'), '-m', 'map,recip_rank', '--test', 'randomization');
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toContain('† = Holm-adjusted p < 0.05 across all 4 tests (runs × measures)');
    expect(lines[1]).toMatch(/^measure\s+a \(baseline\)\s+b\s+c$/);
    // Exact sign-flip p over the 2 queries' differences from a: b map (0.444, 0.5) → 2/4; b RR (0, 0.5) → 4/4;
    // c map (−0.389, 0.5) → 4/4; c RR (−0.5, 0.5) → 4/4. Holm with m = 4: 4 · 0.5 → 1, the rest 1.
    expect(lines[3]).toMatch(/^map\s+0\.5278\s+1\.0000 \(\+89\.5%, p=0\.5000, Holm p=1\.0000\)\s+0\.5833 \(\+10\.5%, p=1\.0000, Holm p=1\.0000\)$/);
    expect(lines[4]).toMatch(/^recip_rank\s+0\.7500\s+1\.0000 \(\+33\.3%, p=1\.0000, Holm p=1\.0000\)\s+0\.7500 \(\+0\.0%, p=1\.0000, Holm p=1\.0000\)$/);
  });

  it('marks with † only what survives Holm: two runs each at p = 0.0374 are not significant together', () => {
    writeFileSync(join(dir, 'b2.run'), readFileSync(join(dir, 'b.run'), 'utf8'));
    const r = ql('compare', join(dir, 'qrels'), join(dir, 'a.run'), join(dir, 'b.run'), join(dir, 'b2.run'), '-m', 'map');
    expect(r.code).toBe(0);
    // Holm: sorted 0.0374, 0.0374 → 2 · 0.0374 = 0.0748, then max(0.0748, 0.0374).
    expect(r.stdout).toMatch(/^map\s+0\.5278\s+1\.0000 \(\+89\.5%, p=0\.0374, Holm p=0\.0748\)\s+1\.0000 \(\+89\.5%, p=0\.0374, Holm p=0\.0748\)$/m);
    const json = JSON.parse(ql('compare', join(dir, 'qrels'), join(dir, 'a.run'), join(dir, 'b.run'), join(dir, 'b2.run'), '-m', 'map', '--json').stdout);
    expect(json.comparisons).toBe(2);
    expect(json.cells[0].map((c: { pHolm: number | null }) => c.pHolm)).toEqual([null, expect.closeTo(2 * json.cells[0][1].p, 12), expect.closeTo(2 * json.cells[0][1].p, 12)]);
  });

  it.each([
    [['a.run', '--test', 'wilcoxon', 'b.run'], /^querylens: unknown --test 'wilcoxon': use t or randomization\n$/],
    [['a.run'], /^querylens: compare needs two or more run files \(the first is the baseline\), got 1\n$/],
    [['a.run', 'missing.run'], /^querylens: \S*missing\.run: cannot read run file: no such file\n$/],
  ])('answers bad input with one line: %j', (args, message) => {
    const r = ql('compare', join(dir, 'qrels'), ...args.map((a) => (a.endsWith('.run') ? join(dir, a) : a)));
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
  });
});
