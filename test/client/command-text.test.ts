/** What the whole-file commands tell the user, from the server's answers (client/src/command-text.ts). */
import { describe, expect, it } from 'vitest';
import { buildSummary, defaultRunPath, runSummary, runTag, weighSummary, type RunFileResult, type WeighFileResult } from '../../client/src/command-text.ts';

describe('Export Run File', () => {
  it.each([
    ['/ws/samples/queries.indri', '/ws/samples/queries.indri.run', 'queries.indri'],
    ['/ws/my queries.lucene', '/ws/my queries.lucene.run', 'my_queries.lucene'],
    ['/Untitled-1', '/Untitled-1.run', 'Untitled-1'],
  ])('saves %s as %s with the tag %s', (file, run, tag) => {
    expect(defaultRunPath(file)).toBe(run);
    expect(runTag(file)).toBe(tag);
    expect(tag).toMatch(/^\S+$/);
  });

  const run: RunFileResult = {
    text: '',
    queries: 18,
    lines: 17_523,
    skipped: [{ qid: '4', reason: 'the query has syntax errors' }],
    metrics: { mean: { map: 0.30125, ndcg_cut_10: 0.4, P_10: 0.25, recall_100: 0.7, recip_rank: 0.6 }, judged: 17 },
  };

  it('reports lines, queries, the main measures and what was not ranked', () => {
    expect(runSummary(run, '/ws/samples/queries.indri.run')).toBe(
      'querylens: wrote 17,523 lines for 18 queries to queries.indri.run. map 0.3013 · ndcg_cut_10 0.4000 · P_10 0.2500 over 17 judged queries. Not ranked: 4: the query has syntax errors.',
    );
    expect(runSummary({ ...run, queries: 1, lines: 1, skipped: [], metrics: null }, '/a/b.run')).toBe('querylens: wrote 1 line for 1 query to b.run.');
  });
});

describe('Apply Weights to Every Query in the File', () => {
  const weighed: WeighFileResult = {
    model: 'twbert',
    device: 'cpu',
    edit: { changes: {} },
    weighed: [{ qid: '1', text: '#weight( 1 a )' }, { qid: '2', text: '#weight( 1 b )' }],
    notWeighed: Array.from({ length: 7 }, (_, i) => ({ qid: String(i + 3), reason: 'the model weighs plain-term queries only' })),
    notices: [],
  };

  it('names the model, the device, and every query it left alone (at most five, then a count)', () => {
    expect(weighSummary(weighed)).toBe(
      'querylens: applied TW-BERT weights (cpu) to 2 queries. Not weighed: ' +
        ['3', '4', '5', '6', '7'].map((q) => `${q}: the model weighs plain-term queries only`).join('; ') +
        '; and 2 more.',
    );
    expect(weighSummary({ ...weighed, model: 'deepct', weighed: [], notWeighed: [] })).toBe('querylens: no query in this file can be weighed by DeepCT.');
  });
});

describe('Build Index from the Corpus', () => {
  it('reports the index, the corpus and its size', () => {
    expect(buildSummary({ corpus: '/ws/samples/cranfield/corpus.jsonl', index: '/ws/samples/.index', docs: 1400, terms: 4573, seconds: 1.234 })).toBe(
      'querylens: built /ws/samples/.index from corpus.jsonl: 1,400 documents, 4,573 terms in 1.2 s.',
    );
  });
});
