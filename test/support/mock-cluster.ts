/**
 * Mock HTTP connections for the official clients: each replays a recorded JSON response (test/backends/remote/fixtures/,
 * written by hand after the response shapes of the OpenSearch and Elasticsearch API documentation) or a
 * network failure, and records the requests the client made. Everything above the connection (the
 * client's API methods, serialisation, status handling, retries, the Elasticsearch product check) is the
 * real client code.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Readable } from 'node:stream';
import { BaseConnection, errors as esErrors } from '@elastic/elasticsearch';
import { Connection as OpenSearchConnection, errors as osErrors } from '@opensearch-project/opensearch';
import type { ClusterKind } from '../../server/backends/search-request.js';
import { createAnalyzer } from '../../server/engine/analysis/index.js';
import type { NgramStatistics } from '../../server/model/collection-statistics.js';
import type { NgramWeights, WeightModel } from '../../server/model/runtime.js';
import { segmentQuery } from '../../server/model/segment.js';

export function fixture(name: string): string {
  return readFileSync(fileURLToPath(new URL(`../backends/remote/fixtures/${name}`, import.meta.url)), 'utf8');
}

export interface RecordedRequest {
  method: string;
  path: string;
  querystring: string;
  /** The parsed JSON body (undefined when none was sent). */
  body: unknown;
  headers: Record<string, unknown>;
}

/** What the cluster answers: a status with a JSON fixture (or raw text), or a network failure. */
export type Reply =
  | { status: number; fixture?: string; text?: string; contentType?: string; notTheProduct?: boolean }
  | { fail: 'timeout' | 'refused' | 'tls' };

export interface Replay {
  requests: RecordedRequest[];
  /** Answers every request with `reply` (or the reply for the request's path). */
  answer: (request: RecordedRequest) => Reply;
  Connection: unknown;
}

function record(params: { method: string; path: string; querystring?: string; body?: unknown; headers?: Record<string, unknown> }): RecordedRequest {
  const raw = params.body;
  const text = typeof raw === 'string' ? raw : Buffer.isBuffer(raw) ? raw.toString('utf8') : undefined;
  return { method: params.method, path: params.path, querystring: params.querystring ?? '', body: text ? JSON.parse(text) : undefined, headers: params.headers ?? {} };
}

function payload(reply: Extract<Reply, { status: number }>): string {
  return reply.fixture ? fixture(reply.fixture) : (reply.text ?? '');
}

/** A replay whose connection class suits the client of `kind`. */
export function replay(kind: ClusterKind, answer: (request: RecordedRequest) => Reply): Replay {
  const state: Replay = { requests: [], answer, Connection: undefined };
  if (kind === 'opensearch') {
    class ReplayConnection extends OpenSearchConnection {
      // The client calls request(params, callback) and reads a response stream with statusCode and headers.
      override request(params: never, callback: (err: Error | null, response: import("node:http").IncomingMessage | null) => void): never {
        // The connection's own request object: its headers carry the authorization the client configured.
        const req = { ...record(params), headers: this.buildRequestObject(params).headers as Record<string, unknown> };
        state.requests.push(req);
        const reply = state.answer(req);
        process.nextTick(() => {
          if ('fail' in reply) {
            if (reply.fail === 'timeout') callback(new osErrors.TimeoutError('Request timed out', undefined as never), null);
            else if (reply.fail === 'refused') callback(new osErrors.ConnectionError('connect ECONNREFUSED 127.0.0.1:9200'), null);
            else callback(new osErrors.ConnectionError('self-signed certificate in certificate chain'), null);
            return;
          }
          const body = payload(reply);
          const response = Object.assign(Readable.from([Buffer.from(body)]), {
            statusCode: reply.status,
            headers: { 'content-type': reply.contentType ?? 'application/json; charset=UTF-8', 'content-length': String(Buffer.byteLength(body)) },
          });
          callback(null, response as never);
        });
        return { abort() {} } as never;
      }
    }
    state.Connection = ReplayConnection;
  } else {
    class ReplayConnection extends BaseConnection {
      override async close(): Promise<void> {}
      override async request(params: never): Promise<never> {
        const req = record(params);
        state.requests.push(req);
        const reply = state.answer(req);
        if ('fail' in reply) {
          if (reply.fail === 'timeout') throw new esErrors.TimeoutError('Request timed out');
          if (reply.fail === 'refused') throw new esErrors.ConnectionError('connect ECONNREFUSED 127.0.0.1:9200');
          throw new esErrors.ConnectionError('self-signed certificate in certificate chain');
        }
        return {
          statusCode: reply.status,
          headers: {
            'content-type': reply.contentType ?? 'application/json',
            ...(reply.notTheProduct ? {} : { 'x-elastic-product': 'Elasticsearch' }),
          },
          body: payload(reply),
        } as never;
      }
    }
    state.Connection = ReplayConnection;
  }
  return state;
}

