/**
 * Query latency of search() (compile + document-at-a-time top 1000) for weighted Indri
 * queries of 2, 5 and 20 terms plus adjacent bigrams (#1), on Cranfield and SciFact memory
 * indexes, under each scorer. Queries are built from the collections' own topics so their
 * terms have realistic document frequencies. Run: `npm run bench -- search`.
 */
import { readFileSync } from 'node:fs';
import { parseIndri } from '../grammar/indri/index.js';
import { buildMemoryIndex } from '../server/engine/index/memory.js';
import type { IndexReader } from '../server/engine/index/reader.js';
import { search, type ScorerName } from '../server/engine/search.js';
import { DATA_DIR } from '../test/support/data.js';
import { rng, topicWords } from './topic-words.js';

const DATA = DATA_DIR;
const COLLECTIONS = [
  { name: 'cranfield', queries: 'queries.tsv' },
  { name: 'scifact', queries: 'queries.test.tsv' },
];
const SIZES = [2, 5, 20];
const SCORERS: ScorerName[] = ['bm25', 'bm25-lucene', 'ql'];
const QUERIES_PER_SIZE = 200;

function readIndex(name: string): IndexReader {
  const docs = readFileSync(`${DATA}/${name}/corpus.jsonl`, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      const o = JSON.parse(l) as { _id: string; title?: string; text?: string };
      return { docno: o._id, fields: o.title ? { title: o.title, text: o.text ?? '' } : { text: o.text ?? '' } };
    });
  return buildMemoryIndex(docs, { profile: 'terrier' });
}

/** `#weight( w t … w #1(t t) … )` with n terms from the topics' analysed words and n − 1 bigrams. */
function makeQueries(reader: IndexReader, topicsFile: string, n: number): string[] {
  const words = topicWords(reader, topicsFile);
  const rnd = rng(n * 7919);
  const out: string[] = [];
  for (let q = 0; q < QUERIES_PER_SIZE; q++) {
    const start = Math.floor(rnd() * (words.length - n));
    const terms = words.slice(start, start + n);
    const items = terms.map((t) => `${(0.2 + rnd()).toFixed(2)} "${t}"`);
    for (let i = 0; i + 1 < terms.length; i++) items.push(`${(0.1 + rnd() / 2).toFixed(2)} #1("${terms[i]}" "${terms[i + 1]}")`);
    out.push(`#weight( ${items.join(' ')} )`);
  }
  return out;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

console.log(`search latency, top 1000, ${QUERIES_PER_SIZE} queries per row (ms; compile + DAAT scoring)`);
console.log(`${'collection'.padEnd(10)} ${'scorer'.padEnd(12)} ${'terms'.padStart(5)} ${'concepts'.padStart(8)} ${'p50'.padStart(7)} ${'p95'.padStart(7)} ${'mean'.padStart(7)}`);
for (const c of COLLECTIONS) {
  const t0 = performance.now();
  const reader = readIndex(c.name);
  console.log(`(${c.name}: ${reader.stats().numDocs} docs indexed in ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  for (const n of SIZES) {
    const texts = makeQueries(reader, `${DATA}/${c.name}/${c.queries}`, n);
    for (const scorer of SCORERS) {
      // Warm-up pass (JIT), then the measured pass; each query is parsed anew so nothing is cached.
      for (const t of texts.slice(0, 20)) search(reader, parseIndri(t).ast, { scorer, k: 1000 });
      const times: number[] = [];
      for (const t of texts) {
        const ast = parseIndri(t).ast;
        const s = performance.now();
        search(reader, ast, { scorer, k: 1000 });
        times.push(performance.now() - s);
      }
      times.sort((a, b) => a - b);
      const mean = times.reduce((a, b) => a + b, 0) / times.length;
      console.log(
        `${c.name.padEnd(10)} ${scorer.padEnd(12)} ${String(n).padStart(5)} ${String(2 * n - 1).padStart(8)} ${percentile(times, 50).toFixed(2).padStart(7)} ${percentile(times, 95).toFixed(2).padStart(7)} ${mean.toFixed(2).padStart(7)}`,
      );
    }
  }
}
