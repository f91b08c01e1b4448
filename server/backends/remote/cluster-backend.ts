/**
 * A search cluster (OpenSearch or Elasticsearch) as a querylens backend, through the official clients:
 * `@opensearch-project/opensearch` for type "opensearch", `@elastic/elasticsearch` for "elasticsearch".
 *
 * Operations: top-k search with the request body of search-request.ts (hits with docno = `_id`, score and
 * the `_source` fields for titles and snippets), explain (`_explain`), term and field statistics
 * (`_termvectors` with term_statistics and field_statistics, of a stored document or of an artificial one
 * made of the query's words, so the cluster's own analyser decides the terms), document fetch (`get`),
 * and a TREC run of a query file ranked on the cluster, which querylens evaluates with its own
 * trec_eval-exact code (server/service/evaluation.ts; never the cluster's `_rank_eval`).
 *
 * Every operation is asynchronous (a network round trip), so this class does not implement the
 * synchronous `LocalBackend` of server/service; every failure is a `ClusterError` (errors.ts).
 */
import { readFileSync } from 'node:fs';
import { Client as ElasticsearchClient } from '@elastic/elasticsearch';
import { Client as OpenSearchClient } from '@opensearch-project/opensearch';
import { toQueryDsl, type DslQuery, type QueryAst } from '../../../grammar/index.js';
import type { QueryDiagnostic } from '../../../grammar/diagnostics.js';
import type { ExplainNode } from '../../engine/search.js';
import type { CollectionStats, StoredDocument, TermStats } from '../../engine/index/reader.js';
import type { Run } from '../../engine/eval/index.js';
import type { ScorerName } from '../../engine/scoring/scorers.js';
import { searchBody } from '../search-request.js';
import { ClusterConfigError, credentialsFromEnvironment, type ClusterConfig, type ClusterCredentials } from './config.js';
import { checkComplete, ClusterError, toClusterError, type ClusterErrorContext } from './errors.js';

/** A hit of a cluster search: the document's `_id` is its docno. */
export interface ClusterHit {
  docno: string;
  score: number;
  /** The `_source` fields asked for (the search fields and the title field). */
  source: Record<string, unknown>;
}

export interface ClusterSearchResult {
  hits: ClusterHit[];
  /** Documents that matched (the cluster's `hits.total`). */
  matchedDocs: number;
  /** The request body sent (null when nothing of the query could be translated and nothing was sent). */
  request: object | null;
  /** Where the cluster evaluates the query differently from querylens (translate/approximated, translate/dropped). */
  diagnostics: QueryDiagnostic[];
  /** Shards that answered (`_shards.total`); null when nothing was sent or the response does not say. */
  shards: number | null;
}

/** What `probe` learns of the index: its documents and shards. */
export interface ClusterIndexSummary {
  numDocs: number;
  /** Shards the search ran on (`_shards.total`): with more than one, each scores with its own statistics unless dfsQueryThenFetch. */
  shards: number;
}

/** Term statistics from `_termvectors`, per analysed term of the field, and the field's statistics. */
export interface ClusterTermStatistics {
  field: string;
  /** doc_count, sum_ttf of the field as the collection statistics querylens uses (numDocs, totalTokens, avgDocLength). */
  collection: CollectionStats;
  /**
   * Per term (as the cluster's analyser made it): df = doc_freq, cf = ttf; tf in the analysed text or
   * document; its positions and character offsets there when they were asked for (`positions`, `offsets`),
   * else empty.
   */
  terms: Map<string, TermStats & { tf: number; positions: number[]; offsets?: [number, number][] }>;
  /**
   * The cluster computes these on one shard (the one the document routes to), not the whole index:
   * with several shards they differ from the statistics the cluster's own `query_then_fetch` scoring uses
   * per shard, and from whole-index ones (`dfs_query_then_fetch` scores with whole-index statistics).
   */
  scope: 'one-shard';
}

