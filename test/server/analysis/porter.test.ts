import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createAnalyzer, porterStem } from '../../../server/engine/analysis/index.js';
import { dataPath } from '../../support/data.js';

// Terrier's Porter test vectors (SEMANTICS.md §5): line i of the output is the stem of line i of the input.
const DATA = dataPath('terrier');
const voc = readFileSync(`${DATA}/porter-voc.txt`, 'utf8').split('\n').map((w) => w.trim());
const expected = readFileSync(`${DATA}/porter-output.txt`, 'utf8').split('\n').map((w) => w.trim());

describe('Porter stemmer against Terrier test vectors', () => {
  it('has the 23,531 vector pairs', () => {
    expect(voc.filter((w) => w.length > 0)).toHaveLength(23531);
    expect(expected.filter((w) => w.length > 0)).toHaveLength(23531);
  });

  it('maps every vocabulary word to Terrier\'s stem', () => {
    const failures: string[] = [];
    for (let i = 0; i < voc.length; i++) {
      if (!voc[i]) continue;
      const got = porterStem(voc[i]!);
      if (got !== expected[i]) failures.push(`${voc[i]} -> ${got} (expected ${expected[i]})`);
    }
    expect(failures.slice(0, 20)).toEqual([]);
    expect(failures.length).toBe(0);
  });

  it('applies the reference-implementation departures and the short-word rule', () => {
    expect(porterStem('generalization')).toBe('gener');
    expect(porterStem('sensibli')).toBe('sensibl'); // bli -> ble, then step 5 drops e
    expect(porterStem('archaeologi')).toBe('archaeolog'); // logi -> log
    expect(porterStem('as')).toBe('as'); // length <= 2 is never stemmed
    expect(porterStem('is')).toBe('is');
  });

  it('is what both analyser profiles use for non-stopwords', () => {
    for (const profile of ['terrier', 'lucene'] as const) {
      const a = createAnalyzer(profile);
      expect(a.analyzeTerm('Connections')).toEqual(['connect']);
      expect(a.analyzeTerm('relational')).toEqual(['relat']);
    }
  });
});
