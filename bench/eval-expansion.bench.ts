/**
 * Evaluation and expansion figures on Cranfield and SciFact test (terrier profile):
 * effectiveness of BM25, BM25+Bo1, QL, QL+RM3 as a `compare` table (paired t-test and
 * randomisation test against BM25), plus the time to expand one query and to evaluate a
 * whole run. Run: `npm run bench -- eval`.
 * Expected anchors (an independent implementation, see the reference figures in the data folder.s README): BM25 MAP Cranfield .3118,
 * SciFact .6405; BM25+Bo1 .3383, .6138.
 */
import { readFileSync } from 'node:fs';
import { parseText } from '../grammar/text/index.js';
import { compareRuns, evaluate, formatComparison, parseQrels, type Run, type RunEntry } from '../server/engine/eval/index.js';
import { expandQuery, selectFeedbackDocs } from '../server/engine/expansion/index.js';
import { buildMemoryIndex } from '../server/engine/index/memory.js';
import type { IndexReader } from '../server/engine/index/reader.js';
import { search } from '../server/engine/search.js';
import { LocalIndexBackend } from '../server/service/backend.js';
import { rankQuery, type RankQueryOptions } from '../server/service/ranking.js';
import { DATA_DIR } from '../test/support/data.js';

const DATA = DATA_DIR;
const COLLECTIONS = [
  { name: 'cranfield', queries: 'queries.tsv', qrels: 'qrels.txt' },
  { name: 'scifact', queries: 'queries.test.tsv', qrels: 'qrels.test.txt' },
];

function readIndex(name: string): IndexReader {
  const docs = readFileSync(`${DATA}/${name}/corpus.jsonl`, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      const o = JSON.parse(l) as { _id: string; title?: string; text?: string };
      // Title and text, as the independent reference figures were indexed (BM25 MAP
      // Cranfield .3118, SciFact .6405; Bo1 .3383, .6138).
      const fields: Record<string, string> = o.title ? { title: o.title, text: o.text ?? '' } : { text: o.text ?? '' };
      return { docno: o._id, fields };
    });
  return buildMemoryIndex(docs, { profile: 'terrier' });
}

function readQueries(path: string): { qid: string; text: string }[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => ({ qid: l.slice(0, l.indexOf('\t')), text: l.slice(l.indexOf('\t') + 1) }));
}

function makeRun(reader: IndexReader, queries: { qid: string; text: string }[], runId: string, options: RankQueryOptions): Run {
  const byQuery = new Map<string, RunEntry[]>();
  for (const { qid, text } of queries) {
    byQuery.set(qid, rankQuery(new LocalIndexBackend(reader, 'bench'), parseText(text).ast, { k: 1000, ...options }).hits.map((h) => ({ docno: h.docno, score: h.score })));
  }
  return { runId, queries: byQuery };
}

for (const c of COLLECTIONS) {
  const reader = readIndex(c.name);
  const queries = readQueries(`${DATA}/${c.name}/${c.queries}`);
  const qrels = parseQrels(readFileSync(`${DATA}/${c.name}/${c.qrels}`, 'utf8'), c.qrels);
  console.log(`\n## ${c.name}: ${reader.stats().numDocs} docs, ${queries.length} queries`);

  const runs = [
    makeRun(reader, queries, 'bm25', { scorer: 'bm25' }),
    makeRun(reader, queries, 'bm25+bo1', { scorer: 'bm25', expand: { method: 'bo1' } }),
    makeRun(reader, queries, 'ql', { scorer: 'ql' }),
    makeRun(reader, queries, 'ql+rm3', { scorer: 'ql', expand: { method: 'rm3' } }),
  ];
  const measures = ['map', 'P_10', 'ndcg_cut_10', 'recall_100', 'recip_rank'];
  process.stdout.write(formatComparison(compareRuns(runs, qrels, { measures, test: 't' })));
  const t0 = performance.now();
  const randomised = compareRuns(runs, qrels, { measures, test: 'randomization' });
  const randomMs = performance.now() - t0;
  process.stdout.write(formatComparison(randomised));
  console.log(`randomisation test, ${measures.length} measures × ${runs.length - 1} runs: ${randomMs.toFixed(0)} ms`);

  // Cost of evaluation alone: the whole BM25 run, all measures.
  const evalRepeats = 20;
  const t1 = performance.now();
  for (let i = 0; i < evalRepeats; i++) evaluate(runs[0], qrels, { measures });
  console.log(`evaluate (${queries.length} queries × ≤1000 docs, ${measures.length} measures): ${((performance.now() - t1) / evalRepeats).toFixed(1)} ms per run`);

  // Cost of expansion alone, given the feedback documents.
  for (const method of ['bo1', 'rm3'] as const) {
    const prepared = queries.map(({ text }) => {
      const ast = parseText(text).ast;
      const hits = search(reader, ast, { scorer: method === 'bo1' ? 'bm25' : 'ql', k: 10 }).hits;
      return { ast, feedback: selectFeedbackDocs(hits, method === 'bo1' ? 3 : 10) };
    });
    const t2 = performance.now();
    let terms = 0;
    for (const { ast, feedback } of prepared) terms += expandQuery(reader, ast, feedback, { method }).terms.length;
    const ms = (performance.now() - t2) / prepared.length;
    console.log(`expandQuery ${method}: ${(ms * 1000).toFixed(0)} µs per query (mean ${(terms / prepared.length).toFixed(1)} terms)`);
  }
}