export interface ClusterSearchOptions {
  /** Hits to return (default 1000). */
  k?: number;
  /** The scorer the query was written for (its translation diagnostics depend on it). */
  scorer?: ScorerName;
}

/**
 * How the index scores (its `index.similarity.default` setting): Lucene's BM25 with k1 and b, Dirichlet query
 * likelihood with mu, or another model. `configured` is false when the index sets none and the cluster's default
 * (BM25, k1 = 1.2, b = 0.75) applies.
 */
export interface ClusterSimilarity {
  type: string;
  k1?: number;
  b?: number;
  mu?: number;
  configured: boolean;
}

/** The similarity an index gets when its settings name none (Elasticsearch's and OpenSearch's default). */
const DEFAULT_SIMILARITY: ClusterSimilarity = { type: 'BM25', k1: 1.2, b: 0.75, configured: false };

/** Test seams: the clients' HTTP connection class (a mock replaying recorded responses) and the environment. */
export interface ClusterBackendOptions {
  /** A connection class for the client of the configured type (see test/backends/remote). */
  Connection?: unknown;
  env?: NodeJS.ProcessEnv;
}

/** The few requests querylens makes, the same for both clients (each returns the response body). */
interface ClusterRequests {
  /** `searchType` is the URL parameter `search_type` (absent: the cluster's default, query_then_fetch). */
  search(body: object, searchType?: 'dfs_query_then_fetch'): Promise<unknown>;
  explain(id: string, query: DslQuery): Promise<unknown>;
  termvectors(request: { id?: string; doc?: Record<string, string>; fields: string[]; positions?: boolean; offsets?: boolean }): Promise<unknown>;
  get(id: string): Promise<unknown>;
  /** `_count` of the documents the query matches (every shard, exact). */
  count(query: DslQuery): Promise<unknown>;
  /** The index's settings (`GET /<index>/_settings`). */
  settings(): Promise<unknown>;
  /** Elasticsearch's `_terms_enum` (terms of a field starting with a prefix, no statistics); OpenSearch has none. */
  termsEnum?(field: string, prefix: string, size: number): Promise<unknown>;
  close(): Promise<void>;
}

