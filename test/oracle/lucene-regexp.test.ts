/**
 * Our Lucene regex engine against Lucene's own (issue 11, item 2): random regex bodies ×
 * random terms. A body is valid for grammar/lucene/regexp.ts exactly when Lucene's
 * `new RegExp(body).toAutomaton()` does not throw, and then RegexpMatcher accepts exactly the
 * terms Lucene's CharacterRunAutomaton accepts. A body Lucene finds too complex to determinize
 * may instead be over our automaton budget (ExpansionLimitError): counted and printed.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseLuceneRegexp } from '../../grammar/lucene/regexp.js';
import { ExpansionLimitError, RegexpMatcher } from '../../server/engine/scoring/regexp-automaton.js';
import { luceneRegexpRuns, unavailableReason, type RegexpRunVerdict } from './lucene/oracle.js';

const piece = fc.constantFrom(
  ...'ab0.|&~*+?{}[]^-()"#@<>\\,9'.split(''),
  'a', 'b', '{2}', '{1,3}', '{2,}', '{3,1}', '[a-c]', '[^a]', '<1-20>', '<07-12>', '<5>', '(a|b)', '~a', '@', '#', '"a.b"', '\\.', 'é', '😀',
);
const regex = fc.array(piece, { minLength: 0, maxLength: 9 }).map((a) => a.join(''));
const term = fc.array(fc.constantFrom('a', 'b', '0', '1', '2', '7', '.', '-', 'é', '😀', '"'), { minLength: 0, maxLength: 6 }).map((a) => a.join(''));

describe.skipIf(unavailableReason !== undefined)("RegexpMatcher agrees with Lucene's RegExp automaton", () => {
  let cases: { regex: string; terms: string[] }[];
  let verdicts: RegexpRunVerdict[];
  beforeAll(async () => {
    const regexes = ['', 'a', '(.*.*)*q', '<1-10>', '<01-10>', '@&~(a@)', 'a{3,2}', '[]a]', '*a', '()', ...fc.sample(regex, { numRuns: 2000, seed: 21 })];
    cases = regexes.map((r, i) => ({ regex: r, terms: ['', 'a', 'q', '10', '007', ...fc.sample(term, { numRuns: 25, seed: 1000 + i })] }));
    verdicts = await luceneRegexpRuns(cases);
  }, 180_000);

  it('on random regexes × random terms', () => {
    const disagreements: string[] = [];
    let rejected = 0;
    let tooComplex = 0;
    let runs = 0;
    cases.forEach(({ regex: body, terms }, i) => {
      const lucene = verdicts[i]!;
      const ours = parseLuceneRegexp(body);
      if (!lucene.valid) rejected++;
      if (ours.ok !== lucene.valid) {
        disagreements.push(`/${body}/: Lucene ${lucene.valid ? 'accepts' : `rejects (${lucene.error})`}, querylens ${ours.ok ? 'accepts' : `rejects (${ours.message})`}`);
        return;
      }
      if (!ours.ok || !lucene.valid) return;
      let m: RegexpMatcher;
      try {
        m = new RegexpMatcher(ours.node);
      } catch (e) {
        if (e instanceof ExpansionLimitError) {
          tooComplex++;
          return;
        }
        throw e;
      }
      terms.forEach((t, j) => {
        runs++;
        if (m.matches(t) !== lucene.matches[j]) disagreements.push(`/${body}/ on ${JSON.stringify(t)}: Lucene ${lucene.matches[j]}, querylens ${!lucene.matches[j]}`);
      });
    });
    console.log(`Lucene RegExp oracle: ${cases.length} regexes (${rejected} invalid), ${runs} term runs, ${tooComplex} over our budget, ${disagreements.length} disagreements`);
    expect(disagreements.slice(0, 20)).toEqual([]);
  });
});