/** A small collection a mock cluster answers statistics requests from (docno → field → text). */
export type MockCorpus = Record<string, Record<string, string>>;

/**
 * The cluster's analysis in these mocks: lower-cased letter/digit runs; a stopword is dropped but keeps
 * its position (Lucene's StopFilter leaves a gap), so "layer of boundary" puts boundary at position 2.
 */
const MOCK_STOPWORDS = new Set(['a', 'at', 'in', 'of', 'on', 'the']);
export function mockAnalyse(text: string): { term: string; position: number; start: number; end: number }[] {
  return [...text.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)]
    .map((m, position) => ({ term: m[0], position, start: m.index!, end: m.index! + m[0].length }))
    .filter((t) => !MOCK_STOPWORDS.has(t.term));
}

function json(status: number, body: unknown): Reply {
  return { status, text: JSON.stringify(body) };
}

/** A `size: 0` probe's answer: `numDocs` documents on `shards` shards. */
export function probeReply(numDocs: number, shards = 1): Reply {
  return json(200, { took: 1, timed_out: false, _shards: { total: shards, successful: shards, skipped: 0, failed: 0 }, hits: { total: { value: numDocs, relation: 'eq' }, max_score: null, hits: [] } });
}

/** A search answer with these hits (docno, score, `_source`), best first. */
export function searchReply(hits: { docno: string; score: number; source?: Record<string, unknown> }[], shards = 1): Reply {
  return json(200, {
    took: 2,
    timed_out: false,
    _shards: { total: shards, successful: shards, skipped: 0, failed: 0 },
    hits: { total: { value: hits.length, relation: 'eq' }, max_score: hits[0]?.score ?? null, hits: hits.map((h) => ({ _index: 'docs', _id: h.docno, _score: h.score, _source: h.source ?? {} })) },
  });
}

/** Whether the analysed `phrase` occurs in the analysed text at consecutive positions (gaps as the text has them). */
function holdsPhrase(text: string, phrase: string): boolean {
  const p = mockAnalyse(phrase);
  if (!p.length) return false;
  const t = mockAnalyse(text);
  const at = new Map(t.map((x) => [`${x.position}\0${x.term}`, true]));
  return t.some((start) => start.term === p[0]!.term && p.every((q) => at.has(`${start.position + q.position - p[0]!.position}\0${q.term}`)));
}

/**
 * A cluster whose `_termvectors` (artificial documents and stored ones, with positions when asked),
 * `_count` (bool of `match_phrase` clauses), `get` and probe answer from `corpus`, computed as the
 * cluster would on one shard holding it all; every other request goes to `fallback`.
 */
