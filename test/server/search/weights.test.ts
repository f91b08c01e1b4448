/**
 * `querylens search --weights twbert|deepct|none [--expand bo1]` with the real shipped model
 * (model/artifacts) on the sample Cranfield corpus, run as the user runs it (node bin/querylens.js).
 * Differential: the one-step search must equal the two steps a user could take by hand (`weigh`,
 * then `search` of the weighted file), and a model-weighted Bo1 query must hold Bo1's terms with the
 * model's weights for the query + expansion text (paper §5.3), the expansion words' times the model's
 * learned expansion factor (config.json expansionScale, 1 for a model that weighs them itself), not Bo1's own weights.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseText } from '../../../grammar/index.js';
import { createAnalyzer } from '../../../server/engine/analysis/index.js';
import { expansionScaleOf, loadWeightModel } from '../../../server/model/runtime.js';
import { openLocalBackend } from '../../../server/service/backend.js';
import { bo1ModelInput, modelStatistics } from '../../../server/service/ranking.js';
import { ensureBuilt } from '../../support/build.js';
import { runChecked, runProcess } from '../../support/process.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const CLI = join(ROOT, 'bin', 'querylens.js');
const work = mkdtempSync(join(tmpdir(), 'ql-search-weights-'));
const index = join(work, 'cran');
const SAMPLE_QUERIES = join(ROOT, 'samples', 'queries.indri');
// Cranfield queries 1, 5, 6 and 8 as written (plain-text topics), and one with nothing to weigh.
const TSV = join(work, 'q.tsv');
const TOPICS: [string, string][] = [
  ['1', 'what similarity laws must be obeyed when constructing aeroelastic models of heated high speed aircraft .'],
  ['5', 'what chemical kinetic system is applicable to hypersonic aerodynamic problems .'],
  ['6', 'what theoretical and experimental guides do we have as to turbulent couette flow behaviour .'],
  ['8', 'what methods -dash exact or approximate -dash are presently available for predicting body pressures at angle of attack.'],
];

const ql = (...args: string[]) => runChecked(process.execPath, [CLI, ...args], { cwd: ROOT, timeoutMs: 120_000 });

beforeAll(async () => {
  ensureBuilt();
  await ql('index', join(ROOT, 'samples', 'cranfield', 'corpus.jsonl'), '--out', index, '--no-progress');
  writeFileSync(TSV, TOPICS.map(([q, t]) => `${q}\t${t}`).join('\n') + '\n');
}, 180_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** `#weight( w t … )` of a printed query → [weight, item] pairs, items as printed (`t`, `#1(a b)`). */
function weightedItems(query: string): [number, string][] {
  const body = query.replace(/^#weight\(\s*/, '').replace(/\s*\)$/, '');
  const out: [number, string][] = [];
  const re = /([\d.eE+-]+) (#1\([^)]*\)|\S+)/g;
  for (let m = re.exec(body); m; m = re.exec(body)) out.push([Number(m[1]), m[2]!]);
  return out;
}

function queryLines(file: string): Map<string, string> {
  const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l && !l.startsWith('//'));
  return new Map(lines.map((l) => [l.slice(0, l.indexOf('\t')), l.slice(l.indexOf('\t') + 1)]));
}

describe('querylens search --weights', () => {
  it.each([
    ['twbert', 'samples/queries.indri', SAMPLE_QUERIES],
    ['deepct', 'samples/queries.indri', SAMPLE_QUERIES],
    ['twbert', 'plain-text topics (.tsv)', TSV],
  ])('--weights %s on %s equals `weigh` then `search` of the weighted file', async (model, _label, queries) => {
    const weighted = join(work, `weighted.${model}.indri`);
    await ql('weigh', queries, '--model', model, '--device', 'cpu', '--index', index, '-o', weighted);
    const [twoSteps, oneStep, plain] = await Promise.all([
      ql('search', '--index', index, weighted, '-k', '100'),
      ql('search', '--index', index, queries, '-k', '100', '--weights', model, '--device', 'cpu'),
      ql('search', '--index', index, queries, '-k', '100'),
    ]);
    expect(oneStep.length).toBeGreaterThan(0);
    expect(oneStep).toBe(twoSteps);
    // The weights change the ranking: otherwise this test could not tell them from none.
    expect(oneStep).not.toBe(plain);
  }, 120_000);

  it('--weights none is the query as written, with and without --expand bo1', async () => {
    for (const extra of [[], ['--expand', 'bo1']]) {
      const [none, noFlag] = await Promise.all([
        ql('search', '--index', index, SAMPLE_QUERIES, '-k', '50', '--weights', 'none', ...extra),
        ql('search', '--index', index, SAMPLE_QUERIES, '-k', '50', ...extra),
      ]);
      expect(none.length).toBeGreaterThan(0);
      expect(none).toBe(noFlag);
    }
  }, 120_000);

  it('--expand bo1 --weights twbert: Bo1 picks the terms after a uniform pass, the model weighs query and expansion terms together', async () => {
    const used = join(work, 'twbert-bo1.indri');
    const run = await ql('search', '--index', index, TSV, '-k', '100', '--expand', 'bo1', '--weights', 'twbert', '--device', 'cpu', '--queries-out', used);
    // The printed queries are what was ranked: searching them gives the same run.
    expect(await ql('search', '--index', index, used, '-k', '100')).toBe(run);
    expect(run).not.toBe(await ql('search', '--index', index, TSV, '-k', '100', '--expand', 'bo1'));

    const bo1 = JSON.parse(await ql('expand', '--index', index, TSV, '--json')) as { qid: string; terms: { term: string; weight: number; isOriginal: boolean }[] }[];
    const analyzer = createAnalyzer('terrier');
    const finalQueries = queryLines(used);
    let expansionTermsSeen = 0;
    const checks: { qid: string; text: string; unigrams: [number, string][]; expansionWords: string[]; expected: { term: string; weight: number }[] }[] = [];
    for (const [qid, text] of TOPICS) {
      const items = weightedItems(finalQueries.get(qid)!);
      const queryTerms = new Set(analyzer.analyze(text).map((t) => t.term));
      const unigrams = items.filter(([, item]) => !item.startsWith('#1('));
      // Words after the query's own are the expansion words, in Bo1's order.
      const expansionWords = unigrams.map(([, w]) => w).filter((w) => !queryTerms.has(analyzer.analyzeTerm(w)[0]!));
      const expected = bo1.find((q) => q.qid === qid)!.terms.filter((t) => !t.isOriginal && !queryTerms.has(t.term));
      expect(expansionWords.map((w) => analyzer.analyzeTerm(w)[0]), `query ${qid}`).toEqual(expected.map((t) => t.term));
      expansionTermsSeen += expansionWords.length;
      // No bi-gram involves an expansion word: expansion terms are a bag, not a phrase.
      for (const [, item] of items.filter(([, i]) => i.startsWith('#1('))) {
        for (const w of item.slice(3, -1).split(' ')) expect(queryTerms.has(analyzer.analyzeTerm(w)[0]!), item).toBe(true);
      }
      checks.push({ qid, text, unigrams, expansionWords, expected });
    }
    // The weights are the model's for "query + expansion words" (bo1ModelInput: one batched weigh, with the
    // statistics of that input in this index when the model reads them), not Bo1's; the expansion words' are
    // multiplied by the model's expansion factor (config.json expansionScale; 1 when the graph weighs Bo1's words
    // itself, as the shipped adaptive model does), the query's are not.
    const loaded = await loadWeightModel(join(ROOT, 'model', 'artifacts'), { model: 'twbert', device: 'cpu' });
    if (!loaded.ok) throw loaded.error;
    const backend = openLocalBackend(index);
    try {
      const scale = expansionScaleOf(loaded.model);
      expect(scale).toBeGreaterThan(0);
      expect(scale).toBeLessThanOrEqual(1);
      const inputs = checks.map((c) => bo1ModelInput(backend, parseText(c.text).ast, c.text, { method: 'bo1' }, { scorer: 'bm25' }));
      for (const [i, c] of checks.entries()) expect(inputs[i].text).toBe(`${c.text} ${c.expansionWords.join(' ')}`);
      const statistics = loaded.model.readsStatistics ? inputs.map((input) => modelStatistics(backend, input)) : undefined;
      const model = await loaded.model.weigh(inputs.map((input) => input.text), statistics);
      for (const [i, c] of checks.entries()) {
        for (const [weight, word] of c.unigrams) {
          const term = analyzer.analyzeTerm(word)[0];
          // Repeated words are one item whose weight is the sum of their occurrences'.
          const predicted = model[i].ngrams.filter((g) => g.kind === 'unigram' && g.terms[0] === term).reduce((sum, g) => sum + g.weight, 0);
          const expansion = c.expansionWords.includes(word);
          expect(weight, word).toBe(Number((expansion ? predicted * scale : predicted).toPrecision(4)));
          if (!expansion) continue;
          const bo1Weight = c.expected.find((t) => t.term === term)!.weight;
          expect(Math.abs(weight - bo1Weight), word).toBeGreaterThan(1e-3);
        }
      }
    } finally {
      await loaded.model.dispose();
    }
    expect(expansionTermsSeen).toBeGreaterThanOrEqual(20);
  }, 180_000);

  it('bad choices and a missing model are one clear line and a non-zero exit', async () => {
    const cases: [string[], RegExp][] = [
      [['--weights', 'bert'], /unknown --weights 'bert' \(expected none, phrase, twbert, deepct\)/],
      [['--weights', 'twbert', '--expand', 'rm3'], /--weights twbert combines with --expand bo1 only/],
      [['--weights', 'twbert', '--device', 'tpu'], /unknown --device 'tpu'/],
      [['--model-dir', work], /--model-dir and --device need --weights/],
      [['--weights', 'twbert', '--model-dir', join(work, 'no-model')], /No term-weighting model/],
    ];
    for (const [args, message] of cases) {
      const r = await runProcess(process.execPath, [CLI, 'search', '--index', index, TSV, ...args], { cwd: ROOT });
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
      expect(r.stderr).toMatch(message);
    }
  }, 120_000);
});
