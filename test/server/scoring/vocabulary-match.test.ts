// Multi-term expansion against the vocabulary (SEMANTICS.md §1.3, §3): wildcard, regex, range, fuzzy, caps.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { editDistance, matchFuzzy, matchRange, matchRegex, matchWildcard } from '../../../server/engine/scoring/vocabulary-match.js';
import { buildToyIndex } from './helpers/toy-index.js';

const reader = buildToyIndex([{ docno: 'a', fields: { text: 'boat moat mat goat bolt boats coat cat' } }]);

describe('vocabulary expansion', () => {
  it('wildcards: * any run, ? one character, case-folded, vocabulary order', () => {
    expect(matchWildcard(reader, 'bo*').terms).toEqual(['boat', 'boats', 'bolt']);
    expect(matchWildcard(reader, '?oat').terms).toEqual(['boat', 'coat', 'goat', 'moat']);
    expect(matchWildcard(reader, 'BO?T').terms).toEqual(['boat', 'bolt']);
    expect(matchWildcard(reader, 'x*').terms).toEqual([]);
  });
  it('stops at the cap and says so', () => {
    expect(matchWildcard(reader, '*', 3)).toEqual({ terms: ['boat', 'boats', 'bolt'], capped: true });
    expect(matchWildcard(reader, '*oat', 4)).toEqual({ terms: ['boat', 'coat', 'goat', 'moat'], capped: false });
  });
  it('regular expressions match whole terms', () => {
    expect(matchRegex(reader, '[mb]oat').terms).toEqual(['boat', 'moat']);
    expect(matchRegex(reader, 'oat').terms).toEqual([]);
  });
  it('ranges are lexicographic with inclusive or exclusive ends', () => {
    expect(matchRange(reader, 'boat', 'cat', true, true).terms).toEqual(['boat', 'boats', 'bolt', 'cat']);
    expect(matchRange(reader, 'boat', 'cat', false, false).terms).toEqual(['boats', 'bolt']);
    expect(matchRange(reader, null, 'boats', true, false).terms).toEqual(['boat']);
    expect(matchRange(reader, 'moat', null, true, true).terms).toEqual(['moat']);
  });
  it('fuzzy: within max edits (a transposition is one edit), closest first', () => {
    expect(matchFuzzy(reader, 'boat', 1).terms).toEqual(['boat', 'boats', 'bolt', 'coat', 'goat', 'moat']);
    expect(matchFuzzy(reader, 'baot', 1).terms).toEqual(['boat']);
    expect(matchFuzzy(reader, 'boat', 1, 2)).toEqual({ terms: ['boat', 'boats'], capped: true });
  });
  it('edit distance is symmetric, 0 only for equal strings, and bounded by the longer length', () => {
    const s = fc.string({ maxLength: 7, unit: fc.constantFrom('a', 'b', 'c') });
    fc.assert(
      fc.property(s, s, (a, b) => {
        const d = editDistance(a, b);
        expect(d).toBe(editDistance(b, a));
        expect(d === 0).toBe(a === b);
        expect(d).toBeLessThanOrEqual(Math.max(a.length, b.length));
        expect(d).toBeGreaterThanOrEqual(Math.abs(a.length - b.length));
      }),
    );
  });
});
