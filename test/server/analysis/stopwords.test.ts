import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  createAnalyzer,
  LUCENE_STOPWORDS,
  parseStoplist,
  TERRIER_STOPWORDS,
} from '../../../server/engine/analysis/index.js';
import { TERRIER_STOPWORDS_TEXT } from '../../../server/engine/analysis/resources/terrier-stopwords.js';
import { dataPath } from '../../support/data.js';

const resource = fileURLToPath(
  new URL('../../../server/engine/analysis/resources/terrier-stopwords.txt', import.meta.url),
);

describe('Terrier stoplist', () => {
  it('is the shared Terrier file, byte for byte, in both the .txt copy and the embedded module', () => {
    const original = readFileSync(dataPath('terrier/stopwords.txt'), 'utf8');
    expect(readFileSync(resource, 'utf8')).toBe(original);
    expect(TERRIER_STOPWORDS_TEXT).toBe(original);
  });

  it('has 733 unique entries ending with x y your yours yourself (SEMANTICS.md §5)', () => {
    expect(TERRIER_STOPWORDS.size).toBe(733);
    const words = parseStoplist(TERRIER_STOPWORDS_TEXT);
    expect(words).toHaveLength(733);
    for (const w of ['x', 'y', 'your', 'yours', 'yourself', 'the', 'about']) expect(TERRIER_STOPWORDS.has(w)).toBe(true);
  });

  it('reads lines with trim()', () => {
    expect(parseStoplist(' the \r\n\tand\n\n  \nof')).toEqual(['the', 'and', 'of']);
  });

  it('stops every listed word in the terrier profile, case-insensitively', () => {
    const a = createAnalyzer('terrier');
    let singleTokenWords = 0;
    for (const w of TERRIER_STOPWORDS) {
      expect(a.isStopword(w)).toBe(true);
      // Entries with punctuation (e.g. `vis-a-vis`) can never come out of the tokeniser as
      // one token, as in Terrier; the rest must vanish.
      if (!/^[\p{L}\p{N}]+$/u.test(w)) continue;
      singleTokenWords++;
      expect(a.analyze(w.toUpperCase())).toEqual([]);
    }
    expect(singleTokenWords).toBeGreaterThan(700);
  });
});

describe('Lucene stop set', () => {
  const listed =
    'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with';
  it('is exactly the 33 words of SEMANTICS.md §5', () => {
    expect([...LUCENE_STOPWORDS].sort()).toEqual(listed.split(' ').sort());
    expect(LUCENE_STOPWORDS.size).toBe(33);
  });

  it('stops only those words in the lucene profile', () => {
    const a = createAnalyzer('lucene');
    for (const w of listed.split(' ')) expect(a.analyzeTerm(w)).toEqual([]);
    // Terrier stopwords that Lucene keeps.
    expect(a.analyzeTerm('about')).toEqual(['about']);
    expect(a.analyzeTerm('would')).toEqual(['would']);
    expect(createAnalyzer('terrier').analyzeTerm('would')).toEqual([]);
  });
});
