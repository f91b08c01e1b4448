import { describe, expect, it } from 'vitest';
import { buildMemoryIndex } from '../../../server/engine/index/memory.js';
import { DuplicateDocnoError } from '../../../server/engine/index/accumulator.js';
import { expectMatchesOracle, loadJsonl, naiveIndex } from './naive.js';
import { dataPath } from '../../support/data.js';

const CRANFIELD = dataPath('cranfield/corpus.jsonl');

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
