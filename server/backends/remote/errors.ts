/**
 * Every way a cluster request can fail, as one typed error whose message is one line that says what
 * happened and what to do. The OpenSearch and Elasticsearch clients throw errors of the same names
 * (ResponseError, TimeoutError, ConnectionError, …), so one classifier serves both.
 */
import { CREDENTIAL_VARIABLES } from './config.js';
import type { ClusterKind } from '../search-request.js';

export type ClusterErrorKind =
  | 'unauthorized' // 401
  | 'forbidden' // 403
  | 'index-missing' // 404 index_not_found_exception
  | 'document-missing' // 404 / found: false for one document
  | 'too-many-requests' // 429
  | 'timeout' // the client's request timeout, or `timed_out` in a response
  | 'shard-failures' // a 200 response computed on only some shards
  | 'connection-refused'
  | 'tls' // the certificate could not be verified
  | 'connection' // another network failure (DNS, reset)
  | 'bad-request' // 400: the cluster rejected the query (field type, mapping)
  | 'server' // 5xx
  | 'not-the-product' // the server is not the configured kind of cluster
  | 'invalid-response';

export class ClusterError extends Error {
  readonly code: `cluster/${ClusterErrorKind}`;
  constructor(
    readonly kind: ClusterErrorKind,
    message: string,
    readonly statusCode?: number,
  ) {
    super(message);
    this.name = 'ClusterError';
    this.code = `cluster/${kind}`;
  }
}

/** What the error concerns, for the messages. */
export interface ClusterErrorContext {
  type: ClusterKind;
  url: string;
  index: string;
  /** The document a per-document request addressed. */
  id?: string;
}

interface ClientErrorShape {
  name?: string;
  message?: string;
  statusCode?: number;
  meta?: { statusCode?: number; body?: unknown };
  body?: unknown;
}

function product(type: ClusterKind): string {
  return type === 'opensearch' ? 'OpenSearch' : 'Elasticsearch';
}

function credentialHint(type: ClusterKind): string {
  const v = CREDENTIAL_VARIABLES[type];
  return 'apiKey' in v ? `${v.apiKey}, or ${v.username} and ${v.password}` : `${v.username} and ${v.password}`;
}

function oneLine(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The cluster's own reason from an error body (`error.root_cause[0].reason`, `error.reason`). */
export function clusterReason(body: unknown): { type?: string; reason?: string } {
  if (typeof body !== 'object' || body === null) return typeof body === 'string' && body ? { reason: body } : {};
  const error = (body as { error?: unknown }).error;
  if (typeof error === 'string') return { reason: error };
  if (typeof error !== 'object' || error === null) return {};
  const e = error as { type?: string; reason?: string; root_cause?: { type?: string; reason?: string }[] };
  const root = e.root_cause?.[0];
  return { type: root?.type ?? e.type, reason: root?.reason ?? e.reason };
}

/** Turns whatever a client threw into a ClusterError (a ClusterError passes through). */
export function toClusterError(err: unknown, ctx: ClusterErrorContext): ClusterError {
  if (err instanceof ClusterError) return err;
  const e = (err ?? {}) as ClientErrorShape;
  const name = e.name ?? '';
  const where = `${product(ctx.type)} at ${ctx.url}`;
  const message = e.message ?? String(err);
  if (name === 'ResponseError') {
    const status = e.meta?.statusCode ?? e.statusCode ?? 0;
    const body = e.meta?.body ?? e.body;
    const { type, reason } = clusterReason(body);
    const said = reason ? `: ${oneLine(reason)}` : '';
    switch (true) {
      case status === 401:
        return new ClusterError('unauthorized', `${where} refused the credentials (401); set ${credentialHint(ctx.type)} to an account that can read index '${ctx.index}'`, status);
      case status === 403:
        return new ClusterError('forbidden', `${where} denied access to index '${ctx.index}' (403)${said}; grant the account read access to it (search, get, explain, termvectors)`, status);
      case status === 404 && type === 'index_not_found_exception':
        return new ClusterError('index-missing', `index '${ctx.index}' does not exist on ${where} (404); check "index" in the backend configuration or create and fill the index`, status);
      case status === 404:
        return new ClusterError(
          'document-missing',
          ctx.id !== undefined ? `no document '${ctx.id}' in index '${ctx.index}' on ${where} (404); check the document id` : `${where} answered 404 for index '${ctx.index}'${said}; check "url" and "index"`,
          status,
        );
      case status === 429:
        return new ClusterError('too-many-requests', `${where} is rejecting requests as too many (429)${said}; wait and retry, or send fewer queries at once`, status);
      case status === 400:
        return new ClusterError('bad-request', `${where} rejected the request (400)${said}; check that the searched fields exist and are text fields in index '${ctx.index}'`, status);
      case status >= 500:
        return new ClusterError('server', `${where} failed (${status})${said}; check the cluster's health and logs, then retry`, status);
      default:
        return new ClusterError('invalid-response', `${where} answered ${status}${said}`, status);
    }
  }
  if (name === 'TimeoutError') {
    return new ClusterError('timeout', `${where} did not answer in time; raise "timeoutMs" in the backend configuration or check the cluster's load`);
  }
  if (name === 'ConnectionError' || name === 'NoLivingConnectionsError') {
    if (/ECONNREFUSED/.test(message)) {
      return new ClusterError('connection-refused', `cannot connect to ${where}: connection refused; check "url" and that the cluster is running`);
    }
    if (/certificate|self[- ]signed|CERT_|SSL|TLS|unable to verify/i.test(message)) {
      return new ClusterError('tls', `cannot verify the TLS certificate of ${where} (${oneLine(message, 120)}); name the cluster's CA in "caFile" (or set "tlsVerify": false for a test cluster)`);
    }
    if (/ENOTFOUND|EAI_AGAIN/.test(message)) {
      return new ClusterError('connection', `cannot connect to ${where}: the host name does not resolve; check "url"`);
    }
    return new ClusterError('connection', `cannot connect to ${where}: ${oneLine(message, 120)}; check "url" and the network`);
  }
  if (name === 'ProductNotSupportedError') {
    return new ClusterError('not-the-product', `the server at ${ctx.url} is not ${product(ctx.type)}; check "type" and "url" in the backend configuration`);
  }
  if (name === 'DeserializationError') {
    return new ClusterError('invalid-response', `${where} sent a response that is not JSON; check that "url" points at the cluster and not a proxy page`);
  }
  return new ClusterError('connection', `request to ${where} failed: ${oneLine(message, 160)}`);
}

/** A 200 search response computed on only some shards (or cut off by a time limit) is an error, not a silent partial ranking. */
export function checkComplete(body: { timed_out?: boolean; _shards?: { total?: number; failed?: number; failures?: unknown[] } }, ctx: ClusterErrorContext): void {
  const shards = body._shards;
  if (shards && (shards.failed ?? 0) > 0) {
    const first = shards.failures?.[0] as { shard?: number; index?: string; reason?: { type?: string; reason?: string } } | undefined;
    const why = first?.reason?.reason ? `: ${oneLine(first.reason.reason, 160)}` : '';
    throw new ClusterError(
      'shard-failures',
      `${shards.failed} of ${shards.total ?? '?'} shards of index '${ctx.index}' failed on ${product(ctx.type)} at ${ctx.url}${why}; the ranking would be incomplete, so it is not used (check the cluster's health and the query's fields)`,
      200,
    );
  }
  if (body.timed_out === true) {
    throw new ClusterError('timeout', `${product(ctx.type)} at ${ctx.url} stopped the search at its time limit, so the ranking would be incomplete; raise the limit or check the cluster's load`, 200);
  }
}
