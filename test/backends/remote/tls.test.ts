/**
 * TLS verification is on by default: against a real HTTPS server on loopback with a self-signed
 * certificate (made here with openssl), both clients refuse the connection with a `cluster/tls` error,
 * trust it when the configuration names its certificate in `caFile`, and skip verification only with
 * `"tlsVerify": false`. Skipped with a printed reason where openssl is absent.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseIndri } from '../../../grammar/index.js';
import { ClusterBackend } from '../../../server/backends/remote/cluster-backend.js';
import { validateClusterConfig } from '../../../server/backends/remote/config.js';
import { ClusterError } from '../../../server/backends/remote/errors.js';
import type { ClusterKind } from '../../../server/backends/search-request.js';
import { fixture } from '../../support/mock-cluster.js';

function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}
const OPENSSL = hasOpenssl();
if (!OPENSSL) console.log('cluster TLS test skipped: openssl is not installed (it makes the test certificate)');

describe.skipIf(!OPENSSL)('TLS verification against a self-signed loopback server', () => {
  let dir: string;
  let server: Server;
  let url: string;
  const query = parseIndri('boundary layer').ast;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'querylens-tls-'));
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
      { stdio: 'pipe' },
    );
    const body = fixture('search.json');
    server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json', 'x-elastic-product': 'Elasticsearch', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    url = `https://127.0.0.1:${(server.address() as { port: number }).port}`;
  });

  afterAll(async () => {
    await new Promise((done) => server?.close(done));
    rmSync(dir, { recursive: true, force: true });
  });

  async function search(kind: ClusterKind, extra: Record<string, unknown>) {
    const backend = new ClusterBackend(validateClusterConfig({ type: kind, url, index: 'docs', maxRetries: 0, timeoutMs: 10_000, ...extra }), { env: {} });
    try {
      return await backend.search(query, { k: 3 });
    } finally {
      await backend.close();
    }
  }

  describe.each(['opensearch', 'elasticsearch'] as ClusterKind[])('%s', (kind) => {
    it('refuses the unknown certificate by default, with a cluster/tls error that says to name the CA', async () => {
      const err = await search(kind, {}).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ClusterError);
      expect((err as ClusterError).kind).toBe('tls');
      expect((err as ClusterError).message).toMatch(/cannot verify the TLS certificate .*"caFile"/);
    });

    it('trusts it through caFile', async () => {
      expect((await search(kind, { caFile: join(dir, 'cert.pem') })).hits).toHaveLength(3);
    });

    it('skips verification only when told: "tlsVerify": false', async () => {
      expect((await search(kind, { tlsVerify: false })).hits).toHaveLength(3);
    });
  });
});
