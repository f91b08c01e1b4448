/** The results panel's HTML: what the user reads, with index text escaped and matches marked. */
import { describe, expect, it } from 'vitest';
import { renderResults, type PreviewResult } from '../../client/src/results-html.ts';

const result = (over: Partial<PreviewResult> = {}): PreviewResult => ({
  qid: '7',
  query: '#combine( flow <b> )',
  matchedDocs: 12,
  hits: [
    { rank: 1, docno: 'd1', title: 'Boundary <script>alert(1)</script>', score: 3.14159, relevance: 2, snippet: { text: 'laminar flow & heat', highlights: [[8, 12]] } },
    { rank: 2, docno: 'd2', title: '', score: 1, relevance: null, snippet: { text: 'no match', highlights: [] } },
  ],
  metrics: { ndcg_cut_10: 0.5, map: 0.25 },
  warnings: [{ code: 'engine/oov', message: '"zz" does not occur' }],
  scorer: { name: 'bm25', k1: 1.2, b: 0.75, mu: 2500 },
  ...over,
});

describe('results panel HTML', () => {
  it('lists the hits with rank, title, score and judgement, matches marked', () => {
    const html = renderResults(result());
    expect(html).toContain('<h2>Query 7</h2>');
    expect(html).toContain('12 matching documents · BM25 k1=1.2 b=0.75');
    expect(html).toContain('ndcg_cut_10 <b>0.5000</b> · map <b>0.2500</b>');
    expect(html).toContain('laminar <mark>flow</mark> &#38; heat');
    expect(html).toContain('<td>3.1416</td><td>2</td>');
    // An untitled document shows its docno; an unjudged one a dash.
    expect(html).toMatch(/<b>d2<\/b> <small>d2<\/small>.*<td>–<\/td>/s);
    expect(html).toContain('<li>&#34;zz&#34; does not occur</li>');
  });

  it('escapes everything that comes from the index or the query', () => {
    const html = renderResults(result());
    expect(html).not.toContain('<script>');
    expect(html).toContain('Boundary &#60;script&#62;alert(1)&#60;/script&#62;');
    expect(html).toContain('#combine( flow &#60;b&#62; )');
    expect(html).toContain("Content-Security-Policy\" content=\"default-src 'none'");
  });

  it('says when a query has no judgements, and names the QL scorer', () => {
    const html = renderResults(result({ metrics: null, scorer: { name: 'ql', k1: 1.2, b: 0.75, mu: 1000 } }));
    expect(html).toContain('No judgements for this query.');
    expect(html).toContain('QL μ=1000');
  });
});
