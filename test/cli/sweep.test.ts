/**
 * `querylens sweep` through the real CLI on the Cranfield sample:
 * - every row equals `querylens search` with that setting followed by `querylens eval --json`
 *   (BM25 k1 × b, QL mu, Bo1 fbDocs), and the best row is the one with the highest measure;
 * - `--apply` writes the best setting into querylens.json and keeps every other byte of it; a file
 *   it could not keep (a comment) is refused with the place and left as it was;
 * - a grid over the cap, a missing index and missing qrels are one clear line each.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIndex } from '../../server/engine/index/index.js';
import { MAX_SWEEP_SETTINGS } from '../../server/engine/sweep.js';
import { ensureBuilt, ROOT } from '../support/build.js';
import { runChecked, runProcess } from '../support/process.js';

const BIN = join(ROOT, 'bin/querylens.js');
const QUERIES = join(ROOT, 'samples/queries.indri');
const QRELS = join(ROOT, 'samples/cranfield/qrels.txt');
let work: string;
let index: string;

function querylens(args: string[], cwd = work) {
  return runProcess(process.execPath, [BIN, ...args], { cwd, timeoutMs: 120_000 });
}

interface SweepJson {
  by: string;
  rows: { scorer: string; k1?: number; b?: number; mu?: number; bo1: { fbDocs: number; fbTerms: number } | null; mean: Record<string, number>; best: boolean }[];
  best: { mean: Record<string, number> };
  applied: string | null;
}

async function sweepJson(args: string[]): Promise<SweepJson> {
  return JSON.parse(await runChecked(process.execPath, [BIN, 'sweep', QUERIES, '--index', index, '--qrels', QRELS, '--json', ...args], { cwd: work, timeoutMs: 120_000 }));
}

/** What `search` with these options and then `eval --json` give. */
async function searchThenEval(searchArgs: string[]): Promise<Record<string, number>> {
  const run = await runChecked(process.execPath, [BIN, 'search', QUERIES, '--index', index, '--quiet', ...searchArgs], { cwd: work, timeoutMs: 120_000 });
  const runFile = join(work, 'run.txt');
  writeFileSync(runFile, run);
  return JSON.parse(await runChecked(process.execPath, [BIN, 'eval', QRELS, runFile, '--json'], { cwd: work })).mean;
}

