/**
 * Dynamic pruning of query likelihood (ql, Dirichlet; scoring/pruning.ts) against exhaustive
 * evaluation: on random corpora with skewed document lengths (most short, some very long, so the
 * length part of the score matters) and random flat queries (#combine, #weight with weights
 * including 0, Indri plain text, Lucene OR with boosts; stopwords, absent and repeated terms among
 * them), with mu from tiny to huge and k from 1 to more than the matches, the pruned top k has the
 * same documents, in the same order, with scores equal to the last bit, on the in-memory and the
 * on-disk index, and over many windows on a 20 000-document one. Bounded: fixed seeds, a few seconds each.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseIndri } from '../../../grammar/indri/index.js';
import { parseLucene } from '../../../grammar/lucene/index.js';
import type { QueryAst } from '../../../grammar/ast.js';
import { buildIndex, openIndex } from '../../../server/engine/index/disk.js';
import type { IndexReader } from '../../../server/engine/index/reader.js';
import { search, type SearchOptions } from '../../../server/engine/search.js';
import { bagReaders, structuredQueryCase } from './helpers/random-bags.js';

const work = mkdtempSync(join(tmpdir(), 'querylens-ql-pruning-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const word = (i: number) => `q${i}`;

/** Skewed vocabulary and skewed lengths: 85% of documents 1–8 tokens, the rest 40–400. */
function corpus(seed: number, numDocs: number, vocab: number): { docno: string; fields: Record<string, string> }[] {
  let s = seed;
  const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  const docs = [];
  for (let i = 0; i < numDocs; i++) {
    const length = rnd() < 0.85 ? 1 + Math.floor(rnd() * 8) : 40 + Math.floor(rnd() * 360);
    const words = Array.from({ length }, () => (rnd() < 0.05 ? 'the' : word(Math.floor(vocab * rnd() * rnd() * rnd()))));
    docs.push({ docno: `D${(i * 7919) % (numDocs * 3)}`, fields: { text: words.join(' ') } });
  }
  return docs;
}

interface QueryCase {
  text: string;
  dialect: 'indri' | 'lucene';
}

function queryCase(vocab: number): fc.Arbitrary<QueryCase> {
  const term = fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 0, max: Math.min(12, vocab - 1) }).map(word) },
    { weight: 3, arbitrary: fc.integer({ min: 0, max: vocab - 1 }).map(word) },
    { weight: 1, arbitrary: fc.constantFrom('the', 'zzabsent') },
  );
  const weight = fc.integer({ min: 0, max: 40 }).map((w) => (w / 10).toFixed(1));
  return fc.oneof(
    fc.array(term, { minLength: 1, maxLength: 8 }).map((ts) => ({ text: `#combine( ${ts.join(' ')} )`, dialect: 'indri' as const })),
    fc.array(term, { minLength: 1, maxLength: 6 }).map((ts) => ({ text: ts.join(' '), dialect: 'indri' as const })),
    fc.array(fc.tuple(weight, term), { minLength: 1, maxLength: 8 }).map((ws) => ({ text: `#weight( ${ws.map(([w, t]) => `${w} ${t}`).join(' ')} )`, dialect: 'indri' as const })),
    fc.array(fc.tuple(fc.option(weight, { nil: undefined }), term), { minLength: 1, maxLength: 8 }).map((ws) => ({
      text: ws.map(([w, t]) => (w ? `${t}^${w}` : t)).join(' '),
      dialect: 'lucene' as const,
    })),
  );
}

const parse = (q: QueryCase): QueryAst => (q.dialect === 'indri' ? parseIndri(q.text).ast : parseLucene(q.text).ast);

const settings = fc.record({
  k: fc.constantFrom(1, 2, 5, 10, 50, 200, 5000),
  mu: fc.constantFrom(0.5, 5, 50, 500, 2500, 100_000),
});

/** Pruned and exhaustive top k, compared hit by hit (doc, docno, score with Object.is). */
function expectSameTopK(reader: IndexReader, ast: QueryAst, options: SearchOptions): { pruned: boolean; scored: number; matched: number; hits: number } {
  const pruned = search(reader, ast, { ...options, scorer: 'ql', exhaustive: false });
  const exhaustive = search(reader, ast, { ...options, scorer: 'ql', exhaustive: true });
  expect(exhaustive.pruned).toBe(false);
  expect(pruned.hits.length).toBe(exhaustive.hits.length);
  for (let i = 0; i < pruned.hits.length; i++) {
    const a = pruned.hits[i]!;
    const b = exhaustive.hits[i]!;
    if (a.doc !== b.doc || a.docno !== b.docno || !Object.is(a.score, b.score)) {
      throw new Error(`rank ${i + 1}: pruned ${a.docno} ${a.score}, exhaustive ${b.docno} ${b.score}`);
    }
  }
  return { pruned: pruned.pruned, scored: pruned.matchedDocs, matched: exhaustive.matchedDocs, hits: pruned.hits.length };
}

