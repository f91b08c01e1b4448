/**
 * Dynamic pruning (scoring/pruning.ts) against exhaustive evaluation: on random corpora and random
 * bag-of-words queries (#combine / #weight of plain terms, Lucene OR with boosts, stopwords and
 * absent terms among them), the pruned top k has the same documents, in the same order, with
 * scores equal to the last bit, under bm25 and bm25-lucene with random k1 and b, on the in-memory
 * index and on the on-disk one (blocks decoded from the postings). Then the same on a 60 000-document
 * generated on-disk index, built once. Bounded: fixed seeds, a few seconds each.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseIndri } from '../../../grammar/indri/index.js';
import type { QueryAst } from '../../../grammar/ast.js';
import { parseLucene } from '../../../grammar/lucene/index.js';
import { bagReaders, corpus, parse, queryCase, structuredQueryCase } from './helpers/random-bags.js';
import { buildIndex, openIndex } from '../../../server/engine/index/disk.js';
import { buildMemoryIndex } from '../../../server/engine/index/memory.js';
import type { IndexReader } from '../../../server/engine/index/reader.js';
import { search, type SearchOptions } from '../../../server/engine/search.js';

const work = mkdtempSync(join(tmpdir(), 'querylens-pruning-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const settings = fc.record({
  scorer: fc.constantFrom('bm25' as const, 'bm25-lucene' as const),
  k: fc.constantFrom(1, 3, 10, 25, 100, 1000),
  k1: fc.constantFrom(undefined, 0, 0.5, 1.2, 2.5),
  b: fc.constantFrom(undefined, 0, 0.4, 0.75, 1),
});

/** Pruned and exhaustive top k, compared hit by hit (doc, docno, score with Object.is). */
function expectSameTopK(reader: IndexReader, ast: QueryAst, options: SearchOptions): { pruned: boolean; scored: number; matched: number } {
  const pruned = search(reader, ast, { ...options, exhaustive: false });
  const exhaustive = search(reader, ast, { ...options, exhaustive: true });
  expect(exhaustive.pruned).toBe(false);
  expect(pruned.hits.length).toBe(exhaustive.hits.length);
  for (let i = 0; i < pruned.hits.length; i++) {
    const a = pruned.hits[i]!;
    const b = exhaustive.hits[i]!;
    if (a.doc !== b.doc || a.docno !== b.docno || !Object.is(a.score, b.score)) {
      throw new Error(`rank ${i + 1}: pruned ${a.docno} ${a.score}, exhaustive ${b.docno} ${b.score}`);
    }
  }
  return { pruned: pruned.pruned, scored: pruned.matchedDocs, matched: exhaustive.matchedDocs };
}

