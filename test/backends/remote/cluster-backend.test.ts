/**
 * The cluster backend through the official clients, without a cluster: each client's HTTP connection
 * replays recorded responses (test/support/mock-cluster.ts). Checks the requests sent (the search body is exactly
 * search-request.ts's), the results read back, and that every cluster failure is a typed ClusterError
 * with a one-line message saying what to do.
 */
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { parseIndri, toQueryDsl } from '../../../grammar/index.js';
import { ClusterBackend, hitText } from '../../../server/backends/remote/cluster-backend.js';
import { validateClusterConfig, type ClusterConfig } from '../../../server/backends/remote/config.js';
import { ClusterError } from '../../../server/backends/remote/errors.js';
import { searchBody, type ClusterKind } from '../../../server/backends/search-request.js';
import { evaluate } from '../../../server/engine/eval/index.js';
import { replay, type RecordedRequest, type Reply } from '../../support/mock-cluster.js';

const KINDS: ClusterKind[] = ['opensearch', 'elasticsearch'];
const open: ClusterBackend[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((b) => b.close()));
});

function config(kind: ClusterKind, extra: Record<string, unknown> = {}): ClusterConfig {
  return validateClusterConfig({ type: kind, url: 'http://localhost:9200', index: 'docs', fields: ['title', 'text'], maxRetries: 0, ...extra });
}

function backend(kind: ClusterKind, answer: (r: RecordedRequest) => Reply, extra: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = {}) {
  const mock = replay(kind, answer);
  const b = new ClusterBackend(config(kind, extra), { Connection: mock.Connection, env });
  open.push(b);
  return { backend: b, requests: mock.requests };
}

const query = parseIndri('#combine( boundary layer #1( hypersonic flow ) )').ast;

async function failure(p: Promise<unknown>): Promise<ClusterError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ClusterError);
    const e = err as ClusterError;
    expect(e.message).not.toMatch(/\n/);
    return e;
  }
  throw new Error('expected a ClusterError');
}

