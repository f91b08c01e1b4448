/**
 * The workbench panels' logic without VS Code: the messages a page may send, the state a reload
 * restores, the results panel's controls (judge, explain, paging, legend, why not), the history of
 * tries and the scoreboard, the sweep grid and table, the index browser and the document view.
 */
import { describe, expect, it } from 'vitest';
import { documentText, wordRanges, wrapText } from '../../client/src/document-text.ts';
import { addTry, fileTries, nextSort, pickBaseline, prunePick, queryHistory, scoreboard, settingsLabel, toggleTick, type FileTry, type QueryTry } from '../../client/src/history.ts';
import { parsePanelMessage, parseResultsState, type ResultsState } from '../../client/src/panel-messages.ts';
import { gradeLegend, gradeScale, renderExplanation, renderResults, type PreviewResult } from '../../client/src/results-html.ts';
import { parseSweepGrid, renderBrowser, renderScoreboard, renderSweep, type SweepResult } from '../../client/src/workbench-html.ts';

const state: ResultsState = { view: 'results', uri: 'file:///q.indri', qid: '7', page: 1, explained: null };
const preview = (over: Partial<PreviewResult> = {}): PreviewResult => ({
  qid: '7',
  query: '#combine( flow )',
  matchedDocs: 25,
  offset: 10,
  hits: [
    { rank: 11, docno: 'd1', title: 'Flow <i>', score: 2, relevance: 2, snippet: { text: 'flow', highlights: [[0, 4]] } },
    { rank: 12, docno: 'd2', title: '', score: 1, relevance: null, snippet: { text: 'x', highlights: [] } },
  ],
  metrics: { ndcg_cut_10: 0.5 },
  warnings: [],
  scorer: { name: 'bm25', k1: 1.2, b: 0.75, mu: 2500 },
  relevantNotShown: [{ docno: 'd9', title: 'Missed', relevance: 1, rank: null }],
  ...over,
});
/** The messages a page's buttons carry (data-msg attributes, HTML-unescaped). */
const messages = (html: string): unknown[] =>
  [...html.matchAll(/data-msg="([^"]*)"/g)].map((m) => JSON.parse(m[1]!.replace(/&#(\d+);/g, (_, c) => String.fromCharCode(Number(c)))));

describe('panel messages', () => {
  it.each([
    [{ type: 'page', page: 2 }, { type: 'page', page: 2 }],
    [{ type: 'page', page: -1 }, null],
    [{ type: 'page', page: 100 }, null],
    [{ type: 'judge', docno: ' d1 ', grade: '2' }, { type: 'judge', docno: 'd1', grade: 2 }],
    [{ type: 'judge', docno: 'd1', grade: 1.5 }, null],
    [{ type: 'explain', docno: '' }, null],
    [{ type: 'explain', docno: 'CR-12' }, { type: 'explain', docno: 'CR-12' }],
    [{ type: 'compareTries', baseline: 'a', treatment: 'a' }, null],
    [{ type: 'tickTry', id: 't1' }, { type: 'tickTry', id: 't1' }],
    [{ type: 'baselineTry', id: 3 }, null],
    [{ type: 'compareTryList', ids: ['a', 'b', 'c'], baseline: 'b' }, { type: 'compareTryList', ids: ['a', 'b', 'c'], baseline: 'b' }],
    [{ type: 'compareTryList', ids: ['a'], baseline: 'a' }, null],
    [{ type: 'compareTryList', ids: ['a', 'a'], baseline: 'a' }, null],
    [{ type: 'compareTryList', ids: ['a', 'b'], baseline: 'z' }, null],
    [{ type: 'compareTryList', ids: 'a,b', baseline: 'a' }, null],
    [{ type: 'tickScorer', name: 'bm25-lucene' }, { type: 'tickScorer', name: 'bm25-lucene' }],
    [{ type: 'tickScorer', name: 'BM25 <b>' }, null],
    [{ type: 'compareScorers', scorers: ['bm25', 'ql'] }, { type: 'compareScorers', scorers: ['bm25', 'ql'] }],
    [{ type: 'compareScorers', scorers: ['bm25'] }, null],
    [{ type: 'compareScorers', scorers: ['bm25', 'bm25'] }, null],
    [{ type: 'compareScorers', scorers: 'bm25,ql' }, null],
    [{ type: 'browse', view: 'postings', text: 'heat' }, { type: 'browse', view: 'postings', text: 'heat' }],
    [{ type: 'browse', view: 'shell', text: 'rm' }, null],
    [{ type: 'unknown' }, null],
    ['page', null],
  ])('%j → %j', (input, expected) => expect(parsePanelMessage(input)).toEqual(expected));

  it('restores a saved state, and nothing from a foreign one', () => {
    expect(parseResultsState({ ...state, explained: 'd1' })).toEqual({ ...state, explained: 'd1' });
    expect(parseResultsState({ ...state, page: 1e9 })).toEqual({ ...state, page: 0 });
    expect(parseResultsState({ view: 'sweep' })).toBeNull();
    expect(parseResultsState(undefined)).toBeNull();
  });
});

