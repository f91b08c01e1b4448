/**
 * `querylens weigh` and `querylens export-training` through the CLI entry (run with tsx from the sources).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnalyzer } from '../../server/engine/analysis/index.js';
import { ensureBuilt } from '../support/build.js';
import { runProcess } from '../support/process.js';
import { REPO_ROOT, syntheticCorpus } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'ql-model-cli-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// Asynchronous children (test/support/process.ts): a slow CLI start must not block vitest's worker RPC.
function cli(args: string[]) {
  return runProcess(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'server/cli/main.ts'), ...args], { cwd: REPO_ROOT, timeoutMs: 120_000 });
}

describe('querylens weigh', () => {
  // The shipped TW-BERT weighs a query by the statistics of the index it will run on.
  let index: string;
  beforeAll(async () => {
    index = await syntheticIndex('weigh-index', 200, 4);
  }, 120_000);

  it('prints an .indri line file of #weight queries with #1 bi-grams, qids kept', async () => {
    const queries = join(work, 'q.tsv');
    writeFileSync(queries, '7\tlaminar flow over a flat plate\n8\tthe of and\n');
    const r = await cli(['weigh', queries, '--device', 'cpu', '--index', index]);
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^\/\/ weighted by twbert/);
    expect(lines[1]).toMatch(/^7\t#weight\( [\d.]+ laminar [\d.]+ flow .*#1\(laminar flow\).* \)$/);
    expect(lines[2]).toBe('8\tthe of and');
  });

  it('deepct weighs words only; a missing model folder is one explained line, exit code 2', async () => {
    const queries = join(work, 'q2.tsv');
    writeFileSync(queries, '1\theat transfer in boundary layers\n');
    const ok = await cli(['weigh', queries, '--model', 'deepct', '--device', 'cpu', '--index', index]);
    expect(ok.status).toBe(0);
    expect(ok.stdout).not.toMatch(/#1\(/);
    const bad = await cli(['weigh', queries, '--model-dir', join(work, 'none')]);
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/No term-weighting model/);
  });

  it('a collection-aware model without an index to read is one explained line, exit code 2', async () => {
    const queries = join(work, 'q3.tsv');
    writeFileSync(queries, '1\theat transfer in boundary layers\n');
    // No --index, and no querylens.json in the working folder to name one.
    // The built CLI: tsx is not resolvable from a folder outside the repository.
    ensureBuilt();
    const r = await runProcess(process.execPath, [join(REPO_ROOT, 'bin', 'querylens.js'), 'weigh', queries, '--device', 'cpu'], { cwd: work, timeoutMs: 120_000 });
    expect(r.status, r.stdout).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/the twbert model weighs a query by the statistics of the collection it runs on, so it needs an index/);
  });
  it('--show draws uni-grams then bi-grams as bars whose lengths follow the weights (paper Figure 4)', async () => {
    const queries = join(work, 'show.tsv');
    writeFileSync(queries, '7\tlaminar flow over a flat plate\n8\tthe of and\n');
    const [shown, json] = await Promise.all([cli(['weigh', queries, '--device', 'cpu', '--show', '--index', index]), cli(['weigh', queries, '--device', 'cpu', '--json', '--index', index])]);
    expect(shown.status, shown.stderr).toBe(0);
    const merged = JSON.parse(json.stdout)[0].merged as { kind: string; words: string[]; weight: number }[];
    const lines = shown.stdout.split('\n');
    const at = lines.indexOf('7  laminar flow over a flat plate');
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toBe('  uni-grams');
    expect(lines[at + 2 + 4]).toBe('  bi-grams');
    const bars = [...lines.slice(at + 2, at + 6), ...lines.slice(at + 7, at + 10)];
    const max = Math.max(...merged.map((g) => g.weight));
    const eighths = (bar: string) => [...bar].reduce((n, ch) => n + (ch === '█' ? 8 : '▏▎▍▌▋▊▉'.indexOf(ch) + 1), 0);
    bars.forEach((line, i) => {
      const g = merged[i];
      const m = /^    (.+?)\s+([█▏▎▍▌▋▊▉]*)\s+([\d.e-]+)$/u.exec(line);
      expect(m, line).not.toBeNull();
      expect(m![1]).toBe(g.words.join(' '));
      expect(Number(m![3])).toBe(Number(g.weight.toPrecision(3)));
      // 40 columns for the query's largest weight, in eighths of a column.
      expect(eighths(m![2])).toBe(Math.round((g.weight / max) * 40 * 8));
    });
    expect(lines[at + 11]).toBe('8  the of and');
    expect(lines[at + 12]).toMatch(/nothing to weigh/);
    const both = await cli(['weigh', queries, '--show', '--json']);
    expect(both.status).toBe(2);
    expect(both.stderr).toMatch(/--json and --show/);
  });
});

/** A synthetic corpus of `docs` documents, indexed with `querylens index` into `work/name`. */
async function syntheticIndex(name: string, docs: number, seed: number): Promise<string> {
  const corpus = join(work, `${name}.jsonl`);
  writeFileSync(corpus, syntheticCorpus(docs, seed).map((d) => JSON.stringify({ _id: d.docno, title: d.fields.title, text: d.fields.text })).join('\n') + '\n');
  const index = join(work, name);
  expect((await cli(['index', corpus, '--out', index, '--no-progress'])).status).toBe(0);
  return index;
}