export function corpusCluster(corpus: MockCorpus, fallback: (r: RecordedRequest) => Reply, options: { shards?: number; numDocs?: number } = {}): (r: RecordedRequest) => Reply {
  const docs = Object.entries(corpus);
  const fieldStats = (field: string) => {
    const withField = docs.filter(([, f]) => f[field] !== undefined);
    return { sum_doc_freq: 0, doc_count: withField.length, sum_ttf: withField.reduce((n, [, f]) => n + mockAnalyse(f[field]!).length, 0) };
  };
  const termStats = (field: string, term: string) => {
    let df = 0;
    let ttf = 0;
    for (const [, f] of docs) {
      const n = mockAnalyse(f[field] ?? '').filter((t) => t.term === term).length;
      if (n) df++;
      ttf += n;
    }
    return df ? { doc_freq: df, ttf } : {};
  };
  const vector = (field: string, text: string, positions: boolean, offsets: boolean) => {
    const terms: Record<string, { term_freq: number; tokens?: { position?: number; start_offset?: number; end_offset?: number }[]; doc_freq?: number; ttf?: number }> = {};
    for (const t of mockAnalyse(text)) {
      const e = (terms[t.term] ??= { term_freq: 0, ...termStats(field, t.term), ...(positions || offsets ? { tokens: [] } : {}) });
      e.term_freq++;
      e.tokens?.push({ ...(positions ? { position: t.position } : {}), ...(offsets ? { start_offset: t.start, end_offset: t.end } : {}) });
    }
    return { field_statistics: fieldStats(field), terms };
  };
  return (r) => {
    const body = (r.body ?? {}) as Record<string, unknown>;
    if (r.path.endsWith('/_search') && body.size === 0) return probeReply(options.numDocs ?? docs.length, options.shards ?? 1);
    if (r.path.startsWith('/docs/_termvectors')) {
      const params = { ...Object.fromEntries(new URLSearchParams(r.querystring)), ...body } as { fields?: string | string[]; doc?: Record<string, string>; positions?: string | boolean; offsets?: string | boolean };
      const field = String(params.fields);
      const positions = params.positions === true || params.positions === 'true';
      const offsets = params.offsets === true || params.offsets === 'true';
      const id = r.path.split('/')[3];
      if (id === undefined) return json(200, { _index: 'docs', found: true, term_vectors: { [field]: vector(field, Object.values(params.doc ?? {})[0] ?? '', positions, offsets) } });
      const stored = corpus[decodeURIComponent(id)];
      if (!stored) return json(200, { _index: 'docs', _id: id, found: false });
      return json(200, { _index: 'docs', _id: id, found: true, term_vectors: stored[field] === undefined ? {} : { [field]: vector(field, stored[field]!, positions, offsets) } });
    }
    if (r.path === '/docs/_count') {
      // A bool of match_phrase clauses (one must match), a term query or a match query of one field.
      const query = (body.query ?? {}) as {
        bool?: { should?: { match_phrase: Record<string, { query: string }> }[] };
        term?: Record<string, { value: string }>;
        match?: Record<string, { query: string }>;
      };
      const holds = (f: Record<string, string>): boolean => {
        if (query.term) {
          const [field, { value }] = Object.entries(query.term)[0]!;
          return mockAnalyse(f[field] ?? '').some((t) => t.term === value);
        }
        if (query.match) {
          const [field, { query: text }] = Object.entries(query.match)[0]!;
          const words = new Set(mockAnalyse(text).map((t) => t.term));
          return mockAnalyse(f[field] ?? '').some((t) => words.has(t.term));
        }
        return (query.bool?.should ?? []).some((c) => {
          const [field, { query: text }] = Object.entries(c.match_phrase)[0]!;
          return f[field] !== undefined && holdsPhrase(f[field]!, text);
        });
      };
      return json(200, { count: docs.filter(([, f]) => holds(f)).length, _shards: { total: options.shards ?? 1, successful: options.shards ?? 1, skipped: 0, failed: 0 } });
    }
    if (r.path === '/docs/_terms_enum') {
      const { field, string: prefix = '', size = 10 } = body as { field: string; string?: string; size?: number };
      const terms = [...new Set(docs.flatMap(([, f]) => mockAnalyse(f[field] ?? '').map((t) => t.term)))].filter((t) => t.startsWith(prefix)).sort();
      return json(200, { _shards: { total: 1, successful: 1, failed: 0 }, terms: terms.slice(0, size), complete: true });
    }
    if (r.path.startsWith('/docs/_doc/')) {
      const id = decodeURIComponent(r.path.split('/')[3]!);
      const stored = corpus[id];
      return stored ? json(200, { _index: 'docs', _id: id, found: true, _source: stored }) : json(404, { _index: 'docs', _id: id, found: false });
    }
    return fallback(r);
  };
}

