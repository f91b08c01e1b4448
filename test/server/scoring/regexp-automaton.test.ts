/**
 * Lucene regular expressions, wildcards and fuzzy terms expand in time linear in the terms
 * (issue 11, item 2): `/(.*.*)*q/` ran a backtracking JavaScript RegExp over the vocabulary and
 * took minutes; an automaton too large for its budget is an `engine/expansion-limit` warning
 * with a short message, never a hang or a 2 MB line.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLuceneRegexp } from '../../../grammar/lucene/regexp.js';
import { parseLucene } from '../../../grammar/lucene/index.js';
import { search } from '../../../server/engine/search.js';
import { ExpansionLimitError, RegexpMatcher } from '../../../server/engine/scoring/regexp-automaton.js';
import { editDistance, globMatches, matchRegex } from '../../../server/engine/scoring/vocabulary-match.js';
import { buildToyIndex } from './helpers/toy-index.js';

function matcher(body: string): RegexpMatcher {
  const p = parseLuceneRegexp(body);
  if (!p.ok) throw new Error(`${body}: ${p.message}`);
  return new RegexpMatcher(p.node);
}

/** Regex → terms it matches, terms it does not (Lucene RegExp semantics, all flags). */
const CASES: [string, string[], string[]][] = [
  ['ab*', ['a', 'ab', 'abbb'], ['', 'b', 'aba']],
  ['[a-c]x', ['ax', 'cx'], ['dx', 'x']],
  ['[^a-c]x', ['dx', 'éx'], ['ax', 'x']],
  ['a{2,3}', ['aa', 'aaa'], ['a', 'aaaa']],
  ['a{2}', ['aa'], ['a', 'aaa']],
  ['a{2,}', ['aa', 'aaaaa'], ['a']],
  ['a{3,2}', [], ['aa', 'aaa', '']],
  ['"a.b"c', ['a.bc'], ['axbc']],
  ['a.c', ['abc', 'a.c', 'a😀c'], ['ac', 'abbc']],
  ['#', [], ['', 'a']],
  ['@', ['', 'anything'], []],
  ['~(ab)', ['', 'a', 'abc'], ['ab']],
  ['@&~(a@)', ['', 'ba'], ['a', 'ab']],
  ['(a|b)c&a@', ['ac'], ['bc']],
  ['<1-10>', ['1', '7', '10', '007', '0010'], ['0', '11', '', 'a']],
  ['<01-10>', ['01', '07', '10'], ['1', '007', '11']],
  ['<10-1>', ['1', '10'], ['11']],
  ['a|b', ['a', 'b'], ['ab', '']],
  ['\\.', ['.'], ['a']],
  ['*a', ['*a'], ['a', 'ba']],
  ['()', [''], ['a']],
  ['[]a]', [']', 'a'], ['b']],
  ['(.*.*)*q', ['q', 'aaq'], ['aaaa']],
];

describe('RegexpMatcher', () => {
  it.each(CASES)('/%s/', (body, yes, no) => {
    const m = matcher(body);
    for (const t of yes) expect(m.matches(t), `${body} should match ${JSON.stringify(t)}`).toBe(true);
    for (const t of no) expect(m.matches(t), `${body} should not match ${JSON.stringify(t)}`).toBe(false);
  });

  it('agrees with a JavaScript RegExp on the common subset', () => {
    const atom = fc.constantFrom('a', 'b', '.', '[ab]', '[^a]', '(a|b)', '(ab)');
    const piece = fc.tuple(atom, fc.constantFrom('', '*', '+', '?', '{2}', '{1,2}')).map(([a, q]) => a + q);
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 5 }), fc.array(fc.stringMatching(/^[abc]{0,6}$/), { minLength: 1, maxLength: 10 }), (pieces, terms) => {
        const body = pieces.join('');
        const m = matcher(body);
        const js = new RegExp(`^(?:${body})$`, 's');
        for (const t of terms) expect(m.matches(t), `${body} on ${t}`).toBe(js.test(t));
      }),
      { numRuns: 300, seed: 5 },
    );
  });

  it('/(.*.*)*q/ over long terms takes linear time (a backtracking RegExp takes seconds on 15 characters)', () => {
    const reader = buildToyIndex([{ docno: 'd', fields: { text: `${'a'.repeat(15)} ${'a'.repeat(20)}q ${'b'.repeat(5000)}` } }]);
    const t0 = performance.now();
    expect(matchRegex(reader, '(.*.*)*q').terms).toEqual([`${'a'.repeat(20)}q`]);
    expect(performance.now() - t0).toBeLessThan(2000);
  });

  it('an automaton past its budget is an ExpansionLimitError, and a short engine/expansion-limit warning', () => {
    expect(() => matcher('(a{400}){400}')).toThrow(ExpansionLimitError);
    const reader = buildToyIndex([{ docno: 'd', fields: { text: 'ab ba' } }]);
    for (const body of ['~((a|b)*a(a|b){24})', `(a{1000}){1000}`, `${'x'.repeat(300_000)}|a{100000}`]) {
      const r = search(reader, parseLucene(`/${body}/`).ast);
      const w = r.warnings.find((d) => d.code === 'engine/expansion-limit');
      expect(w, body.slice(0, 40)).toBeDefined();
      expect(w!.message.length).toBeLessThan(400);
      expect(r.hits).toEqual([]);
    }
  });
});

describe('an invalid regex body', () => {
  it('is reported once, by the parser (lucene/bad-regex), and matches nothing', () => {
    const reader = buildToyIndex([{ docno: 'd', fields: { text: 'flow ab' } }]);
    const parsed = parseLucene('/[a/ flow');
    expect(parsed.diagnostics.map((d) => d.code)).toEqual(['lucene/bad-regex']);
    // Ranked as recovered (`search --recover`): no second warning for the same regex.
    const r = search(reader, parsed.ast);
    expect(r.warnings.map((w) => w.code)).toEqual([]);
    expect(r.hits.map((h) => h.docno)).toEqual(['d']);
  });
});

describe('wildcards and fuzzy terms', () => {
  it('globMatches equals the RegExp reading of * and ?', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[ab*?]{0,6}$/), fc.stringMatching(/^[ab]{0,7}$/), (pattern, term) => {
        const re = new RegExp(`^${pattern.replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 's');
        expect(globMatches(Array.from(pattern), term)).toBe(re.test(term));
      }),
      { numRuns: 500, seed: 6 },
    );
  });

  it('a many-star wildcard on a long term is fast', () => {
    const t0 = performance.now();
    expect(globMatches(Array.from(`${'a*'.repeat(30)}b`), 'a'.repeat(3000))).toBe(false);
    expect(performance.now() - t0).toBeLessThan(2000);
  });

  it('the banded edit distance equals the full table within the bound', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[abc]{0,8}$/), fc.stringMatching(/^[abc]{0,8}$/), fc.integer({ min: 0, max: 3 }), (a, b, k) => {
        const full = editDistance(a, b);
        const banded = editDistance(a, b, k);
        expect(banded <= k ? banded : k + 1).toBe(full <= k ? full : k + 1);
      }),
      { numRuns: 1000, seed: 7 },
    );
    const long = 'ab'.repeat(200_000);
    const t0 = performance.now();
    expect(editDistance(long, `${long.slice(0, -1)}x`, 2)).toBe(1);
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});
