/**
 * `querylens eval-model` (`npm run eval:model`) on small slices (the first 12 queries of ADI and
 * TIME) with the shipped model: the summary and per-collection tables' structure, wins/losses that
 * add up, the provenance line from config.json, and every row equal to `querylens search` (+ `querylens
 * eval`) for the same queries. The full run over all nine collections is a script (README
 * "Measured effect"), not a test.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/build.js';
import { runChecked, runProcess } from '../support/process.js';
import { DATA_DIR, hasCollection } from '../server/search/helpers/collections.js';
import { REPO_ROOT } from './helpers.js';
import { describeProvenance, formatModelTables, type CollectionResult, type PairedResult } from '../../server/cli/commands/eval-model.js';
import { readQrelsFile } from '../../server/engine/eval/index.js';
import { openIndex } from '../../server/engine/index/disk.js';

const CLI = join(REPO_ROOT, 'bin', 'querylens.js');
const QUERIES = 12;
const work = mkdtempSync(join(tmpdir(), 'ql-eval-model-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const ql = (...args: string[]) => runChecked(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, timeoutMs: 300_000 });

type Paired = PairedResult;
interface System {
  id: string;
  label: string;
  means: Record<string, number>;
  vsBm25: Record<string, Paired> | null;
  vsPhrase: Record<string, Paired> | null;
}
interface Result {
  collection: { name: string; role: string };
  uses: string[];
  queries: number;
  systems: System[];
}

describe.skipIf(!hasCollection('adi') || !hasCollection('time'))('querylens eval-model', () => {
  let json: { header: string[]; results: Result[] };
  let markdown: string;

  beforeAll(async () => {
    ensureBuilt();
    const common = ['eval-model', '--data', DATA_DIR, '--collections', 'adi,time', '--queries', String(QUERIES), '--cache', join(work, 'cache'), '--device', 'cpu'];
    // JSON on stdout, the markdown tables (what the README shows) in --out, every run in --runs.
    json = JSON.parse(await ql(...common, '--json', '--runs', join(work, 'runs'), '--out', join(work, 'table.md')));
    markdown = readFileSync(join(work, 'table.md'), 'utf8');
  }, 600_000);

  it('compares the five systems on MAP and nDCG@10, against uniform BM25 and against the phrase rule', () => {
    expect(json.results.map((r) => r.collection.name)).toEqual(['adi', 'time']);
    for (const r of json.results) {
      expect(r.queries).toBe(QUERIES);
      expect(r.collection.role).toBe('training');
      expect(r.systems.map((s) => s.id)).toEqual(['bm25', 'phrase', 'bm25-bo1', 'model', 'model-bo1']);
      const [bm25, phrase] = r.systems;
      expect(bm25.vsBm25).toBeNull();
      expect(bm25.vsPhrase).toBeNull();
      expect(phrase.vsPhrase).toBeNull();
      for (const s of r.systems.slice(1)) {
        for (const [baseline, vs] of [[bm25, s.vsBm25], [phrase, s.vsPhrase]] as const) {
          if (vs === null) continue;
          for (const m of ['map', 'ndcg_cut_10']) {
            expect(vs[m].changePercent).toBeCloseTo(((s.means[m] - baseline.means[m]) / baseline.means[m]) * 100, 9);
            expect(vs[m].wins + vs[m].losses + vs[m].ties).toBe(QUERIES);
            expect(vs[m].p).toBeGreaterThanOrEqual(0);
            expect(vs[m].p).toBeLessThanOrEqual(1);
            expect(vs[m].significant).toBe(vs[m].p < 0.05);
          }
        }
      }
    }
  });

  it('says which collections trained and selected the model, from config.json', () => {
    const config = JSON.parse(readFileSync(join(REPO_ROOT, 'model', 'artifacts', 'config.json'), 'utf8'));
    const provenance = config.models.twbert.provenance;
    expect(provenance.trainedOn.length).toBeGreaterThan(0);
    expect(json.header.some((h) => h.startsWith('The model was trained on '))).toBe(true);
    expect(markdown).toContain('The model was trained on ');
    expect(describeProvenance(undefined, {})).toMatch(/does not say which collections/);
    expect(describeProvenance({ trainedOn: ['cacm'], selectedOn: ['lisa'] }, { cacm: 'CACM', lisa: 'LISA' })).toBe(
      'The model was trained on CACM; its knobs and checkpoint were selected on LISA. A figure on such a collection is not a held-out figure.',
    );
  });

  it('prints a summary with the mean of the training collections, then one table per collection', () => {
    const lines = markdown.split('\n');
    const rows = lines.filter((l) => l.startsWith('| '));
    expect(rows[0]).toBe('| MAP change vs uniform BM25 | BM25 MAP | Phrase rule | BM25 + Bo1 | TW-BERT | TW-BERT + Bo1 |');
    // The label says whether the shipped model trained or was selected on the collection (config.json provenance).
    const role = (name: string) => {
      const { trainedOn, selectedOn } = JSON.parse(readFileSync(join(REPO_ROOT, 'model', 'artifacts', 'config.json'), 'utf8')).models.twbert.provenance;
      const roles = [trainedOn.includes(name) && 'trained on', selectedOn.includes(name) && 'selected on'].filter(Boolean);
      return roles.length ? `; model ${roles.join(', ')}` : '';
    };
    const adiLabel = `ADI (${QUERIES} q, training${role('adi')})`;
    expect(rows[1].startsWith(`| ${adiLabel} | `), rows[1]).toBe(true);
    expect(rows[1].slice(adiLabel.length + 2)).toMatch(/^ \| \d\.\d{4}( \| [+−]\d+\.\d%†?){4} \|$/);
    expect(rows[2]).toMatch(/^\| TIME /);
    // The mean row is the mean of the two collections' changes.
    const change = (row: string, col: number) => Number(row.split(' | ')[col].replace('−', '-').replace(/[%†| ]/g, ''));
    expect(rows[3]).toMatch(/^\| \*\*mean of the 2 training collections\*\* \| — \|/);
    for (let col = 2; col <= 5; col++) expect(change(rows[3], col)).toBeCloseTo((change(rows[1], col) + change(rows[2], col)) / 2, 0);
    const adi = rows.findIndex((r, i) => i > 3 && r.startsWith('| ADI'));
    expect(rows[adi]).toBe(`| ${adiLabel} | MAP | nDCG@10 | vs BM25: W/L, MAP test | vs phrase rule: MAP change, W/L, test |`);
    expect(rows.slice(adi + 1, adi + 6).map((r) => r.split(' | ')[0].slice(2))).toEqual(['Uniform BM25', 'Phrase rule', 'BM25 + Bo1', 'TW-BERT', 'TW-BERT + Bo1']);
    expect(rows[adi + 3]).toMatch(/^\| BM25 \+ Bo1 \| \d\.\d{4} \([+−]\d+\.\d%\)†? \| \d\.\d{4} \([+−]\d+\.\d%\)†? \| \d+\/\d+, p[=<]\d\.\d{3} \| [+−]\d+\.\d%†?, \d+\/\d+, p[=<]\d\.\d{3} \|$/);
  });

  it('formats a reporting set apart from the training mean', () => {
    const fake = (name: string, role: 'training' | 'reporting', change: number): CollectionResult => {
      const paired = { changePercent: change, p: 0.5, significant: false, wins: 1, losses: 1, ties: 0 };
      const vs = { map: paired, ndcg_cut_10: paired };
      const r: CollectionResult = {
        collection: { name, label: name, role, corpusName: name, corpus: '', queries: '', qrels: '' },
        uses: role === 'reporting' ? [] : ['trained'],
        queries: 2,
        testDescription: 'two-sided paired t-test',
        seconds: {},
        systems: (['bm25', 'phrase', 'bm25-bo1', 'model', 'model-bo1'] as const).map((id, i) => ({
          id,
          label: id,
          means: { map: 0.5, ndcg_cut_10: 0.5 },
          vsBm25: i === 0 ? null : vs,
          vsPhrase: i <= 1 ? null : vs,
        })),
      };
      return r;
    };
    const text = formatModelTables([fake('a', 'training', 2), fake('b', 'training', 4), fake('r', 'reporting', -1)], []);
    const rows = text.split('\n').filter((l) => l.startsWith('| '));
    expect(rows.slice(1, 5)).toEqual([
      '| a (2 q, training; model trained on) | 0.5000 | +2.0% | +2.0% | +2.0% | +2.0% |',
      '| b (2 q, training; model trained on) | 0.5000 | +4.0% | +4.0% | +4.0% | +4.0% |',
      '| **mean of the 2 training collections** | — | +3.0% | +3.0% | +3.0% | +3.0% |',
      '| r (2 q, reporting) | 0.5000 | −1.0% | −1.0% | −1.0% | −1.0% |',
    ]);
    // With collections the model never used among the training ones, their own mean follows.
    const held = (name: string, change: number) => ({ ...fake(name, 'training', change), uses: [] });
    const mixed = formatModelTables([fake('a', 'training', 2), held('c', 1), held('d', -4)], []).split('\n').filter((l) => l.startsWith('| '));
    expect(mixed.slice(4, 6)).toEqual([
      '| **mean of the 3 training collections** | — | −0.3% | −0.3% | −0.3% | −0.3% |',
      '| **mean of the 2 training collections the model never used** | — | −1.5% | −1.5% | −1.5% | −1.5% |',
    ]);
  });

  it('the uniform row equals `querylens eval` of a plain `querylens search`', async () => {
    const queries = join(work, 'first.tsv');
    writeFileSync(queries, readFileSync(join(DATA_DIR, 'adi', 'queries.tsv'), 'utf8').split('\n').slice(0, QUERIES).join('\n') + '\n');
    const run = join(work, 'plain.run');
    writeFileSync(run, await ql('search', '--index', join(work, 'cache', 'adi'), queries));
    const evaluated = JSON.parse(await ql('eval', join(DATA_DIR, 'adi', 'qrels.txt'), run, '-m', 'map,ndcg_cut_10', '--json'));
    expect(evaluated.numQueries).toBe(QUERIES);
    const bm25 = json.results[0].systems[0];
    for (const m of ['map', 'ndcg_cut_10']) expect(bm25.means[m], m).toBe(evaluated.mean[m]);
  }, 300_000);

  it.each([
    ['bm25', ''],
    ['phrase', '--weights phrase'],
    ['bm25-bo1', '--expand bo1'],
    ['model', '--weights twbert'],
    ['model-bo1', '--weights twbert --expand bo1'],
  ])('row %s ranks exactly as `querylens search %s`', async (id, flagText) => {
    const flags = flagText.split(' ').filter(Boolean);
    const queries = join(work, 'first-time.tsv');
    writeFileSync(queries, readFileSync(join(DATA_DIR, 'time', 'queries.tsv'), 'utf8').split('\n').slice(0, QUERIES).join('\n') + '\n');
    const device = flags.includes('twbert') ? ['--device', 'cpu'] : [];
    const searched = await ql('search', '--index', join(work, 'cache', 'time'), queries, '--run-id', id, ...flags, ...device);
    expect(readFileSync(join(work, 'runs', `time.${id}.run`), 'utf8')).toBe(searched);
  }, 300_000);

  it('`search --weights phrase` ranks the rule written out by hand: #weight(1 a 1 b 0.25 #1(a b))', async () => {
    const q = join(work, 'phrase.tsv');
    writeFileSync(q, '1\tthe Kennedy administration of Vietnam\n');
    const byRule = await ql('search', '--index', join(work, 'cache', 'time'), q, '--weights', 'phrase', '-k', '20');
    const hand = join(work, 'phrase.indri');
    writeFileSync(hand, '#weight( 1 kennedy 1 administration 1 vietnam 0.25 #1(kennedy administration) 0.25 #1(administration vietnam) )\n');
    const byHand = await ql('search', '--index', join(work, 'cache', 'time'), hand, '-k', '20');
    expect(byRule.length).toBeGreaterThan(0);
    expect(byRule).toBe(byHand);
  }, 120_000);

  it('--loco ranks each training collection with its fold model, checked to have left it out', async () => {
    const artifacts = join(REPO_ROOT, 'model', 'artifacts');
    const fold = (dir: string, name: string, provenance: unknown) => {
      const to = join(work, dir, name);
      mkdirSync(to, { recursive: true });
      cpSync(artifacts, to, { recursive: true });
      const config = JSON.parse(readFileSync(join(to, 'config.json'), 'utf8'));
      config.models.twbert.provenance = provenance;
      writeFileSync(join(to, 'config.json'), JSON.stringify(config));
    };
    const others = { trainedOn: ['cacm', 'lisa'], selectedOn: ['cranfield'] };
    fold('folds', 'adi', others);
    fold('folds', 'time', others);
    const common = ['eval-model', '--data', DATA_DIR, '--collections', 'adi,time', '--queries', String(QUERIES), '--cache', join(work, 'cache'), '--device', 'cpu'];
    const loco = JSON.parse(await ql(...common, '--json', '--loco', join(work, 'folds'))) as { header: string[]; results: (Result & { fold?: boolean })[] };
    expect(loco.header.some((h) => h.startsWith('Leave-one-collection-out: '))).toBe(true);
    loco.results.forEach((r, i) => {
      expect(r.fold).toBe(true);
      expect(r.uses).toEqual([]);
      // The folds are copies of the shipped model here, so every row equals the plain run's.
      r.systems.forEach((s, j) => expect(s.means).toEqual(json.results[i].systems[j].means));
    });
    // A fold that used its own collection, or a missing fold, is refused in one line.
    fold('bad', 'adi', { trainedOn: ['adi'], selectedOn: [] });
    for (const [dir, message] of [
      [join(work, 'bad'), /--loco: the fold model in .* was trained or selected on ADI itself/],
      [join(work, 'nowhere'), /--loco: no fold model for ADI/],
    ] as const) {
      const r = await runProcess(process.execPath, [CLI, ...common, '--loco', dir], { cwd: REPO_ROOT });
      expect(r.status).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(message);
    }
  }, 300_000);

  it('--information: the pairs and agreement of its table, recomputed from `weigh --json`, the qrels and the postings', async () => {
    const common = ['--data', DATA_DIR, '--collections', 'adi', '--queries', String(QUERIES), '--cache', join(work, 'cache'), '--device', 'cpu'];
    const table = await ql('eval-model', '--information', ...common);
    const row = table.split('\n').find((l) => l.startsWith('| ADI |'))!;
    const cells = row.split(' | ');
    // The same queries weighed by `querylens weigh`, their words' relevance weights computed here from the index.
    const queries = join(work, 'information.tsv');
    writeFileSync(queries, readFileSync(join(DATA_DIR, 'adi', 'queries.tsv'), 'utf8').split('\n').slice(0, QUERIES).join('\n') + '\n');
    const weighed = JSON.parse(await ql('weigh', queries, '--json', '--index', join(work, 'cache', 'adi'), '--device', 'cpu')) as {
      qid: string;
      merged: { kind: string; terms: string[]; weight: number; occurrences: number }[];
    }[];
    const reader = openIndex(join(work, 'cache', 'adi'));
    const qrels = readQrelsFile(join(DATA_DIR, 'adi', 'qrels.txt'));
    const N = reader.stats().numDocs;
    let pairs = 0;
    let agree = 0;
    for (const q of weighed) {
      const relevant = [...(qrels.get(q.qid) ?? [])].filter(([, g]) => g > 0).map(([d]) => reader.docByDocno(d)).filter((d) => d !== undefined);
      if (!relevant.length) continue;
      const R = relevant.length;
      const words = q.merged
        .filter((g) => g.kind === 'unigram')
        .flatMap((g) => {
          // A word the collection lacks has no relevance weight.
          const postings = reader.postings(g.terms[0]!);
          if (!postings) return [];
          const docs = new Set(postings.docs);
          const r = relevant.filter((d) => docs.has(d)).length;
          const n = docs.size;
          return [{ weight: g.weight / g.occurrences, rsj: Math.log((r + 0.5) / (R - r + 0.5)) - Math.log((n - r + 0.5) / (N - n - R + r + 0.5)) }];
        });
      for (const a of words) {
        for (const b of words) {
          if (a.rsj - b.rsj < 1) continue;
          pairs++;
          agree += Math.abs(a.weight - b.weight) <= 1e-9 ? 0.5 : a.weight > b.weight ? 1 : 0;
        }
      }
    }
    expect(pairs).toBeGreaterThan(20);
    expect(Number(cells[2])).toBe(pairs);
    expect(cells[3]).toBe(`${((100 * agree) / pairs).toFixed(0)} %`);
    // The model was read: this checkout's provenance line is above the table.
    expect(table).toMatch(/The model was trained on/);
    // --json carries the same readings.
    const json = JSON.parse(await ql('eval-model', '--information', '--json', ...common)) as { collections: { collection: string; topicOrder: { pairs: number; agree: number } }[] };
    expect(json.collections.map((c) => c.collection)).toEqual(['ADI']);
    expect(json.collections[0]!.topicOrder.pairs).toBe(pairs);
    expect(json.collections[0]!.topicOrder.agree).toBeCloseTo(agree / pairs, 12);
  }, 300_000);

  it('a missing collection or model, or a phrase rule with expansion, is one clear line and a non-zero exit', async () => {
    for (const args of [
      ['eval-model', '--data', join(work, 'nowhere'), '--collections', 'adi'],
      ['eval-model', '--collections', 'msmarco'],
      ['eval-model', '--model-dir', join(work, 'no-model')],
      ['eval-model', '--information', '--runs', join(work, 'information-runs')],
      ['search', '--index', join(work, 'cache', 'time'), join(work, 'phrase.tsv'), '--weights', 'phrase', '--expand', 'bo1'],
    ]) {
      const extra = args[0] === 'eval-model' ? ['--cache', join(work, 'cache'), '--device', 'cpu'] : [];
      const r = await runProcess(process.execPath, [CLI, ...args, ...extra], { cwd: REPO_ROOT });
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
    }
  }, 120_000);
});