describe('results panel controls', () => {
  it('offers judge, explain and open per hit, paging both ways, the legend and the unjudged count', () => {
    const html = renderResults(preview(), { nonce: 'N0nce', state, explanation: null, notice: null });
    const sent = messages(html);
    expect(sent).toEqual(expect.arrayContaining([
      { type: 'judge', docno: 'd1', grade: 0 },
      { type: 'judge', docno: 'd2', grade: 2 },
      { type: 'explain', docno: 'd2' },
      { type: 'open', docno: 'd1' },
      { type: 'page', page: 0 },
      { type: 'page', page: 2 },
      { type: 'explain', docno: 'd9' },
    ]));
    expect(html).toContain('Ranks 11–12 of 25');
    expect(html).toContain('1 of these 2 are unjudged');
    expect(html).toContain('Grades: 0 = not relevant, 1 = relevant, 2 = highly relevant');
    // The current grade is the highlighted button.
    expect(html).toMatch(/<button class="on" title="judge relevant, grade 2"/);
    // "Why not": any docno, and the judged-relevant document not retrieved.
    expect(html).toMatch(/<form data-msg="[^"]*explain[^"]*"><label>Explain any document: <input name="docno"/);
    expect(html).toMatch(/Missed<\/b> <small>d9<\/small><\/td><td>grade 1<\/td><td>not retrieved/);
    // Only the page script runs (its nonce), and it keeps the state for a reload.
    expect(html).toContain("script-src 'nonce-N0nce'");
    expect(html).toContain(`vscode.setState(${JSON.stringify(state)})`);
    expect(html).not.toContain('<i>');
  });

  it('offers the grades the qrels use (at least 0–2), with a legend that says so', () => {
    expect(gradeScale(preview())).toEqual([0, 1, 2]);
    const graded = preview({ relevantNotShown: [{ docno: 'd9', title: '', relevance: 4, rank: 50 }] });
    expect(gradeScale(graded)).toEqual([0, 1, 2, 3, 4]);
    expect(gradeLegend([0, 1, 2, 3, 4])).toBe('0 = not relevant, 1 to 4 = relevant (4 the most)');
    const html = renderResults(graded, { nonce: 'n', state, explanation: null, notice: null });
    expect(messages(html)).toEqual(expect.arrayContaining([{ type: 'judge', docno: 'd2', grade: 4 }]));
    expect(html).toContain('Grades: 0 = not relevant, 1 to 4 = relevant (4 the most); – = unjudged.');
  });

  it('disables paging past the last page and the first', () => {
    const html = renderResults(preview({ matchedDocs: 12 }), { nonce: 'n', state, explanation: null, notice: null });
    expect(html).toMatch(/<button disabled data-msg="[^"]*page&#34;:2/);
    const first = renderResults(preview({ offset: 0 }), { nonce: 'n', state: { ...state, page: 0 }, explanation: null, notice: null });
    expect(first).toMatch(/<button disabled data-msg="[^"]*page&#34;:-1/);
  });

  it('shows an explanation tree, scrolled to, with the document not retrieved said plainly', () => {
    const explanation = {
      docno: 'd9',
      title: 'Missed',
      rank: null,
      score: null,
      relevance: 1,
      explanation: { value: 0, description: 'no term of the query <matches>', children: [{ value: 1.5, description: 'tf=0 "flow"', children: [] }], matched: false },
    };
    const html = renderResults(preview(), { nonce: 'n', state: { ...state, explained: 'd9' }, explanation, notice: 'd1 judged 2', focusExplanation: true });
    // Paging or judging with the explanation open keeps the page where it is.
    expect(renderResults(preview(), { nonce: 'n', state, explanation, notice: null })).toContain('<section id="explanation"><h3>');
    expect(html).toContain('<section id="explanation" data-focus><h3>Why d9 scores nothing (not retrieved: the query does not match it; judged 1)</h3>');
    expect(html).toContain('<li><b>0.0000</b> no term of the query &#60;matches&#62;<ul><li><b>1.5000</b> tf=0 &#34;flow&#34;</li></ul></li>');
    expect(html).toContain('<p><i>d1 judged 2</i></p>');
    expect(renderExplanation({ value: 1, description: 'x', children: [] })).toBe('<ul><li><b>1.0000</b> x</li></ul>');
  });
});