function readCa(config: ClusterConfig): string | undefined {
  if (!config.caFile) return undefined;
  try {
    return readFileSync(config.caFile, 'utf8');
  } catch (err) {
    throw new ClusterConfigError(`cannot read "caFile" ${config.caFile}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
}

/** What querylens asks `_termvectors` for: term and field statistics, no positions, offsets or payloads. */
const TERMVECTOR_FLAGS = { term_statistics: true, field_statistics: true, payloads: false } as const;

function openSearchRequests(config: ClusterConfig, credentials: ClusterCredentials, options: ClusterBackendOptions): ClusterRequests {
  if (credentials.kind === 'api-key') throw new ClusterConfigError('OpenSearch takes a user and password, not an API key');
  const ca = readCa(config);
  const client = new OpenSearchClient({
    node: config.url,
    ...(credentials.kind === 'basic' ? { auth: { username: credentials.username, password: credentials.password } } : {}),
    ssl: { rejectUnauthorized: config.tlsVerify, ...(ca ? { ca } : {}) },
    requestTimeout: config.timeoutMs,
    maxRetries: config.maxRetries,
    ...(options.Connection ? { Connection: options.Connection as never } : {}),
  });
  const index = config.index;
  return {
    search: async (body, searchType) => (await client.search({ index, body, ...(searchType ? { search_type: searchType } : {}) })).body,
    explain: async (id, query) => (await client.explain({ index, id, body: { query: query as never } })).body,
    termvectors: async ({ id, doc, fields, positions, offsets }) =>
      (
        await client.termvectors({
          index,
          ...(id !== undefined ? { id } : {}),
          fields,
          ...TERMVECTOR_FLAGS,
          positions: positions === true,
          offsets: offsets === true,
          ...(doc ? { body: { doc } } : {}),
        })
      ).body,
    get: async (id) => (await client.get({ index, id })).body,
    count: async (query) => (await client.count({ index, body: { query: query as never } })).body,
    settings: async () => (await client.indices.getSettings({ index })).body,
    close: () => client.close(),
  };
}

function elasticsearchRequests(config: ClusterConfig, credentials: ClusterCredentials, options: ClusterBackendOptions): ClusterRequests {
  const ca = readCa(config);
  const client = new ElasticsearchClient({
    node: config.url,
    ...(credentials.kind === 'basic' ? { auth: { username: credentials.username, password: credentials.password } } : {}),
    ...(credentials.kind === 'api-key' ? { auth: { apiKey: credentials.apiKey } } : {}),
    tls: { rejectUnauthorized: config.tlsVerify, ...(ca ? { ca } : {}) },
    requestTimeout: config.timeoutMs,
    maxRetries: config.maxRetries,
    ...(options.Connection ? { Connection: options.Connection as never } : {}),
  });
  const index = config.index;
  return {
    search: (body, searchType) => client.search({ index, ...body, ...(searchType ? { search_type: searchType } : {}) }),
    explain: (id, query) => client.explain({ index, id, query: query as never }),
    termvectors: ({ id, doc, fields, positions, offsets }) =>
      client.termvectors({
        index,
        ...(id !== undefined ? { id } : {}),
        fields,
        ...TERMVECTOR_FLAGS,
        positions: positions === true,
        offsets: offsets === true,
        ...(doc ? { doc } : {}),
      }),
    get: (id) => client.get({ index, id }),
    count: (query) => client.count({ index, query: query as never }),
    settings: () => client.indices.getSettings({ index }),
    termsEnum: (field, prefix, size) => client.termsEnum({ index, field, string: prefix, size }),
    close: () => client.close(),
  };
}

interface RawExplanation {
  value?: number;
  description?: string;
  details?: RawExplanation[];
}

function toExplainNode(e: RawExplanation): ExplainNode {
  return { value: typeof e.value === 'number' ? e.value : Number.NaN, description: e.description ?? '', children: (e.details ?? []).map(toExplainNode) };
}

function asRecord(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** A `_source` value as text: strings as they are, lists joined by lines, numbers printed. */
function sourceText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) {
    const parts = v.map(sourceText).filter((x): x is string => x !== undefined);
    return parts.length ? parts.join('\n') : undefined;
  }
  return undefined;
}

export class ClusterBackend {
  /** "opensearch https://host:9200/index", for messages. */
  readonly location: string;
  private readonly requests: ClusterRequests;
  private readonly ctx: ClusterErrorContext;

  /** Makes the client (no request yet); a bad credential variable or CA file is a ClusterConfigError. */
  constructor(
    readonly config: ClusterConfig,
    options: ClusterBackendOptions = {},
  ) {
    const credentials = credentialsFromEnvironment(config.type, options.env ?? process.env);
    this.requests = config.type === 'opensearch' ? openSearchRequests(config, credentials, options) : elasticsearchRequests(config, credentials, options);
    this.location = `${config.type} ${config.url}/${config.index}`;
    this.ctx = { type: config.type, url: config.url, index: config.index };
  }

  private async call<T>(request: () => Promise<unknown>, id?: string): Promise<T> {
    try {
      return (await request()) as T;
    } catch (err) {
      throw toClusterError(err, id === undefined ? this.ctx : { ...this.ctx, id });
    }
  }

  /** The query's translation to the DSL (server/backends: grammar/print/query-dsl.ts) with this backend's fields. */
  translate(ast: QueryAst, scorer?: ScorerName): { query: DslQuery | null; diagnostics: QueryDiagnostic[] } {
    return toQueryDsl(ast, { fields: this.config.fields, ...(scorer ? { scorer } : {}) });
  }

  /** The request body `search` sends for a query (the body `querylens convert --to <type>` prints, with `_source`). */
  requestBody(query: DslQuery, k: number): object {
    return searchBody(this.config.type, query, { size: k, sourceFields: this.sourceFields() });
  }

  private sourceFields(): string[] {
    return [...new Set([this.config.titleField, ...this.config.fields])];
  }

  /** The top k documents of the query on the cluster, best first, scored by the cluster. */
  async search(ast: QueryAst, options: ClusterSearchOptions = {}): Promise<ClusterSearchResult> {
    const k = options.k ?? 1000;
    const { query, diagnostics } = this.translate(ast, options.scorer);
    if (!query) return { hits: [], matchedDocs: 0, request: null, diagnostics, shards: null };
    const request = this.requestBody(query, k);
    const body = await this.call<{ hits?: { total?: number | { value?: number }; hits?: { _id?: string; _score?: number | null; _source?: unknown }[] }; timed_out?: boolean; _shards?: { total?: number; failed?: number; failures?: unknown[] } }>(
      () => this.requests.search(request, this.searchType()),
    );
    checkComplete(body, this.ctx);
    if (!body.hits || !Array.isArray(body.hits.hits)) throw new ClusterError('invalid-response', `${this.location}: the search response has no hits list; check that "url" points at the cluster`);
    const hits = body.hits.hits.map((h, i) => {
      if (typeof h._id !== 'string') throw new ClusterError('invalid-response', `${this.location}: hit ${i + 1} of the search response has no _id`);
      return { docno: h._id, score: typeof h._score === 'number' ? h._score : 0, source: asRecord(h._source) };
    });
    const total = body.hits.total;
    const matchedDocs = typeof total === 'number' ? total : (total?.value ?? hits.length);
    return { hits, matchedDocs, request, diagnostics, shards: typeof body._shards?.total === 'number' ? body._shards.total : null };
  }

  private searchType(): 'dfs_query_then_fetch' | undefined {
    return this.config.dfsQueryThenFetch ? 'dfs_query_then_fetch' : undefined;
  }

  /**
   * One cheap search (no hits, every document counted) that checks the cluster answers for the index
   * and learns its size and shard count: what an editor session shows before any query runs.
   */
  async probe(): Promise<ClusterIndexSummary> {
    const request = { query: { match_all: {} }, size: 0, track_total_hits: true };
    const body = await this.call<{ hits?: { total?: number | { value?: number } }; timed_out?: boolean; _shards?: { total?: number; failed?: number; failures?: unknown[] } }>(
      () => this.requests.search(request, this.searchType()),
    );
    checkComplete(body, this.ctx);
    const total = body.hits?.total;
    const numDocs = typeof total === 'number' ? total : total?.value;
    if (typeof numDocs !== 'number') throw new ClusterError('invalid-response', `${this.location}: the search response has no hit count; check that "url" points at the cluster`);
    return { numDocs, shards: typeof body._shards?.total === 'number' ? body._shards.total : 1 };
  }

  /** The cluster's explanation of a document's score (`_explain`), as querylens's explanation tree; `matched: false` when the query does not match it. */
  async explain(ast: QueryAst, docno: string, options: { scorer?: ScorerName } = {}): Promise<ExplainNode & { diagnostics: QueryDiagnostic[] }> {
    const { query, diagnostics } = this.translate(ast, options.scorer);
    if (!query) return { value: 0, description: 'nothing of the query has a form in the query DSL (see the diagnostics)', children: [], matched: false, diagnostics };
    const body = await this.call<{ matched?: boolean; explanation?: RawExplanation }>(() => this.requests.explain(docno, query), docno);
    const root = body.explanation ? toExplainNode(body.explanation) : { value: 0, description: 'no explanation in the response', children: [] };
    return { ...root, matched: body.matched === true, diagnostics };
  }

  /**
   * Term and field statistics of `field` for the words of `text`, analysed by the cluster (an artificial
   * document of `_termvectors`, so nothing is indexed): the df/cf the cluster's similarity reads.
   */
  async termStatistics(text: string, field = this.config.fields[0]!, options: { positions?: boolean; offsets?: boolean } = {}): Promise<ClusterTermStatistics> {
    const body = await this.call<unknown>(() => this.requests.termvectors({ doc: { [field]: text }, fields: [field], positions: options.positions, offsets: options.offsets }));
    return this.readTermVectors(body, field, undefined);
  }

  /** A stored document's term vector of `field` (tf per term) with each term's df/cf and the field's statistics. */
  async documentTermStatistics(docno: string, field = this.config.fields[0]!, options: { positions?: boolean } = {}): Promise<ClusterTermStatistics> {
    const body = await this.call<unknown>(() => this.requests.termvectors({ id: docno, fields: [field], positions: options.positions }), docno);
    return this.readTermVectors(body, field, docno);
  }

  /** How many documents of the index match the query (`_count`: every shard, exact). */
  async count(query: DslQuery): Promise<number> {
    const body = asRecord(await this.call<unknown>(() => this.requests.count(query)));
    checkComplete(body as { _shards?: { total?: number; failed?: number; failures?: unknown[] } }, this.ctx);
    if (typeof body.count !== 'number') throw new ClusterError('invalid-response', `${this.location}: the _count response has no count; check that "url" points at the cluster`);
    return body.count;
  }

  private readTermVectors(raw: unknown, field: string, docno: string | undefined): ClusterTermStatistics {
    const body = asRecord(raw);
    if (body.found === false) throw new ClusterError('document-missing', `no document '${docno}' in index '${this.config.index}' on ${this.location}; check the document id`);
    const vector = asRecord(asRecord(body.term_vectors)[field]);
    const fieldStats = asRecord(vector.field_statistics);
    const docCount = Number(fieldStats.doc_count ?? 0);
    const sumTtf = Number(fieldStats.sum_ttf ?? 0);
    const terms = new Map<string, TermStats & { tf: number; positions: number[]; offsets?: [number, number][] }>();
    for (const [term, s] of Object.entries(asRecord(vector.terms))) {
      const stats = asRecord(s);
      const tokens = Array.isArray(stats.tokens) ? stats.tokens : [];
      const positions = tokens.map((t) => asRecord(t).position).filter((p): p is number => typeof p === 'number');
      // The cluster leaves doc_freq and ttf out for a term no document has.
      const offsets = tokens.map((t) => asRecord(t)).filter((t) => typeof t.start_offset === 'number' && typeof t.end_offset === 'number').map((t): [number, number] => [t.start_offset as number, t.end_offset as number]);
      terms.set(term, { df: Number(stats.doc_freq ?? 0), cf: Number(stats.ttf ?? 0), tf: Number(stats.term_freq ?? 0), positions, ...(offsets.length ? { offsets } : {}) });
    }
    return {
      field,
      collection: { numDocs: docCount, totalTokens: sumTtf, avgDocLength: docCount > 0 ? sumTtf / docCount : 0 },
      terms,
      scope: 'one-shard',
    };
  }

  /**
   * The index's similarity from its settings (`GET /<index>/_settings`; an alias answers with the index behind
   * it): the model and its parameters (numbers the cluster stores as strings), else the clusters' default BM25.
   */
  async similarity(): Promise<ClusterSimilarity> {
    const body = asRecord(await this.call<unknown>(() => this.requests.settings()));
    const index = asRecord(Object.values(body)[0]);
    const settings = asRecord(asRecord(index.settings).index);
    const similarity = asRecord(asRecord(settings.similarity).default);
    const value = (key: string) => similarity[key];
    const type = value('type');
    if (typeof type !== 'string') return DEFAULT_SIMILARITY;
    const number = (key: string) => {
      const v = Number(value(key));
      return value(key) === undefined || !Number.isFinite(v) ? undefined : v;
    };
    // A BM25 similarity that sets only some parameters keeps the defaults of the others.
    if (type === 'BM25') return { type, k1: number('k1') ?? DEFAULT_SIMILARITY.k1, b: number('b') ?? DEFAULT_SIMILARITY.b, configured: true };
    if (type === 'LMDirichlet') return { type, mu: number('mu') ?? 2000, configured: true };
    return { type, configured: true };
  }

  /** Whether the cluster can list a field's terms (Elasticsearch's `_terms_enum`; OpenSearch has no such API). */
  get listsTerms(): boolean {
    return this.requests.termsEnum !== undefined;
  }

  /**
   * The indexed terms of `field` that start with `prefix`, as `_terms_enum` lists them (in term order, at most
   * `size`; no statistics). `complete` is false when the cluster stopped early (a shard's time limit).
   */
  async termsEnum(prefix: string, size: number, field = this.config.fields[0]!): Promise<{ field: string; terms: string[]; complete: boolean }> {
    const list = this.requests.termsEnum;
    if (!list) throw new ClusterError('invalid-response', `${this.location}: OpenSearch has no API that lists an index's terms`);
    const body = asRecord(await this.call<unknown>(() => list(field, prefix, size)));
    if (!Array.isArray(body.terms)) throw new ClusterError('invalid-response', `${this.location}: the _terms_enum response has no terms list`);
    return { field, terms: body.terms.filter((t): t is string => typeof t === 'string'), complete: body.complete !== false };
  }

  /** A stored document (`get`): docno = `_id`, title from the title field, the other text fields of `_source`. */
  async document(docno: string): Promise<StoredDocument> {
    const body = asRecord(await this.call<unknown>(() => this.requests.get(docno), docno));
    if (body.found === false) throw new ClusterError('document-missing', `no document '${docno}' in index '${this.config.index}' on ${this.location}; check the document id`, 404);
    const source = asRecord(body._source);
    const fields: Record<string, string> = {};
    for (const [name, value] of Object.entries(source)) {
      const text = sourceText(value);
      if (name !== this.config.titleField && text !== undefined) fields[name] = text;
    }
    return { docno, title: sourceText(source[this.config.titleField]) ?? '', fields };
  }

  /**
   * Ranks each query on the cluster into one TREC run (evaluate it with server/service/evaluation.ts).
   * Queries run one after another, so a file does not flood the cluster; the first error stops the run.
   */
  async rankQueries(
    queries: readonly { qid: string; ast: QueryAst }[],
    options: ClusterSearchOptions & { runId?: string } = {},
  ): Promise<{ run: Run; diagnostics: Map<string, QueryDiagnostic[]> }> {
    const run: Run = { runId: options.runId ?? `querylens-${this.config.type}`, queries: new Map() };
    const diagnostics = new Map<string, QueryDiagnostic[]>();
    for (const { qid, ast } of queries) {
      const result = await this.search(ast, options);
      run.queries.set(qid, result.hits.map((h) => ({ docno: h.docno, score: h.score })));
      if (result.diagnostics.length) diagnostics.set(qid, result.diagnostics);
    }
    return { run, diagnostics };
  }

  /** A hit's title and text (hitText with this backend's fields), for callers that load the clients lazily. */
  hitText(hit: ClusterHit): { title: string; text: string } {
    return hitText(hit, this.config);
  }

  /** Closes the client's connections. */
  close(): Promise<void> {
    return this.requests.close();
  }
}

/** The title and body text of a hit (the title field, then the search fields), for snippets. */
export function hitText(hit: ClusterHit, config: Pick<ClusterConfig, 'titleField' | 'fields'>): { title: string; text: string } {
  const title = sourceText(hit.source[config.titleField]) ?? '';
  const text = config.fields
    .filter((f) => f !== config.titleField)
    .map((f) => sourceText(hit.source[f]))
    .filter((x): x is string => !!x)
    .join('\n');
  return { title, text };
}
