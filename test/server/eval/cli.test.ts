/** `querylens eval` and `querylens compare`, run as the user runs them (node bin/querylens.js). */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
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
    expect(lines.find((l) => l.startsWith('map'))).toMatch(/^map\s+0\.5278\s+1\.0000 \(\+89\.5%, p=0\.5000\)$/);
  });

  it('rejects an unknown test', () => {
    const r = ql('compare', join(dir, 'qrels'), join(dir, 'a.run'), '--test', 'wilcoxon');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/unknown --test 'wilcoxon'/);
  });
});
