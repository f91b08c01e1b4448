/** The results panel's HTML: what the user reads, with index text escaped and matches marked. */
import { describe, expect, it } from 'vitest';
import { renderCompare, renderResults, type CompareResult, type PreviewResult } from '../../client/src/results-html.ts';

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

describe('compare mode', () => {
  const compared = (over: Partial<CompareResult> = {}): CompareResult => ({
    qid: '1',
    variants: [
      { name: 'original', query: '#combine( flow <x> )', hits: [], metrics: { map: 0.5, ndcg_cut_10: 0.25 } },
      { name: 'bo1', query: '#weight( 1.3 "flow" )', hits: [], metrics: { map: 0.75, ndcg_cut_10: 0.2 } },
      { name: 'weighted', query: '#weight( 1.1 flow )', hits: [], metrics: { map: 0.5, ndcg_cut_10: 0.25 } },
    ],
    rows: [
      { docno: 'd3', title: 'Boundary <i>layer</i>', relevance: 1, ranks: { original: 4, bo1: 1, weighted: 4 }, change: { bo1: 3, weighted: 0 } },
      { docno: 'd9', title: '', relevance: null, ranks: { original: 1, bo1: 6, weighted: null }, change: { bo1: -5, weighted: null } },
    ],
    expansionTerms: [
      { term: 'flow', weight: 1.3, isOriginal: true },
      { term: 'boundari', weight: 0.41, isOriginal: false },
    ],
    deltas: { bo1: { map: 0.25, ndcg_cut_10: -0.05 }, weighted: { map: 0, ndcg_cut_10: 0 } },
    notes: ['The model is a <draft>.'],
    ...over,
  });

  it('shows each variant, its metrics with deltas, and every document\'s rank change', () => {
    const html = renderCompare(compared());
    expect(html).toContain('<h2>Compare query 1: original · Bo1 · TW-BERT</h2>');
    expect(html).toContain('<thead><tr><th>Measure</th><th>original</th><th>Bo1</th><th>TW-BERT</th></tr></thead>');
    expect(html).toContain('<th>map</th><td>0.5000</td><td>0.7500 <small>(+0.2500)</small></td><td>0.5000 <small>(+0.0000)</small></td>');
    expect(html).toContain('<td>0.2000 <small>(−0.0500)</small></td>');
    expect(html).toContain('Bo1 adds: boundari 0.41</p>');
    // Moved up 3, unchanged, moved down 5, not retrieved.
    expect(html).toContain('<td>4</td><td>1 <small>▲3</small></td><td>4 <small>=</small></td>');
    expect(html).toContain('<td>1</td><td>6 <small>▼5</small></td><td>– <small>–</small></td>');
  });

  it('names the learned columns and lists the learned suggestions', () => {
    const base = compared();
    const html = renderCompare(
      compared({
        variants: [
          base.variants[0]!,
          base.variants[1]!,
          { name: 'learned', query: '#wsyn(1 car 0.6 automobile) engine', hits: [], metrics: null },
          base.variants[2]!,
          { name: 'learned+bo1+weighted', query: '#weight( 1.1 #wsyn(1 car 0.6 automobile) )', hits: [], metrics: null },
        ],
        rows: [{ docno: 'd5', title: 'Motorcars', relevance: 2, ranks: { original: null, bo1: null, learned: 1, weighted: null, 'learned+bo1+weighted': 2 }, change: {} }],
        learned: [{ word: 'car', alternatives: [{ word: 'automobile', weight: 0.6000000238 }, { word: 'motor<car>', weight: 0.4 }] }],
      }),
    );
    expect(html).toContain('<h2>Compare query 1: original · Bo1 · learned · TW-BERT · learned + Bo1 + TW-BERT</h2>');
    expect(html).toContain('<tr><th>learned + Bo1 + TW-BERT</th><td><pre>#weight( 1.1 #wsyn(1 car 0.6 automobile) )</pre></td></tr>');
    expect(html).toContain('<p>Learned expansion: car ≈ automobile 0.6, motor&#60;car&#62; 0.4</p>');
    expect(html).toContain('<th>learned + Bo1 + TW-BERT (change)</th>');
    expect(html).toContain('<td>2</td><td>–</td><td>– <small>–</small></td><td>1 <small>–</small></td><td>– <small>–</small></td><td>2 <small>–</small></td>');
    // An unknown variant is shown by its name.
    expect(renderCompare(compared({ variants: [base.variants[0]!, { ...base.variants[1]!, name: 'rm3' }] }))).toContain('original · rm3');
  });

  it('escapes index and query text, and says when nothing is judged', () => {
    const html = renderCompare(compared({ deltas: null, variants: compared().variants.map((v) => ({ ...v, metrics: null })) }));
    expect(html).toContain('No judgements for this query.');
    expect(html).not.toMatch(/<i>layer|<x>|<draft>/);
    expect(html).toContain('Boundary &#60;i&#62;layer&#60;/i&#62;');
    expect(html).toContain('#combine( flow &#60;x&#62; )');
    expect(html).toContain('<li>The model is a &#60;draft&#62;.</li>');
  });
});
