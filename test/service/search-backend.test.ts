/**
 * The SearchBackend contract (server/service/search-backend.ts), run unchanged against both implementations:
 * the local engine over a six-document index, and an OpenSearch and an Elasticsearch cluster (the real
 * clients over a mock connection) holding the same six documents (test/support/mock-cluster.ts
 * searchingCluster: Σ boost × tf as its similarity, so rankings differ from BM25's where the scorers do;
 * what the contract promises does not).
 * The collection statistics agree exactly, so Bo1's expansion must come out the same on both.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { parseIndri } from '../../grammar/index.js';
import { ClusterBackend } from '../../server/backends/remote/cluster-backend.js';
import { validateClusterConfig } from '../../server/backends/remote/config.js';
import { ClusterError } from '../../server/backends/remote/errors.js';
import { LocalIndexBackend } from '../../server/service/backend.js';
import { ClusterSearchBackend } from '../../server/service/cluster-search-backend.js';
import { LocalSearchBackend, MissingDocumentError } from '../../server/service/local-search-backend.js';
import { explainWithRank, rankWithFeedback, type SearchBackend } from '../../server/service/search-backend.js';
import { replay, searchingCluster, type MockCorpus } from '../support/mock-cluster.js';
import { CORPUS, tinyIndex } from '../server/expansion/fixtures.js';

const DOCS: MockCorpus = Object.fromEntries(CORPUS.map((text, i) => [`d${i}`, { text }]));

const opened: SearchBackend[] = [];
afterAll(async () => {
  await Promise.all(opened.map((b) => b.close()));
});

function local(): SearchBackend {
  const b = new LocalSearchBackend(new LocalIndexBackend(tinyIndex(CORPUS), 'tiny'));
  opened.push(b);
  return b;
}

function cluster(kind: 'opensearch' | 'elasticsearch'): SearchBackend {
  const mock = replay(kind, searchingCluster(DOCS));
  const config = validateClusterConfig({ type: kind, url: 'http://localhost:9200', index: 'docs', fields: ['text'], maxRetries: 0 });
  const b = new ClusterSearchBackend(new ClusterBackend(config, { Connection: mock.Connection, env: {} }));
  opened.push(b);
  return b;
}

const BACKENDS: [string, () => SearchBackend][] = [
  ['local', local],
  ['opensearch', () => cluster('opensearch')],
  ['elasticsearch', () => cluster('elasticsearch')],
];

const query = parseIndri('#combine( cat dog )').ast;

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

describe.each(BACKENDS)('SearchBackend contract: %s', (name, make) => {
  const backend = make();

  it('collection and term statistics are the collection’s', async () => {
    expect((await backend.collectionStatistics()).numDocs).toBe(6);
    const stats = await backend.termStatistics('cat fish');
    expect(stats).toEqual([
      { term: 'cat', df: 4, cf: 5 },
      { term: 'fish', df: 2, cf: 4 },
    ]);
  });

  it('window statistics count the documents holding the window', async () => {
    // "cat dog" in d0 only; d1 has "cat bird dog": in order within 2 positions, not adjacent.
    expect((await backend.windowStatistics(['cat', 'dog'], { ordered: true, width: 1 })).df).toBe(1);
    expect((await backend.windowStatistics(['fish', 'cat'], { ordered: true, width: 1 })).df).toBe(0);
    expect((await backend.windowStatistics(['dog', 'cat'], { ordered: false, width: 2 })).df).toBe(1);
    expect((await backend.windowStatistics(['cat', 'dog'], { ordered: true, width: 2 })).df).toBe(2);
    await expect(backend.windowStatistics(['cat dog'], { ordered: true, width: 1 })).rejects.toThrow(/single words/);
  });

  it('vocabulary lists index terms by prefix, and says when there are more', async () => {
    if (name === 'opensearch') {
      // OpenSearch has no API that lists terms: an explained refusal, not an empty list.
      expect(await rejection(backend.vocabulary('c', 5))).toBeInstanceOf(ClusterError);
      return;
    }
    expect(await backend.vocabulary('c', 5)).toEqual({ terms: ['cat'], complete: true });
    expect(await backend.vocabulary('', 3)).toEqual({ terms: ['bird', 'cat', 'dog'], complete: false });
  });

  it('search returns the top k best first, the first `describe` hits with a title and a highlighted snippet', async () => {
    const ranking = await backend.search(query, { k: 3, describe: 2 });
    expect(ranking.matchedDocs).toBe(5); // every document but d4 (fish sun)
    expect(ranking.hits).toHaveLength(3);
    for (let i = 1; i < ranking.hits.length; i++) expect(ranking.hits[i - 1]!.score).toBeGreaterThanOrEqual(ranking.hits[i]!.score);
    for (const h of ranking.hits.slice(0, 2)) {
      expect(h.title).toBeTruthy();
      const marked = h.snippet!.highlights.map(([a, b]) => h.snippet!.text.slice(a, b).toLowerCase());
      expect(marked.length).toBeGreaterThan(0);
      expect(marked.every((w) => w === 'cat' || w === 'dog')).toBe(true);
    }
    expect(ranking.hits[2]!.snippet).toBeUndefined();
    expect((await backend.search(query, { k: 10, describe: 0 })).hits.every((h) => h.docno !== 'd4')).toBe(true);
  });

  it("explain's value is the document's score; an unmatched document is matched: false; an unknown one an error", async () => {
    const [top] = (await backend.search(query, { k: 1 })).hits;
    const tree = await backend.explain(query, top!.docno);
    expect(tree.matched).not.toBe(false);
    expect(tree.value).toBeCloseTo(top!.score, 5);
    expect((await backend.explain(query, 'd4')).matched).toBe(false);
    const err = await rejection(backend.explain(query, 'nope'));
    expect(err).toBeInstanceOf(name === 'local' ? MissingDocumentError : ClusterError);
    expect(err.message).toContain("'nope'");
    const ranked = await explainWithRank(backend, query, top!.docno);
    expect(ranked.rank).toBe(1);
    expect(ranked.matchedDocs).toBe(5);
    expect((await explainWithRank(backend, query, 'd4')).rank).toBeNull();
  });

  it('feedback documents are the first pass’s top fbDocs', async () => {
    const top = (await backend.search(query, { k: 2 })).hits.map((h) => h.docno);
    expect(await backend.feedbackDocuments(query, 2)).toEqual(top);
  });

  it('Bo1 expands from the named feedback documents with this collection’s statistics; the expanded query runs here', async () => {
    const expansion = await backend.expand(query, ['d0', 'd4'], { method: 'bo1', fbTerms: 2 });
    expect(expansion.feedbackDocnos).toEqual(['d0', 'd4']);
    expect(expansion.terms.filter((t) => t.isOriginal).map((t) => t.term).sort()).toEqual(['cat', 'dog']);
    expect(expansion.terms.some((t) => t.term === 'fish' && !t.isOriginal)).toBe(true);
    // The same documents and statistics on every backend: the same terms and weights as the local engine's.
    const reference = await local().expand(query, ['d0', 'd4'], { method: 'bo1', fbTerms: 2 });
    expect(expansion.terms.map((t) => [t.term, t.weight.toFixed(10)])).toEqual(reference.terms.map((t) => [t.term, t.weight.toFixed(10)]));
    const ranked = await backend.search(expansion.ast, { k: 10 });
    expect(ranked.hits.map((h) => h.docno)).toContain('d4'); // fish only: reached through the expansion
    if (name !== 'local') await expect(backend.expand(query, ['d0'], { method: 'rm3' })).rejects.toThrow(/bo1 only/);
  });

  it('rankWithFeedback is first pass → feedback documents → expansion → the expanded ranking, with the written query’s diagnostics', async () => {
    const withStopword = parseIndri('#combine( cat the dog )').ast;
    const run = await rankWithFeedback(backend, withStopword, { k: 10, describe: 0, expand: { method: 'bo1', fbDocs: 2, fbTerms: 2 } });
    const feedback = await backend.feedbackDocuments(withStopword, 2);
    expect(run.expansion!.feedbackDocnos).toEqual(feedback);
    const expansion = await backend.expand(withStopword, feedback, { method: 'bo1', fbTerms: 2 });
    expect(run.ranking.hits).toEqual((await backend.search(expansion.ast, { k: 10, describe: 0 })).hits);
    expect(run.ranking.diagnostics).toEqual((await backend.search(withStopword, { k: 1 })).diagnostics);
    if (name === 'local') {
      // Each method's own default number of feedback documents: Bo1 3 (Terrier), RM3 10 (Indri, Anserini); 5 documents match.
      expect((await rankWithFeedback(backend, query, { expand: { method: 'bo1' } })).expansion!.feedbackDocnos).toHaveLength(3);
      expect((await rankWithFeedback(backend, query, { expand: { method: 'rm3' } })).expansion!.feedbackDocnos).toHaveLength(5);
    }
    const plain = await rankWithFeedback(backend, query, { k: 10, describe: 0 });
    expect(plain.expansion).toBeNull();
    expect(plain.ranking.hits).toEqual((await backend.search(query, { k: 10, describe: 0 })).hits);
  });

  it('documents are read by docno; an unknown docno is an error naming it', async () => {
    expect((await backend.document('d3')).fields.text).toBe('dog sun');
    expect((await rejection(backend.document('nope'))).message).toContain("'nope'");
  });
});
