/**
 * A pruned search split over threads (scoring/parallel-search.ts) against the same search on one
 * thread: on-disk indexes of random corpora, random bag-of-words and structured queries, bm25,
 * bm25-lucene and ql, random k1, b and k: the same documents, in the same order, with scores equal
 * to the last bit; a worker that cannot open the index has its range searched by the main thread,
 * with the same result. Bounded: fixed seeds, a few hundred queries.
 */
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseIndri } from '../../../grammar/indri/index.js';
import type { QueryAst } from '../../../grammar/ast.js';
import { corpus, parse, queryCase, structuredQueryCase } from './helpers/random-bags.js';
import { buildIndex, openIndex } from '../../../server/engine/index/disk.js';
import { buildMemoryIndex } from '../../../server/engine/index/memory.js';
import type { IndexReader } from '../../../server/engine/index/reader.js';
import { search, type SearchOptions } from '../../../server/engine/search.js';
import { partitionRanges, SharedThreshold, thresholdCells } from '../../../server/engine/scoring/parallel-search.js';

const work = mkdtempSync(join(tmpdir(), 'querylens-parallel-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Threads a split search gets on this machine when it asks for two. */
const TWO = Math.min(2, availableParallelism());

const settings = fc.record({
  scorer: fc.constantFrom('bm25' as const, 'bm25-lucene' as const, 'ql' as const),
  k: fc.constantFrom(1, 3, 10, 25, 100, 1000),
  k1: fc.constantFrom(undefined, 0.5, 1.2, 2.5),
  b: fc.constantFrom(undefined, 0, 0.4, 0.75, 1),
});

function withScorerParameters(s: { scorer: 'bm25' | 'bm25-lucene' | 'ql'; k: number; k1?: number; b?: number }): SearchOptions {
  return s.scorer === 'ql' ? { scorer: 'ql', k: s.k } : s;
}

/** The split search and the one-thread search (both pruned), compared hit by hit; returns the split result. */
function expectSameAsOneThread(reader: IndexReader, ast: QueryAst, options: SearchOptions, threads = 2): ReturnType<typeof search> {
  const one = search(reader, ast, { ...options, exhaustive: false });
  const split = search(reader, ast, { ...options, exhaustive: false, threads });
  expect(split.pruned).toBe(one.pruned);
  expect(split.hits.length).toBe(one.hits.length);
  for (let i = 0; i < one.hits.length; i++) {
    const a = split.hits[i]!;
    const b = one.hits[i]!;
    if (a.doc !== b.doc || a.docno !== b.docno || !Object.is(a.score, b.score)) throw new Error(`rank ${i + 1}: split ${a.docno} ${a.score}, one thread ${b.docno} ${b.score}`);
  }
  return split;
}

describe('a pruned search split over threads equals the one-thread search', () => {
  const indexes: { reader: IndexReader; vocab: number; dir: string }[] = [];
  beforeAll(async () => {
    for (const c of [
      { seed: 31, numDocs: 3000, vocab: 60, maxLength: 25 },
      { seed: 32, numDocs: 40_000, vocab: 3000, maxLength: 40 },
    ]) {
      const file = join(work, `c${c.seed}.jsonl`);
      writeFileSync(file, corpus(c.seed, c.numDocs, c.vocab, c.maxLength).map((d) => JSON.stringify({ _id: d.docno, text: d.fields.text })).join('\n'));
      const dir = join(work, `c${c.seed}`);
      await buildIndex([file], dir, {});
      indexes.push({ reader: openIndex(dir), vocab: c.vocab, dir });
    }
  }, 120_000);

  it('random bag-of-words queries, scorers, parameters and k (fixed seed)', () => {
    let split = 0;
    for (const { reader, vocab } of indexes) {
      fc.assert(
        fc.property(queryCase(vocab), settings, (q, s) => {
          const r = expectSameAsOneThread(reader, parse(q), withScorerParameters(s));
          if (r.pruned) {
            expect(r.threads).toBe(TWO);
            split++;
          } else expect(r.threads).toBe(1);
        }),
        { seed: 6161, numRuns: 120 },
      );
    }
    expect(split).toBeGreaterThan(120);
  }, 120_000);

  it('queries with windows and synonyms (bm25 prunes over their computed lists) and three threads asked for', () => {
    let split = 0;
    for (const { reader, vocab } of indexes) {
      fc.assert(
        fc.property(structuredQueryCase(vocab), settings, (q, s) => {
          const r = expectSameAsOneThread(reader, parse(q), withScorerParameters(s), 3);
          if (r.pruned) split++;
        }),
        { seed: 7171, numRuns: 60 },
      );
    }
    expect(split).toBeGreaterThan(30);
  }, 120_000);

  it('a worker that cannot open the index has its range searched here: the same hits, on one thread', async () => {
    // An index no worker has opened yet (a worker keeps the builds it opened).
    const file = join(work, 'unseen.jsonl');
    writeFileSync(file, corpus(33, 8000, 400, 30).map((d) => JSON.stringify({ _id: d.docno, text: d.fields.text })).join('\n'));
    const dir = join(work, 'unseen');
    await buildIndex([file], dir, {});
    const reader = openIndex(dir);
    // The open reader keeps its files; a worker opening the folder by name finds nothing there.
    renameSync(dir, `${dir}-moved`);
    try {
      for (const text of ['#combine( q1 q7 q30 )', '#weight( 2 q3 1 q100 0.5 q9 )']) {
        const r = expectSameAsOneThread(reader, parseIndri(text).ast, { scorer: 'bm25', k: 50 });
        expect(r.pruned).toBe(true);
        expect(r.threads).toBe(1);
      }
    } finally {
      renameSync(`${dir}-moved`, dir);
    }
    // Back in place, the split works again.
    expect(expectSameAsOneThread(reader, parseIndri('#combine( q1 q7 q30 )').ast, { scorer: 'bm25', k: 50 }).threads).toBe(TWO);
  }, 60_000);

  it('an index built in memory, and a query pruning does not evaluate, run on one thread', () => {
    const memory = buildMemoryIndex(corpus(5, 500, 30, 10));
    const r = search(memory, parseIndri('#combine( q1 q2 q3 )').ast, { scorer: 'bm25', k: 10, exhaustive: false, threads: 2 });
    expect(r.pruned).toBe(true);
    expect(r.threads).toBe(1);
    const { reader } = indexes[0]!;
    const f = search(reader, parseIndri('#filreq( q1 q2 )').ast, { scorer: 'bm25', k: 10, threads: 2 });
    expect(f.pruned).toBe(false);
    expect(f.threads).toBe(1);
  });

  it('threads must be a positive integer', () => {
    const { reader } = indexes[0]!;
    for (const threads of [0, -1, 1.5, Number.NaN]) expect(() => search(reader, parseIndri('q1').ast, { threads })).toThrow(/threads must be a positive integer/);
  });
});

describe('the shared k-th score', () => {
  it('is the best of every partition\'s own, published as a float32 when the own one rises', () => {
    const cells = thresholdCells(3);
    let own: number | undefined;
    const view = (slot: number, get: () => number | undefined) => new SharedThreshold({ k: 10, threshold: get }, cells, slot);
    const a = view(0, () => own);
    let other: number | undefined;
    const b = view(1, () => other);
    expect(a.threshold()).toBeUndefined();
    expect(a.k).toBe(10);
    other = -3.25;
    expect(b.threshold()).toBe(-3.25);
    // a has no k documents yet: b's published score is its bound.
    expect(a.threshold()).toBe(-3.25);
    own = 0.1;
    // Its own is the best: 0.1 itself, not its float32.
    expect(a.threshold()).toBe(0.1);
    expect(b.threshold()).toBe(Math.fround(0.1));
    other = 2.5;
    expect(a.threshold()).toBe(0.1);
    b.threshold();
    expect(a.threshold()).toBe(2.5);
  });

  it('partitions cover every document once', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 1, max: 16 }), (n, parts) => {
        const ranges = partitionRanges(n, parts);
        expect(ranges.length).toBe(parts);
        expect(ranges[0]!.from).toBe(0);
        expect(ranges[parts - 1]!.to).toBe(n);
        for (let p = 1; p < parts; p++) expect(ranges[p]!.from).toBe(ranges[p - 1]!.to);
      }),
      { seed: 3, numRuns: 200 },
    );
  });
});
