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
