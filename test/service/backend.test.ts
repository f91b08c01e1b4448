/**
 * The service layer's operations over the local backend: ranking with feedback is the first pass,
 * the feedback documents and the expansion, once; explain's value and rank agree with the search.
 */
import { describe, expect, it } from 'vitest';
import { parseIndri } from '../../grammar/index.js';
import { LocalIndexBackend } from '../../server/service/backend.js';
import { explainDocument } from '../../server/service/explain.js';
import { expandWithFeedback, rankQuery } from '../../server/service/ranking.js';
import { matchedTerms } from '../../server/service/snippets.js';
import { CORPUS, tinyIndex } from '../server/expansion/fixtures.js';

const backend = new LocalIndexBackend(tinyIndex(CORPUS), 'tiny');
const ast = parseIndri('#combine( cat dog )').ast;

describe('server/service over the local index', () => {
  it('feedback documents are the first pass top fbDocs, and named documents replace the first pass', () => {
    const first = backend.search(ast, { scorer: 'bm25', k: 2 }).hits.map((h) => h.doc);
    expect(backend.feedbackDocuments(ast, 2, { scorer: 'bm25' })).toEqual(first);
    const fromFirstPass = expandWithFeedback(backend, ast, { method: 'bo1', fbDocs: 2 }, { scorer: 'bm25' });
    expect(fromFirstPass.feedbackDocs).toEqual(first);
    const named = expandWithFeedback(backend, ast, { method: 'bo1', fbDocs: 2 }, { scorer: 'bm25' }, [4]);
    expect(named.feedbackDocs).toEqual([4]);
    expect(named.terms.some((t) => t.term === 'fish' && !t.isOriginal)).toBe(true);
  });

  it('rankQuery with expand ranks the expanded query and keeps the warnings of the query as written', () => {
    const withStopword = parseIndri('#combine( cat the dog )').ast;
    const run = rankQuery(backend, withStopword, { scorer: 'bm25', k: 10, expand: { method: 'bo1', fbDocs: 2, fbTerms: 3 } });
    const expansion = expandWithFeedback(backend, withStopword, { method: 'bo1', fbDocs: 2, fbTerms: 3 }, { scorer: 'bm25' });
    expect(run.expansion!.terms).toEqual(expansion.terms);
    expect(run.hits).toEqual(backend.search(expansion.ast, { scorer: 'bm25', k: 10 }).hits);
    expect(run.warnings.map((w) => w.code)).toContain('engine/stopword');
  });

  it("explain's value is the document's score and its rank is the document's place in the ranking", () => {
    const hits = backend.search(ast, { scorer: 'ql', k: 10 }).hits;
    for (const [i, h] of hits.entries()) {
      const e = explainDocument(backend, ast, h.doc, { scorer: 'ql' });
      expect(e.rank).toBe(i + 1);
      expect(e.explanation.value).toBe(h.score);
      expect(e.matchingDocs).toBe(hits.length);
    }
    const missing = explainDocument(backend, parseIndri('#combine( bird )').ast, 0, { scorer: 'bm25' });
    expect(missing.explanation.matched).toBe(false);
    expect(missing.rank).toBeNull();
  });

  it('snippets highlight the words the query matches', () => {
    const { concepts } = backend.compile(ast, { scorer: 'bm25' });
    const snippet = backend.snippet(0, matchedTerms(concepts));
    expect(snippet.text).toBe('cat dog cat fish');
    expect(snippet.highlights.map(([a, b]) => snippet.text.slice(a, b))).toEqual(['cat', 'dog', 'cat']);
  });
});
