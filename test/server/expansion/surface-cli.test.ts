/**
 * `querylens expand --method learned` and `querylens search --expand learned`, run as the user runs them, with
 * the shipped learned-expansion model (model/artifacts/surface.*) on a small corpus indexed on disk.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseIndri, parseLucene } from '../../../grammar/index.js';
import { ensureBuilt } from '../../support/build.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
let dir: string;

function ql(...args: string[]) {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'querylens.js'), ...args], { cwd: ROOT, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const CORPUS = [
  'the automobile industry builds cars and trucks',
  'a car engine and its fuel consumption',
  'automobile engines burn fuel; vehicle emissions rise',
  'cars trucks buses and other vehicles on the highway',
  'electric vehicles and their batteries',
  'poetry and painting in the museum',
];

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'querylens-learned-'));
  writeFileSync(join(dir, 'corpus.jsonl'), CORPUS.map((text, i) => JSON.stringify({ _id: `d${i}`, title: '', text })).join('\n') + '\n');
  const built = ql('index', join(dir, 'corpus.jsonl'), '--out', join(dir, 'idx'));
  if (built.code !== 0) throw new Error(`index failed: ${built.stderr}`);
  writeFileSync(join(dir, 'q.indri'), '1\tcar engine\n2\t#combine( vehicle #1(fuel consumption) )\n');
  writeFileSync(join(dir, 'q.lucene'), '1\t+car engine\n');
}, 600_000);

describe('querylens expand --method learned / search --expand learned', () => {
  it('prints each word\'s suggestions and the query with them in it, in the file\'s dialect', () => {
    const r = ql('expand', '--method', 'learned', '--index', join(dir, 'idx'), join(dir, 'q.indri'));
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('// 1: car engine');
    const queries = lines.filter((l) => !l.startsWith('//'));
    expect(queries.map((l) => l.split('\t')[0])).toEqual(['1', '2']);
    for (const q of queries) expect(parseIndri(q.split('\t')[1]!).diagnostics).toEqual([]);
    // The user's structure is kept.
    expect(queries[1]).toContain('#1(fuel consumption)');
    // Every suggestion line names weights and sources, and its words are in the query line that follows.
    for (const l of lines.filter((x) => /^\/\/ {3}\w+: /.test(x))) expect(l).toMatch(/^\/\/ {3}\w+: (\w+ [\d.]+ \([a-z+]+\)(, )?)+$/);
    // Each query's block lists what was suggested, or says that nothing was (never the query back in silence).
    const blocks = r.stdout.split(/^(?=\/\/ \d+: )/m).filter(Boolean);
    expect(blocks).toHaveLength(2);
    for (const b of blocks) expect(b).toMatch(/^\/\/ {3}(\w+: |no learned alternative: (it weighs each of the \d+ candidates? of its words below 0\.05|none of its words can take alternatives .*|the index holds no variant, synonym or neighbour of its words.*)$)/m);
    const json = JSON.parse(ql('expand', '--method', 'learned', '--index', join(dir, 'idx'), join(dir, 'q.lucene'), '--json').stdout);
    expect(json[0].dialect).toBe('lucene');
    expect(parseLucene(json[0].expanded).diagnostics).toEqual([]);
    expect(json[0].expanded).toMatch(/^\+(\(car( OR \w+(\^[\d.]+)?)+\)|car) /);
  });

  it('ranks with the learned expansion', () => {
    const r = ql('search', '--expand', 'learned', '--index', join(dir, 'idx'), join(dir, 'q.indri'), '-k', '3', '--queries-out', join(dir, 'used.txt'));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^1 Q0 d\d+ 1 [\d.-]+ querylens$/m);
  });

  it('explains a missing model and refuses options that do not combine', () => {
    const empty = mkdtempSync(join(tmpdir(), 'querylens-nomodel-'));
    const r = ql('expand', '--method', 'learned', '--index', join(dir, 'idx'), join(dir, 'q.indri'), '--model-dir', empty);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/No learned-expansion model in .*surface\.json is missing/);
    const w = ql('search', '--expand', 'learned', '--weights', 'twbert', '--index', join(dir, 'idx'), join(dir, 'q.indri'));
    expect(w.code).toBe(2);
    expect(w.stderr).toMatch(/--weights cannot be used with --expand learned/);
    const f = ql('expand', '--method', 'learned', '--fb-docs', '3', '--index', join(dir, 'idx'), join(dir, 'q.indri'));
    expect(f.stderr).toMatch(/--fb-docs cannot be used with --method learned/);
  });
});
