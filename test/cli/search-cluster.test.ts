/**
 * `querylens search --backend-config FILE`: a TREC run ranked on a cluster. In process, the client's
 * connection replays recorded responses (test/support/mock-cluster.ts); through the real CLI, a
 * refused connection, a bad configuration and options that cannot apply to a cluster are one line each.
 */
import { createServer } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { searchOnCluster } from '../../server/cli/commands/search-cluster.js';
import { CliError } from '../../server/cli/errors.js';
import { corpusCluster, replay, searchReply } from '../support/mock-cluster.js';
import { ensureBuilt, ROOT } from '../support/build.js';
import { runProcess } from '../support/process.js';

const BIN = join(ROOT, 'bin/querylens.js');
let work: string;

beforeAll(() => {
  ensureBuilt();
  work = mkdtempSync(join(tmpdir(), 'querylens-cluster-cli-'));
  writeFileSync(join(work, 'q.indri'), '1\t#combine( boundary layer )\n2\t#combine( #1( hypersonic flow ) )\n');
  writeFileSync(join(work, 'cluster.json'), JSON.stringify({ type: 'opensearch', url: 'http://localhost:9200', index: 'docs', maxRetries: 0 }));
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function run(reply: Parameters<typeof replay>[1], extra: { expand?: { fbDocs: number; fbTerms: number } } = {}) {
  const mock = replay('opensearch', reply);
  const out = new PassThrough();
  let text = '';
  out.on('data', (c) => (text += c));
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    await searchOnCluster(join(work, 'q.indri'), { backendConfig: join(work, 'cluster.json'), k: 10, runId: 'os', scorer: 'bm25', ...extra }, { Connection: mock.Connection, env: {} }, out);
    return { text, stderr: stderr.mock.calls.map((c) => String(c[0])).join(''), requests: mock.requests };
  } finally {
    stderr.mockRestore();
  }
}

describe('search --backend-config', () => {
  it('prints a TREC run of the cluster hits and the approximations as located warnings', async () => {
    const { text, stderr, requests } = await run(() => ({ status: 200, fixture: 'search.json' }));
    // The index's settings (its similarity, compared with the scorer's), then one search per query.
    expect(requests.map((r) => r.path)).toEqual(['/docs/_settings', '/docs/_search', '/docs/_search']);
    expect((requests[1]!.body as { size: number }).size).toBe(10);
    expect(text.split('\n').slice(0, 3)).toEqual(['1 Q0 184 1 7.2153 os', '1 Q0 29 2 5.0417 os', '1 Q0 1002 3 1.25 os']);
    expect(text.split('\n').filter(Boolean)).toHaveLength(6);
    expect(stderr).toMatch(/q\.indri:2:13: warning translate\/approximated/);
  });

  it('--expand bo1: each query expanded from its top fbDocs with the cluster\'s statistics, the expanded query ranked there', async () => {
    const corpus = {
      '184': { text: 'boundary layer transition at hypersonic speeds boundary layer' },
      '29': { text: 'laminar boundary layer heat transfer' },
      '1002': { text: 'flow past a flat plate' },
    };
    const expanded = [{ docno: '77', score: 9.5 }, { docno: '29', score: 3.25 }];
    const answer = corpusCluster(corpus, (r) => (JSON.stringify(r.body ?? {}).includes('"boost"') ? searchReply(expanded) : { status: 200, fixture: 'search.json' }));
    const { text, requests } = await run(answer, { expand: { fbDocs: 2, fbTerms: 5 } });
    // Per query: the first pass, the feedback documents' term vectors, the expanded search.
    expect(text.split('\n').slice(0, 2)).toEqual(['1 Q0 77 1 9.5 os', '1 Q0 29 2 3.25 os']);
    expect(requests.filter((r) => r.path === '/docs/_search')).toHaveLength(4);
    const vectors = requests.filter((r) => /^\/docs\/_termvectors\/./.test(r.path)).map((r) => r.path.split('/')[3]);
    expect([...new Set(vectors)]).toEqual(['184', '29']);
    const last = requests.filter((r) => r.path === '/docs/_search')[1]!;
    // Bo1 over 184 and 29 (SEMANTICS.md §4.5): only boundary and layer are in both; each has tfx 3 and cf 4, so
    // each is the best term and weighs 1 + 1.
    expect((last.body as { query: unknown }).query).toEqual({
      bool: { should: [{ match: { text: { query: 'boundary', boost: 2 } } }, { match: { text: { query: 'layer', boost: 2 } } }] },
    });
  });

  it('a cluster error is one CliError line', async () => {
    const err = await run(() => ({ status: 401, fixture: 'error-401.json' })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as Error).message).toMatch(/^OpenSearch at http:\/\/localhost:9200 refused the credentials \(401\); set QUERYLENS_OPENSEARCH_USERNAME/);
  });

  it('through the CLI: a refused connection is one line, exit 2', async () => {
    const port = await new Promise<number>((done) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => {
        const p = (server.address() as { port: number }).port;
        server.close(() => done(p));
      });
    });
    writeFileSync(join(work, 'refused.json'), JSON.stringify({ backend: { type: 'elasticsearch', url: `http://127.0.0.1:${port}`, index: 'docs', maxRetries: 0 } }));
    const r = await runProcess(process.execPath, [BIN, 'search', '--backend-config', 'refused.json', 'q.indri'], { cwd: work, timeoutMs: 60_000 });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe(`querylens: cannot connect to Elasticsearch at http://127.0.0.1:${port}: connection refused; check "url" and that the cluster is running`);
  });

  it('through the CLI: a configuration error is located; local-only options are refused', async () => {
    writeFileSync(join(work, 'bad.json'), '{"type": "opensearch",\n "url": "http://x:9200", "index": "docs", "username": "me"}');
    const bad = await runProcess(process.execPath, [BIN, 'search', '--backend-config', 'bad.json', 'q.indri'], { cwd: work, timeoutMs: 60_000 });
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim()).toMatch(/^querylens: .*bad\.json:2:43: "username": credentials are never read from a file/);
    const mixed = await runProcess(process.execPath, [BIN, 'search', '--backend-config', 'bad.json', '--k1', '1.2', '--weights', 'twbert', 'q.indri'], { cwd: work, timeoutMs: 60_000 });
    expect(mixed.status).toBe(2);
    expect(mixed.stderr.trim()).toBe('querylens: --k1, --weights cannot be used with --backend-config: the cluster ranks with its own index and similarity settings');
    const rm3 = await runProcess(process.execPath, [BIN, 'search', '--backend-config', 'bad.json', '--expand', 'rm3', 'q.indri'], { cwd: work, timeoutMs: 60_000 });
    expect(rm3.stderr.trim()).toBe('querylens: --expand rm3 cannot be used with --backend-config: on a cluster querylens expands with bo1 only (--expand bo1)');
  });
});