describe('ql dynamic pruning equals exhaustive evaluation', () => {
  const corpora = [
    { seed: 11, numDocs: 1500, vocab: 40 },
    { seed: 12, numDocs: 3000, vocab: 300 },
  ];
  const readers: { name: string; reader: IndexReader; vocab: number }[] = [];
  beforeAll(async () => {
    readers.push(...(await bagReaders(work, corpora, (c) => corpus(c.seed, c.numDocs, c.vocab))));
  }, 60_000);

  it('random flat queries, weights, mu and k (fixed seed)', () => {
    let prunedQueries = 0;
    let skipping = 0;
    let beyondMatches = 0;
    for (const { reader, vocab } of readers) {
      fc.assert(
        fc.property(queryCase(vocab), settings, (q, s) => {
          const r = expectSameTopK(reader, parse(q), s);
          if (r.pruned) prunedQueries++;
          if (r.scored < r.matched) skipping++;
          if (r.hits === r.matched && r.hits > 0) beyondMatches++;
        }),
        { seed: 1313, numRuns: 120 },
      );
    }
    // The property is about pruned searches: they take that path, many skip documents, and some ask for more than match.
    expect(prunedQueries).toBeGreaterThan(400);
    expect(skipping).toBeGreaterThan(150);
    expect(beyondMatches).toBeGreaterThan(10);
  }, 60_000);

  it('queries with windows and synonyms: pruned over their computed lists, to the same bits (fixed seed)', () => {
    let prunedWithWindow = 0;
    let skipping = 0;
    let fractional = 0;
    for (const { reader, vocab } of readers) {
      fc.assert(
        fc.property(structuredQueryCase(vocab), settings, (q, s) => {
          const ast = q.dialect === 'indri' ? parseIndri(q.text).ast : parseLucene(q.text).ast;
          const r = expectSameTopK(reader, ast, s);
          if (r.pruned && /#(1|od2|uw8)\(/.test(q.text)) prunedWithWindow++;
          if (r.pruned && r.scored < r.matched) skipping++;
          if (!r.pruned && q.text.includes('#wsyn')) fractional++;
        }),
        { seed: 6161, numRuns: 120 },
      );
    }
    expect(prunedWithWindow).toBeGreaterThan(60);
    expect(skipping).toBeGreaterThan(30);
    expect(fractional).toBeGreaterThan(5);
  }, 60_000);

  it('over many windows of documents (a 20 000-document on-disk index), where lists are partitioned by their bounds', async () => {
    const docs = corpus(21, 20_000, 2000);
    const file = join(work, 'many.jsonl');
    writeFileSync(file, docs.map((d) => JSON.stringify({ _id: d.docno, text: d.fields.text })).join('\n'));
    await buildIndex([file], join(work, 'many'), {});
    const reader = openIndex(join(work, 'many'));
    let scored = 0;
    let matched = 0;
    fc.assert(
      fc.property(queryCase(2000), settings, (q, s) => {
        const r = expectSameTopK(reader, parse(q), { ...s, k: Math.min(s.k, 50) });
        scored += r.scored;
        matched += r.matched;
      }),
      { seed: 2121, numRuns: 60 },
    );
    expect(scored).toBeLessThan(matched / 2);
  }, 60_000);

  it('queries the split does not cover keep the exhaustive path', () => {
    const { reader } = readers[0]!;
    for (const text of ['#combine( q1 #1(q1 q2).title )', '#combine( q1 q2.title )', '#weight( -1 q1 2 q2 )', '#or( q1 q2 )', '#wsum( 1 q1 2 q2 )', '#combine( q1 #not(q2) )', '#filreq( q1 q2 )', '#combine( q1 #combine( q2 q3 ) )']) {
      expect(search(reader, parseIndri(text).ast, { scorer: 'ql', k: 10, exhaustive: false }).pruned, text).toBe(false);
    }
    expect(search(reader, parseIndri('#combine( q1 q2 )').ast, { scorer: 'ql', mu: 0, k: 10, exhaustive: false }).pruned).toBe(false);
    expect(search(reader, parseLucene('+q1 q2').ast, { scorer: 'ql', k: 10, exhaustive: false }).pruned).toBe(false);
    expect(search(reader, parseIndri('#combine( q1 q2 zzabsent the )').ast, { scorer: 'ql', k: 10, exhaustive: false }).pruned).toBe(true);
    // Windows and synonyms are pruned over their computed lists.
    for (const text of ['#combine( q1 #1(q1 q2) )', '#combine( q3 #syn( q1 q2 ) )', '#weight( 0.8 q3 0.1 #od2(q1 q2) 0.1 #uw8(q1 q2) )']) {
      expect(search(reader, parseIndri(text).ast, { scorer: 'ql', k: 10, exhaustive: false }).pruned, text).toBe(true);
    }
  });
});
