import { describe, expect, it } from 'vitest';
import { buildMemoryIndex } from '../../../server/engine/index/memory.js';
import type { IndexReader } from '../../../server/engine/index/reader.js';
import { DuplicateDocnoError } from '../../../server/engine/index/accumulator.js';
import { loadJsonl, naiveIndex, type NaiveIndex } from './naive.js';

const CRANFIELD = '/work/shared/data/cranfield/corpus.jsonl';

/** Checks every answer of `reader` against the naive oracle. */
export function expectMatchesOracle(reader: IndexReader, oracle: NaiveIndex): void {
  const stats = reader.stats();
  expect(stats.numDocs).toBe(oracle.docnos.length);
  const total = oracle.lengths.reduce((a, b) => a + b, 0);
  expect(stats.totalTokens).toBe(total);
  expect(stats.avgDocLength).toBeCloseTo(total / oracle.docnos.length, 12);

  const vocab = [...oracle.postings.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  expect([...reader.vocabulary()]).toEqual(vocab);
  expect(reader.vocabularySize()).toBe(vocab.length);

  for (const term of vocab) {
    const byDoc = oracle.postings.get(term)!;
    const docs = [...byDoc.keys()].sort((a, b) => a - b);
    const cf = docs.reduce((s, d) => s + byDoc.get(d)!.length, 0);
    expect(reader.termStats(term)).toEqual({ df: docs.length, cf });
    const pl = reader.postings(term)!;
    expect(Array.from(pl.docs)).toEqual(docs);
    expect(Array.from(pl.tfs)).toEqual(docs.map((d) => byDoc.get(d)!.length));
    docs.forEach((d, i) => {
      const ps = Array.from(pl.positions.subarray(pl.posStart[i]!, pl.posStart[i]! + pl.tfs[i]!));
      expect(ps).toEqual(byDoc.get(d));
    });
  }

  const docVectors: Map<string, number>[] = oracle.docnos.map(() => new Map());
  for (const [term, byDoc] of oracle.postings) for (const [d, ps] of byDoc) docVectors[d]!.set(term, ps.length);
  oracle.docnos.forEach((docno, d) => {
    expect(reader.docno(d)).toBe(docno);
    expect(reader.docByDocno(docno)).toBe(d);
    expect(reader.docLength(d)).toBe(oracle.lengths[d]);
    const dv = reader.docVector(d);
    const expectedTerms = [...docVectors[d]!.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(dv.terms).toEqual(expectedTerms);
    expect(Array.from(dv.tfs)).toEqual(expectedTerms.map((t) => docVectors[d]!.get(t)));
    for (const field of reader.fields()) {
      const e = oracle.extents[d]!.get(field);
      expect(reader.fieldExtents(d, field)).toEqual(e ? [{ begin: e[0], end: e[1] }] : []);
    }
  });
}

describe('in-memory index', () => {
  it('indexes a tiny fielded corpus exactly as reader.ts describes', () => {
    const reader = buildMemoryIndex(
      [
        { docno: 'd1', fields: { title: 'Wing flutter', text: 'The flutter of a swept wing.' } },
        { docno: 'd2', fields: { text: 'Supersonic flow.', author: 'Smith flutter' } },
        { docno: 'd3', fields: { title: 'The', text: '' } },
      ],
      { profile: 'terrier' },
    );
    expect(reader.profile).toBe('terrier');
    expect(reader.analyzer.profile).toBe('terrier');
    expect(reader.fields()).toEqual(['title', 'text', 'author']);
    expect(reader.stats()).toEqual({ numDocs: 3, totalTokens: 9, avgDocLength: 3 });
    // d1: wing(0) flutter(1) | flutter(2) swept(3) wing(4)
    expect(reader.fieldExtents(0, 'title')).toEqual([{ begin: 0, end: 2 }]);
    expect(reader.fieldExtents(0, 'text')).toEqual([{ begin: 2, end: 5 }]);
    expect(reader.fieldExtents(0, 'author')).toEqual([]);
    expect(reader.fieldExtents(1, 'author')).toEqual([{ begin: 2, end: 4 }]);
    expect(reader.fieldExtents(2, 'title')).toEqual([]);
    expect(reader.fieldExtents(0, 'nosuch')).toEqual([]);
    expect(reader.docLength(2)).toBe(0);
    expect(reader.termStats('flutter')).toEqual({ df: 2, cf: 3 });
    const pl = reader.postings('flutter')!;
    expect(Array.from(pl.docs)).toEqual([0, 1]);
    expect(Array.from(pl.tfs)).toEqual([2, 1]);
    expect(Array.from(pl.posStart)).toEqual([0, 2]);
    expect(Array.from(pl.positions)).toEqual([1, 2, 3]);
    expect(reader.postings('the')).toBeUndefined();
    expect(reader.termStats('nosuch')).toBeUndefined();
    expect([...reader.vocabulary('s')]).toEqual(['smith', 'superson', 'swept']);
    expect([...reader.vocabulary('zz')]).toEqual([]);
    expect(reader.docVector(0)).toEqual({ terms: ['flutter', 'swept', 'wing'], tfs: Int32Array.from([2, 1, 2]) });
    expect(reader.document(1)).toEqual({ docno: 'd2', title: '', fields: { text: 'Supersonic flow.', author: 'Smith flutter' } });
    expect(reader.document(0).title).toBe('Wing flutter');
    expect(reader.docByDocno('d3')).toBe(2);
    expect(reader.docByDocno('d4')).toBeUndefined();
    expect(() => reader.docLength(3)).toThrow(RangeError);
  });

  it('rejects duplicate docnos', () => {
    expect(() =>
      buildMemoryIndex([
        { docno: 'a', fields: { text: 'x' } },
        { docno: 'a', fields: { text: 'y' } },
      ]),
    ).toThrow(DuplicateDocnoError);
  });

  it('handles an empty corpus', () => {
    const reader = buildMemoryIndex([]);
    expect(reader.stats()).toEqual({ numDocs: 0, totalTokens: 0, avgDocLength: 0 });
    expect(reader.vocabularySize()).toBe(0);
  });

  for (const profile of ['terrier', 'lucene'] as const) {
    it(`matches the naive oracle on Cranfield (${profile})`, () => {
      const docs = loadJsonl(CRANFIELD);
      expect(docs).toHaveLength(1400);
      const reader = buildMemoryIndex(docs, { profile });
      expectMatchesOracle(reader, naiveIndex(docs, profile));
      // Docs 471 and 995 have empty text (shared data README).
      expect(reader.docLength(reader.docByDocno('471')!)).toBeLessThan(20);
    });
  }
});
