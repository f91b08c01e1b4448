/**
 * `querylens eval-model --learned DIR` (eval-surface.ts) on the first queries of ADI, with a fold model that
 * suggests something (the LSP fixture surface.onnx: a WordNet synonym 0.6, every other candidate 0, beside the
 * shipped word vectors and their neighbour table): every row equals the CLI pipeline a user would run for it, so the table measures what
 * the editor and the CLI do:
 * - learned: `expand --method learned` then `search`;
 * - learned + Bo1: `expand --method learned` then `search --expand bo1`;
 * - TW-BERT + learned + Bo1 (the compare panel's best combination): `weigh`, `expand --method learned` of the
 *   weighted queries, then `search --expand bo1`.
 * The fixture's candidates come from Debian's WordNet: skipped, with the reason printed, without it.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_WORDNET_DIR } from '../../server/model/surface-wordnet.js';
import { ensureBuilt } from '../support/build.js';
import { runChecked, runProcess } from '../support/process.js';
import { DATA_DIR, hasCollection } from '../server/search/helpers/collections.js';
import { REPO_ROOT } from './helpers.js';

const CLI = join(REPO_ROOT, 'bin', 'querylens.js');
const QUERIES = 10;
const FIXTURE = join(REPO_ROOT, 'test', 'lsp', 'fixtures', 'learned-model');
const hasWordNet = existsSync(join(DEFAULT_WORDNET_DIR, 'data.noun'));
if (!hasWordNet) console.log(`skipping eval-model --learned: no WordNet at ${DEFAULT_WORDNET_DIR} (Debian wordnet-base), so the fixture model would suggest nothing`);

const work = mkdtempSync(join(tmpdir(), 'ql-eval-learned-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const ql = (...args: string[]) => runChecked(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, timeoutMs: 300_000 });

interface Cell {
  mean: number;
  change: number | null;
  wins: number;
  losses: number;
}
interface Row {
  collection: { name: string };
  leftOut: string | null;
  queries: number;
  cells: Record<string, Record<string, Cell>>;
  vsBo1: Record<string, Record<string, Cell>>;
  addedPerQuery: number;
  unweighed: number;
}

/** A fold folder: the fixture model with `provenance`, and the shipped word vectors its candidates read. */
function fold(dir: string, provenance: unknown): string {
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(FIXTURE, 'surface.onnx'), join(dir, 'surface.onnx'));
  for (const f of ['surface-embeddings.bin', 'surface-neighbours.bin']) copyFileSync(join(REPO_ROOT, 'model', 'artifacts', f), join(dir, f));
  const config = JSON.parse(readFileSync(join(FIXTURE, 'surface.json'), 'utf8'));
  // The `terms` form (#weight(1 word w alt)), the one the LSP tests' wsyn fixture does not cover.
  writeFileSync(join(dir, 'surface.json'), JSON.stringify({ ...config, form: 'terms', provenance }));
  return dir;
}

