/**
 * `bm25-lucene` against Lucene's own BM25Similarity (Lucene 8, Debian's jars): the same
 * random documents indexed by both (tokens chosen so that no analyser changes them: two
 * letters, never a stopword, never stemmed), the same random Lucene queries (terms, boosts,
 * required and prohibited clauses, groups, exact and sloppy phrases), at Lucene's defaults
 * and Anserini's k1/b. Every query must retrieve the same documents with the same float32
 * score.
 *
 * The one known difference: a sloppy phrase that repeats a term (`"a a"~2`). Lucene's
 * SloppyPhraseMatcher keeps repeated terms on distinct positions with its own
 * collision rules; querylens counts such windows as Indri's rules do. Those queries are
 * counted and printed, not compared.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLucene } from '../../grammar/lucene/index.js';
import { buildMemoryIndex } from '../../server/engine/index/memory.js';
import { search } from '../../server/engine/search.js';
import { luceneBm25, unavailableReason } from './lucene/oracle.js';

const VOCABULARY = ['qx', 'zk', 'vb', 'jj', 'kp', 'xw', 'fz', 'gq', 'hv', 'pl', 'mn', 'rt', 'sd', 'wc', 'yq', 'dk'];

/** A Zipf-like pick, so that some terms are common (idf near 0) and some rare. */
const word = fc.integer({ min: 0, max: VOCABULARY.length * VOCABULARY.length - 1 }).map((n) => VOCABULARY[Math.floor(Math.sqrt(n))]!);
// Lengths up to 90 cross the 24..39 range where Lucene's one-byte norms stop being exact.
const doc = fc.array(word, { minLength: 1, maxLength: 90 });

const leaf = fc.oneof(
  { weight: 4, arbitrary: word },
  { weight: 1, arbitrary: fc.tuple(word, fc.constantFrom('2', '0.5', '3.7')).map(([w, b]) => `${w}^${b}`) },
  { weight: 1, arbitrary: fc.tuple(fc.array(word, { minLength: 2, maxLength: 3 }), fc.constantFrom('', '~1', '~3')).map(([ws, s]) => `"${ws.join(' ')}"${s}`) },
);
const clause = fc.tuple(fc.constantFrom('', '', '', '+', '-'), leaf).map(([m, l]) => m + l);
const query = fc.oneof(
  { weight: 3, arbitrary: fc.array(clause, { minLength: 1, maxLength: 5 }).map((cs) => cs.join(' ')) },
  { weight: 1, arbitrary: fc.tuple(fc.array(clause, { minLength: 1, maxLength: 3 }), word).map(([cs, w]) => `(${cs.join(' ')})^2 ${w}`) },
);

function hasSloppyPhraseWithRepeatedTerm(query: string): boolean {
  for (const m of query.matchAll(/"([^"]*)"~([0-9]+)/g)) {
    const words = m[1]!.split(' ');
    if (Number(m[2]) > 0 && new Set(words).size < words.length) return true;
  }
  return false;
}

describe.skipIf(unavailableReason !== undefined)("bm25-lucene equals Lucene's BM25Similarity", () => {
  const docs = fc.sample(doc, { numRuns: 300, seed: 21 }).map((tokens, i) => ({ docno: `d${i}`, tokens }));
  const queries = fc
    .sample(query, { numRuns: 300, seed: 22 })
    .map((q, i) => ({ qid: `q${i}`, query: q }))
    .filter((q) => !/^[\s-]*(-\S+\s*)+$/.test(q.query)); // only prohibited clauses match nothing in both
  const reader = buildMemoryIndex(
    docs.map((d) => ({ docno: d.docno, fields: { text: d.tokens.join(' ') } })),
    { profile: 'lucene' },
  );

  for (const [name, k1, b, options] of [
    ["Lucene's defaults (k1 1.2, b 0.75)", 1.2, 0.75, {}],
    ["Anserini's (k1 0.9, b 0.4)", 0.9, 0.4, { anserini: true }],
  ] as const) {
    it(name, async () => {
      const expected = new Map<string, Map<string, number>>();
      for (const h of await luceneBm25(k1, b, docs, queries)) {
        if (!expected.has(h.qid)) expected.set(h.qid, new Map());
        expected.get(h.qid)!.set(h.docno, h.score);
      }
      const mismatches: string[] = [];
      let compared = 0;
      let repeatedInSloppyPhrase = 0;
      for (const { qid, query: text } of queries) {
        if (hasSloppyPhraseWithRepeatedTerm(text)) {
          repeatedInSloppyPhrase++;
          continue;
        }
        const ours = new Map(search(reader, parseLucene(text).ast, { scorer: 'bm25-lucene', k: docs.length, ...options }).hits.map((h) => [h.docno, h.score]));
        const theirs = expected.get(qid) ?? new Map<string, number>();
        for (const docno of new Set([...ours.keys(), ...theirs.keys()])) {
          compared++;
          const a = ours.get(docno);
          const e = theirs.get(docno);
          // Java prints the float's shortest decimal; the same float32 reads back from it.
          if (a === undefined || e === undefined || Math.fround(a) !== Math.fround(e)) mismatches.push(`${qid} ${JSON.stringify(text)} ${docno}: querylens ${a}, Lucene ${e}`);
        }
      }
      console.log(
        `bm25-lucene vs Lucene (${name}): ${queries.length - repeatedInSloppyPhrase} queries, ${compared} (query, document) scores, ${mismatches.length} differ; ` +
          `${repeatedInSloppyPhrase} queries with a sloppy phrase that repeats a term not compared (known difference)`,
      );
      expect(mismatches.slice(0, 20)).toEqual([]);
    }, 300_000);
  }
});
