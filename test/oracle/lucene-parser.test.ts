/**
 * The Lucene grammar against real Lucene: on random, mutated and printed queries (fixed
 * seeds), parseLucene reports an error exactly when Lucene 8's classic QueryParser throws.
 *
 * Settings: whitespace analysis (acceptance then depends on the syntax alone) and
 * allowLeadingWildcard on, since querylens accepts a leading wildcard with a warning
 * (lucene/leading-wildcard) where Lucene's default throws.
 *
 * The bodies of /regex/ queries are checked too (lucene/bad-regex): Lucene throws from its
 * RegExp while building the query, and querylens's grammar/lucene/regexp.ts must reject the
 * same bodies.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { hasErrors } from '../../grammar/diagnostics.js';
import { parseLucene } from '../../grammar/lucene/index.js';
import { printLucene } from '../../grammar/print/lucene.js';
import { luceneRoot } from '../grammar/lucene/arbitraries.js';
import { luceneOracle, unavailableReason, type LuceneOracle } from './lucene/oracle.js';

const alphabet = fc.constantFrom(
  ...'ab Z9+-!():^[]"{}~*?\\/&|.'.split(''),
  'AND', 'OR', 'NOT', 'TO', ' ', 'x', 'title:', '^2', '~1', '"a b"', '\\u0041', '\\u00', '1.5', '\t',
);
const randomQuery = fc.array(alphabet, { minLength: 1, maxLength: 12 }).map((a) => a.join(''));
const printedQuery = luceneRoot.map((root) => printLucene(root));
const mutatedQuery = fc
  .tuple(printedQuery, fc.nat(), fc.constantFrom(...'+-!():^[]"{}~*?\\/&|. \t'.split(''), '', '^2', '~x', '\\u'), fc.boolean())
  .map(([s, at, insert, remove]) => {
    const i = s.length === 0 ? 0 : at % s.length;
    return remove ? s.slice(0, i) + s.slice(i + 1) : s.slice(0, i) + insert + s.slice(i);
  });

/** Regex bodies from Lucene's RegExp alphabet, inside slashes. */
const regexQuery = fc
  .array(fc.constantFrom(...'ab.|&~*+?{}[]^-()"#@<>\\,0123456789'.split(''), '{2}', '{1,3}', '[a-c]', '<1-20>', '\\/'), { minLength: 1, maxLength: 10 })
  .map((a) => `/${a.join('')}/`);

/** Cases worth keeping whatever the generators produce: each was a disagreement once. */
const KNOWN_CASES = [
  'lucene^1.', 'tex~t:flow', 'a^2b', 'a^ 2', 'a^.5', 'a^1.5.5', 'a^2^3', 'roam~1^2~2', 'roam^2~1', '"a b"^2~1', '"a b"~1^2~3',
  'a~1.5x', 'a~-1', '"a b"~-1', '"a b"~2x', 'a~NaN', 'a~Infinity', 'a~1e20', 'a~2d', 'x1:Z1~123456789.123', 'a~.5', '(a)^2~1',
  '*~1title:9xx', '|~-', '.~AND', '/a\\\\/b/', '/ab/i', '[""x TO b]', '["abc TO b]', '["a"x TO c]', '[a\tx TO b]', '[a TO "b\\\\"]',
  'a\\u0041b', 'a\\uZZ', 'a\\u004', '"a\\uZZ b"', '[\\uZZ TO b]', '/a\\uZZ/', 'a*\\uZZ', '*:*^2~1', '?:a', 'a:b:c', 'a\\', '\\\\',
];

describe.skipIf(unavailableReason !== undefined)("parseLucene accepts exactly what Lucene's classic QueryParser accepts", () => {
  let oracle: LuceneOracle;
  beforeAll(async () => {
    oracle = await luceneOracle();
  }, 180_000);

  it('on random, mutated and printed queries', async () => {
    const queries = [
      ...KNOWN_CASES,
      ...fc.sample(randomQuery, { numRuns: 2500, seed: 11 }),
      ...fc.sample(mutatedQuery, { numRuns: 2500, seed: 12 }),
      ...fc.sample(printedQuery, { numRuns: 800, seed: 13 }),
      ...fc.sample(regexQuery, { numRuns: 1500, seed: 14 }),
    ].filter((q) => !q.includes('\n') && !q.includes('\r') && q.trim().replace(/\u3000/g, '') !== '');
    const verdicts = await oracle(queries, { allowLeadingWildcard: true });
    const disagreements: string[] = [];
    let regexBodies = 0;
    queries.forEach((q, i) => {
      const lucene = verdicts[i]!;
      const ours = !hasErrors(parseLucene(q).diagnostics);
      if (!lucene.accepted && lucene.detail === 'RegExp') regexBodies++;
      if (ours === lucene.accepted) return;
      disagreements.push(`${JSON.stringify(q)}: Lucene ${lucene.accepted ? `accepts (${lucene.detail})` : `rejects (${lucene.detail})`}, querylens ${ours ? 'accepts' : 'rejects'}`);
    });
    console.log(`Lucene oracle: ${queries.length} queries (${regexBodies} with a /regex/ body Lucene's RegExp rejects), ${disagreements.length} disagreements`);
    expect(disagreements).toEqual([]);
  }, 300_000);
});