const fileTry = (id: string, perQuery: Record<string, Record<string, number>>): FileTry => {
  const qids = Object.keys(perQuery);
  const mean = Object.fromEntries(Object.keys(perQuery[qids[0]!]!).map((m) => [m, qids.reduce((s, q) => s + perQuery[q]![m]!, 0) / qids.length]));
  return { kind: 'file', id, at: '2026-01-01T00:00:00.000Z', uri: 'file:///q.indri', settings: 'BM25 k1=1.2 b=0.75', mean, perQuery };
};

describe('history and scoreboard', () => {
  const queryTry = (query: string, metrics: Record<string, number> | null): QueryTry => ({ kind: 'query', id: query, at: 'now', uri: 'u', qid: '1', query, settings: 's', metrics });

  it('records a try, but not the same run again (paging), and keeps the newest', () => {
    let tries = addTry([], queryTry('a', { map: 0.1 }));
    tries = addTry(tries, queryTry('a', { map: 0.1 }));
    expect(tries).toHaveLength(1);
    tries = addTry(tries, queryTry('a b', { map: 0.2 }));
    tries = addTry(tries, queryTry('a', { map: 0.1 }));
    expect(queryHistory(tries, 'u', '1').map((t) => t.query)).toEqual(['a', 'a b', 'a']);
    expect(addTry(tries, queryTry('c', null), 2).map((t) => t.id)).toEqual(['a', 'c']);
    expect(settingsLabel({ name: 'ql', k1: 0, b: 0, mu: 1000 }, { method: 'bo1', fbDocs: 3, fbTerms: 10 })).toBe('QL μ=1000 + bo1 3×10');
    // Each scorer of the registry has a label of its own, so tries of different scorers never read alike.
    const labels = ['bm25', 'bm25-lucene', 'ql', 'bm25f', 'impact'].map((name) => settingsLabel({ name, k1: 1.2, b: 0.75, mu: 2500 }));
    expect(labels).toEqual(['BM25 k1=1.2 b=0.75', 'Lucene BM25 k1=1.2 b=0.75', 'QL μ=2500', 'BM25F k1=1.2', 'impact']);
  });

  it('lists per-query metrics with the change since the last try, sorted by any column', () => {
    const before = fileTry('t1', { '1': { map: 0.5 }, '2': { map: 0.2 } });
    const after = fileTry('t2', { '1': { map: 0.25 }, '2': { map: 0.6 }, '10': { map: 0.3 } });
    const board = scoreboard(after, before);
    expect(board.rows.map((r) => r.qid)).toEqual(['1', '2', '10']);
    expect(board.rows[0]!.change!.map).toBeCloseTo(-0.25, 12);
    expect(board.rows[2]!.change).toBeNull();
    expect(board.meanChange!.map).toBeCloseTo(after.mean.map! - 0.35, 12);
    expect(scoreboard(after, before, { column: 'map', descending: true }).rows.map((r) => r.qid)).toEqual(['2', '10', '1']);
    expect(scoreboard(after, before, { column: 'change:map', descending: false }).rows.map((r) => r.qid)).toEqual(['10', '1', '2']);
    expect(nextSort({ column: 'qid', descending: false }, 'map')).toEqual({ column: 'map', descending: true });
    expect(nextSort({ column: 'map', descending: true }, 'map')).toEqual({ column: 'map', descending: false });
    expect(fileTries([before, after], 'file:///q.indri')).toEqual([before, after]);

    const html = renderScoreboard({
      nonce: 'n',
      file: 'q.indri',
      board,
      tries: [before, after],
      queryTries: [],
      comparison: { baseline: before, treatment: after, result: { test: 't', queries: 2, rows: [{ measure: 'map', baselineMean: 0.35, treatmentMean: 0.425, meanDifference: 0.075, p: 0.01, pHolm: 0.02 }] } },
      notice: null,
    });
    expect(html).toContain('<td>mean (3)</td>');
    expect(messages(html)).toEqual(expect.arrayContaining([{ type: 'sort', column: 'change:map' }, { type: 'compareTries', baseline: 't1', treatment: 't2' }]));
    expect(html).toContain('Try 2 against try 1: paired t-test over 2 queries, Holm-corrected across 1 measures');
    expect(html).toContain('<td>0.0100</td><td>0.0200 *</td>');
  });
});

