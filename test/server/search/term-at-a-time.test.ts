/**
 * Term-at-a-time accumulation (PreparedQuery.addTermAtATime, for plain sums of term scores on small
 * collections) against document-at-a-time evaluation (`exhaustive: true`): on random corpora, in memory
 * and on disk, random bag-of-words queries (#combine / #weight / Lucene OR, stopwords and absent terms,
 * terms in more than half the documents: negative Terrier idfs) under bm25 with random k1 and b, and on an
 * impact index, give the same hits in the same order with scores equal to the last bit and the same
 * number of matched documents. The path must be the one taken: a spy counts its calls. Bounded: fixed seeds.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { QueryAst } from '../../../grammar/ast.js';
import { parseIndri } from '../../../grammar/indri/index.js';
import { buildIndex, openIndex } from '../../../server/engine/index/disk.js';
import { buildMemoryIndex } from '../../../server/engine/index/memory.js';
import type { IndexReader } from '../../../server/engine/index/reader.js';
import { PreparedQuery } from '../../../server/engine/scoring/prepared.js';
import { search, type SearchOptions } from '../../../server/engine/search.js';
import { bagReaders, corpus, parse, queryCase } from './helpers/random-bags.js';

const work = mkdtempSync(join(tmpdir(), 'querylens-taat-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function expectSame(reader: IndexReader, ast: QueryAst, options: SearchOptions): void {
  const byTerm = search(reader, ast, options);
  const byDocument = search(reader, ast, { ...options, exhaustive: true });
  // A pruned search (long lists for a small k) counts only the documents it scored.
  if (!byTerm.pruned) expect(byTerm.matchedDocs).toBe(byDocument.matchedDocs);
  expect(byTerm.hits.length).toBe(byDocument.hits.length);
  for (let i = 0; i < byTerm.hits.length; i++) {
    const a = byTerm.hits[i]!;
    const b = byDocument.hits[i]!;
    if (a.doc !== b.doc || a.docno !== b.docno || !Object.is(a.score, b.score)) throw new Error(`rank ${i + 1}: term at a time ${a.docno} ${a.score}, document at a time ${b.docno} ${b.score}`);
  }
}

describe('term at a time equals document at a time', () => {
  const readers: { name: string; reader: IndexReader; vocab: number }[] = [];
  beforeAll(async () => {
    readers.push(
      ...(await bagReaders(work, [
        { seed: 11, numDocs: 700, vocab: 30, maxLength: 25 },
        { seed: 12, numDocs: 1800, vocab: 200, maxLength: 10 },
      ])),
    );
  });

  it('bm25: random bag-of-words queries, k1, b and k (fixed seed)', () => {
    const taken = vi.spyOn(PreparedQuery.prototype as unknown as { addTermAtATime: () => number }, 'addTermAtATime');
    try {
      for (const { reader, vocab } of readers) {
        fc.assert(
          fc.property(
            queryCase(vocab),
            fc.constantFrom(1, 10, 100, 1000, 5000),
            fc.constantFrom(undefined, 0, 1.2, 2.5),
            fc.constantFrom(undefined, 0, 0.75, 1),
            (q, k, k1, b) => expectSame(reader, parse(q), { scorer: 'bm25', k, k1, b }),
          ),
          { seed: 77, numRuns: 120 },
        );
      }
      // Most of these queries take the path (the rest prune: long lists for a small k).
      expect(taken.mock.calls.length).toBeGreaterThan(200);
    } finally {
      taken.mockRestore();
    }
  });

  it('impact index: weight × impact summed term at a time', async () => {
    const file = join(work, 'vectors.jsonl');
    let s = 5;
    const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
    const lines = Array.from({ length: 400 }, (_, i) => {
      const vector: Record<string, number> = {};
      for (let t = 0; t < 6; t++) vector[`t${Math.floor(12 * rnd() * rnd())}`] = 1 + Math.floor(200 * rnd());
      return JSON.stringify({ id: `v${(i * 31) % 1200}`, contents: '', vector });
    });
    writeFileSync(file, lines.join('\n'));
    await buildIndex([file], join(work, 'impacts'), { input: 'jsonvector' });
    const reader = openIndex(join(work, 'impacts'));
    const taken = vi.spyOn(PreparedQuery.prototype as unknown as { addTermAtATime: () => number }, 'addTermAtATime');
    try {
      for (const text of ['#combine( t0 t1 t2 )', '#weight( 0.3 t0 1.7 t5 0.01 t11 )', '#combine( t3 zzabsent )', '#weight( 2 t0 )']) {
        for (const k of [1, 10, 1000]) expectSame(reader, parseIndri(text).ast, { scorer: 'impact', k });
      }
      expect(taken).toHaveBeenCalled();
    } finally {
      taken.mockRestore();
    }
  });

  it('a search that fails half way leaves the shared accumulators clean for the next one', () => {
    const reader = buildMemoryIndex(corpus(13, 500, 20, 15));
    const original = reader.postings.bind(reader);
    const failing = vi.spyOn(reader, 'postings').mockImplementation((term: string) => {
      if (term === 'q3') throw new Error('disk went away');
      return original(term);
    });
    try {
      // q1 and q2 are added up before q3's list fails.
      expect(() => search(reader, parseIndri('#combine( q1 q2 q3 )').ast, { scorer: 'bm25', k: 1000 })).toThrow('disk went away');
      expect(failing.mock.calls.map((c) => c[0])).toEqual(['q1', 'q2', 'q3']);
    } finally {
      failing.mockRestore();
    }
    expectSame(reader, parseIndri('#combine( q1 q4 )').ast, { scorer: 'bm25', k: 1000 });
  });
});
