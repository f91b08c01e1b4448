/**
 * `querylens eval-model` (`npm run eval:model`) on a small slice of Cranfield with the real shipped
 * models: the five rows of the paper's Tables 2–3 with MAP, nDCG@10, R@100 and R@1000, where every
 * row is what `querylens search` (+ `querylens eval`) gives for the same queries. The full run over
 * both collections is a script (README "Term weights"), not a test.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/build.js';
import { runChecked, runProcess } from '../support/process.js';
import { DATA_DIR, hasCollection } from '../server/search/helpers/collections.js';
import { REPO_ROOT } from './helpers.js';

const CLI = join(REPO_ROOT, 'bin', 'querylens.js');
const QUERIES = 12;
const work = mkdtempSync(join(tmpdir(), 'ql-eval-model-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const ql = (...args: string[]) => runChecked(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, timeoutMs: 300_000 });

interface Cell {
  mean: number;
  changePercent: number | null;
  significant: boolean;
}

describe.skipIf(!hasCollection('cranfield'))('querylens eval-model', () => {
  let json: { collection: string; queries: number; comparison: { measures: string[]; runIds: string[]; cells: Cell[][]; queries: string[] } }[];
  let markdown: string;

  beforeAll(async () => {
    ensureBuilt();
    const common = ['eval-model', '--data', DATA_DIR, '--collections', 'cranfield', '--queries', String(QUERIES), '--cache', join(work, 'cache'), '--device', 'cpu'];
    // JSON on stdout, the markdown table (what the README shows) in --out, every run in --runs.
    json = JSON.parse(await ql(...common, '--json', '--runs', join(work, 'runs'), '--out', join(work, 'table.md')));
    markdown = readFileSync(join(work, 'table.md'), 'utf8');
  }, 600_000);

  it('compares the five systems on MAP, nDCG@10, R@100 and R@1000 over the chosen queries', () => {
    expect(json).toHaveLength(1);
    const c = json[0].comparison;
    expect(json[0].queries).toBe(QUERIES);
    expect(c.measures).toEqual(['map', 'ndcg_cut_10', 'recall_100', 'recall_1000']);
    expect(c.runIds).toEqual(['bm25', 'deepct', 'twbert', 'bm25-bo1', 'twbert-bo1']);
    for (const row of c.cells) {
      expect(row[0].changePercent).toBeNull();
      for (const cell of row.slice(1)) {
        expect(cell.changePercent).toBeCloseTo(((cell.mean - row[0].mean) / row[0].mean) * 100, 9);
      }
    }
    const rows = markdown.split('\n').filter((l) => l.startsWith('| '));
    expect(rows[0]).toBe(`| Cranfield (${QUERIES} q) | MAP | nDCG@10 | R@100 | R@1000 |`);
    expect(rows.slice(1).map((r) => r.split(' | ')[0].slice(2))).toEqual(['Uniform BM25', 'DeepCT-Query', 'TW-BERT', 'BM25 + Bo1', 'TW-BERT + Bo1']);
    expect(rows[1]).toBe(`| Uniform BM25 | ${c.cells.map((m) => m[0].mean.toFixed(4)).join(' | ')} |`);
    // Other rows: mean (±change%) with † where the paired test says p < 0.05.
    for (const r of rows.slice(2)) expect(r).toMatch(/^\| [^|]+( \| \d\.\d{4} \([+−]\d+\.\d%\)†?){4} \|$/);
  });

  it('the uniform row equals `querylens eval` of a plain `querylens search`', async () => {
    const queries = join(work, 'first.tsv');
    writeFileSync(queries, readFileSync(join(DATA_DIR, 'cranfield', 'queries.tsv'), 'utf8').split('\n').slice(0, QUERIES).join('\n') + '\n');
    const run = join(work, 'plain.run');
    writeFileSync(run, await ql('search', '--index', join(work, 'cache', 'cranfield'), queries));
    const evaluated = JSON.parse(await ql('eval', join(DATA_DIR, 'cranfield', 'qrels.txt'), run, '-m', 'map,ndcg_cut_10,recall_100,recall_1000', '--json'));
    expect(evaluated.numQueries).toBe(QUERIES);
    const c = json[0].comparison;
    c.measures.forEach((m, i) => expect(c.cells[i][0].mean, m).toBe(evaluated.mean[m]));
  }, 300_000);

  it.each([
    ['bm25', ''],
    ['deepct', '--weights deepct'],
    ['twbert', '--weights twbert'],
    ['bm25-bo1', '--expand bo1'],
    ['twbert-bo1', '--weights twbert --expand bo1'],
  ])('row %s ranks exactly as `querylens search %s`', async (id, flagText) => {
    const flags = flagText.split(' ').filter(Boolean);
    const queries = join(work, 'first.tsv');
    writeFileSync(queries, readFileSync(join(DATA_DIR, 'cranfield', 'queries.tsv'), 'utf8').split('\n').slice(0, QUERIES).join('\n') + '\n');
    const device = flags.includes('--weights') ? ['--device', 'cpu'] : [];
    const searched = await ql('search', '--index', join(work, 'cache', 'cranfield'), queries, '--run-id', id, ...flags, ...device);
    expect(readFileSync(join(work, 'runs', `cranfield.${id}.run`), 'utf8')).toBe(searched);
  }, 300_000);

  it('a missing collection or model is one clear line and a non-zero exit', async () => {
    for (const args of [
      ['--data', join(work, 'nowhere'), '--collections', 'cranfield'],
      ['--collections', 'msmarco'],
      ['--model-dir', join(work, 'no-model')],
    ]) {
      const r = await runProcess(process.execPath, [CLI, 'eval-model', '--cache', join(work, 'cache'), '--device', 'cpu', ...args], { cwd: REPO_ROOT });
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
    }
  }, 120_000);
});
