/**
 * No scorer ever emits a non-finite score (issue 11, item 6: `#weight( 0 heat 0 slab )` under
 * `ql` wrote NaN into a run). Random Indri and Lucene query text — weights and boosts of 0,
 * negative, tiny and huge included — over a small random index, under every registered scorer
 * (bm25, bm25-lucene, ql, bm25f): every hit's score, every scoreDocument and every explanation value is finite.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseIndri } from '../../../grammar/indri/index.js';
import { parseLucene } from '../../../grammar/lucene/index.js';
import { buildMemoryIndex } from '../../../server/engine/index/index.js';
import { explain, scoreDocument, search, SCORER_NAMES } from '../../../server/engine/search.js';

const VOCAB = ['wing', 'flow', 'heat', 'lift', 'drag', 'jet', 'air', 'speed', 'shock', 'wave'];
const WORDS = [...VOCAB, 'the', 'zeppelin'];

function corpus(n: number, seed: number): { docno: string; fields: Record<string, string> }[] {
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const pick = () => VOCAB[Math.floor(rnd() * rnd() * VOCAB.length)]!;
  return Array.from({ length: n }, (_, i) => {
    const title = Array.from({ length: Math.floor(rnd() * 3) }, pick).join(' ');
    const text = Array.from({ length: Math.floor(rnd() * 20) }, () => (rnd() < 0.1 ? 'the' : pick())).join(' ');
    return { docno: `D${i}`, fields: title ? { title, text } : { text } };
  });
}
const reader = buildMemoryIndex(corpus(40, 7), { profile: 'terrier' });

const word = fc.constantFrom(...WORDS);
const weight = fc.constantFrom('0', '0', '0.0', '-1', '-0.5', '1', '2', '0.5', '1e-300', '1e300', '1.7e308', '-1e308');

const indri: fc.Arbitrary<string> = fc.letrec<{ q: string }>((tie) => ({
  q: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 4, arbitrary: word },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('#1', '#uw3', '#od2', '#band', '#syn'), fc.array(word, { minLength: 1, maxLength: 3 })).map(([op, ws]) => `${op}( ${ws.join(' ')} )`) },
    { weight: 1, arbitrary: fc.array(fc.tuple(weight, word), { minLength: 1, maxLength: 3 }).map((it) => `#wsyn( ${it.map(([w, t]) => `${w} ${t}`).join(' ')} )`) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom('#weight', '#wand', '#wsum'), fc.array(fc.tuple(weight, tie('q')), { minLength: 1, maxLength: 3 }))
        .map(([op, it]) => `${op}( ${it.map(([w, q]) => `${w} ${q}`).join(' ')} )`),
    },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom('#combine', '#or', '#max', '#not'), fc.array(tie('q'), { minLength: 1, maxLength: 3 })).map(([op, qs]) => `${op}( ${(op === '#not' ? qs.slice(0, 1) : qs).join(' ')} )`) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('#filreq', '#filrej'), word, tie('q')).map(([op, f, q]) => `${op}( ${f} ${q} )`) },
  ),
})).q;

const lucene: fc.Arbitrary<string> = fc.letrec<{ q: string }>((tie) => ({
  q: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 4, arbitrary: word },
    { weight: 1, arbitrary: fc.tuple(word, word, fc.constantFrom('', '~1', '~3')).map(([a, b, s]) => `"${a} ${b}"${s}`) },
    { weight: 1, arbitrary: fc.constantFrom('w*', 'sh?ck', 'wnig~2', '[f TO l]', '*:*', 'title:wing') },
    { weight: 2, arbitrary: fc.tuple(tie('q'), weight).map(([q, w]) => `${q}^${w.replace(/^-.*/, '0')}`) },
    { weight: 2, arbitrary: fc.array(fc.tuple(fc.constantFrom('', '+', '-'), tie('q')), { minLength: 1, maxLength: 3 }).map((cs) => `( ${cs.map(([o, q]) => o + q).join(' ')} )`) },
  ),
})).q;

function expectFiniteScores(text: string, dialect: 'indri' | 'lucene'): void {
  const { ast } = dialect === 'indri' ? parseIndri(text) : parseLucene(text);
  // `impact` scores impact indexes only (it refuses this one): test/server/index/impact.test.ts.
  for (const scorer of SCORER_NAMES.filter((s) => s !== 'impact')) {
    const r = search(reader, ast, { scorer, k: 50 });
    for (const h of r.hits) expect(Number.isFinite(h.score), `${scorer} ${text}: ${h.docno} scores ${h.score}`).toBe(true);
    for (const doc of [0, 7, 23]) {
      const s = scoreDocument(reader, ast, doc, { scorer });
      if (s !== null) expect(Number.isFinite(s), `${scorer} ${text}: doc ${doc} scores ${s}`).toBe(true);
      const e = explain(reader, ast, doc, { scorer }).value;
      expect(Number.isFinite(e), `${scorer} ${text}: explain of doc ${doc} is ${e}`).toBe(true);
    }
  }
}

describe('every score is finite', () => {
  it('the reported query: #weight( 0 heat 0 slab ) under every scorer', () => {
    for (const q of ['#weight( 0 heat 0 wing )', '#wand( 0 heat 0 wing )', '#wsum( 0 heat 0 wing )', '#wsyn( 0 heat 0 wing )', '#weight( 1 heat -1 wing )'])
      expectFiniteScores(q, 'indri');
    expectFiniteScores('heat^0 wing^0', 'lucene');
  });

  it('random Indri queries × every scorer', () => {
    fc.assert(fc.property(indri, (q) => expectFiniteScores(q, 'indri')), { numRuns: 300, seed: 11 });
  });

  it('random Lucene queries × every scorer', () => {
    fc.assert(fc.property(lucene, (q) => expectFiniteScores(q, 'lucene')), { numRuns: 300, seed: 12 });
  });
});