/**
 * A collection-aware model (the shape model/twbert/loco.py exports: config.json `statistics`) that gives
 * each n-gram its idf as weight and records the statistics it was given.
 */
export function statisticsModel(): WeightModel & { given: { query: string; statistics: readonly NgramStatistics[] | undefined }[] } {
  const analyzer = createAnalyzer('terrier');
  const given: { query: string; statistics: readonly NgramStatistics[] | undefined }[] = [];
  return {
    name: 'twbert',
    device: 'cpu',
    notices: [],
    readsStatistics: true,
    config: {
      format: 1,
      tokenizer: 'tokenizer.json',
      maxTokens: 128,
      profile: 'terrier',
      inputs: { ids: 'input_ids', attentionMask: 'attention_mask', ngramMask: 'ngram_mask' },
      output: 'weights',
      models: { twbert: { file: 'twbert.onnx', bigrams: true, statistics: { input: 'ngram_stats', names: ['idf', 'ictf', 'pairRatio', 'topShare', 'bo1'] } } },
    },
    given,
    async weigh(queries: string[], statistics?: readonly (readonly NgramStatistics[] | undefined)[]): Promise<NgramWeights[]> {
      return queries.map((query, i) => {
        const stats = statistics?.[i];
        given.push({ query, statistics: stats });
        if (!stats) throw new Error('a collection-aware model needs statistics');
        const seg = segmentQuery(query, analyzer);
        return {
          query,
          ngrams: seg.ngrams.map((g, j) => {
            const start = seg.words[g.wordIndices[0]!]!.start;
            const end = seg.words[g.wordIndices.at(-1)!]!.end;
            return { kind: g.terms.length === 1 ? ('unigram' as const) : ('bigram' as const), terms: g.terms, surface: query.slice(start, end), start, end, weight: Number(stats[j]!.idf.toFixed(4)) };
          }),
        };
      });
    },
    dispose: async () => {},
  };
}

/** Three documents of the recorded search (search.json: 184, 29, 1002) as a corpus for statistics, in the field "text" (and "title"). */
export const SEARCH_CORPUS: MockCorpus = {
  '184': { title: 'transition in hypersonic flow', text: 'boundary layer transition at hypersonic speeds boundary layer' },
  '29': { title: 'skin friction', text: 'laminar boundary layer heat transfer' },
  '1002': { text: 'flow past a flat plate' },
};

type Dsl = Record<string, unknown>;

