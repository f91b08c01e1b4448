import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { forEachToken } from '../../../server/engine/analysis/tokenizer.js';

/** The definition (SEMANTICS.md §5 / analysis/index.ts): maximal runs of \p{L}\p{N}. */
function byRegex(text: string): [string, number, number][] {
  return [...text.matchAll(/[\p{L}\p{N}]+/gu)].map((m) => [m[0], m.index!, m.index! + m[0].length]);
}

function byScanner(text: string): [string, number, number][] {
  const out: [string, number, number][] = [];
  forEachToken(text, (s, a, b) => out.push([s, a, b]));
  return out;
}

describe('tokeniser scanner', () => {
  it('agrees with the regex definition on arbitrary Unicode (lone surrogates included)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (text) => {
        expect(byScanner(text)).toEqual(byRegex(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('agrees on mixed-script text with astral letters, digits, marks and emoji', () => {
    const pieces = ['a', 'Z', '9', ' ', '-', 'é', 'e\u0301', 'ß', 'İ', 'Ж', '東', '𝐀', '𝟘', '😀', '\ud800', '\udc00', '²', '٣', '\u200b', '_', "'"];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 40 }), (parts) => {
        const text = parts.join('');
        expect(byScanner(text)).toEqual(byRegex(text));
      }),
      { numRuns: 3000 },
    );
  });
});
