/**
 * The engine's one query-lint function (server/engine/scoring/lint.ts): typed problems with stable
 * codes at the node they concern; the language server only places and converts them.
 */
import { describe, expect, it } from 'vitest';
import { parseIndri, parseLucene } from '../../../grammar/index.js';
import { buildMemoryIndex } from '../../../server/engine/index/memory.js';
import { lintQuery } from '../../../server/engine/scoring/lint.js';

const reader = buildMemoryIndex(
  Array.from({ length: 120 }, (_, i) => ({ docno: `d${i}`, title: 'plate', fields: { text: `flow${i} boundary layer` } })),
  { profile: 'terrier' },
);

const codes = (text: string, lucene = false) =>
  lintQuery(reader, (lucene ? parseLucene(text) : parseIndri(text)).ast).map((l) => [l.code, l.severity, l.node.kind, l.data]);

describe('lintQuery', () => {
  it('finds stopwords, unknown terms, unknown fields and capped wildcards, with their data', () => {
    expect(codes('#combine( the boundary zzyzx layer.nosuch flow* )')).toEqual([
      ['engine/stopword', 'info', 'term', { term: 'the' }],
      ['engine/oov', 'warning', 'term', { term: 'zzyzx', analysed: ['zzyzx'] }],
      ['engine/unknown-field', 'warning', 'term', { field: 'nosuch', known: reader.fields() }],
      ['engine/wildcard-cap', 'warning', 'wildcard', { pattern: 'flow*', cap: 100 }],
    ]);
  });

  it('reports a Lucene field on the clause that writes it, and #any of an unknown field', () => {
    expect(codes('nosuch:(boundary layer)', true).map((c) => [c[0], c[2]])).toEqual([['engine/unknown-field', 'boolean']]);
    expect(codes('#any:nosuch').map((c) => c[0])).toEqual(['engine/unknown-field']);
  });

  it('finds nothing wrong with a query the index knows', () => {
    expect(codes('#combine( boundary layer )')).toEqual([]);
  });
});
