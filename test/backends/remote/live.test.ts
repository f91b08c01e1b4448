/**
 * Opt-in live test of the cluster backend against a real cluster: runs only when QUERYLENS_OPENSEARCH_URL
 * or QUERYLENS_ELASTICSEARCH_URL is set (e.g. http://127.0.0.1:9200), and is skipped with a printed reason
 * otherwise. Credentials come from the backend's own variables (QUERYLENS_OPENSEARCH_USERNAME/PASSWORD,
 * QUERYLENS_ELASTICSEARCH_API_KEY or USERNAME/PASSWORD); QUERYLENS_LIVE_CA_FILE names a CA for a cluster
 * with its own certificate. The test creates a small index of its own (a unique name), uses it and
 * deletes it; it touches no other index.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as ElasticsearchClient } from '@elastic/elasticsearch';
import { Client as OpenSearchClient } from '@opensearch-project/opensearch';
import { parseIndri } from '../../../grammar/index.js';
import { ClusterBackend } from '../../../server/backends/remote/cluster-backend.js';
import { credentialsFromEnvironment, validateClusterConfig } from '../../../server/backends/remote/config.js';
import { ClusterError } from '../../../server/backends/remote/errors.js';
import type { ClusterKind } from '../../../server/backends/search-request.js';
import { readFileSync } from 'node:fs';

const DOCS: Record<string, { title: string; text: string }> = {
  d1: { title: 'boundary layer', text: 'the boundary layer of a flat plate in hypersonic flow' },
  d2: { title: 'heat transfer', text: 'heat transfer through a laminar boundary layer' },
  d3: { title: 'wings', text: 'lift and drag of swept wings' },
};

const targets = (['opensearch', 'elasticsearch'] as ClusterKind[])
  .map((kind) => ({ kind, url: process.env[kind === 'opensearch' ? 'QUERYLENS_OPENSEARCH_URL' : 'QUERYLENS_ELASTICSEARCH_URL'] }))
  .filter((t): t is { kind: ClusterKind; url: string } => !!t.url);

if (targets.length === 0) {
  console.log('cluster live test skipped: set QUERYLENS_OPENSEARCH_URL or QUERYLENS_ELASTICSEARCH_URL to run it against a cluster');
}

describe.skipIf(targets.length === 0)('live cluster', () => {
  for (const { kind, url } of targets) {
    describe(kind, () => {
      const index = `querylens-live-${process.pid}-${Date.now()}`;
      const ca = process.env.QUERYLENS_LIVE_CA_FILE;
      const config = validateClusterConfig({ type: kind, url, index, fields: ['text'], maxRetries: 0, ...(ca ? { caFile: ca } : {}) });
      let backend: ClusterBackend;
      // The set-up uses the official client directly: the backend only reads.
      let admin: { create(): Promise<unknown>; drop(): Promise<unknown>; close(): Promise<unknown> };

      beforeAll(async () => {
        const cred = credentialsFromEnvironment(kind);
        const tls = { rejectUnauthorized: true, ...(ca ? { ca: readFileSync(ca, 'utf8') } : {}) };
        const mappings = { properties: { title: { type: 'text' }, text: { type: 'text', term_vector: 'yes' } } } as const;
        if (kind === 'opensearch') {
          const client = new OpenSearchClient({ node: url, ssl: tls, ...(cred.kind === 'basic' ? { auth: { username: cred.username, password: cred.password } } : {}) });
          admin = {
            create: async () => {
              await client.indices.create({ index, body: { settings: { number_of_shards: 1 }, mappings } });
              for (const [id, doc] of Object.entries(DOCS)) await client.index({ index, id, body: doc });
              await client.indices.refresh({ index });
            },
            drop: () => client.indices.delete({ index }),
            close: () => client.close(),
          };
        } else {
          const auth = cred.kind === 'basic' ? { username: cred.username, password: cred.password } : cred.kind === 'api-key' ? { apiKey: cred.apiKey } : undefined;
          const client = new ElasticsearchClient({ node: url, tls, ...(auth ? { auth } : {}) });
          admin = {
            create: async () => {
              await client.indices.create({ index, settings: { number_of_shards: 1 }, mappings });
              for (const [id, doc] of Object.entries(DOCS)) await client.index({ index, id, document: doc });
              await client.indices.refresh({ index });
            },
            drop: () => client.indices.delete({ index }),
            close: () => client.close(),
          };
        }
        await admin.create();
        backend = new ClusterBackend(config);
      });

      afterAll(async () => {
        await backend?.close();
        await admin?.drop().catch(() => undefined);
        await admin?.close();
      });

      const query = parseIndri('#combine( boundary layer )').ast;

      it('search ranks the two documents with the words, with _source', async () => {
        const result = await backend.search(query, { k: 10 });
        expect(result.hits.map((h) => h.docno).sort()).toEqual(['d1', 'd2']);
        expect(result.hits[0]!.source.text).toBeTypeOf('string');
      });

      it('explain gives the score of the hit', async () => {
        const top = (await backend.search(query, { k: 1 })).hits[0]!;
        const node = await backend.explain(query, top.docno);
        expect(node.matched).toBe(true);
        expect(node.value).toBeCloseTo(top.score, 5);
        expect((await backend.explain(query, 'd3')).matched).toBe(false);
      });

      it('term statistics from _termvectors', async () => {
        const stats = await backend.termStatistics('boundary layers', 'text');
        expect(stats.collection.numDocs).toBe(3);
        expect(stats.terms.get('boundary')).toMatchObject({ df: 2, cf: 2 });
        const doc = await backend.documentTermStatistics('d2', 'text');
        expect(doc.terms.get('heat')).toEqual({ df: 1, cf: 1, tf: 1 });
      });

      it('document fetch, and a missing document and index as typed errors', async () => {
        expect(await backend.document('d3')).toEqual({ docno: 'd3', title: 'wings', fields: { text: DOCS.d3!.text } });
        await expect(backend.document('nope')).rejects.toMatchObject({ kind: 'document-missing' });
        const missing = new ClusterBackend({ ...config, index: `${index}-absent` });
        await expect(missing.search(query)).rejects.toBeInstanceOf(ClusterError);
        await expect(missing.search(query)).rejects.toMatchObject({ kind: 'index-missing' });
        await missing.close();
      });
    });
  }
});
