/**
 * Bo1 on the tiny corpus of fixtures.ts, with weights worked out by hand from SEMANTICS.md §4.5:
 * Pn = F/N, w = tf_x·log2((1+Pn)/Pn) + log2(1+Pn), parameter-free normaliser with
 * tfx_max and N' = |C|/avgdl = 6.
 */
import { describe, expect, it } from 'vitest';
import type { QueryNode } from '../../../grammar/ast.js';
import {
  bo1ParameterFreeNormaliser,
  bo1Weight,
  expandQuery,
  feedbackStatistics,
  selectFeedbackDocs,
} from '../../../server/engine/expansion/index.js';
import { bag, combine, indri, lucene, od, term, tinyIndex, weight } from './fixtures.js';

const reader = tinyIndex();

/** term → weight of the expanded #weight, read from the AST (the thing a scorer sees). */
function astWeights(root: QueryNode | null): Map<string, number> {
  expect(root?.kind).toBe('belief');
  if (root?.kind !== 'belief') return new Map();
  expect(root.op).toBe('weight');
  const out = new Map<string, number>();
  for (const item of root.items) {
    if (item.node.kind === 'term') {
      expect(item.node.raw).toBe(true);
      out.set(item.node.text, item.weight!);
    }
  }
  return out;
}

describe('stage 1 and 2: feedback selection and bag statistics', () => {
  it('takes the first fbDocs hits', () => {
    expect(selectFeedbackDocs([{ doc: 4 }, { doc: 2 }, { doc: 4 }, { doc: 0 }, { doc: 1 }], 3)).toEqual([4, 2, 0]);
  });

  it('sums tf over feedback documents, counts documents, adds lengths', () => {
    const s = feedbackStatistics(reader, [0, 1, 2]);
    expect(s.totalDocumentLength).toBe(11);
    expect(s.terms.get('cat')).toEqual({ tfx: 4, dfx: 3 });
    expect(s.terms.get('dog')).toEqual({ tfx: 2, dfx: 2 });
    expect(s.terms.get('fish')).toEqual({ tfx: 1, dfx: 1 });
    expect(s.terms.has('sun')).toBe(false);
  });

  it('rejects a document id outside the index', () => {
    expect(() => feedbackStatistics(reader, [6])).toThrow(/not in the index/);
  });
});

describe('stage 3: Bo1 weights, hand-computed', () => {
  it('the formula', () => {
    // cat: tf_x 4, F 5, N 6 → 4·log2(2.2) + log2(11/6)
    expect(bo1Weight(4, 5, 6)).toBeCloseTo(5.424484, 5);
    // dog: tf_x 2, F 3 → 2·log2(3) + log2(1.5)
    expect(bo1Weight(2, 3, 6)).toBeCloseTo(3.754888, 5);
    // normaliser: tfx_max 4, N' = 19/(19/6) = 6, f = 2/3 → 4·log2(2.5) + log2(5/3)
    expect(bo1ParameterFreeNormaliser(4, 19, 19 / 6)).toBeCloseTo(6.024679, 5);
  });

  it('expands "cat" from d0..d2: the two-document filter leaves cat and dog; weights add to qtw', () => {
    const r = expandQuery(reader, bag('cat'), [0, 1, 2], { method: 'bo1' });
    const wCat = 5.424484 / 6.024679; // 0.900378
    const wDog = 3.754888 / 6.024679; // 0.623252
    expect(r.terms.map((t) => t.term)).toEqual(['cat', 'dog']);
    const [cat, dog] = r.terms;
    expect(cat).toMatchObject({ isOriginal: true, tfx: 4, dfx: 3 });
    expect(cat.weight).toBeCloseTo(1 + wCat, 5);
    expect(cat.expansionWeight).toBeCloseTo(wCat, 5);
    expect(dog).toMatchObject({ isOriginal: false, tfx: 2, dfx: 2 });
    expect(dog.weight).toBeCloseTo(wDog, 5);
    const ast = astWeights(r.ast.root);
    expect([...ast.keys()]).toEqual(['cat', 'dog']);
    expect(ast.get('cat')).toBeCloseTo(1 + wCat, 5);
    expect(ast.get('dog')).toBeCloseTo(wDog, 5);
    expect(r.ast.dialect).toBe('indri');
  });

  it('the two-document filter spares original terms but drops other single-document terms', () => {
    // fish (d0 only) and tree (d2 only) are in one feedback document each; fish is asked for.
    const r = expandQuery(reader, bag('cat', 'fish'), [0, 1, 2], { method: 'bo1' });
    const names = r.terms.map((t) => t.term);
    expect(names).toContain('fish');
    expect(names).not.toContain('tree');
    expect(names).not.toContain('bird');
    const fish = r.terms.find((t) => t.term === 'fish')!;
    // fish: tf_x 1, F 4 → 1·log2(2.5) + log2(5/3); normaliser as before (cat has the max weight).
    expect(fish.expansionWeight).toBeCloseTo((Math.log2(2.5) + Math.log2(5 / 3)) / 6.024679, 5);
    expect(fish.weight).toBeCloseTo(1 + fish.expansionWeight, 9);
  });

  it('with a single feedback document there is no filter (Terrier: minDF = 0)', () => {
    const r = expandQuery(reader, bag('cat'), [2], { method: 'bo1' });
    expect(r.terms.map((t) => t.term).sort()).toEqual(['cat', 'moon', 'rock', 'tree']);
  });

  it('minDocuments is settable', () => {
    const r = expandQuery(reader, bag('cat'), [0, 1, 2], { method: 'bo1', minDocuments: 1 });
    expect(r.terms.map((t) => t.term).sort()).toEqual(['bird', 'cat', 'dog', 'fish', 'moon', 'rock', 'tree']);
  });

  it('β/max normalisation when not parameter-free', () => {
    const r = expandQuery(reader, bag('cat'), [0, 1, 2], { method: 'bo1', parameterFree: false, beta: 0.4 });
    const [cat, dog] = r.terms;
    expect(cat.expansionWeight).toBeCloseTo(0.4, 12);
    expect(dog.expansionWeight).toBeCloseTo((0.4 * 3.754888) / 5.424484, 5);
  });
});

