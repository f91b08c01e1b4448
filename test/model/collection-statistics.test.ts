/**
 * Per-n-gram collection statistics (server/model/collection-statistics.ts): the values against a
 * direct count over the corpus, and parity between the training export (`export-training --stats`) and
 * run time (`weigh --index --json`), which must read the same numbers for the same query and index.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAnalyzer } from '../../server/engine/analysis/index.js';
import { buildMemoryIndex } from '../../server/engine/index/index.js';
import { ConceptEvaluator } from '../../server/engine/scoring/concepts.js';
import { search } from '../../server/engine/search.js';
import { parseIndri } from '../../grammar/index.js';
import { FEEDBACK_DOCS, queryStatistics, STATISTIC_NAMES, STATISTICS_TOP_K } from '../../server/model/collection-statistics.js';
import { LocalIndexBackend } from '../../server/service/backend.js';
import { bo1ModelInput, modelStatistics, statisticsExpansionOf } from '../../server/service/ranking.js';
import { openLocalBackend } from '../../server/service/backend.js';
import { planWeighing } from '../../server/model/structured-weights.js';
import { parseText } from '../../grammar/index.js';
import { segmentQuery } from '../../server/model/segment.js';
import { conceptSpecOf } from '../../server/model/training-export.js';
import { runProcess } from '../support/process.js';
import { REPO_ROOT, syntheticCorpus } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'ql-model-stats-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('queryStatistics', () => {
  const corpus = syntheticCorpus(150, 9);
  const reader = buildMemoryIndex(corpus, { profile: 'terrier' });
  const analyzer = createAnalyzer('terrier');
  const tokens = corpus.map((d) => [...analyzer.analyze(d.fields.title), ...analyzer.analyze(d.fields.text)].map((t) => t.term));
  const total = tokens.reduce((s, t) => s + t.length, 0);

  it('gives idf, ictf, top-10 share and Bo1 of each word as a direct count over the corpus does', () => {
    const text = 'laminar flow over the wing with shock waves';
    const stats = queryStatistics(reader, text);
    const top = search(reader, parseIndri('#combine( laminar flow wing shock waves )').ast, { scorer: 'bm25', k: 10 }).hits.map((h) => h.doc);
    expect(stats.topDocs).toEqual(top);
    const words = stats.ngrams.filter((g) => g.terms.length === 1);
    expect(words.map((g) => g.terms[0])).toEqual(['laminar', 'flow', 'wing', 'shock', 'wave']);
    const bo1s: number[] = [];
    for (const g of words) {
      const term = g.terms[0];
      const df = tokens.filter((t) => t.includes(term)).length;
      const cf = tokens.reduce((s, t) => s + t.filter((x) => x === term).length, 0);
      expect(g.stats.idf, term).toBeCloseTo(Math.log(1 + (150 - df + 0.5) / (df + 0.5)), 12);
      expect(g.stats.ictf, term).toBeCloseTo(Math.log(total / cf), 12);
      expect(g.stats.pairRatio).toBe(0);
      expect(g.stats.topShare, term).toBeCloseTo(top.filter((d) => tokens[d].includes(term)).length / 10, 12);
      const tfx = top.reduce((s, d) => s + tokens[d].filter((x) => x === term).length, 0);
      const pn = cf / 150;
      bo1s.push(tfx * Math.log2((1 + pn) / pn) + Math.log2(1 + pn));
    }
    const pairs = stats.ngrams.filter((g) => g.terms.length === 2);
    const max = Math.max(...bo1s, ...pairs.map(() => 0));
    // Bo1 is divided by the query's largest (here a word's: pairs are rarer in the top documents).
    words.forEach((g, i) => expect(g.stats.bo1, g.terms[0]).toBeCloseTo(bo1s[i] / max, 9));
    expect(Math.max(...stats.ngrams.map((g) => g.stats.bo1))).toBeCloseTo(1, 12);
  });

  it("gives a pair the #1 window's df over its rarer word's", () => {
    const stats = queryStatistics(reader, 'boundary layer flow');
    const evaluator = new ConceptEvaluator(reader);
    const df = (terms: string[]) => evaluator.materialize(conceptSpecOf(terms)).df;
    const pairs = stats.ngrams.filter((g) => g.terms.length === 2);
    expect(pairs.map((g) => g.terms.join(' '))).toEqual(['boundari layer', 'layer flow']);
    for (const g of pairs) {
      expect(df(g.terms)).toBeGreaterThan(0);
      expect(g.stats.pairRatio).toBeCloseTo(df(g.terms) / Math.min(df([g.terms[0]]), df([g.terms[1]])), 12);
      expect(g.stats.pairRatio).toBeLessThanOrEqual(1);
    }
  });

  it('a word the collection lacks is explained by its numbers (cf counted as 0.5), not an error', () => {
    const stats = queryStatistics(reader, 'hypersonic flow');
    const missing = stats.ngrams[0];
    expect(missing.terms).toEqual(['hyperson']);
    expect(missing.stats.topShare).toBe(0);
    expect(missing.stats.bo1).toBe(0);
    expect(missing.stats.ictf).toBeCloseTo(Math.log(total / 0.5), 12);
    for (const g of stats.ngrams) for (const name of STATISTIC_NAMES) expect(Number.isFinite(g.stats[name]), name).toBe(true);
  });
});

describe('the statistics TW-BERT + Bo1 reads (which words are Bo1\'s, their w\', the feedback documents)', () => {
  const corpus = syntheticCorpus(150, 9);
  const reader = buildMemoryIndex(corpus, { profile: 'terrier' });
  const analyzer = createAnalyzer('terrier');
  const tokens = corpus.map((d) => new Set([...analyzer.analyze(d.fields.title), ...analyzer.analyze(d.fields.text)].map((t) => t.term)));
  const firstPass = (q: string) => search(reader, parseIndri(`#combine( ${q} )`).ast, { scorer: 'bm25', k: STATISTICS_TOP_K }).hits;

  it('without an expansion: the query\'s own top 3 as feedback documents, no Bo1 word, no w\'', () => {
    const text = 'buckling of the shell in a vortex';
    const stats = queryStatistics(reader, text).ngrams;
    const hits = firstPass('buckling shell vortex');
    const fb = hits.slice(0, FEEDBACK_DOCS).map((h) => h.doc);
    const words = ['buckl', 'shell', 'vortex'];
    const coverage = fb.reduce((s, d) => s + words.filter((w) => tokens[d].has(w)).length, 0) / (fb.length * words.length);
    const gap = 1 - hits[hits.length - 1].score / hits[0].score;
    expect(gap).toBeGreaterThan(0);
    expect(gap).toBeLessThan(1);
    for (const g of stats) {
      expect(g.stats.expansion).toBe(0);
      expect(g.stats.bo1Weight).toBe(0);
      expect(g.stats.fbGap).toBeCloseTo(gap, 12);
      expect(g.stats.fbCoverage).toBeCloseTo(coverage, 12);
    }
    for (const g of stats.filter((x) => x.terms.length === 1)) {
      const w = g.terms[0];
      const having = fb.filter((d) => tokens[d].has(w));
      expect(g.stats.fbShare, w).toBeCloseTo(having.length / fb.length, 12);
      const others = words.filter((x) => x !== w);
      const cooccur = having.length ? having.reduce((s, d) => s + others.filter((o) => tokens[d].has(o)).length / others.length, 0) / having.length : 0;
      expect(g.stats.fbCooccur, w).toBeCloseTo(cooccur, 12);
    }
  });

  it('with a Bo1 expansion: Bo1 words flagged with their w\', feedback documents and the first pass are the query\'s', () => {
    const backend = new LocalIndexBackend(reader, 'memory');
    const query = 'shock wave over the wing';
    const input = bo1ModelInput(backend, parseText(query).ast, query, { method: 'bo1' }, { scorer: 'bm25' });
    expect(input.text.length).toBeGreaterThan(query.length);
    const expansion = statisticsExpansionOf(input);
    const stats = queryStatistics(reader, input.text, { expansion }).ngrams;
    const plain = queryStatistics(reader, query).ngrams;
    // Bo1 words (pairs of them are segmented too, but never exported or weighed: restrictBigramsToQuery).
    const added = stats.filter((g) => g.stats.expansion === 1 && g.terms.length === 1);
    expect(added.length).toBeGreaterThan(0);
    const weights = new Map(input.expansion.terms.map((t) => [t.term, t.expansionWeight]));
    for (const g of added) {
      expect(g.terms).toHaveLength(1);
      expect(g.stats.bo1Weight, g.terms[0]).toBe(weights.get(g.terms[0]));
      expect(g.stats.bo1Weight).toBeGreaterThan(0);
      const having = input.expansion.feedbackDocs.filter((d) => tokens[d].has(g.terms[0]));
      expect(g.stats.fbShare).toBeCloseTo(having.length / input.expansion.feedbackDocs.length, 12);
    }
    // The query's own words: the same feedback documents (Bo1's are the query's top 3), so the same fb* numbers
    // as without the expansion; Bo1's reweighting of them is their w'.
    const own = stats.filter((g) => g.stats.expansion === 0 && g.terms.every((t) => plain.some((p) => p.terms.includes(t))));
    expect(own.map((g) => g.terms)).toEqual(plain.map((g) => g.terms));
    own.forEach((g, i) => {
      expect(g.stats.bo1Weight).toBe(g.terms.length === 1 ? (weights.get(g.terms[0]) ?? 0) : 0);
      for (const name of ['fbShare', 'fbCooccur', 'fbGap', 'fbCoverage'] as const) expect(g.stats[name], `${g.terms} ${name}`).toBeCloseTo(plain[i].stats[name], 12);
    });
  });
});

function cli(args: string[]) {
  return runProcess(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'server/cli/main.ts'), ...args], { cwd: REPO_ROOT, timeoutMs: 120_000 });
}

describe('export-training --stats and weigh --index --json read the same statistics', () => {
  it('for every n-gram of every query', async () => {
    const corpus = join(work, 'c.jsonl');
    writeFileSync(corpus, syntheticCorpus(120, 5).map((d) => JSON.stringify({ _id: d.docno, title: d.fields.title, text: d.fields.text })).join('\n') + '\n');
    const index = join(work, 'idx');
    expect((await cli(['index', corpus, '--out', index, '--no-progress'])).status).toBe(0);
    const queries = join(work, 'q.tsv');
    writeFileSync(queries, 'a\tlaminar flow over a flat plate\nb\tshock wave of the wing\nc\tvortex\n');
    const out = join(work, 'train.jsonl');
    const [exported, weighed] = await Promise.all([
      cli(['export-training', '--index', index, queries, '--out', out, '-k', '20', '--stats']),
      cli(['weigh', queries, '--index', index, '--json', '--device', 'cpu']),
    ]);
    expect(exported.status, exported.stderr).toBe(0);
    expect(weighed.status, weighed.stderr).toBe(0);
    const records = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const runtime = JSON.parse(weighed.stdout.slice(weighed.stdout.indexOf('[')));
    expect(records).toHaveLength(3);
    records.forEach((r: { ngrams: { terms: string[]; stats: Record<string, number> }[] }, i: number) => {
      expect(r.ngrams.length).toBeGreaterThan(0);
      expect(r.ngrams.map((g) => ({ terms: g.terms, stats: g.stats }))).toEqual(runtime[i].ngrams.map((g: { terms: string[]; stats: unknown }) => ({ terms: g.terms, stats: g.stats })));
    });
    // TW-BERT + Bo1: the export of the expanded input (--expand bo1) reads what rankQueries hands the model
    // (modelStatistics of bo1ModelInput: the expansion statistics included).
    const outBo1 = join(work, 'train-bo1.jsonl');
    const exportedBo1 = await cli(['export-training', '--index', index, queries, '--out', outBo1, '-k', '20', '--stats', '--expand', 'bo1']);
    expect(exportedBo1.status, exportedBo1.stderr).toBe(0);
    const backend = openLocalBackend(index);
    const texts = ['laminar flow over a flat plate', 'shock wave of the wing', 'vortex'];
    const expandedRecords = readFileSync(outBo1, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    let bo1Words = 0;
    expandedRecords.forEach((r: { query: string; ngrams: { terms: string[]; expansion?: true; stats: Record<string, number> }[] }, i: number) => {
      const parsed = parseText(texts[i]);
      const planned = planWeighing(parsed.ast, texts[i]);
      if (!planned.ok) throw new Error(planned.refusal.message);
      const input = bo1ModelInput(backend, parsed.ast, planned.plan.text, { method: 'bo1' }, { scorer: 'bm25' });
      expect(r.query).toBe(input.text);
      const runtime = modelStatistics(backend, input);
      const seg = segmentQuery(input.text, backend.analyzer);
      // The export keeps the n-grams the model weighs (pairs inside the query), in the segmentation's order.
      const kept = seg.ngrams.map((g, j) => ({ terms: g.terms, stats: runtime[j] })).filter((g) => g.terms.length === 1 || g.stats.expansion === 0);
      expect(r.ngrams.map((g) => ({ terms: g.terms, stats: g.stats }))).toEqual(kept);
      r.ngrams.forEach((g) => expect(g.stats.expansion, g.terms.join(' ')).toBe(g.expansion ? 1 : 0));
      bo1Words += r.ngrams.filter((g) => g.expansion && g.stats.bo1Weight > 0).length;
    });
    expect(bo1Words).toBeGreaterThan(0);
    // --index also names the index a collection-aware model reads, so it is accepted without --json.
    const plain = await cli(['weigh', queries, '--index', index]);
    expect(plain.status, plain.stderr).toBe(0);
  }, 240_000);
});