describe('several tries side by side', () => {
  it('ticks tries, keeps the first ticked as baseline unless one is picked, and forgets tries no longer kept', () => {
    let pick = toggleTick({ ticked: [], baseline: null }, 't1');
    pick = toggleTick(pick, 't3');
    expect(pick).toEqual({ ticked: ['t1', 't3'], baseline: 't1' });
    pick = pickBaseline(pick, 't2');
    expect(pick).toEqual({ ticked: ['t1', 't3', 't2'], baseline: 't2' });
    expect(toggleTick(pick, 't1')).toEqual({ ticked: ['t3', 't2'], baseline: 't2' });
    expect(toggleTick(pick, 't2')).toEqual({ ticked: ['t1', 't3'], baseline: 't1' });
    expect(prunePick(pick, [{ id: 't3' }, { id: 't1' }])).toEqual({ ticked: ['t1', 't3'], baseline: 't1' });
    expect(prunePick(pick, [])).toEqual({ ticked: [], baseline: null });
  });

  const t1 = fileTry('t1', { '1': { map: 0.1 } });
  const t2 = fileTry('t2', { '1': { map: 0.2 } });
  const t3 = fileTry('t3', { '1': { map: 0.3 } });
  const view = (over: Partial<Parameters<typeof renderScoreboard>[0]>) =>
    renderScoreboard({ nonce: 'n', file: 'q.indri', board: null, tries: [t1, t2, t3], queryTries: [], comparison: null, notice: null, ...over });

  it('offers to compare once two tries are ticked, in the order of the tries, with the baseline picked', () => {
    expect(view({ pick: { ticked: ['t2'], baseline: 't2' } })).toContain('<button disabled>Compare the ticked tries</button>');
    const html = view({ pick: { ticked: ['t3', 't1', 't2'], baseline: 't2' } });
    expect(messages(html)).toEqual(
      expect.arrayContaining([{ type: 'tickTry', id: 't1' }, { type: 'baselineTry', id: 't1' }, { type: 'compareTryList', ids: ['t1', 't2', 't3'], baseline: 't2' }]),
    );
    expect(messages(html)).not.toContainEqual({ type: 'baselineTry', id: 't2' });
    expect(html).toContain('☑</button> ★ baseline');
    expect(html).toContain('Compare the 3 ticked tries');
  });

  it('offers the scorers the index can be ranked with, the first ticked as the baseline, once two are ticked', () => {
    const one = view({ scorers: { available: ['bm25', 'bm25-lucene', 'ql'], ticked: ['ql'] } });
    expect(one).toContain('<h3>Compare scorers</h3>');
    expect(one).toContain('<button disabled>Rank with the ticked scorers and compare</button>');
    expect(messages(one)).toEqual(expect.arrayContaining([{ type: 'tickScorer', name: 'bm25' }, { type: 'tickScorer', name: 'ql' }]));
    const two = view({ scorers: { available: ['bm25', 'bm25-lucene', 'ql'], ticked: ['ql', 'gone', 'bm25'] } });
    // Ticking order is kept (the baseline is the first ticked); a scorer the index no longer offers is left out.
    expect(messages(two)).toContainEqual({ type: 'compareScorers', scorers: ['ql', 'bm25'] });
    expect(two).toContain('☑ ql ★</button>');
    expect(two).toContain('☑ bm25</button>');
    expect(two).toContain('☐ bm25-lucene</button>');
    expect(two).toContain('Rank with the 2 ticked scorers and compare');
    // One scorer (an impact index) or none known yet (an older server): nothing to offer.
    expect(view({ scorers: { available: ['impact'], ticked: ['impact'] } })).not.toContain('Compare scorers');
    expect(view({})).not.toContain('Compare scorers');
  });

  it('shows a column per try, the baseline marked, the adjusted p-values and * where Holm keeps them significant', () => {
    const html = view({
      listComparison: {
        tries: [t1, t2, t3],
        result: {
          test: 't',
          baselineIndex: 1,
          queries: 5,
          comparisons: 2,
          rows: [
            {
              measure: 'map',
              pairs: 5,
              cells: [
                { mean: 0.1, meanDifference: -0.1, p: 0.01, pHolm: 0.02 },
                { mean: 0.2, meanDifference: null, p: null, pHolm: null },
                { mean: 0.3, meanDifference: 0.1, p: 0.04, pHolm: 0.08 },
              ],
            },
          ],
        },
      },
    });
    expect(html).toContain('3 tries against try 2: paired t-test over 5 queries, Holm-corrected across 2 tests (tries × measures)');
    expect(html).toContain('<th colspan="4">try 1</th><th class="best">★ try 2 (baseline)</th><th colspan="4">try 3</th>');
    expect(html).toContain(
      '<tr><td>MAP</td><td>5</td><td class="best">0.1000</td><td><span class="down">−0.1000</span></td><td>0.0100</td><td>0.0200 *</td><td class="best">0.2000</td><td>0.3000</td><td><span class="up">+0.1000</span></td><td>0.0400</td><td>0.0800</td></tr>',
    );
  });
});

