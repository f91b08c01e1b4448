// Window counting (SEMANTICS.md §1.4) against hand tables and brute-force references.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { orderedWindow, orderedWindowCount, sloppyPhraseFreq, unorderedWindow, unorderedWindowCount, type WeightedExtent } from '../../../server/engine/scoring/windows.js';

/** Occurrence lists of terms in a token sequence, as single-token extents. */
function lists(doc: string[], terms: string[]): WeightedExtent[][] {
  return terms.map((t) => doc.flatMap((w, p) => (w === t ? [{ begin: p, end: p + 1, weight: 1 }] : [])));
}
const od = (doc: string, terms: string, n: number | null) => orderedWindow(lists(doc.split(' '), terms.split(' ')), n).length;
const uw = (doc: string, terms: string, n: number | null) => unorderedWindow(lists(doc.split(' '), terms.split(' ')), n).length;

describe('ordered windows #odN (Indri OrderedWindowNode)', () => {
  const table: [string, string, number | null, number][] = [
    ['a b c', 'a b', 1, 1],
    ['a c b', 'a b', 1, 0],
    ['a c b', 'a b', 2, 1],
    ['b a', 'a b', 5, 0],
    ['a b a b', 'a b', 1, 2],
    ['a a a', 'a a', 1, 2], // overlapping matches, one per occurrence of the first term
    ['a b a b a', 'a b a', 1, 2],
    ['a x b x c', 'a b c', 2, 1],
    ['a x x b c', 'a b c', 2, 0],
    ['a b b c', 'a b c', 2, 1], // greedy: earliest b (1), then c at 3: gap 2
    ['a x x x x x x x x b', 'a b', null, 1], // #od unlimited
    ['a a b', 'a b', 1, 1], // a@0 takes b@2 (gap 2) and fails, a@1 matches
  ];
  it.each(table)('%s  #od%s(%s)', (doc, terms, n, want) => {
    expect(od(doc, terms, n)).toBe(want);
  });
  it('#1 counts exactly the positions where the terms sit adjacent (brute force)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', 'c'), { maxLength: 30 }), fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: 1, maxLength: 3 }), (doc, phrase) => {
        let want = 0;
        for (let p = 0; p + phrase.length <= doc.length; p++) if (phrase.every((t, i) => doc[p + i] === t)) want++;
        expect(orderedWindow(lists(doc, phrase), 1).length).toBe(want);
      }),
      { numRuns: 500 },
    );
  });
  it('#odN follows the greedy earliest-next rule (naive re-implementation)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', 'c', 'x'), { maxLength: 25 }), fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: 1, maxLength: 3 }), fc.integer({ min: 1, max: 5 }), (doc, terms, n) => {
        let want = 0;
        for (let p = 0; p < doc.length; p++) {
          if (doc[p] !== terms[0]) continue;
          let prevEnd = p + 1;
          let ok = true;
          for (let j = 1; j < terms.length && ok; j++) {
            let q = prevEnd;
            while (q < doc.length && doc[q] !== terms[j]) q++;
            if (q >= doc.length || q - prevEnd + 1 > n) ok = false;
            else prevEnd = q + 1;
          }
          if (ok) want++;
        }
        expect(orderedWindow(lists(doc, terms), n).length).toBe(want);
      }),
      { numRuns: 500 },
    );
  });
});

describe('unordered windows #uwN (Indri UnorderedWindowNode)', () => {
  const table: [string, string, number | null, number][] = [
    ['a b', 'a b', 2, 1],
    ['b a', 'a b', 2, 1],
    ['a x b', 'a b', 2, 0],
    ['a x b', 'a b', 3, 1],
    ['a b a', 'a b', 2, 2], // windows start at a@0 and at b@1
    ['a b a b', 'a b', 2, 3],
    ['a a', 'a a', 2, 1], // a repeated term needs two occurrences
    ['a', 'a a', 5, 0],
    ['a x a', 'a a', 4, 1],
    ['c x x x x x x x a x b', 'a b c', null, 1], // #uw unlimited
    ['b c a', 'a b c', 3, 1],
  ];
  it.each(table)('%s  #uw%s(%s)', (doc, terms, n, want) => {
    expect(uw(doc, terms, n)).toBe(want);
  });
  it('matches a brute-force count: each start position whose N-token window holds every term at distinct positions', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', 'c', 'x'), { maxLength: 25 }), fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: 1, maxLength: 3 }), fc.integer({ min: 1, max: 6 }), (doc, terms, n) => {
        let want = 0;
        const starts = new Set(terms);
        for (let s = 0; s < doc.length; s++) {
          if (!starts.has(doc[s]!)) continue;
          // Tokens in [s, s + n): can every query term be given its own position, with s used?
          const window = doc.slice(s, Math.min(doc.length, s + n));
          const assign = (i: number, used: Set<number>): boolean => {
            if (i === terms.length) return used.has(0);
            for (let q = 0; q < window.length; q++) if (!used.has(q) && window[q] === terms[i] && assign(i + 1, new Set([...used, q]))) return true;
            return false;
          };
          if (assign(0, new Set())) want++;
        }
        expect(unorderedWindow(lists(doc, terms), n).length).toBe(want);
      }),
      { numRuns: 500 },
    );
  });
});

describe('Lucene sloppy phrase frequency (SEMANTICS.md §4.2)', () => {
  const freq = (doc: string, phrase: string, slop: number) => {
    const d = doc.split(' ');
    return sloppyPhraseFreq(phrase.split(' ').map((t) => d.flatMap((w, p) => (w === t ? [p] : []))), slop);
  };
  it('an exact match weighs 1, a gap of d weighs 1/(1 + d)', () => {
    expect(freq('a b', 'a b', 1)).toBe(1);
    expect(freq('a x b', 'a b', 1)).toBe(0.5);
    expect(freq('a x b', 'a b', 0)).toBe(0);
  });
  it('reversed terms need slop 2', () => {
    expect(freq('b a', 'a b', 1)).toBe(0);
    expect(freq('b a', 'a b', 2)).toBe(Math.fround(1 / 3));
  });
  it('counts several matches and sums their weights in float', () => {
    expect(freq('a b x a b', 'a b', 0)).toBe(2);
    expect(freq('a b x x a x b', 'a b', 1)).toBe(1.5);
  });
});

describe('count-only fast paths agree with the extent algorithms', () => {
  const doc = fc.array(fc.constantFrom('a', 'b', 'c', 'x'), { maxLength: 40 });
  const size = fc.option(fc.integer({ min: 1, max: 8 }), { nil: null });
  const positionsOf = (d: string[], terms: string[]) => terms.map((t) => Int32Array.from(d.flatMap((w, p) => (w === t ? [p] : []))));
  it('ordered (repeated terms allowed)', () => {
    fc.assert(
      fc.property(doc, fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: 1, maxLength: 4 }), size, (d, terms, n) => {
        expect(orderedWindowCount(positionsOf(d, terms), n)).toBe(orderedWindow(lists(d, terms), n).length);
      }),
      { numRuns: 1000 },
    );
  });
  it('unordered (distinct terms)', () => {
    fc.assert(
      fc.property(doc, fc.shuffledSubarray(['a', 'b', 'c'], { minLength: 1 }), size, (d, terms, n) => {
        expect(unorderedWindowCount(positionsOf(d, terms), n)).toBe(unorderedWindow(lists(d, terms), n).length);
      }),
      { numRuns: 1000 },
    );
  });
});
