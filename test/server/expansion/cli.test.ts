/** `querylens expand`, run as the user runs it, on the tiny corpus of fixtures.ts indexed on disk. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../../support/build.js';
import { CORPUS } from './fixtures.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
let dir: string;

function ql(...args: string[]) {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'querylens.js'), ...args], { cwd: ROOT, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'querylens-expand-'));
  writeFileSync(join(dir, 'corpus.jsonl'), CORPUS.map((text, i) => JSON.stringify({ _id: `d${i}`, title: '', text })).join('\n') + '\n');
  const built = ql('index', join(dir, 'corpus.jsonl'), '--out', join(dir, 'idx'));
  if (built.code !== 0) throw new Error(`index failed: ${built.stderr}`);
  writeFileSync(join(dir, 'q.indri'), '1\t#combine( fish )\n');
}, 600_000);

describe('querylens expand', () => {
  it('bo1: feedback d4 d0 leaves only fish (the others are in one document); fish gets 1 + 1', () => {
    // fish: tf_x = 3 + 1, F = 4, N = 6; it has the largest weight, and with F = tf_x and
    // N' = 6 the parameter-free normaliser equals its own weight, so w' = 1.
    const r = ql('expand', '--index', join(dir, 'idx'), join(dir, 'q.indri'));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('// 1: #combine( fish )');
    expect(lines[1]).toBe('// bo1, bm25 first pass, feedback: d4 d0');
    expect(lines.at(-1)).toBe('1\t#weight( 2 "fish" )');
  });

  it('rm3: keeps the Indri query as written and adds P(w|R)-weighted terms', () => {
    const r = ql('expand', '--index', join(dir, 'idx'), join(dir, 'q.indri'), '--method', 'rm3', '--json');
    expect(r.code).toBe(0);
    const [entry] = JSON.parse(r.stdout);
    expect(entry.feedbackDocnos).toEqual(['d4', 'd0']);
    // fish: ¾ of d4 and ¼ of d0; cat ½ of d0; sun ¼ of d4; dog ¼ of d0 (d4 weighs a little more).
    expect(entry.terms.map((t: { term: string }) => t.term)).toEqual(['fish', 'cat', 'sun', 'dog']);
    expect(entry.expanded).toMatch(/^#weight\( 0\.5 #combine\( fish \) 0\.5 #weight\( [\d.]+ "fish" [\d.]+ "cat" [\d.]+ "sun" [\d.]+ "dog" \) \)$/);
  });

  it('--fb-terms and --fb-docs are honoured', () => {
    const r = ql('expand', '--index', join(dir, 'idx'), join(dir, 'q.indri'), '--method', 'rm3', '--fb-terms', '1', '--fb-docs', '1', '--json');
    const [entry] = JSON.parse(r.stdout);
    expect(entry.feedbackDocnos).toEqual(['d4']);
    expect(entry.terms).toHaveLength(1);
  });

  it('an Indri parameter file sets fbTerms/fbOrigWeight and may name the feedback documents', () => {
    writeFileSync(
      join(dir, 'q.xml'),
      '<parameters><fbTerms>2</fbTerms><fbOrigWeight>0.7</fbOrigWeight>' +
        '<query><number>7</number><text>#combine( moon )</text><feedbackDocno>d2</feedbackDocno><feedbackDocno>d9</feedbackDocno></query></parameters>\n',
    );
    const r = ql('expand', '--index', join(dir, 'idx'), join(dir, 'q.xml'), '--method', 'rm3');
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('querylens: warning: query 7: feedbackDocno d9 is not in the index\n');
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[1]).toBe('// rm3, named feedback documents, feedback: d2');
    // d2 = cat tree rock moon: four terms at 1/4 each, the first two by name.
    expect(lines.at(-1)).toBe('7\t#weight( 0.7 #combine( moon ) 0.3 #weight( 0.5 "cat" 0.5 "moon" ) )');
  });

  it('wrong paths and options are one-line errors with a non-zero exit', () => {
    for (const args of [
      ['--index', join(dir, 'nope'), join(dir, 'q.indri')],
      ['--index', join(dir, 'idx'), join(dir, 'missing.indri')],
      ['--index', join(dir, 'idx'), join(dir, 'q.indri'), '--method', 'kl'],
      ['--index', join(dir, 'idx'), join(dir, 'q.indri'), '--fb-docs', '0'],
    ]) {
      const r = ql('expand', ...args);
      expect(r.code).not.toBe(0);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^querylens: /);
    }
  });
});
