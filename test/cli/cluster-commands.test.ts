/**
 * The CLI on a cluster (`--backend-config`): explain, expand, weigh, sweep and the index browser, on both
 * cluster types, through the editor's functions (server/service/cluster-session.ts), each against a mock
 * cluster replaying recorded responses, with exact expected output; every cluster failure is one line.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusCluster, SEARCH_CORPUS, searchReply, type RecordedRequest, type Reply } from '../support/mock-cluster.js';
import { CLUSTER_KINDS, runClusterCli, writeClusterConfigs } from './cluster-cli.js';

const KINDS = CLUSTER_KINDS;
let work: string;
let config: ReturnType<typeof writeClusterConfigs>;

const CORPUS = SEARCH_CORPUS;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'querylens-cluster-cmds-'));
  config = writeClusterConfigs(work, ['text']);
  writeFileSync(join(work, 'qrels'), '1 0 29 1\n1 0 1002 0\n');
  writeFileSync(join(work, 'q.indri'), '1\t#combine( boundary layer )\n');
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** search.json's hits. */
const HITS = [
  { docno: '184', score: 7.2153, source: { title: 'transition in hypersonic flow', text: 'experiments on boundary layer transition at hypersonic speeds' } },
  { docno: '29', score: 5.0417, source: { title: 'skin friction', text: ['laminar boundary layer', 'heat transfer'] } },
  { docno: '1002', score: 1.25, source: { text: 'flow past a flat plate' } },
];

/** The index's settings with this `index.similarity.default` (none: the cluster's default BM25). */
function settingsReply(similarity: Record<string, string> | undefined): Reply {
  return { status: 200, text: JSON.stringify({ docs: { settings: { index: { number_of_shards: '1', ...(similarity ? { similarity: { default: similarity } } : {}) } } } }) };
}

/** The corpus cluster: `_search` → search.json (or `search`), `_explain` → explain.json. */
function cluster(options: { shards?: number; search?: (r: RecordedRequest) => Reply; settings?: Reply } = {}): (r: RecordedRequest) => Reply {
  return corpusCluster(
    CORPUS,
    (r) => {
      if (r.path.startsWith('/docs/_explain/')) return { status: 200, fixture: 'explain.json' };
      if (r.path === '/docs/_settings') return options.settings ?? settingsReply(undefined);
      if (r.path === '/docs/_search') return options.search?.(r) ?? searchReply(HITS, options.shards);
      return { status: 500, text: `unexpected ${r.method} ${r.path}` };
    },
    { shards: options.shards },
  );
}

describe.each(KINDS)('explain --backend-config (%s)', (kind) => {
  it("prints the cluster's _explain as the local explain is, with its rank and the per-shard note", async () => {
    const r = await runClusterCli(kind, ['explain', '--backend-config', config(kind), '--query', '#combine( boundary layer )', '--doc', '184'], cluster({ shards: 3 }));
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      [
        `184: rank 1 of 3 matching documents, score 7.2153 (${kind} http://localhost:9200/docs)`,
        '7.2153  sum of:',
        '  4.1000  weight(text:boundari in 12) [PerFieldSimilarity], result of:',
        '    4.1000  score(freq=2.0), computed as boost * idf * tf from:',
        '      2.2000  boost',
        '      3.0001  idf, computed as log(1 + (N - n + 0.5) / (n + 0.5)) from:',
        '      0.6212  tf, computed as freq / (freq + k1 * (1 - b + b * dl / avgdl)) from:',
        '  3.1153  weight(text:layer in 12) [PerFieldSimilarity], result of:',
        `note: The cluster's index has 3 shards, and each scores this query with its own term statistics (df, document count, average length), so scores differ from whole-index ones and between shards. Set "dfsQueryThenFetch": true in the "backend" section of querylens.json to search with search_type=dfs_query_then_fetch.`,
        '',
      ].join('\n'),
    );
    expect(r.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['POST /docs/_search', 'GET /docs/_settings', 'POST /docs/_explain/184', 'GET /docs/_doc/184', 'POST /docs/_search']);
  });
});

