/**
 * The cluster backend's configuration: defaults, located errors (file:line:col), credentials from the
 * environment only, TLS verification on by default.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ClusterConfigError, credentialsFromEnvironment, parseClusterConfig, readClusterConfig, validateClusterConfig } from '../../../server/backends/remote/config.js';
import { thrownBy } from '../../support/errors.js';

const errorOf = (f: () => unknown): ClusterConfigError => thrownBy(ClusterConfigError, f);

describe('cluster backend configuration', () => {
  it('fills in the defaults: fields ["text"], TLS verified, 30 s timeout, one retry', () => {
    expect(validateClusterConfig({ type: 'opensearch', url: 'https://search.example:9200/', index: 'docs' })).toEqual({
      type: 'opensearch',
      url: 'https://search.example:9200',
      index: 'docs',
      fields: ['text'],
      titleField: 'title',
      timeoutMs: 30000,
      maxRetries: 1,
      tlsVerify: true,
      dfsQueryThenFetch: false,
    });
  });

  const located: { name: string; text: string; message: RegExp; at: string }[] = [
    { name: 'bad type', text: '{\n  "type": "solr",\n  "url": "http://x:9200",\n  "index": "d"\n}', message: /"type" must be "opensearch" or "elasticsearch", not "solr"/, at: 'b.json:2:11' },
    { name: 'credentials in the URL', text: '{"type": "elasticsearch",\n "url": "https://u:p@x:9200", "index": "d"}', message: /must not contain a user or password .*QUERYLENS_ELASTICSEARCH_API_KEY/, at: 'b.json:2:9' },
    { name: 'a password key', text: '{"type": "opensearch", "url": "http://x:9200", "index": "d",\n   "password": "hunter2"}', message: /credentials are never read from a file/, at: 'b.json:2:4' },
    { name: 'unknown key, with the closest', text: '{"type": "opensearch", "url": "http://x:9200", "index": "d", "feilds": ["a"]}', message: /unknown backend key "feilds" \(did you mean "fields"\?\)/, at: 'b.json:1:62' },
    { name: 'index list', text: '{"type": "opensearch", "url": "http://x:9200", "index": "a,b"}', message: /must name one index or alias; "," is not allowed/, at: 'b.json:1:57' },
    { name: 'upper-case index', text: '{"type": "opensearch", "url": "http://x:9200", "index": "Docs"}', message: /not a valid index name/, at: 'b.json:1:57' },
    { name: 'missing index', text: '{"type": "opensearch", "url": "http://x:9200"}', message: /needs "index"/, at: 'b.json:1:1' },
    { name: 'ftp URL', text: '{"type": "opensearch", "url": "ftp://x", "index": "d"}', message: /must be http:\/\/ or https:\/\//, at: 'b.json:1:31' },
    { name: 'empty field name', text: '{"type": "opensearch", "url": "http://x:9200", "index": "d", "fields": ["a", ""]}', message: /"fields" items must be non-empty/, at: 'b.json:1:78' },
    { name: 'negative timeout', text: '{"type": "opensearch", "url": "http://x:9200", "index": "d", "timeoutMs": -5}', message: /"timeoutMs" must be a whole number/, at: 'b.json:1:75' },
    { name: 'tlsVerify as a string', text: '{"type": "opensearch", "url": "http://x:9200", "index": "d", "tlsVerify": "no"}', message: /"tlsVerify" must be a boolean/, at: 'b.json:1:75' },
    { name: 'not JSON', text: '{"type": "opensearch",, }', message: /not valid JSON: /, at: 'b.json:1:23' },
    { name: 'in querylens.json backend section', text: '{"index": "/x/.index",\n "backend": {"type": "opensearch", "url": "http://x:9200",\n  "index": "d", "size": 3}}', message: /unknown backend key "size"/, at: 'b.json:3:17' },
  ];
  it.each(located)('$name: a located one-line error', ({ text, message, at }) => {
    const e = errorOf(() => parseClusterConfig(text, 'b.json'));
    expect(e.message).toMatch(message);
    expect(e.message.startsWith(`${at}: `)).toBe(true);
    expect(e.message).not.toMatch(/\n/);
  });

  it('reads a querylens.json backend section and resolves caFile against the file', () => {
    const c = parseClusterConfig('{"backend": {"type": "elasticsearch", "url": "https://x:9200", "index": "d", "caFile": "certs/ca.pem", "tlsVerify": true}}', '/w/querylens.json');
    expect(c.caFile).toBe('/w/certs/ca.pem');
    expect(c.tlsVerify).toBe(true);
  });

  const dir = mkdtempSync(join(tmpdir(), 'querylens-cluster-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  it('a missing file is a clear error naming it', () => {
    expect(errorOf(() => readClusterConfig(join(dir, 'none.json'))).message).toBe(`${join(dir, 'none.json')}: cannot read the backend configuration: ENOENT`);
    writeFileSync(join(dir, 'ok.json'), '{"type": "opensearch", "url": "http://x:9200", "index": "d"}');
    expect(readClusterConfig(join(dir, 'ok.json')).index).toBe('d');
  });
});

describe('credentials from the environment only', () => {
  it('none, basic, API key (Elasticsearch; preferred over a user)', () => {
    expect(credentialsFromEnvironment('opensearch', {})).toEqual({ kind: 'none' });
    expect(credentialsFromEnvironment('opensearch', { QUERYLENS_OPENSEARCH_USERNAME: 'u', QUERYLENS_OPENSEARCH_PASSWORD: 'p' })).toEqual({ kind: 'basic', username: 'u', password: 'p' });
    expect(
      credentialsFromEnvironment('elasticsearch', { QUERYLENS_ELASTICSEARCH_API_KEY: 'k', QUERYLENS_ELASTICSEARCH_USERNAME: 'u', QUERYLENS_ELASTICSEARCH_PASSWORD: 'p' }),
    ).toEqual({ kind: 'api-key', apiKey: 'k' });
    // The other product's variables are not read.
    expect(credentialsFromEnvironment('elasticsearch', { QUERYLENS_OPENSEARCH_USERNAME: 'u', QUERYLENS_OPENSEARCH_PASSWORD: 'p' })).toEqual({ kind: 'none' });
  });

  it('a user without a password (or the reverse) is an error, not an anonymous request', () => {
    expect(errorOf(() => credentialsFromEnvironment('opensearch', { QUERYLENS_OPENSEARCH_USERNAME: 'u' })).message).toBe(
      'QUERYLENS_OPENSEARCH_USERNAME is set but QUERYLENS_OPENSEARCH_PASSWORD is not: set both, or neither for a cluster without security',
    );
    expect(errorOf(() => credentialsFromEnvironment('elasticsearch', { QUERYLENS_ELASTICSEARCH_PASSWORD: 'p' })).message).toMatch(/^QUERYLENS_ELASTICSEARCH_PASSWORD is set but QUERYLENS_ELASTICSEARCH_USERNAME is not/);
  });
});