describe.each(KINDS)('%s backend over a replayed connection', (kind) => {
  it('search sends the body search-request.ts builds and reads hits with docno, score and _source', async () => {
    const { backend: b, requests } = backend(kind, () => ({ status: 200, fixture: 'search.json' }));
    const result = await b.search(query, { k: 10 });
    expect(requests).toHaveLength(1);
    const sent = requests[0]!;
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/docs/_search');
    const expected = searchBody(kind, toQueryDsl(query, { fields: ['title', 'text'] }).query!, { size: 10, sourceFields: ['title', 'text'] });
    expect(sent.body).toEqual(JSON.parse(JSON.stringify(expected)));
    expect(result.request).toEqual(expected);
    expect(result.hits.map((h) => [h.docno, h.score])).toEqual([
      ['184', 7.2153],
      ['29', 5.0417],
      ['1002', 1.25],
    ]);
    expect(result.matchedDocs).toBe(3);
    expect(hitText(result.hits[1]!, b.config)).toEqual({ title: 'skin friction', text: 'laminar boundary layer\nheat transfer' });
    // The window is approximated on a cluster: said, not silent.
    expect(result.diagnostics.map((d) => d.code)).toContain('translate/approximated');
  });

  it('explain sends the query to _explain and returns the explanation tree', async () => {
    const { backend: b, requests } = backend(kind, () => ({ status: 200, fixture: 'explain.json' }));
    const node = await b.explain(query, '184');
    expect(requests[0]!.path).toBe('/docs/_explain/184');
    expect(requests[0]!.body).toEqual(JSON.parse(JSON.stringify({ query: toQueryDsl(query, { fields: ['title', 'text'] }).query })));
    expect(node.matched).toBe(true);
    expect(node.value).toBe(7.2153);
    expect(node.children.map((c) => c.value)).toEqual([4.1, 3.1153]);
    expect(node.children[0]!.children[0]!.children.map((c) => c.description.split(',')[0])).toEqual(['boost', 'idf', 'tf']);
  });

  it('search reports the shards that answered; the default search type is the cluster\'s own (no search_type)', async () => {
    const { backend: b, requests } = backend(kind, () => ({ status: 200, fixture: 'search.json' }));
    expect((await b.search(query, { k: 10 })).shards).toBe(1);
    expect(new URLSearchParams(requests[0]!.querystring).get('search_type')).toBeNull();
  });

  it('"dfsQueryThenFetch": true makes every search (and the probe) carry search_type=dfs_query_then_fetch', async () => {
    const { backend: b, requests } = backend(kind, (r) => ({ status: 200, fixture: (r.body as { size?: number }).size === 0 ? 'count-3-shards.json' : 'search.json' }), { dfsQueryThenFetch: true });
    await b.search(query, { k: 10 });
    expect(await b.probe()).toEqual({ numDocs: 1400, shards: 3 });
    expect(requests.map((r) => new URLSearchParams(r.querystring).get('search_type'))).toEqual(['dfs_query_then_fetch', 'dfs_query_then_fetch']);
  });

  it('probe: one search with no hits that counts the documents and the shards', async () => {
    const { backend: b, requests } = backend(kind, () => ({ status: 200, fixture: 'count-3-shards.json' }));
    expect(await b.probe()).toEqual({ numDocs: 1400, shards: 3 });
    expect(requests[0]!.path).toBe('/docs/_search');
    expect(requests[0]!.body).toEqual({ query: { match_all: {} }, size: 0, track_total_hits: true });
  });

  it('probe of a missing index is an index-missing error', async () => {
    const { backend: b } = backend(kind, () => ({ status: 404, fixture: 'error-404-index.json' }));
    expect((await failure(b.probe())).kind).toBe('index-missing');
  });

  it('explain of a document the query does not match says matched: false', async () => {
    const { backend: b } = backend(kind, () => ({ status: 200, fixture: 'explain-unmatched.json' }));
    expect((await b.explain(query, '7')).matched).toBe(false);
  });

  it('term statistics: _termvectors of an artificial document with term and field statistics', async () => {
    const { backend: b, requests } = backend(kind, () => ({ status: 200, fixture: 'termvectors-artificial.json' }));
    const stats = await b.termStatistics('boundary layers zyzzyva', 'text');
    const sent = requests[0]!;
    expect(sent.path).toBe('/docs/_termvectors');
    // OpenSearch's client sends the flags in the query string, Elasticsearch's in the body.
    const qs = Object.fromEntries(new URLSearchParams(sent.querystring));
    const flags = { ...qs, ...(sent.body as object) } as Record<string, unknown>;
    expect(flags.doc).toEqual({ text: 'boundary layers zyzzyva' });
    expect([String(flags.term_statistics), String(flags.field_statistics), String(flags.fields)]).toEqual(['true', 'true', 'text']);
    expect(stats.collection).toEqual({ numDocs: 1400, totalTokens: 181024, avgDocLength: 181024 / 1400 });
    expect(stats.terms.get('boundari')).toEqual({ df: 312, cf: 771, tf: 1, positions: [] });
    // A term no document has: the cluster leaves doc_freq out.
    expect(stats.terms.get('zyzzyva')).toEqual({ df: 0, cf: 0, tf: 1, positions: [] });
    expect(stats.scope).toBe('one-shard');
  });

  it('count: `_count` of a query over every shard; positions of a term vector when asked for', async () => {
    const tv = { found: true, term_vectors: { text: { field_statistics: { doc_count: 3, sum_ttf: 9, sum_doc_freq: 8 }, terms: { layer: { term_freq: 2, doc_freq: 2, ttf: 3, tokens: [{ position: 1 }, { position: 7 }] } } } } };
    const { backend: b, requests } = backend(kind, (r) =>
      r.path === '/docs/_count' ? { status: 200, text: '{"count":17,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0}}' } : { status: 200, text: JSON.stringify(tv) },
    );
    const query = { bool: { should: [{ match_phrase: { text: { query: 'boundary layer' } } }] } };
    expect(await b.count(query)).toBe(17);
    expect(requests[0]!.body).toEqual({ query });
    const stats = await b.documentTermStatistics('184', 'text', { positions: true });
    expect(stats.terms.get('layer')).toEqual({ df: 2, cf: 3, tf: 2, positions: [1, 7] });
    const flags = { ...Object.fromEntries(new URLSearchParams(requests[1]!.querystring)), ...(requests[1]!.body as object) } as Record<string, unknown>;
    expect(String(flags.positions)).toBe('true');
  });

  it('count: a shard failure in a `_count` response is an error, not a short count', async () => {
    const { backend: b } = backend(kind, () => ({ status: 200, text: '{"count":3,"_shards":{"total":5,"successful":4,"skipped":0,"failed":1,"failures":[{"shard":2,"index":"docs","reason":{"type":"x","reason":"boom"}}]}}' }));
    await expect(b.count({ match_all: {} } as never)).rejects.toMatchObject({ code: 'cluster/shard-failures' });
  });

  it("term statistics of a stored document's term vector", async () => {
    const { backend: b, requests } = backend(kind, () => ({ status: 200, fixture: 'termvectors-doc.json' }));
    const stats = await b.documentTermStatistics('184');
    expect(requests[0]!.path).toBe('/docs/_termvectors/184');
    expect(stats.field).toBe('title');
    expect(stats.terms.get('boundari')).toBeUndefined(); // the fixture has the text field only
    const text = await b.documentTermStatistics('184', 'text');
    expect(text.terms.get('boundari')).toEqual({ df: 312, cf: 771, tf: 2, positions: [] });
  });

  it('a term vector of a missing document is a document-missing error', async () => {
    const { backend: b } = backend(kind, () => ({ status: 200, fixture: 'termvectors-missing.json' }));
    const e = await failure(b.documentTermStatistics('nope', 'text'));
    expect(e.kind).toBe('document-missing');
    expect(e.message).toContain("'nope'");
  });

  it('document fetch: title from the title field, the other text fields of _source', async () => {
    const { backend: b, requests } = backend(kind, () => ({ status: 200, fixture: 'get.json' }));
    const doc = await b.document('29');
    expect(requests[0]!.method).toBe('GET');
    expect(requests[0]!.path).toBe('/docs/_doc/29');
    expect(doc).toEqual({ docno: '29', title: 'skin friction', fields: { text: 'laminar boundary layer\nheat transfer', year: '1959' } });
  });

  it('a missing document (404, found: false) is a document-missing error naming it', async () => {
    const { backend: b } = backend(kind, () => ({ status: 404, fixture: 'get-missing.json' }));
    const e = await failure(b.document('nope'));
    expect(e.kind).toBe('document-missing');
    expect(e.message).toBe("no document 'nope' in index 'docs' on " + (kind === 'opensearch' ? 'OpenSearch' : 'Elasticsearch') + ' at http://localhost:9200 (404); check the document id');
  });

  it('a run of a query file is ranked on the cluster and evaluated by querylens', async () => {
    const { backend: b, requests } = backend(kind, () => ({ status: 200, fixture: 'search.json' }));
    const queries = [
      { qid: '1', ast: query },
      { qid: '2', ast: parseIndri('skin friction').ast },
    ];
    const { run, diagnostics } = await b.rankQueries(queries, { k: 3, runId: 'cluster' });
    expect(requests).toHaveLength(2);
    expect(run.queries.get('2')!.map((e) => e.docno)).toEqual(['184', '29', '1002']);
    expect(diagnostics.get('1')!.map((d) => d.message).join('\n')).toMatch(/interval query/);
    const qrels = new Map([['1', new Map([['29', 1]])]]);
    const result = evaluate(run, qrels, { measures: ['map', 'P_5'] });
    expect(result.perQuery.get('1')).toEqual({ map: 0.5, P_5: 0.2 });
  });

  // ---- failures: each a typed error with one line that says what to do
  const errorCases: { name: string; reply: Reply; kind: ClusterError['kind']; says: RegExp }[] = [
    { name: '401', reply: { status: 401, fixture: 'error-401.json' }, kind: 'unauthorized', says: kind === 'opensearch' ? /QUERYLENS_OPENSEARCH_USERNAME and QUERYLENS_OPENSEARCH_PASSWORD/ : /QUERYLENS_ELASTICSEARCH_API_KEY/ },
    // OpenSearch's security plugin answers 401 in plain text.
    { name: '401 in plain text', reply: { status: 401, text: 'Unauthorized', contentType: 'text/plain; charset=UTF-8' }, kind: 'unauthorized', says: /refused the credentials \(401\)/ },
    { name: '403', reply: { status: 403, fixture: 'error-403.json' }, kind: 'forbidden', says: /denied access to index 'docs' \(403\): no permissions for \[indices:data\/read\/search\].*grant the account read access/ },
    { name: '503', reply: { status: 503, fixture: 'error-503.json' }, kind: 'server', says: /failed \(503\): all shards failed; check the cluster's health/ },
    { name: '404 index missing', reply: { status: 404, fixture: 'error-404-index.json' }, kind: 'index-missing', says: /index 'docs' does not exist .*check "index"/ },
    { name: '429', reply: { status: 429, fixture: 'error-429.json' }, kind: 'too-many-requests', says: /\(429\): rejected execution .*wait and retry/ },
    { name: '400 rejected query', reply: { status: 400, fixture: 'error-400.json' }, kind: 'bad-request', says: /Can only use interval queries on text fields/ },
    { name: 'shard failures in a 200 response', reply: { status: 200, fixture: 'shard-failures.json' }, kind: 'shard-failures', says: /1 of 5 shards .*Node not connected; the ranking would be incomplete/ },
    { name: 'timed_out in a 200 response', reply: { status: 200, fixture: 'timed-out.json' }, kind: 'timeout', says: /time limit/ },
    { name: 'client timeout', reply: { fail: 'timeout' }, kind: 'timeout', says: /did not answer in time; raise "timeoutMs"/ },
    { name: 'connection refused', reply: { fail: 'refused' }, kind: 'connection-refused', says: /connection refused; check "url" and that the cluster is running/ },
    { name: 'certificate not verified', reply: { fail: 'tls' }, kind: 'tls', says: /"caFile"/ },
  ];
  it.each(errorCases)('search: $name', async ({ reply, kind: errorKind, says }) => {
    const { backend: b } = backend(kind, () => reply);
    const e = await failure(b.search(query, { k: 10 }));
    expect(e.kind).toBe(errorKind);
    expect(e.code).toBe(`cluster/${errorKind}`);
    expect(e.message).toMatch(says);
  });

  it('explain of a document that does not exist (404 without an error) is a document-missing error', async () => {
    const { backend: b } = backend(kind, () => ({ status: 404, fixture: 'explain-missing.json' }));
    const e = await failure(b.explain(query, 'nope'));
    expect(e.kind).toBe('document-missing');
    expect(e.message).toMatch(/^no document 'nope' in index 'docs'/);
  });

  it('a caFile that cannot be read is a configuration error naming it, before any request', () => {
    expect(() => backend(kind, () => ({ status: 200, fixture: 'search.json' }), { caFile: '/nonexistent/ca.pem' })).toThrow(
      'cannot read "caFile" /nonexistent/ca.pem: ENOENT',
    );
  });

  it('explain and term statistics report the same errors (404 index on _explain, 429 on _termvectors)', async () => {
    const { backend: b } = backend(kind, (r) => (r.path.includes('_explain') ? { status: 404, fixture: 'error-404-index.json' } : { status: 429, fixture: 'error-429.json' }));
    expect((await failure(b.explain(query, '184'))).kind).toBe('index-missing');
    expect((await failure(b.termStatistics('boundary'))).kind).toBe('too-many-requests');
  });

  it('a timeout is retried maxRetries times before it is reported', async () => {
    const { backend: b, requests } = backend(kind, () => ({ fail: 'timeout' }), { maxRetries: 2 });
    expect((await failure(b.search(query))).kind).toBe('timeout');
    expect(requests.length).toBe(kind === 'opensearch' ? 3 : 1); // the Elasticsearch client does not retry a timeout by default
  });

  it('credentials come from the environment only: basic auth header', async () => {
    const env = kind === 'opensearch' ? { QUERYLENS_OPENSEARCH_USERNAME: 'reader', QUERYLENS_OPENSEARCH_PASSWORD: 's3cret' } : { QUERYLENS_ELASTICSEARCH_USERNAME: 'reader', QUERYLENS_ELASTICSEARCH_PASSWORD: 's3cret' };
    const { backend: b, requests } = backend(kind, () => ({ status: 200, fixture: 'search.json' }), {}, env);
    await b.search(query);
    expect(requests[0]!.headers.authorization).toBe(`Basic ${Buffer.from('reader:s3cret').toString('base64')}`);
  });
});

describe('elasticsearch only', () => {
  it('an API key from QUERYLENS_ELASTICSEARCH_API_KEY is sent as ApiKey', async () => {
    const { backend: b, requests } = backend('elasticsearch', () => ({ status: 200, fixture: 'search.json' }), {}, { QUERYLENS_ELASTICSEARCH_API_KEY: 'a2V5OnNlY3JldA==' });
    await b.search(query);
    expect(requests[0]!.headers.authorization).toBe('ApiKey a2V5OnNlY3JldA==');
  });

  it('a server that is not Elasticsearch (no product header) is a not-the-product error', async () => {
    const { backend: b } = backend('elasticsearch', () => ({ status: 200, fixture: 'search.json', notTheProduct: true }));
    const e = await failure(b.search(query));
    expect(e.kind).toBe('not-the-product');
    expect(e.message).toMatch(/is not Elasticsearch; check "type" and "url"/);
  });
});

describe('a real refused connection (no mock)', () => {
  it.each(KINDS)('%s: a closed loopback port is connection-refused', async (kind) => {
    const port = await new Promise<number>((done) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => {
        const p = (server.address() as { port: number }).port;
        server.close(() => done(p));
      });
    });
    const b = new ClusterBackend(validateClusterConfig({ type: kind, url: `http://127.0.0.1:${port}`, index: 'docs', maxRetries: 0, timeoutMs: 5000 }), { env: {} });
    open.push(b);
    const e = await failure(b.search(query));
    expect(e.kind).toBe('connection-refused');
    expect(e.message).toContain(`http://127.0.0.1:${port}`);
  });
});
