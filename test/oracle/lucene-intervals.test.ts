// The query-DSL translation of Indri windows (grammar/print/query-dsl.ts) checked against real
// Lucene 8 interval queries, which a cluster's `intervals` rule runs: on random documents, the
// documents Lucene matches with the translated rule equal those where querylens counts a window
// (SEMANTICS.md §1.4) for #1, two-term #odN and #uwN; for #odN over three terms, whose per-gap
// limit the translation reports as approximated, Lucene matches a subset, as the warning says.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseQuery, toQueryDsl } from '../../grammar/index.js';
import { orderedWindowCount, unorderedWindowCount } from '../../server/engine/scoring/windows.js';
import { luceneIntervals, unavailableReason, type IntervalsOracleQuery } from './lucene/oracle.js';

const VOCAB = ['a', 'b', 'c', 'd', 'e'];

interface Case {
  qid: string;
  indri: string;
  ordered: boolean;
  size: number;
  terms: string[];
  approximated: boolean;
}

describe.skipIf(unavailableReason !== undefined)('query-DSL windows equal Lucene interval queries', () => {
  it('matches the same documents where the translation says it is exact, a subset where it warns', async () => {
    const docs = fc.sample(fc.array(fc.constantFrom(...VOCAB), { minLength: 0, maxLength: 30 }), { numRuns: 300, seed: 11 }).map((tokens, i) => ({ docno: `d${i}`, tokens }));
    const cases: Case[] = fc
      .sample(
        fc.record({
          ordered: fc.boolean(),
          size: fc.integer({ min: 1, max: 8 }),
          terms: fc.shuffledSubarray(VOCAB, { minLength: 2, maxLength: 3 }),
        }),
        { numRuns: 200, seed: 5 },
      )
      .filter((c) => c.ordered || c.size >= c.terms.length)
      .map((c, i) => ({
        qid: `q${i}`,
        indri: `#${c.ordered ? 'od' : 'uw'}${c.size}( ${c.terms.join(' ')} )`,
        ordered: c.ordered,
        size: c.size,
        terms: c.terms,
        approximated: c.ordered && c.terms.length > 2 && c.size > 1,
      }));
    const queries: IntervalsOracleQuery[] = cases.map((c) => {
      const { ast } = parseQuery(c.indri, 'indri');
      const result = toQueryDsl(ast);
      const approximations = result.diagnostics.filter((d) => d.message.includes('limits every gap'));
      expect(approximations.length > 0, c.indri).toBe(c.approximated);
      const rule = (result.query as { intervals: { text: { match: { query: string; ordered: boolean; max_gaps?: number } } } }).intervals.text.match;
      return { qid: c.qid, ordered: rule.ordered, maxGaps: rule.max_gaps ?? null, terms: rule.query.split(' ') };
    });
    const lucene = await luceneIntervals(docs, queries);
    let exact = 0;
    let subset = 0;
    let narrower = 0;
    for (const c of cases) {
      const ours = new Set(
        docs
          .filter((d) => {
            const positions = c.terms.map((t) => d.tokens.flatMap((tok, p) => (tok === t ? [p] : [])));
            return (c.ordered ? orderedWindowCount(positions, c.size) : unorderedWindowCount(positions, c.size)) > 0;
          })
          .map((d) => d.docno),
      );
      const theirs = lucene.get(c.qid)!;
      if (c.approximated) {
        for (const docno of theirs) expect(ours.has(docno), `${c.indri}: Lucene matches ${docno}, querylens does not`).toBe(true);
        subset++;
        if (theirs.size < ours.size) narrower++;
      } else {
        expect([...theirs].sort(), c.indri).toEqual([...ours].sort());
        exact++;
      }
    }
    console.log(`intervals oracle: ${exact} windows match exactly the same documents; ${subset} approximated #odN (3 terms) match a subset (strictly fewer documents in ${narrower})`);
    expect(exact).toBeGreaterThan(50);
    expect(narrower).toBeGreaterThan(0);
  }, 180_000);
});