describe.skipIf(!hasCollection('adi') || !hasWordNet)('querylens eval-model --learned', () => {
  let rows: Row[];
  let markdown: string;
  const index = join(work, 'cache', 'adi');
  const queries = join(work, 'adi.tsv');
  const qrels = join(DATA_DIR, 'adi', 'qrels.txt');
  const adiFold = join(work, 'folds', 'adi');

  beforeAll(async () => {
    ensureBuilt();
    fold(adiFold, { trainedOn: ['cacm', 'lisa'], selectedOn: ['cacm', 'lisa'], leftOut: 'adi' });
    writeFileSync(queries, readFileSync(join(DATA_DIR, 'adi', 'queries.tsv'), 'utf8').split('\n').slice(0, QUERIES).join('\n') + '\n');
    const common = ['eval-model', '--data', DATA_DIR, '--collections', 'adi', '--queries', String(QUERIES), '--cache', join(work, 'cache'), '--device', 'cpu', '--learned', join(work, 'folds')];
    rows = (JSON.parse(await ql(...common, '--json', '--out', join(work, 'table.md'))) as { rows: Row[] }).rows;
    markdown = readFileSync(join(work, 'table.md'), 'utf8');
  }, 600_000);

  /** MAP of a run file, as `querylens eval` computes it. */
  async function mapOf(run: string): Promise<number> {
    const evaluated = JSON.parse(await ql('eval', qrels, run, '-m', 'map', '--json'));
    expect(evaluated.numQueries).toBe(QUERIES);
    return evaluated.mean.map as number;
  }

  async function pipeline(name: string, steps: { weigh?: boolean; bo1: boolean }): Promise<number> {
    let file = queries;
    if (steps.weigh) {
      file = join(work, `${name}.weighted.indri`);
      await ql('weigh', queries, '--device', 'cpu', '--index', index, '--out', file);
    }
    const expanded = join(work, `${name}.expanded.indri`);
    writeFileSync(expanded, await ql('expand', '--method', 'learned', '--index', index, '--model-dir', adiFold, '--device', 'cpu', file));
    const run = join(work, `${name}.run`);
    writeFileSync(run, await ql('search', '--index', index, expanded, ...(steps.bo1 ? ['--expand', 'bo1'] : [])));
    return mapOf(run);
  }

  it('ranks five systems on the left-out collection with its fold model, and the fixture expands queries', () => {
    expect(rows.map((r) => r.collection.name)).toEqual(['adi']);
    const [adi] = rows;
    expect(adi.leftOut).toBe('adi');
    expect(adi.queries).toBe(QUERIES);
    expect(Object.keys(adi.cells)).toEqual(['bm25', 'bm25-bo1', 'learned', 'learned-bo1', 'twbert-learned-bo1']);
    expect(adi.addedPerQuery).toBeGreaterThan(0);
    expect(adi.unweighed).toBe(0);
    for (const [id, vs] of Object.entries(adi.vsBo1)) {
      const change = ((adi.cells[id].map.mean - adi.cells['bm25-bo1'].map.mean) / adi.cells['bm25-bo1'].map.mean) * 100;
      expect(vs.map.change, id).toBeCloseTo(change, 9);
    }
    // The combinations differ from each other and from Bo1 on these queries, so the rows below are not vacuous.
    expect(adi.cells['twbert-learned-bo1'].map.mean).not.toBe(adi.cells['learned-bo1'].map.mean);
    expect(adi.cells.learned.map.mean).not.toBe(adi.cells.bm25.map.mean);
  });

  it('the learned row equals `expand --method learned` then `search`', async () => {
    expect(rows[0].cells.learned.map.mean).toBeCloseTo(await pipeline('learned', { bo1: false }), 4);
    // The fold model's form: each alternative a term of its own beside the word.
    expect(readFileSync(join(work, 'learned.expanded.indri'), 'utf8')).toContain('#weight( 1 ');
  }, 300_000);

  it('the learned + Bo1 row equals `expand --method learned` then `search --expand bo1`', async () => {
    expect(rows[0].cells['learned-bo1'].map.mean).toBeCloseTo(await pipeline('learned-bo1', { bo1: true }), 4);
  }, 300_000);

  it('the TW-BERT + learned + Bo1 row equals `weigh`, `expand --method learned`, then `search --expand bo1`', async () => {
    expect(rows[0].cells['twbert-learned-bo1'].map.mean).toBeCloseTo(await pipeline('combined', { weigh: true, bo1: true }), 4);
  }, 300_000);

  it('prints the combination and its change against Bo1 in the markdown, with where TW-BERT came from', () => {
    expect(markdown).toContain('| TW-BERT + learned + Bo1 | TW-BERT + learned + Bo1 vs Bo1 (W/L) |');
    expect(markdown).toMatch(/TW-BERT was trained on [^;]+; its knobs and checkpoint were selected on/);
    const adiRow = markdown.split('\n').find((l) => l.startsWith('| ADI (10 q, left out)'))!;
    expect(adiRow.split(' | ')).toHaveLength(10);
  });

  it('a fold model that was trained on its own collection is refused in one line', async () => {
    fold(join(work, 'bad', 'adi'), { trainedOn: ['adi'], selectedOn: [], leftOut: 'adi' });
    const r = await runProcess(process.execPath, [CLI, 'eval-model', '--data', DATA_DIR, '--collections', 'adi', '--queries', '2', '--cache', join(work, 'cache'), '--device', 'cpu', '--learned', join(work, 'bad')], { cwd: REPO_ROOT });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/--learned: the fold model for ADI was trained or selected on it/);
  }, 120_000);
});
