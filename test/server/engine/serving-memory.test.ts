/**
 * Serving memory (issue 13): a compiled query that stays alive (an editor's query file, a
 * bench's list of queries) must not pin the posting lists it decoded. After each search, score
 * or explanation, the bytes a compiled query alone keeps alive are 0, whatever the scorer and
 * the operators; the lists shared between queries live in byte-bounded caches; and scores are
 * unchanged by letting go (search = scoreDocument = explain, to the bit, before and after).
 */
import { describe, expect, it } from 'vitest';
import { parseIndri } from '../../../grammar/indri/index.js';
import { buildMemoryIndex } from '../../../server/engine/index/memory.js';
import { ByteBoundedCache } from '../../../server/engine/index/lru.js';
import { ConceptEvaluator, type ConceptPostings } from '../../../server/engine/scoring/concepts.js';
import { prepareQuery, type PreparedQuery, type SearchOptions } from '../../../server/engine/search.js';
import { seededRandom } from '../../support/random.js';

const WORDS = ['wing', 'flow', 'heat', 'lift', 'drag', 'jet', 'air', 'speed', 'shock', 'wave', 'plate', 'layer'];

function corpus(seed: number, n: number) {
  const rnd = seededRandom(seed);
  const pick = () => WORDS[Math.floor(rnd() * rnd() * WORDS.length)]!;
  return Array.from({ length: n }, (_, i) => ({
    docno: `d${i}`,
    fields: {
      ...(rnd() < 0.3 ? { title: Array.from({ length: 1 + Math.floor(rnd() * 4) }, pick).join(' ') } : {}),
      text: Array.from({ length: 5 + Math.floor(rnd() * 40) }, pick).join(' '),
    },
  }));
}

const QUERIES = [
  '#combine( wing flow heat )',
  '#combine( lift drag #1( jet air ) )',
  '#weight( 2 speed 1 #uw8( shock wave ) )',
  '#combine( #syn( plate layer ) wing.title )',
  '#combine( #od3( wing flow ) #band( heat lift ) )',
  '#filreq( wing #combine( flow drag ) )',
];
const SETTINGS: SearchOptions[] = [
  { scorer: 'bm25' },
  { scorer: 'bm25', exhaustive: false },
  { scorer: 'bm25-lucene' },
  { scorer: 'ql' },
  { scorer: 'bm25f', fieldParams: { 'w.title': 2 } },
];

describe('a compiled query pins no decoded list between operations', () => {
  const reader = buildMemoryIndex(corpus(13, 1500));

  it('after search, scoreDocument and explain, its retained bytes are 0, for every scorer and operator', () => {
    // Every AST stays alive (and so does its compiled query, cached per AST) for the whole test.
    const alive: { prepared: PreparedQuery; text: string }[] = [];
    for (const text of QUERIES) {
      for (const options of SETTINGS) {
        if (options.scorer === 'bm25-lucene' && text.includes('#filreq')) continue;
        const prepared = prepareQuery(reader, parseIndri(text).ast, options);
        expect(prepared.retainedBytes(), `${text} ${options.scorer} compiled`).toBe(0);
        const result = prepared.search(50);
        expect(result.hits.length, text).toBeGreaterThan(0);
        expect(prepared.retainedBytes(), `${text} ${options.scorer} after search`).toBe(0);
        // Exactness does not depend on what was kept: every hit scores the same one by one.
        for (const hit of result.hits.slice(0, 5)) {
          expect(Object.is(prepared.scoreDocument(hit.doc), hit.score), `${text} ${options.scorer} ${hit.docno}`).toBe(true);
          expect(prepared.retainedBytes()).toBe(0);
          expect(Object.is(prepared.explain(hit.doc).value, hit.score)).toBe(true);
          expect(prepared.retainedBytes()).toBe(0);
        }
        prepared.conceptFrequencies(result.hits[0]!.doc);
        expect(prepared.retainedBytes()).toBe(0);
        alive.push({ prepared, text });
      }
    }
    // A second search of a kept query gives the same ranking as the first (the lists are read again).
    for (const { prepared, text } of alive) {
      const again = prepared.search(50).hits;
      const fresh = prepareQuery(reader, parseIndri(text).ast, prepared.parameters.scorer === 'bm25f' ? { scorer: 'bm25f', fieldParams: { 'w.title': 2 } } : { scorer: prepared.parameters.scorer }).search(50).hits;
      expect(again.map((h) => [h.docno, h.score])).toEqual(fresh.map((h) => [h.docno, h.score]));
    }
    expect(alive.length).toBeGreaterThan(25);
  });

  it('materialisations shared between queries stay within the cache budget', () => {
    const budget = 40_000;
    const shared = new ByteBoundedCache<ConceptPostings, string>(1000, budget, (p) => p.docs.byteLength + p.tfs.byteLength);
    const evaluator = new ConceptEvaluator(reader, shared);
    let materialized = 0;
    for (const a of WORDS) {
      for (const b of WORDS) {
        if (a === b) continue;
        const p = evaluator.materialize({ kind: 'window', ordered: false, size: 8, children: [{ kind: 'term', term: a }, { kind: 'term', term: b }] });
        materialized += p.docs.byteLength + p.tfs.byteLength;
        evaluator.materialize({ kind: 'term', term: a });
        evaluator.release();
        expect(evaluator.retainedBytes()).toBe(0);
        expect(shared.bytes).toBeLessThanOrEqual(budget);
      }
    }
    // The lists read were many times the budget.
    expect(materialized).toBeGreaterThan(10 * budget);
  });
});