describe('expand --backend-config', () => {
  it('opensearch: Bo1 of each query from the cluster\'s top fbDocs, with the cluster\'s statistics', async () => {
    const r = await runClusterCli('opensearch', ['expand', '--backend-config', config('opensearch'), '--fb-docs', '2', '--fb-terms', '3', join(work, 'q.indri')], cluster());
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatchInlineSnapshot(`
      "// 1: #combine( boundary layer )
      // bo1 on opensearch http://localhost:9200/docs, the cluster's first pass, feedback: 184 29
      //   term        weight    tfx  dfx
      //   boundary    2.0000      3    2  (query term)
      //   layer       2.0000      3    2  (query term)
      1	#weight( 2 boundary 2 layer )
      "
    `);
    // The feedback documents' term vectors, nothing of document 1002.
    expect([...new Set(r.requests.filter((q) => /^\/docs\/_termvectors\/./.test(q.path)).map((q) => q.path))]).toEqual(['/docs/_termvectors/184', '/docs/_termvectors/29']);
  });

  it('elasticsearch, --json, 3 shards: the terms and the expanded query, and a note that the statistics are one shard\'s', async () => {
    const r = await runClusterCli('elasticsearch', ['expand', '--backend-config', config('elasticsearch'), '--fb-docs', '2', '--fb-terms', '3', '--json', join(work, 'q.indri')], cluster({ shards: 3 }));
    expect(r.stderr).toBe("querylens: note: the term statistics are one shard's (_termvectors; the index has 3 shards)\n");
    expect(JSON.parse(r.stdout)).toMatchInlineSnapshot(`
      [
        {
          "backend": "elasticsearch http://localhost:9200/docs",
          "expanded": "#weight( 2 boundary 2 layer )",
          "feedbackDocnos": [
            "184",
            "29",
          ],
          "qid": "1",
          "query": "#combine( boundary layer )",
          "scope": "one-shard",
          "terms": [
            {
              "dfx": 2,
              "expansionWeight": 1,
              "isOriginal": true,
              "term": "boundary",
              "tfx": 3,
              "weight": 2,
            },
            {
              "dfx": 2,
              "expansionWeight": 1,
              "isOriginal": true,
              "term": "layer",
              "tfx": 3,
              "weight": 2,
            },
          ],
        },
      ]
    `);
  });

  it('rm3 and learned are refused with the reason; local-only options too', async () => {
    const rm3 = await runClusterCli('opensearch', ['expand', '--backend-config', config('opensearch'), '--method', 'rm3', join(work, 'q.indri')], cluster());
    expect([rm3.status, rm3.stderr]).toMatchInlineSnapshot(`
      [
        2,
        "querylens: --method rm3 cannot be used with --backend-config: on a cluster querylens expands with bo1 only (RM3 needs every feedback document's language model and the collection's, which querylens reads from a local index); use --method bo1
      ",
      ]
    `);
    const learned = await runClusterCli('opensearch', ['expand', '--backend-config', config('opensearch'), '--method', 'learned', join(work, 'q.indri')], cluster());
    expect([learned.status, learned.stderr]).toMatchInlineSnapshot(`
      [
        2,
        "querylens: --method learned cannot be used with --backend-config: the learned expansion reads the index's vocabulary and stored text, which only a local index has; use --method bo1
      ",
      ]
    `);
    const local = await runClusterCli('opensearch', ['expand', '--backend-config', config('opensearch'), '--index', 'x', '--orig-weight', '0.3', join(work, 'q.indri')], cluster());
    expect([local.status, local.stderr, local.requests.length]).toMatchInlineSnapshot(`
      [
        2,
        "querylens: --index, --orig-weight cannot be used with --backend-config: the cluster ranks with its own index and similarity settings
      ",
        0,
      ]
    `);
  });
});

describe('a cluster failure is one line with exit status 2, never a stack trace', () => {
  const os = 'OpenSearch at http://localhost:9200';
  const cases: [string, Reply, string][] = [
    ['401', { status: 401, fixture: 'error-401.json' }, `${os} refused the credentials (401); set QUERYLENS_OPENSEARCH_USERNAME and QUERYLENS_OPENSEARCH_PASSWORD to an account that can read index 'docs'`],
    ['404 index', { status: 404, fixture: 'error-404-index.json' }, `index 'docs' does not exist on ${os} (404); check "index" in the backend configuration or create and fill the index`],
    [
      '429',
      { status: 429, fixture: 'error-429.json' },
      `${os} is rejecting requests as too many (429): rejected execution of coordinating operation [coordinating_and_primary_bytes=0, replica_bytes=0, all_bytes=0, coordinating_operation_bytes=1048576, max_coordinating_and_primary_bytes=0]; wait and retry, or send fewer queries at once`,
    ],
    ['timeout', { fail: 'timeout' }, `${os} did not answer in time; raise "timeoutMs" in the backend configuration or check the cluster's load`],
    ['refused', { fail: 'refused' }, `cannot connect to ${os}: connection refused; check "url" and that the cluster is running`],
    [
      'shard failure',
      { status: 200, fixture: 'shard-failures.json' },
      `1 of 5 shards of index 'docs' failed on ${os}: [node-2][10.0.0.7:9300] Node not connected; the ranking would be incomplete, so it is not used (check the cluster's health and the query's fields)`,
    ],
  ];
  it.each(cases)('%s', async (_name, reply, line) => {
    const r = await runClusterCli('opensearch', ['explain', '--backend-config', config('opensearch'), '--query', 'boundary', '--doc', '184'], () => reply);
    expect([r.status, r.stdout, r.stderr]).toEqual([2, '', `querylens: ${line}\n`]);
  });
});

