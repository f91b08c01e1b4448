/**
 * RM3 (Indri RMExpander variant) on the tiny corpus: document weights from Dirichlet
 * query likelihood, ML document models, interpolation with the original query.
 */
import { describe, expect, it } from 'vitest';
import { expandQuery, feedbackDocumentWeights, feedbackStatistics, relevanceModel } from '../../../server/engine/expansion/index.js';
import { bag, combine, term, tinyIndex } from './fixtures.js';

const reader = tinyIndex();
const view = {
  numDocs: 6,
  totalTokens: 19,
  avgDocLength: 19 / 6,
  collectionFrequency: (t: string) => reader.termStats(t)?.cf ?? 0,
};

describe('RM3', () => {
  it('weighs feedback documents by their query likelihood (mu = 2500)', () => {
    const stats = feedbackStatistics(reader, [0, 1]);
    const w = feedbackDocumentWeights(stats, view, new Map([['cat', 1]]));
    // d0: tf 2, |D| 4; d1: tf 1, |D| 3; P(cat|C) = 5/19.
    const l0 = (2 + (2500 * 5) / 19) / (4 + 2500);
    const l1 = (1 + (2500 * 5) / 19) / (3 + 2500);
    expect(w[0]).toBeCloseTo(l0 / (l0 + l1), 12);
    expect(w[1]).toBeCloseTo(l1 / (l0 + l1), 12);
  });

  it('P(w|R) = Σ_D P(D|Q)·tf/|D|, a distribution over the feedback terms', () => {
    const stats = feedbackStatistics(reader, [0, 1]);
    const [w0, w1] = feedbackDocumentWeights(stats, view, new Map([['cat', 1]]));
    const model = relevanceModel(stats, view, new Map([['cat', 1]]));
    const p = new Map(model.map((t) => [t.term, t.probability]));
    expect(p.get('cat')).toBeCloseTo(w0 * (2 / 4) + w1 * (1 / 3), 12);
    expect(p.get('dog')).toBeCloseTo(w0 * (1 / 4) + w1 * (1 / 3), 12);
    expect(p.get('fish')).toBeCloseTo(w0 * (1 / 4), 12);
    expect(p.get('bird')).toBeCloseTo(w1 * (1 / 3), 12);
    expect(model.reduce((s, t) => s + t.probability, 0)).toBeCloseTo(1, 12);
    expect(model.map((t) => t.term)).toEqual(['cat', 'dog', 'bird', 'fish']);
  });

  it('adds terms on a tiny corpus, even ones in a single feedback document (pyterrier#407)', () => {
    const tiny = tinyIndex(['cat dog', 'cat bird', 'fish']);
    const r = expandQuery(tiny, bag('cat'), [0, 1], { method: 'rm3' });
    expect(r.terms.map((t) => t.term).sort()).toEqual(['bird', 'cat', 'dog']);
    expect(r.terms.filter((t) => !t.isOriginal).length).toBe(2);
    expect(r.terms.reduce((s, t) => s + t.weight, 0)).toBeCloseTo(1, 12);
  });

  it('builds #weight( 0.5 <original> 0.5 #weight( p "t" … ) ) and keeps an Indri original as written', () => {
    const original = combine(term('Cats'), term('dogs'));
    const r = expandQuery(reader, { dialect: 'indri', root: original, range: { start: 0, end: 4 } }, [0, 1, 2], {
      method: 'rm3',
      fbTerms: 3,
    });
    const root = r.ast.root;
    if (root?.kind !== 'belief') throw new Error('expected #weight');
    expect(root.op).toBe('weight');
    expect(root.items.map((i) => i.weight)).toEqual([0.5, 0.5]);
    expect(root.items[0].node).toBe(original);
    const inner = root.items[1].node;
    if (inner.kind !== 'belief') throw new Error('expected inner #weight');
    expect(inner.items).toHaveLength(3);
    expect(inner.items.every((i) => i.node.kind === 'term' && i.node.raw)).toBe(true);
    expect(r.terms).toHaveLength(3);
    expect(r.terms[0]).toMatchObject({ term: 'cat', isOriginal: true, tfx: 4, dfx: 3 });
  });

  it('rebuilds a non-Indri original as #weight of its analysed terms, largest weight 1', () => {
    const q = { ...bag('cats', 'dog', 'cats'), dialect: 'text' as const };
    const r = expandQuery(reader, q, [0, 1], { method: 'rm3', fbTerms: 2 });
    const root = r.ast.root;
    if (root?.kind !== 'belief') throw new Error('expected #weight');
    const original = root.items[0].node;
    if (original.kind !== 'belief') throw new Error('expected rebuilt #weight');
    expect(original.items.map((i) => [i.node.kind === 'term' && i.node.text, i.weight])).toEqual([
      ['cat', 1],
      ['dog', 0.5],
    ]);
  });

  it('fbOrigWeight is settable and checked', () => {
    const r = expandQuery(reader, bag('cat'), [0, 1], { method: 'rm3', originalWeight: 0.8 });
    const root = r.ast.root;
    if (root?.kind !== 'belief') throw new Error('expected #weight');
    expect(root.items[0].weight).toBe(0.8);
    expect(root.items[1].weight).toBeCloseTo(0.2, 12);
    expect(() => expandQuery(reader, bag('cat'), [0], { method: 'rm3', originalWeight: 2 })).toThrow(/originalWeight/);
  });

  it('a query with no indexed terms weighs feedback documents equally', () => {
    const stats = feedbackStatistics(reader, [3, 4]);
    const w = feedbackDocumentWeights(stats, view, new Map());
    expect(w).toEqual([0.5, 0.5]);
    const r = expandQuery(reader, { dialect: 'indri', root: null, range: { start: 0, end: 0 } }, [3, 4], { method: 'rm3', fbTerms: 2 });
    // d3 = dog sun, d4 = fish×3 sun: P(fish) = 0.5·3/4, P(sun) = 0.5·1/2 + 0.5·1/4.
    expect(r.terms.map((t) => t.term)).toEqual(['fish', 'sun']);
    expect(r.ast.root?.kind).toBe('belief');
  });
});