describe('sweep panel', () => {
  it.each([
    ['k1=0.9,1.2 b=0.75', { grid: { k1: [0.9, 1.2], b: [0.75] } }],
    ['mu=500;fbDocs=3,5', { grid: { mu: [500], fbDocs: [3, 5] } }],
    ['', { error: expect.stringMatching(/at least one parameter/) }],
    ['k2=1', { error: expect.stringMatching(/"k2=1" is not name=/) }],
    ['b=0.5,x', { error: 'b: "x" is not a number' }],
    ['b=1 b=2', { error: 'b is given twice' }],
  ])('%s', (text, expected) => expect(parseSweepGrid(text)).toEqual(expected));

  const result: SweepResult = {
    measures: ['ndcg_cut_10', 'map'],
    by: 'ndcg_cut_10',
    rows: [
      { setting: { scorer: 'bm25', k1: 0.9, b: 0.75, bo1: null }, mean: { ndcg_cut_10: 0.3, map: 0.2 }, queries: 5 },
      { setting: { scorer: 'bm25', k1: 1.2, b: 0.75, bo1: { fbDocs: 3, fbTerms: 10 } }, mean: { ndcg_cut_10: 0.4, map: 0.1 }, queries: 5 },
    ],
    best: 1,
    skipped: [{ qid: '9', reason: 'the query is empty' }],
    configEdit: { changes: {} },
    configEditRefused: null,
  };

  it('marks the best setting and offers to apply it; says why when it cannot', () => {
    const html = renderSweep(result, 'n', 'q.indri', 'k1=0.9,1.2', null);
    expect(html).toContain('<tr class="best" id="best"><td>★ BM25 k1=1.2 b=0.75 Bo1 3 docs × 10 terms</td><td>0.4000</td><td>0.1000</td><td>5</td></tr>');
    expect(messages(html)).toEqual([{ type: 'applySweep' }]);
    expect(html).toContain('Left out: 9 (the query is empty)');
    const refused = renderSweep({ ...result, configEdit: null, configEditRefused: 'there is no querylens.json in /w' }, 'n', 'q.indri', 'k1=1', null);
    expect(refused).toContain('<button disabled>Apply</button> <small>there is no querylens.json in /w</small>');
  });

  it('on a cluster: rows without k1 and b say the index\'s similarity scored them, and the note is shown', () => {
    const cluster: SweepResult = {
      ...result,
      rows: [{ setting: { scorer: 'bm25', bo1: { fbDocs: 3, fbTerms: 10 } }, mean: { ndcg_cut_10: 0.4, map: 0.1 }, queries: 5 }],
      best: 0,
      note: 'fbDocs and fbTerms varied on https://c:9200/docs; its similarity scored every setting',
    };
    const html = renderSweep(cluster, 'n', 'q.indri', 'fbDocs=3', null);
    expect(html).toContain("★ BM25 the index&#39;s similarity Bo1 3 docs × 10 terms");
    expect(html).not.toContain('undefined');
    expect(html).toContain('<p><i>fbDocs and fbTerms varied on https://c:9200/docs; its similarity scored every setting</i></p>');
  });
});

