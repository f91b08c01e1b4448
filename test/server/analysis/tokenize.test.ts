import { describe, expect, it } from 'vitest';
import { createAnalyzer } from '../../../server/engine/analysis/index.js';

const terrier = createAnalyzer('terrier');

type Row = [input: string, terms: string[]];
// Tokens are maximal runs of Unicode letters and digits, lowercased, stopped, stemmed (SEMANTICS.md §5).
const table: Row[] = [
  ['Hello, World!', ['hello', 'world']],
  // Every single letter is a Terrier stopword.
  ['U.S.A. 1999-2001', ['1999', '2001']],
  ['e-mail state-of-the-art', ['mail', 'state', 'art']],
  ["don't John's", ['don', 'john']],
  ['Über café naïve', ['über', 'café', 'naïv']],
  ['Ελληνικά Москва 東京', ['ελληνικά', 'москва', '東京']],
  ['x²+y³ = ⅓', ['x²', 'y³', '⅓']], // \p{N} includes superscripts and fractions; x, y alone are stopwords
  ['abc123def 42', ['abc123def', '42']],
  ['supercalifragilisticexpialidociousnessesandmore', ['supercalifragilisticexpialidociousnessesandmor']],
  ['  \t\n', []],
  ['___ --- ...', []],
  ['Running RUNS runner', ['run', 'run', 'runner']],
  ['😀 emoji😀word', ['emoji', 'word']],
];

describe('terrier tokenisation table', () => {
  for (const [input, terms] of table) {
    it(JSON.stringify(input), () => {
      expect(terrier.analyze(input).map((t) => t.term)).toEqual(terms);
    });
  }
});

describe('positions and offsets', () => {
  it('gives stopwords no position, so stopping never breaks a phrase', () => {
    const tokens = terrier.analyze('The cat and the hat');
    expect(tokens.map((t) => [t.term, t.position])).toEqual([
      ['cat', 0],
      ['hat', 1],
    ]);
  });

  it('starts at firstPosition', () => {
    expect(terrier.analyze('aircraft wings', 7).map((t) => t.position)).toEqual([7, 8]);
  });

  it('reports UTF-16 offsets of the surface token', () => {
    const text = 'the 😀 Wings of Ünïcode';
    for (const t of terrier.analyze(text)) {
      const surface = text.slice(t.start, t.end);
      expect(surface).toMatch(/^[\p{L}\p{N}]+$/u);
      expect(terrier.analyzeTerm(surface)).toEqual([t.term]);
    }
    const [wings] = terrier.analyze(text);
    expect(text.slice(wings!.start, wings!.end)).toBe('Wings');
  });

  it('agrees between analyze() and the indexing fast path terms()', () => {
    const text = 'Boundary-layer flows, at Mach 2.5, over the WINGS of 747s and Ünïcode tests.';
    expect(createAnalyzer('terrier').terms(text)).toEqual(terrier.analyze(text).map((t) => t.term));
  });
});

describe('analyzeTerm', () => {
  it('stems normal terms and returns [] for stopwords or no letters', () => {
    expect(terrier.analyzeTerm('Aircraft')).toEqual(['aircraft']);
    expect(terrier.analyzeTerm('the')).toEqual([]);
    expect(terrier.analyzeTerm('---')).toEqual([]);
  });

  it('splits a term that tokenises into several tokens', () => {
    expect(terrier.analyzeTerm('U.K.')).toEqual([]); // single letters are Terrier stopwords
    expect(createAnalyzer('lucene').analyzeTerm('U.K.')).toEqual(['u', 'k']);
    expect(terrier.analyzeTerm('heat-transfer')).toEqual(['heat', 'transfer']);
  });

  it('only lowercases raw ("quoted") terms: no stemming, no stopping (SEMANTICS.md §1.3)', () => {
    expect(terrier.analyzeTerm('Running', { raw: true })).toEqual(['running']);
    expect(terrier.analyzeTerm('The', { raw: true })).toEqual(['the']);
    expect(terrier.analyzeTerm('Running')).toEqual(['run']);
  });

  it('rejects an unknown profile', () => {
    expect(() => createAnalyzer('krovetz' as never)).toThrow(/unknown analyzer profile/);
  });
});
