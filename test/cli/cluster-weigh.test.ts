/**
 * `querylens weigh --backend-config`: a collection-aware model reads each n-gram's statistics from the cluster
 * (the editor's ClusterSession.ngramStatistics), on both cluster types; a model that reads none weighs without
 * the cluster and says so. The model is a stand-in (test/support/mock-cluster.ts statisticsModel: each n-gram
 * weighs its idf), loaded in place of the ONNX one.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { corpusCluster, SEARCH_CORPUS, statisticsModel, type MockCorpus } from '../support/mock-cluster.js';
import { CLUSTER_KINDS, runClusterCli, writeClusterConfigs } from './cluster-cli.js';

const loaded = vi.hoisted(() => ({ model: null as unknown }));
vi.mock('../../server/model/runtime.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../server/model/runtime.js')>()),
  loadWeightModel: async () => ({ ok: true, model: loaded.model }),
}));

const KINDS = CLUSTER_KINDS;
let work: string;
let config: ReturnType<typeof writeClusterConfigs>;

/** N = 4; boundary and layer are in 184, 29 and 7 (df 3), the phrase "boundary layer" in 184 and 29 (df 2). */
const CORPUS: MockCorpus = { ...SEARCH_CORPUS, '7': { title: 'notes', text: 'layer of boundary' } };

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'querylens-cluster-weigh-'));
  config = writeClusterConfigs(work, ['title', 'text']);
  writeFileSync(join(work, 'q.indri'), '1\t#combine( boundary layer )\n');
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.each(KINDS)('weigh --backend-config (%s)', (kind) => {
  it("a collection-aware model weighs by the cluster's statistics", async () => {
    const model = statisticsModel();
    loaded.model = model;
    const r = await runClusterCli(kind, ['weigh', '--backend-config', config(kind), join(work, 'q.indri')], corpusCluster(CORPUS, () => ({ status: 200, fixture: 'search.json' })));
    expect(r.status).toBe(0);
    // idf = ln(1 + (N − df + 0.5)/(df + 0.5)): words ln(1 + 1.5/3.5) = 0.3567, the pair ln 2 = 0.6931 (df from _count).
    expect(r.stdout.split('\n').slice(1)).toEqual(['1\t#weight( 0.3567 boundary 0.3567 layer 0.6931 #1(boundary layer) )', '']);
    expect(r.stderr).toBe(
      `querylens: the twbert model read the statistics of ${kind} http://localhost:9200/docs: a \`#1\` pair's cf is its document count (the cluster counts the documents that hold a phrase, not its occurrences)\n`,
    );
    expect(model.given.map((g) => g.query)).toEqual(['boundary layer']);
    expect(r.requests.some((q) => q.path === '/docs/_count')).toBe(true);
  });
});

describe('weigh --backend-config with a model that reads no statistics', () => {
  it('weighs without the cluster and says so; no request is made', async () => {
    const model = { ...statisticsModel(), readsStatistics: false, weigh: async (queries: string[]) => queries.map((query) => ({ query, ngrams: [{ kind: 'unigram' as const, terms: ['boundari'], surface: 'boundary', start: 0, end: 8, weight: 0.5 }] })) };
    loaded.model = model;
    const r = await runClusterCli('opensearch', ['weigh', '--backend-config', config('opensearch'), join(work, 'q.indri')], () => ({ status: 500, text: 'no request expected' }));
    expect(r.status).toBe(0);
    expect(r.stdout.split('\n').slice(1)).toEqual(['1\t#weight( 0.5 boundary )', '']);
    expect(r.stderr).toBe(`querylens: the twbert model reads no collection statistics (its config.json lists none), so it weighs the same on any collection: the cluster of ${config('opensearch')} is not asked\n`);
    expect(r.requests).toEqual([]);
  });

  it('--index and --backend-config together are refused', async () => {
    loaded.model = statisticsModel();
    const r = await runClusterCli('opensearch', ['weigh', '--backend-config', config('opensearch'), '--index', 'x', join(work, 'q.indri')], () => ({ status: 500 }));
    expect([r.status, r.stderr]).toEqual([2, 'querylens: --index and --backend-config name two collections: choose the one the queries will run on\n']);
  });
});