describe('combination with the original query', () => {
  it('number of terms = max(fbTerms, |query|): two query terms with fbTerms 1 still reweight two', () => {
    const one = expandQuery(reader, bag('moon'), [0, 1, 2], { method: 'bo1', fbTerms: 1 });
    // Only the top term by w' (cat) is added; moon keeps its weight 1.
    expect(one.terms.map((t) => [t.term, t.expansionWeight > 0]).sort()).toEqual([
      ['cat', true],
      ['moon', false],
    ]);
    const two = expandQuery(reader, bag('moon', 'tree'), [0, 1, 2], { method: 'bo1', fbTerms: 1 });
    const added = two.terms.filter((t) => t.expansionWeight > 0).map((t) => t.term);
    expect(added).toEqual(['cat', 'dog']);
  });

  it('fbTerms 0 only reweights the original terms', () => {
    const r = expandQuery(reader, bag('cat', 'moon'), [0, 1, 2], { method: 'bo1', fbTerms: 0 });
    expect(r.terms.every((t) => t.isOriginal)).toBe(true);
    expect(r.terms.find((t) => t.term === 'cat')!.weight).toBeCloseTo(1 + 5.424484 / 6.024679, 5);
  });

  it('defaults to 10 terms', () => {
    const words = 'a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 a12'.split(' ');
    const big = tinyIndex([words.join(' '), words.join(' '), 'cat']);
    const r = expandQuery(big, bag('cat'), [0, 1], { method: 'bo1' });
    expect(r.terms.filter((t) => !t.isOriginal)).toHaveLength(10);
  });

  it('original weights are divided by their max before the addition; repeated terms accumulate', () => {
    // #weight( 2 cat 1 dog 1 cat ) → cat 3/4, dog 1/4 → normalised cat 1, dog 1/3.
    const q = indri(weight([2, term('cat')], [1, term('dog')], [1, term('cat')]));
    const r = expandQuery(reader, q, [0, 1, 2], { method: 'bo1' });
    const dog = r.terms.find((t) => t.term === 'dog')!;
    expect(dog.isOriginal).toBe(true);
    expect(dog.weight).toBeCloseTo(1 / 3 + 3.754888 / 6.024679, 5);
    expect(r.terms.find((t) => t.term === 'cat')!.weight).toBeCloseTo(1 + 5.424484 / 6.024679, 5);
  });

  it('terms are analysed: "Cats" is the original term cat', () => {
    const r = expandQuery(reader, bag('Cats'), [0, 1, 2], { method: 'bo1' });
    expect(r.terms.find((t) => t.term === 'cat')?.isOriginal).toBe(true);
  });

  it('windows and other concepts are kept with their normalised weights', () => {
    const window = od(1, term('cat'), term('dog'));
    const q = indri(weight([2, term('cat')], [1, window]));
    const r = expandQuery(reader, q, [0, 1, 2], { method: 'bo1' });
    const root = r.ast.root;
    if (root?.kind !== 'belief') throw new Error('expected #weight');
    const kept = root.items.find((i) => i.node === window);
    expect(kept?.weight).toBeCloseTo(0.5, 12);
  });

  it('a Lucene NOT clause survives as #filrej around the expanded query', () => {
    const q = lucene({
      kind: 'boolean',
      grouped: false,
      range: { start: 0, end: 0 },
      clauses: [
        { occur: 'should', via: 'default', node: term('cat') },
        { occur: 'mustNot', via: 'minus', node: term('sun') },
      ],
    });
    const r = expandQuery(reader, q, [0, 1, 2], { method: 'bo1' });
    expect(r.ast.root?.kind).toBe('filter');
    if (r.ast.root?.kind !== 'filter') return;
    expect(r.ast.root.mode).toBe('reject');
    expect(r.ast.root.filter).toMatchObject({ kind: 'term', text: 'sun' });
    expect(astWeights(r.ast.root.scored).has('dog')).toBe(true);
  });

  it('nested #combine shares multiply down', () => {
    // #combine( cat #combine(dog fish) ) → cat 1/2, dog 1/4, fish 1/4 → normalised 1, 1/2, 1/2.
    const q = indri(combine(term('cat'), combine(term('dog'), term('fish'))));
    const r = expandQuery(reader, q, [0, 1, 2], { method: 'bo1', fbTerms: 0 });
    const fish = r.terms.find((t) => t.term === 'fish')!;
    expect(fish.weight).toBeCloseTo(0.5 + (Math.log2(2.5) + Math.log2(5 / 3)) / 6.024679, 5);
  });
});
