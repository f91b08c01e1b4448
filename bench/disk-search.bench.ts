/**
 * The on-disk index as a search engine: index size, open time, RSS after open, and the latency
 * of bag-of-words queries (`#combine` of 2, 5 and 10 topic words) for top 10 and top 1000 under
 * bm25 and bm25-lucene: by default (pruned where the lists are long for k), always pruned
 * (`exhaustive: false`) and exhaustively (`exhaustive: true`),
 * on Cranfield and SciFact. Run: `npm run bench -- search`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseIndri } from '../grammar/indri/index.js';
import { buildIndex, openIndex } from '../server/engine/index/disk.js';
import type { IndexReader } from '../server/engine/index/reader.js';
import { search, type ScorerName, type SearchOptions } from '../server/engine/search.js';
import { DATA_DIR } from '../test/support/data.js';
import { rng, topicWords } from './topic-words.js';

const COLLECTIONS = [
  { name: 'cranfield', queries: 'queries.tsv' },
  { name: 'scifact', queries: 'queries.test.tsv' },
];
const SIZES = [2, 5, 10];
const SCORERS: ScorerName[] = ['bm25', 'bm25-lucene'];
const QUERIES_PER_SIZE = 200;

function makeQueries(reader: IndexReader, topicsFile: string, n: number): string[] {
  const words = topicWords(reader, topicsFile);
  const rnd = rng(n * 7919);
  const out: string[] = [];
  for (let q = 0; q < QUERIES_PER_SIZE; q++) {
    const start = Math.floor(rnd() * (words.length - n));
    out.push(`#combine( ${words.slice(start, start + n).map((t) => `"${t}"`).join(' ')} )`);
  }
  return out;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const work = mkdtempSync(join(tmpdir(), 'querylens-disk-bench-'));
try {
  console.log(`on-disk index: size, open, RSS; bag-of-words search latency (ms, fastest of 3 per query), ${QUERIES_PER_SIZE} queries per row`);
  for (const c of COLLECTIONS) {
    const dir = join(work, c.name);
    const built = await buildIndex([`${DATA_DIR}/${c.name}/corpus.jsonl`], dir, { profile: 'terrier' });
    const postingsBytes = built.files['postings.bin'] ?? 0;
    // Memory held by the open index: JS heap and buffers after a full collection, before and after
    // the open (needs --expose-gc, as `npm run bench` runs it; otherwise the figures include garbage).
    const held = () => {
      global.gc?.();
      const m = process.memoryUsage();
      return m.heapUsed + m.arrayBuffers;
    };
    const heldBefore = held();
    const t0 = performance.now();
    const reader = openIndex(dir);
    const openMs = performance.now() - t0;
    const heldAfter = held();
    const mib = (n: number) => (n / 1024 / 1024).toFixed(1);
    console.log(
      `${c.name}: ${built.docs} docs, ${(built.bytesOnDisk / 1024).toFixed(0)} KiB on disk (postings.bin ${(postingsBytes / 1024).toFixed(0)} KiB), ` +
        `open ${openMs.toFixed(1)} ms, +${mib(heldAfter - heldBefore)} MiB held by the open index, process RSS ${mib(process.memoryUsage().rss)} MiB`,
    );
    console.log(`${'collection'.padEnd(10)} ${'scorer'.padEnd(12)} ${'terms'.padStart(5)} ${'k'.padStart(5)} ${'mode'.padEnd(10)} ${'p50'.padStart(7)} ${'p95'.padStart(7)} ${'mean'.padStart(7)}`);
    for (const n of SIZES) {
      const texts = makeQueries(reader, `${DATA_DIR}/${c.name}/${c.queries}`, n);
      for (const scorer of SCORERS) {
        for (const k of [10, 1000]) {
          // The modes alternate query by query, three rounds, and each query keeps its fastest time:
          // on a shared machine this compares the paths under the same load.
          const modes = (['default', 'pruned', 'exhaustive'] as const).map((name) => ({
            name,
            options: { scorer, k, ...(name === 'default' ? {} : { exhaustive: name === 'exhaustive' }) } as SearchOptions,
            best: texts.map(() => Infinity),
          }));
          for (const m of modes) for (const t of texts.slice(0, 20)) search(reader, parseIndri(t).ast, m.options);
          for (let round = 0; round < 3; round++) {
            texts.forEach((t, q) => {
              // Each round another mode goes first: the first one pays the reads of the query's
              // posting lists (the reader's caches hold far fewer terms than 200 queries touch).
              for (let i = 0; i < modes.length; i++) {
                const m = modes[(i + round) % modes.length]!;
                const ast = parseIndri(t).ast;
                const s = performance.now();
                search(reader, ast, m.options);
                m.best[q] = Math.min(m.best[q]!, performance.now() - s);
              }
            });
          }
          for (const m of modes) {
            const times = [...m.best].sort((a, b) => a - b);
            const mean = times.reduce((a, b) => a + b, 0) / times.length;
            console.log(
              `${c.name.padEnd(10)} ${scorer.padEnd(12)} ${String(n).padStart(5)} ${String(k).padStart(5)} ${m.name.padEnd(10)} ${percentile(times, 50).toFixed(3).padStart(7)} ${percentile(times, 95).toFixed(3).padStart(7)} ${mean.toFixed(3).padStart(7)}`,
            );
          }
        }
      }
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