for (const kind of KINDS) {
  describe(`sweep --backend-config (${kind})`, () => {
  it("sweeps fbDocs × fbTerms with Bo1 on the cluster, evaluated by querylens", async () => {
    // The first pass ranks 184, 29, 1002. From 184 alone (fbDocs 1) Bo1 adds a word of 184 (hypersonic) and the expanded query ranks
    // 29 (judged relevant) first; Bo1 of 184 and 29 (fbDocs 2) keeps their common words, which rank as the first pass.
    const search = (r: RecordedRequest) => (JSON.stringify(r.body).includes('hypersonic') ? searchReply([{ docno: '29', score: 9 }, { docno: '184', score: 2 }]) : searchReply(HITS));
    const r = await runClusterCli(kind, ['sweep', '--backend-config', config(kind), '--qrels', join(work, 'qrels'), '--fb-docs', '1,2', '--fb-terms', '3', '-m', 'map,P_1', join(work, 'q.indri')], cluster({ search }));
    expect(r.stderr).toBe('');
    expect(r.stdout.replaceAll(kind, 'KIND')).toMatchInlineSnapshot(`
      "   fbDocs  fbTerms     map     P_1
      *       1        3  1.0000  1.0000
              2        3  0.5000  0.0000
      best by map: bo1 fbDocs=1 fbTerms=3 (map 1.0000, 1 queries)
      note: Ranked on KIND http://localhost:9200/docs, whose own similarity scores every setting; only Bo1's fbDocs and fbTerms vary (feedback documents and term statistics from the cluster).
      "
    `);
  });

  it('k1, b, mu and the scorer are refused with the editor\'s reason', async () => {
    const r = await runClusterCli(kind, ['sweep', '--backend-config', config(kind), '--qrels', join(work, 'qrels'), '--k1', '0.9,1.2', join(work, 'q.indri')], cluster());
    expect([r.status, r.stderr.replaceAll(kind, 'KIND'), r.requests.length]).toMatchInlineSnapshot(`
      [
        2,
        "querylens: cannot sweep k1 on KIND http://localhost:9200/docs: on a cluster they are the index's similarity settings, and changing them means closing the index, updating its settings and reopening it for every setting, which querylens never does to a user's cluster. Sweep fbDocs and fbTerms here, or sweep k1 and b on a local index of the same documents (remove "backend" from querylens.json, set "corpus" and "index")
      ",
        0,
      ]
    `);
  });
  });
}


for (const kind of KINDS) {
  describe(`the index browser with --backend-config (${kind})`, () => {
  it("doc: the stored fields and each search field's term vector", async () => {
    const r = await runClusterCli(kind, ['doc', '--backend-config', config(kind), '29'], cluster());
    expect(r.stderr).toBe('');
    expect(r.stdout.replaceAll(kind, 'KIND')).toMatchInlineSnapshot(`
      "docno: 29, 5 indexed tokens, 5 distinct terms
      title: skin friction
      text: laminar boundary layer heat transfer

      term      field  tf  positions
      boundary  text    1  1
      heat      text    1  3
      laminar   text    1  0
      layer     text    1  2
      transfer  text    1  4
      note: From KIND http://localhost:9200/docs: the stored fields from _source and the term vector of each search field (text) from _termvectors, positions counted within the field.
      "
    `);
  });

  it('analyze: the text as the cluster analyses it, with one shard\'s df and cf', async () => {
    const r = await runClusterCli(kind, ['analyze', '--backend-config', config(kind), 'The boundary of a layer'], cluster());
    expect(r.stderr).toBe('');
    expect(r.stdout.replaceAll(kind, 'KIND')).toMatchInlineSnapshot(`
      "word      term      position  df  cf
      boundary  boundary         1   2   3
      layer     layer            4   2   3
      note: Analysed by KIND http://localhost:9200/docs as the field "text" analyses it (_termvectors of the text); df and cf are one shard's (the cluster computes them on the shard it routes the text to); a word the analyser drops is not listed.
      "
    `);
  });

  it('postings: the explained refusal, with the df to go on', async () => {
    const r = await runClusterCli(kind, ['postings', '--backend-config', config(kind), 'boundary'], cluster());
    expect([r.status, r.stdout, r.stderr.replaceAll(kind, 'KIND')]).toMatchInlineSnapshot(`
      [
        2,
        "",
        "querylens: KIND http://localhost:9200/docs cannot list the postings of 'boundary': a cluster gives no term's list of documents with positions. 2 documents hold it in "text" (_count); run it as a query for the documents, or open one (querylens/document in the editor, \`querylens doc\` on the command line) for its term vector
      ",
      ]
    `);
  });
  });
}