/** The occurrences of the query's words in the field, or of its window, times the boost: 0 = no match. */
function scoreOf(query: Dsl, doc: Record<string, string>): number {
  const [kind, body] = Object.entries(query)[0]! as [string, Dsl];
  if (kind === 'bool') {
    const list = (k: string) => ((body[k] as Dsl[] | undefined) ?? []).map((q) => scoreOf(q, doc));
    const must = list('must');
    const should = list('should');
    if (must.some((s) => s === 0) || list('filter').some((s) => s === 0) || list('must_not').some((s) => s > 0)) return 0;
    const score = [...must, ...should].reduce((a, b) => a + b, 0);
    return must.length || should.some((s) => s > 0) ? score || Number.MIN_VALUE : 0;
  }
  const [field, spec] = Object.entries(body)[0]! as [string, Dsl];
  const tokens = mockAnalyse(doc[field] ?? '');
  const boost = typeof spec.boost === 'number' ? spec.boost : 1;
  if (kind === 'match' || kind === 'term') {
    const words = new Set(mockAnalyse(String(spec.query ?? spec.value)).map((t) => t.term));
    return boost * tokens.filter((t) => words.has(t.term)).length;
  }
  if (kind === 'intervals' || kind === 'match_phrase') {
    const m = (kind === 'intervals' ? spec.match : spec) as { query: string; ordered?: boolean; max_gaps?: number };
    const words = mockAnalyse(m.query).map((t) => t.term);
    const gaps = kind === 'match_phrase' ? 0 : (m.max_gaps ?? 0);
    const terms = tokens.map((t) => t.term);
    const holdsFrom = (start: number): boolean => {
      if (m.ordered === false) {
        // Every word within a window of |words| + gaps positions starting here.
        const window = terms.slice(start, start + words.length + gaps);
        return words.includes(terms[start]!) && words.every((w) => window.includes(w));
      }
      // In order, each word's earliest occurrence after the previous one, at most `gaps` positions skipped in all.
      if (terms[start] !== words[0]) return false;
      let at = start;
      for (const w of words.slice(1)) {
        at = terms.indexOf(w, at + 1);
        if (at < 0) return false;
      }
      return at - start - (words.length - 1) <= gaps;
    };
    return terms.some((_, start) => holdsFrom(start)) ? boost : 0;
  }
  throw new Error(`the mock cluster does not evaluate ${kind}`);
}

/**
 * A one-shard cluster holding `corpus`: statistics requests as corpusCluster answers them, and `_search`,
 * `_explain` and `_count` evaluated from the DSL querylens sends (bool / match / term / intervals /
 * match_phrase) with Σ boost × tf as its similarity (a phrase or window: boost × 1 when it occurs);
 * anything else is a 400, so a request the mock does not know fails the test instead of passing silently.
 */
export function searchingCluster(corpus: MockCorpus): (r: RecordedRequest) => Reply {
  const json = (status: number, body: unknown): Reply => ({ status, text: JSON.stringify(body) });
  const statistics = corpusCluster(corpus, (r) => {
    const body = (r.body ?? {}) as { query?: Dsl; size?: number };
    if (r.path === '/docs/_search') {
      const scored = Object.entries(corpus)
        .map(([docno, fields]) => ({ docno, score: scoreOf(body.query!, fields), source: fields }))
        .filter((h) => h.score > 0)
        .sort((a, b) => b.score - a.score || a.docno.localeCompare(b.docno));
      const reply = JSON.parse((searchReply(scored.slice(0, body.size ?? 10)) as { text: string }).text);
      reply.hits.total.value = scored.length;
      return json(200, reply);
    }
    const explained = /^\/docs\/_explain\/(.+)$/.exec(r.path);
    if (explained) {
      const docno = decodeURIComponent(explained[1]!);
      const doc = corpus[docno];
      if (!doc) return json(404, { _index: 'docs', _id: docno, matched: false });
      const value = scoreOf(body.query!, doc);
      return json(200, { _index: 'docs', _id: docno, matched: value > 0, explanation: { value, description: 'sum of boost × tf', details: [] } });
    }
    // The index's settings name no similarity: the cluster's default BM25.
    if (r.path === '/docs/_settings') return json(200, { docs: { settings: { index: { number_of_shards: '1' } } } });
    return json(400, { error: { type: 'unexpected_request', reason: r.path } });
  });
  return (r) => {
    if (r.path === '/docs/_count') return json(200, { count: Object.values(corpus).filter((d) => scoreOf((r.body as { query: Dsl }).query, d) > 0).length, _shards: { total: 1, successful: 1, skipped: 0, failed: 0 } });
    return statistics(r);
  };
}