describe('index browser and document view', () => {
  it('links terms to their postings and postings to their documents', () => {
    const html = renderBrowser(
      {
        terms: { numDocs: 9, matching: 1, terms: [{ term: 'heat', df: 2, cf: 5 }] },
        postings: { term: 'heat', found: true, df: 2, cf: 5, postings: [{ docno: 'd2', tf: 3, positions: [0, 4], positionsCut: false }], cut: false },
        analyze: { profile: 'terrier', indexed: true, note: null, words: [{ surface: 'The', term: null, stopword: true, position: null, df: null }] },
      },
      'n',
      { postings: 'heat"><b>' },
    );
    expect(messages(html)).toEqual(expect.arrayContaining([{ type: 'browse', view: 'postings', text: 'heat' }, { type: 'browse', view: 'document', text: 'd2' }]));
    expect(html).toContain('Postings of heat: df 2, cf 5');
    expect(html).toContain('<td>The</td><td><i>stopword</i></td><td>–</td>');
    expect(html).toContain('value="heat&#34;&#62;&#60;b&#62;"');
  });

  it('on a cluster: terms in term order without cf, a term vector per field, and where the numbers come from', () => {
    const html = renderBrowser(
      {
        terms: { numDocs: 9, matching: 1, terms: [{ term: 'heat', df: 2, cf: null }], note: 'Terms from _terms_enum, in term order' },
        document: { docno: 'd2', title: 'T', fields: { text: 'heat' }, length: 1, terms: [{ term: 'heat', tf: 1, positions: [0], field: 'text' }], distinctTerms: 1, note: 'From _source and _termvectors' },
      },
      'n',
      {},
    );
    expect(html).toContain('<h3>Terms (1 matching of 9 documents)</h3><p><i>Terms from _terms_enum, in term order</i></p>');
    expect(html).toContain('<td>2</td><td>–</td>');
    expect(html).not.toContain('null');
    expect(html).toContain('<td>heat <small>(text)</small></td>');
    expect(html).toContain('<p><i>From _source and _termvectors</i></p>');
  });

  it('shows the stored fields and finds the matched words, whole words only', () => {
    const text = documentText({ docno: 'd1', title: 'Flow', fields: { title: 'Flow', text: 'Flows and flow.' }, length: 3, distinctTerms: 2 });
    expect(text).toBe('docno: d1\n3 indexed tokens, 2 distinct terms\n\n── title ──\nFlow\n\n── text ──\nFlows and flow.\n');
    expect(wordRanges(text, ['flow']).map(([s, e]) => text.slice(s, e))).toEqual(['Flow', 'flow']);
    // A long stored line is laid out at spaces; a word longer than the width keeps its own line.
    expect(wrapText('aa bb cc dddddddddd e', 5)).toEqual(['aa bb', 'cc', 'dddddddddd', 'e']);
    expect(wrapText('x\n\ny', 5)).toEqual(['x', '', 'y']);
  });
});
