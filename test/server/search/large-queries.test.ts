/**
 * Queries that grow with their text must cost work linear in it (issue 11, item 2): a 1 MB
 * `#syn(…)` line took 107 s because every candidate document walked every synonym item. The
 * bound counts the evaluator's per-concept operations for a small and a twenty-times larger
 * query (wall-clock ratios swing with garbage collection on a loaded machine): linear work
 * gives about 20, the quadratic path about 400.
 */
import { describe, expect, it } from 'vitest';
import { parseIndri } from '../../../grammar/indri/index.js';
import { ConceptEvaluator } from '../../../server/engine/scoring/concepts.js';
import { explain, scoreDocument, search } from '../../../server/engine/search.js';
import { buildToyIndex } from '../scoring/helpers/toy-index.js';

const DOCS = 4000;
const word = (i: number) => `w${i.toString(36)}`;
// Document i holds its own word twice and a shared one, so a synonym of n words matches n documents.
const reader = buildToyIndex(Array.from({ length: DOCS }, (_, i) => ({ docno: `d${i}`, fields: { text: `${word(i)} common ${word(i)}` } })));

function synOf(n: number, weighted = false): string {
  const items = Array.from({ length: n }, (_, i) => (weighted ? `0.5 ${word(i)}` : word(i)));
  return `${weighted ? '#wsyn' : '#syn'}( ${items.join(' ')} )`;
}

/** Calls of the evaluator's per-document and per-concept entry points while `f` runs. */
function evaluatorCalls(f: () => void): number {
  const proto = ConceptEvaluator.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  const names = ['extents', 'tfInDocument', 'termPositions', 'materialize', 'candidates'];
  const originals = names.map((m) => proto[m]!);
  let calls = 0;
  names.forEach((m, i) => {
    proto[m] = function (this: unknown, ...args: unknown[]) {
      calls++;
      return originals[i]!.apply(this, args);
    };
  });
  try {
    f();
  } finally {
    names.forEach((m, i) => (proto[m] = originals[i]!));
  }
  return calls;
}

describe('a long #syn is linear in its length', () => {
  it('20× the items costs about 20× the work, not 400×', () => {
    const small = evaluatorCalls(() => search(reader, parseIndri(synOf(DOCS / 20)).ast, { k: 10 }));
    const large = evaluatorCalls(() => search(reader, parseIndri(synOf(DOCS)).ast, { k: 10 }));
    console.log(`evaluator calls: #syn of ${DOCS / 20} items ${small}, of ${DOCS} items ${large}`);
    expect(small).toBeGreaterThan(0);
    expect(large / small).toBeLessThan(30);
    const r = search(reader, parseIndri(synOf(DOCS)).ast, { k: 10 });
    expect(r.concepts[0]).toMatchObject({ df: DOCS, cf: 2 * DOCS });
    expect(search(reader, parseIndri(synOf(DOCS / 20)).ast, { k: DOCS }).hits).toHaveLength(DOCS / 20);
  });

  it('search, scoreDocument and explain agree on every scorer, repeated and weighted items included', () => {
    for (const text of [synOf(50), `#syn( ${word(3)} ${word(3)} ${word(7)} )`, synOf(30, true), `#wsyn( 0.3 ${word(1)} 0.7 ${word(1)} 2 ${word(2)} )`])
      for (const scorer of ['bm25', 'bm25-lucene', 'ql'] as const) {
        const ast = parseIndri(text).ast;
        for (const h of search(reader, ast, { scorer, k: 5 }).hits) {
          expect(scoreDocument(reader, ast, h.doc, { scorer })).toBe(h.score);
          expect(explain(reader, ast, h.doc, { scorer }).value).toBe(h.score);
        }
      }
  });

  it('a repeated item counts once per occurrence, as the union of extents does', () => {
    const r = search(reader, parseIndri(`#syn( ${word(3)} ${word(3)} ${word(7)} )`).ast);
    expect(r.concepts[0]).toMatchObject({ df: 2, cf: 6 });
    const w = search(reader, parseIndri(`#wsyn( 0.25 ${word(3)} 0.5 ${word(3)} )`).ast);
    expect(w.concepts[0]).toMatchObject({ df: 1, cf: 1.5 });
  });
});