describe('dynamic pruning equals exhaustive evaluation', () => {
  const corpora = [
    { seed: 7, numDocs: 900, vocab: 40, maxLength: 30 },
    { seed: 8, numDocs: 2500, vocab: 300, maxLength: 12 },
  ];
  const readers: { name: string; reader: IndexReader; vocab: number }[] = [];
  beforeAll(async () => {
    readers.push(...(await bagReaders(work, corpora)));
  });

  it('random bag-of-words queries, scorers, parameters and k (fixed seed)', () => {
    let prunedQueries = 0;
    let skipping = 0;
    for (const { reader, vocab } of readers) {
      fc.assert(
        fc.property(queryCase(vocab), settings, (q, s) => {
          const r = expectSameTopK(reader, parse(q), s);
          if (r.pruned) prunedQueries++;
          if (r.scored < r.matched) skipping++;
        }),
        { seed: 4242, numRuns: 150 },
      );
    }
    // The property is about pruned searches: most queries take that path and many skip documents.
    expect(prunedQueries).toBeGreaterThan(400);
    expect(skipping).toBeGreaterThan(100);
  });

  it('queries with windows and synonyms: bm25 prunes over their computed lists, to the same bits (fixed seed)', () => {
    let prunedQueries = 0;
    let skipping = 0;
    let prunedWithWindow = 0;
    let fractional = 0;
    for (const { reader, vocab } of readers) {
      fc.assert(
        fc.property(structuredQueryCase(vocab), settings, (q, s) => {
          const r = expectSameTopK(reader, parse(q), s);
          if (r.pruned) prunedQueries++;
          if (r.pruned && /#(1|od2|uw8)\(/.test(q.text)) prunedWithWindow++;
          if (r.pruned && r.scored < r.matched) skipping++;
          // Lucene's scorer keeps its own pruning rule (plain terms only); a weighted synonym's fractional tfs are not bounded by blocks.
          if (s.scorer === 'bm25-lucene' || q.text.includes('#wsyn')) {
            if (q.text.includes('#wsyn') && s.scorer === 'bm25' && !r.pruned) fractional++;
            if (s.scorer === 'bm25-lucene' && /#(1|od2|uw8|syn|band|wsyn)\(/.test(q.text)) expect(r.pruned).toBe(false);
          }
        }),
        { seed: 5151, numRuns: 150 },
      );
    }
    expect(prunedWithWindow).toBeGreaterThan(60);
    expect(skipping).toBeGreaterThan(30);
    expect(fractional).toBeGreaterThan(5);
  });

  it('a term in more than half the documents (a negative Terrier idf) is pruned too, bounded by 0', () => {
    const { reader } = readers[0]!;
    const n = reader.stats().numDocs;
    expect(reader.termStats('q0')!.df).toBeGreaterThan(n / 2);
    for (const k of [1, 10, 100]) {
      for (const text of ['#combine( q0 q20 )', '#combine( q0 q1 q25 q30 )', '#weight( 2 q0 0.5 q12 )', '#combine( q0 )']) {
        const r = expectSameTopK(reader, parseIndri(text).ast, { scorer: 'bm25', k });
        expect(r.pruned, `${text} k ${k}`).toBe(true);
      }
    }
    // Where few documents score above 0, the negative ones fill the top k and are all scored.
    const r = expectSameTopK(reader, parseIndri('#combine( q0 q39 )').ast, { scorer: 'bm25', k: 100 });
    expect(r.pruned).toBe(true);
  });

  it('the rarest lists are scored first: a common list bounded by 0 brings no candidates once the k-th score is positive', () => {
    // 20 000 documents hold the common word (a negative idf), of varied lengths; only the last ten hold the rare one.
    const docs = Array.from({ length: 20_000 }, (_, i) => ({
      docno: `S${i}`,
      fields: { text: `common ${'filler '.repeat(i % 7)}${i >= 19_990 ? 'rare' : ''}` },
    }));
    const reader = buildMemoryIndex(docs);
    const r = expectSameTopK(reader, parseIndri('#combine( common rare )').ast, { scorer: 'bm25', k: 3 });
    expect(r.pruned).toBe(true);
    // Without the seeding, the first windows' k-th score is negative and every common document there is a candidate.
    expect(r.scored).toBeLessThanOrEqual(10);
    expect(r.matched).toBe(20_000);
  });

  it('queries pruning cannot evaluate keep the exhaustive path', () => {
    const { reader } = readers[0]!;
    for (const text of ['#combine( q1 q2.title )', '#weight( -1 q1 2 q2 )', '#filreq( q1 q2 )', '#combine( q1 #combine( q2 q3 ) )', '#combine( q1 #1(q1 q2).title )']) {
      for (const scorer of ['bm25', 'bm25-lucene'] as const) {
        expect(search(reader, parseIndri(text).ast, { scorer, k: 10, exhaustive: false }).pruned, `${text} ${scorer}`).toBe(false);
      }
    }
    // Windows and synonyms: Terrier's bm25 prunes over their computed lists, Lucene's does not.
    for (const text of ['#combine( q1 #1(q1 q2) )', '#combine( q3 #syn( q1 q2 ) )', '#combine( q3 #uw8(q1 q2) #band(q1 q4) )']) {
      expect(search(reader, parseIndri(text).ast, { scorer: 'bm25', k: 10, exhaustive: false }).pruned, text).toBe(true);
      expect(search(reader, parseIndri(text).ast, { scorer: 'bm25-lucene', k: 10, exhaustive: false }).pruned, text).toBe(false);
    }
    // A lone window or synonym is scored straight through its materialised list.
    for (const text of ['#1(q1 q2)', '#syn( q1 q2 )']) expect(search(reader, parseIndri(text).ast, { scorer: 'bm25', k: 10, exhaustive: false }).pruned, text).toBe(false);
    expect(search(reader, parseLucene('+q1 q2').ast, { scorer: 'bm25-lucene', k: 10, exhaustive: false }).pruned).toBe(false);
    // ql has its own split and tests (ql-pruning.test.ts).
    expect(search(reader, parseIndri('#combine( q20 q30 )').ast, { scorer: 'bm25', k: 10, exhaustive: false }).pruned).toBe(true);
    // By default only where the lists hold many more documents than k.
    const q = parseIndri('#combine( q0 q1 q2 )').ast;
    expect(search(reader, q, { scorer: 'bm25-lucene', k: 10 }).pruned).toBe(true);
    expect(search(reader, q, { scorer: 'bm25-lucene', k: 1000 }).pruned).toBe(false);
  });
});

describe('dynamic pruning on a 60 000-document on-disk index', () => {
  const numDocs = 60_000;
  const vocab = 5000;
  let reader: IndexReader;
  beforeAll(async () => {
    const file = join(work, 'large.jsonl');
    writeFileSync(file, corpus(99, numDocs, vocab, 40).map((d) => JSON.stringify({ _id: d.docno, text: d.fields.text })).join('\n'));
    await buildIndex([file], join(work, 'large'), {});
    reader = openIndex(join(work, 'large'));
  }, 120_000);

  it('top k equals exhaustive for random queries (fixed seed), and pruning skips most documents', () => {
    let scored = 0;
    let matched = 0;
    fc.assert(
      fc.property(queryCase(vocab), settings, (q, s) => {
        const r = expectSameTopK(reader, parse(q), { ...s, k: Math.min(s.k, 100) });
        scored += r.scored;
        matched += r.matched;
      }),
      { seed: 9001, numRuns: 40 },
    );
    expect(reader.stats().numDocs).toBe(numDocs);
    expect(scored).toBeLessThan(matched / 2);
  }, 120_000);
});