describe('terms --backend-config', () => {
  it("elasticsearch lists a field's terms (_terms_enum), each with its df by _count", async () => {
    const r = await runClusterCli('elasticsearch', ['terms', '--backend-config', config('elasticsearch'), '--prefix', 'b', '--top', '5'], cluster());
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatchInlineSnapshot(`
      "term      df
      boundary   2
      note: Terms of the field "text" starting with "b" as Elasticsearch's _terms_enum lists them: in term order, not by df, at most 5; df of each counted by _count over every shard; cf is not shown (the cluster gives a term's cf only per shard, for a document).
      "
    `);
  });

  it('opensearch has no such API: the explained refusal', async () => {
    const r = await runClusterCli('opensearch', ['terms', '--backend-config', config('opensearch')], cluster());
    expect([r.status, r.stdout, r.stderr, r.requests.length]).toMatchInlineSnapshot(`
      [
        2,
        "",
        "querylens: opensearch http://localhost:9200/docs cannot list the index's terms: OpenSearch has no API that does (no \`_terms_enum\`), and querylens does not read every document's term vectors to build one. Analyse a text (querylens/analyze, \`querylens analyze\`) or hover a word for its df and cf, or browse a local index of the same documents
      ",
        0,
      ]
    `);
  });
});

describe("the index's similarity against the scorer the queries are written for", () => {
  const fix = "the cluster ranks with its own; to rank as the queries are written, change the index's similarity settings (they need the index closed) or querylens's scorer to match";
  const cases: [string, (typeof KINDS)[number], string[], Reply, string][] = [
    ['BM25 with other k1 and b', 'opensearch', [], settingsReply({ type: 'BM25', k1: '0.9', b: '0.4' }), `the index's BM25 has k1 = 0.9, b = 0.4 (its "index.similarity.default" settings), the queries are written for k1 = 1.2, b = 0.75 (bm25): ${fix}`],
    ['the default BM25 for ql', 'elasticsearch', ['--scorer', 'ql'], settingsReply(undefined), `the index scores with BM25 (k1 = 1.2, b = 0.75) (the cluster's default, as the index sets none), not Dirichlet query likelihood as the ql scorer the queries are written for: ${fix}`],
    ['Dirichlet with another mu', 'elasticsearch', ['--scorer', 'ql'], settingsReply({ type: 'LMDirichlet', mu: '2000' }), `the index's LMDirichlet has mu = 2000 (its "index.similarity.default" settings), the queries are written for mu = 2500 (ql): ${fix}`],
    ['settings the account may not read (403)', 'opensearch', [], { status: 403, fixture: 'error-403.json' }, "cannot read the index's similarity settings to compare them with the bm25 scorer's: "],
  ];
  it.each(cases)('%s: a note on stderr, and the run as usual', async (_name, kind, extra, settings, note) => {
    const r = await runClusterCli(kind, ['search', '--backend-config', config(kind), ...extra, join(work, 'q.indri')], cluster({ settings }));
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('1 Q0 184 1 7.2153 querylens\n1 Q0 29 2 5.0417 querylens\n1 Q0 1002 3 1.25 querylens\n');
    // The note comes first (the translation's warnings of a ql query follow it), once.
    expect(r.stderr.split('\n')[0]!.startsWith(`querylens: note: ${note}`)).toBe(true);
    expect(r.stderr.match(/querylens: note:/g)).toHaveLength(1);
  });

  it('the same similarity: no note', async () => {
    const r = await runClusterCli('opensearch', ['search', '--backend-config', config('opensearch'), join(work, 'q.indri')], cluster({ settings: settingsReply({ type: 'BM25', k1: '1.2', b: '0.75' }) }));
    expect([r.status, r.stderr]).toEqual([0, '']);
  });
});