beforeAll(async () => {
  ensureBuilt();
  work = mkdtempSync(join(tmpdir(), 'querylens-sweep-'));
  index = join(work, 'idx');
  await buildIndex([join(ROOT, 'samples/cranfield/corpus.jsonl')], index, { profile: 'terrier' });
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('querylens sweep', () => {
  it('gives, for every setting, what search + eval give, and marks the best', async () => {
    const bm25 = await sweepJson(['--k1', '0.9:1.5:0.6', '--b', '0.4']);
    expect(bm25.rows.map((r) => [r.k1, r.b])).toEqual([
      [0.9, 0.4],
      [1.5, 0.4],
    ]);
    for (const row of bm25.rows) expect(row.mean).toEqual(await searchThenEval(['--k1', String(row.k1), '--b', String(row.b)]));
    const maps = bm25.rows.map((r) => r.mean.map!);
    expect(bm25.rows.findIndex((r) => r.best)).toBe(maps.indexOf(Math.max(...maps)));
    expect(bm25.best.mean).toEqual(bm25.rows.find((r) => r.best)!.mean);

    const ql = await sweepJson(['--mu', '500,2000', '--by', 'ndcg_cut_10']);
    expect(ql.by).toBe('ndcg_cut_10');
    expect(ql.rows[1]!.mean).toEqual(await searchThenEval(['--scorer', 'ql', '--mu', '2000']));

    const bo1 = await sweepJson(['--fb-docs', '2,5', '--fb-terms', '8']);
    expect(bo1.rows.map((r) => r.bo1)).toEqual([
      { fbDocs: 2, fbTerms: 8 },
      { fbDocs: 5, fbTerms: 8 },
    ]);
    expect(bo1.rows[1]!.mean).toEqual(await searchThenEval(['--expand', 'bo1', '--fb-docs', '5', '--fb-terms', '8']));
  }, 120_000);

  it('prints a table with the best row marked', async () => {
    const r = await querylens(['sweep', QUERIES, '--index', index, '--qrels', QRELS, '--k1', '0.9,1.5', '-m', 'map,P_10']);
    expect(r.status).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^\s+k1\s+b\s+map\s+P_10$/);
    expect(lines.slice(1, 3).filter((l) => l.startsWith('*'))).toHaveLength(1);
    expect(lines[3]).toMatch(/^best by map: bm25 k1=(0\.9|1\.5) b=0\.75 \(map 0\.\d{4}, 16 queries\)$/);
  }, 60_000);

  it('--apply writes the best setting into querylens.json and keeps the rest of the file', async () => {
    const config = join(work, 'querylens.json');
    const before = `{\n  "index": "idx",\n  "qrels": ${JSON.stringify(QRELS)},\n  "scorer": {\n    "name": "bm25",\n    "k1": 1.2\n  },\n  "formatting": { "width": 100 }\n}\n`;
    writeFileSync(config, before);
    // Index and qrels come from the file found from the current folder.
    const r = await querylens(['sweep', QUERIES, '--k1', '0.9,1.5', '--b', '0.4,0.75', '--json', '--apply']);
    expect(r.stderr).toContain(`${config}: set scorer.name = "bm25", scorer.k1 =`);
    expect(r.status).toBe(0);
    const json = JSON.parse(r.stdout) as SweepJson;
    const best = json.rows.find((x) => x.best)!;
    expect(json.applied).toBe(config);
    const after = readFileSync(config, 'utf8');
    expect(JSON.parse(after)).toEqual({ index: 'idx', qrels: QRELS, scorer: { name: 'bm25', k1: best.k1, b: best.b }, formatting: { width: 100 } });
    expect(after.startsWith(`{\n  "index": "idx",\n  "qrels": ${JSON.stringify(QRELS)},\n  "scorer": {\n    "name": "bm25",\n    "k1": ${best.k1},\n    "b": ${best.b}\n  },\n  "formatting": { "width": 100 }\n}`)).toBe(true);
    rmSync(config);
  }, 60_000);

  it('--apply refuses a querylens.json it cannot keep, and writes nothing', async () => {
    const config = join(work, 'mine.json');
    const before = '{\n  // my settings\n  "scorer": { "name": "bm25" }\n}\n';
    writeFileSync(config, before);
    const r = await querylens(['sweep', QUERIES, '--index', index, '--qrels', QRELS, '--config', config, '--k1', '0.9,1.5', '--apply']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`querylens: ${config}: not changed: not plain JSON at 2:3: a comment`);
    expect(readFileSync(config, 'utf8')).toBe(before);
  }, 60_000);

  it('refuses a grid over the cap, and says what is missing', async () => {
    const big = await querylens(['sweep', QUERIES, '--index', index, '--qrels', QRELS, '--k1', '0.1:3:0.1', '--b', '0:1:0.1']);
    expect(big.status).toBe(2);
    expect(big.stderr.trim()).toBe(`querylens: the grid has 330 settings (30 k1 × 11 b); a sweep runs at most ${MAX_SWEEP_SETTINGS}: use fewer values or a coarser step`);
    const noIndex = await querylens(['sweep', QUERIES, '--index', join(work, 'nowhere'), '--qrels', QRELS, '--k1', '1']);
    expect(noIndex.status).not.toBe(0);
    expect(noIndex.stderr).toMatch(/^querylens: no index at .*nowhere: build one with `querylens index/);
    const noQrels = await querylens(['sweep', QUERIES, '--index', index, '--config', join(work, 'absent.json'), '--k1', '1']);
    expect(noQrels.stderr.trim()).toBe(`querylens: no qrels to evaluate with: pass --qrels FILE or set "qrels" in ${join(work, 'absent.json')}`);
    const mixed = await querylens(['sweep', QUERIES, '--index', index, '--qrels', QRELS, '--k1', '1', '--mu', '1000']);
    expect(mixed.stderr.trim()).toMatch(/--k1 is a parameter of bm25, not of ql/);
  }, 60_000);
});