describe('querylens export-training', () => {
  it('writes one record per query with engine statistics and the judged documents', async () => {
    const index = await syntheticIndex('idx', 80, 4);
    const queries = join(work, 'train.tsv');
    writeFileSync(queries, 'a\tlaminar flow\nb\tshock wave over the wing\n');
    const qrels = join(work, 'qrels.txt');
    writeFileSync(qrels, 'a 0 D3 1\nb 0 D5 2\n');
    const out = join(work, 'train.jsonl');
    const r = await cli(['export-training', '--index', index, queries, '--qrels', qrels, '--out', out, '-k', '20', '--source', 'test']);
    expect(r.status).toBe(0);
    const records = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(records.map((x) => x.qid)).toEqual(['a', 'b']);
    const b = records[1];
    expect(b.source).toBe('test');
    expect(b.N).toBe(80);
    expect(b.ngrams.map((g: { terms: string[] }) => g.terms.join(' '))).toEqual(['shock', 'wave', 'wing', 'shock wave', 'wave wing']);
    expect(b.docs.find((d: { docno: string }) => d.docno === 'D5').rel).toBe(2);
    expect(b.docs.filter((d: { rank: number | null }) => d.rank !== null).length).toBeLessThanOrEqual(20);
    expect(b.ids[0]).toBe(101);
    const bad = await cli(['export-training', '--index', join(work, 'nope'), queries, '--out', out]);
    expect(bad.status).toBe(2);
  });

  it("--expand bo1 writes what TW-BERT + Bo1 reads: the query, then Bo1's new words (flagged, uni-grams only), with the expanded query's candidates", async () => {
    const index = await syntheticIndex('idx-bo1', 200, 6);
    const queries = join(work, 'train-bo1.tsv');
    const topics: [string, string][] = [['a', 'laminar flow'], ['b', 'shock wave over the wing']];
    writeFileSync(queries, topics.map(([q, t]) => `${q}\t${t}`).join('\n') + '\n');
    const qrels = join(work, 'qrels-bo1.txt');
    writeFileSync(qrels, 'a 0 D3 1\nb 0 D5 2\n');
    const out = join(work, 'train-bo1.jsonl');
    const [exported, expanded, bo1Run] = await Promise.all([
      cli(['export-training', '--index', index, queries, '--qrels', qrels, '--out', out, '-k', '20', '--expand', 'bo1']),
      cli(['expand', '--index', index, queries, '--json']),
      cli(['search', '--index', index, queries, '--expand', 'bo1', '-k', '20']),
    ]);
    expect(exported.status, exported.stderr).toBe(0);
    const analyzer = createAnalyzer('terrier');
    const bo1 = JSON.parse(expanded.stdout) as { qid: string; terms: { term: string; isOriginal: boolean }[] }[];
    const records = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    let expansionWords = 0;
    for (const [qid, text] of topics) {
      const rec = records.find((r) => r.qid === qid)!;
      const queryTerms = new Set(analyzer.analyze(text).map((t) => t.term));
      const added = bo1.find((q) => q.qid === qid)!.terms.filter((t) => !t.isOriginal && !queryTerms.has(t.term)).map((t) => t.term);
      expect(added.length, qid).toBeGreaterThan(0);
      expansionWords += added.length;
      // The model's text: the query as written, a space, one word per new Bo1 term in Bo1's order.
      expect(rec.queryEnd).toBe(text.length);
      expect(rec.query.slice(0, text.length + 1)).toBe(`${text} `);
      expect(rec.query.slice(text.length + 1).split(' ').map((w: string) => analyzer.analyzeTerm(w)[0])).toEqual(added);
      // Flagged n-grams are exactly those words, as uni-grams; every bi-gram lies inside the query.
      const ngrams = rec.ngrams as { terms: string[]; expansion?: true }[];
      expect(ngrams.filter((g) => g.expansion).map((g) => g.terms)).toEqual(added.map((t) => [t]));
      for (const g of ngrams.filter((x) => x.terms.length > 1)) expect(g.terms.every((t) => queryTerms.has(t)), g.terms.join(' ')).toBe(true);
      // Candidates ranked as the engine's Bo1-expanded query ranks them.
      const ranked = (rec.docs as { docno: string; rank: number | null }[]).filter((d) => d.rank !== null).sort((x, y) => x.rank! - y.rank!).map((d) => d.docno);
      const run = bo1Run.stdout.trim().split('\n').map((l) => l.split(' ')).filter((f) => f[0] === qid).map((f) => f[2]);
      expect(ranked).toEqual(run);
    }
    expect(expansionWords).toBeGreaterThanOrEqual(5);
    for (const [args, message] of [
      [['--expand', 'rm3'], /unknown --expand 'rm3' \(expected bo1/],
      [['--fb-docs', '5'], /--fb-docs and --fb-terms need --expand bo1/],
    ] as [string[], RegExp][]) {
      const bad = await cli(['export-training', '--index', index, queries, '--out', join(work, 'never.jsonl'), ...args]);
      expect(bad.status).toBe(2);
      expect(bad.stderr).toMatch(message);
    }
  });
});
