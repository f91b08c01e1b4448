/**
 * `querylens compare QRELS --queries A B …`: query-file variants ranked here and compared.
 * - Local index, through the real CLI: the table equals `search` of each file followed by `compare` of the
 *   run files (plain and with --expand bo1), so the two paths cannot drift apart.
 * - Cluster, in process (the clients over a mock connection holding a small corpus): each run is the
 *   cluster's ranking of the file's queries through the same SearchBackend; options a cluster cannot use are
 *   refused in one line.
 * - Bad input: a variant with a syntax error is refused with its place before anything is ranked; run files
 *   and --queries together, one variant, ranking options without --queries are one line each.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseIndri } from '../../grammar/index.js';
import { ClusterBackend } from '../../server/backends/remote/cluster-backend.js';
import { validateClusterConfig } from '../../server/backends/remote/config.js';
import { setClusterBackendOptions } from '../../server/cli/cluster.js';
import { rankQueryFiles } from '../../server/cli/commands/compare-queries.js';
import { CliError } from '../../server/cli/errors.js';
import { buildIndex } from '../../server/engine/index/index.js';
import { ClusterSearchBackend } from '../../server/service/cluster-search-backend.js';
import { replay, searchingCluster, type MockCorpus } from '../support/mock-cluster.js';
import { ensureBuilt, ROOT } from '../support/build.js';
import { runChecked, runProcess } from '../support/process.js';

const BIN = join(ROOT, 'bin/querylens.js');
const BASELINE = join(ROOT, 'samples/queries.indri');
const QRELS = join(ROOT, 'samples/cranfield/qrels.txt');
let work: string;
let index: string;
let variant: string;

beforeAll(async () => {
  ensureBuilt();
  work = mkdtempSync(join(tmpdir(), 'querylens-compare-queries-'));
  index = join(work, 'idx');
  await buildIndex([join(ROOT, 'samples/cranfield/corpus.jsonl')], index, { profile: 'terrier' });
  // The variant: every query as a flat bag of its words (the structure dropped).
  variant = join(work, 'bags.indri');
  writeFileSync(
    variant,
    '1\t#combine( similarity laws aeroelastic models heated high speed aircraft )\n2\t#combine( structural aeroelastic problems high speed aircraft flight )\n3\t#combine( heat conduction composite slabs )\n',
  );
}, 120_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

function querylens(args: string[]) {
  return runProcess(process.execPath, [BIN, ...args], { cwd: work, timeoutMs: 120_000 });
}

interface ComparisonJson {
  runIds: string[];
  queries: string[];
  [key: string]: unknown;
}

/** The comparison without the run names (run files are named by their file, query files by theirs). */
function numbers(json: string): unknown {
  const { runIds: _names, ...rest } = JSON.parse(json) as ComparisonJson;
  return rest;
}

describe('compare --queries on the local index', () => {
  for (const extra of [[], ['--expand', 'bo1', '--fb-docs', '3', '--fb-terms', '5']]) {
    it(`equals search of each file, then compare of the runs${extra.length ? ' (with Bo1)' : ''}`, async () => {
      const runs = [];
      for (const [i, file] of [BASELINE, variant].entries()) {
        const run = await runChecked(process.execPath, [BIN, 'search', file, '--index', index, '--quiet', ...extra], { cwd: work, timeoutMs: 120_000 });
        runs.push(join(work, `run${i}.txt`));
        writeFileSync(runs[i]!, run);
      }
      const fromRuns = await runChecked(process.execPath, [BIN, 'compare', QRELS, ...runs, '--json'], { cwd: work, timeoutMs: 120_000 });
      const fromQueries = await runChecked(process.execPath, [BIN, 'compare', QRELS, '--queries', BASELINE, variant, '--index', index, '--quiet', '--json', ...extra], {
        cwd: work,
        timeoutMs: 120_000,
      });
      expect(numbers(fromQueries)).toEqual(numbers(fromRuns));
      expect((JSON.parse(fromQueries) as ComparisonJson).runIds).toEqual(['queries.indri', 'bags.indri']);
      expect((JSON.parse(fromQueries) as ComparisonJson).queries.length).toBeGreaterThan(2);
    });
  }

  it('refuses a variant with a syntax error at its place, before ranking anything', async () => {
    const broken = join(work, 'broken.indri');
    writeFileSync(broken, '1\t#combine( heat conduction\n');
    const r = await querylens(['compare', QRELS, '--queries', BASELINE, broken, '--index', index]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/broken\.indri:1:\d+/);
    expect(r.stderr).toContain('syntax errors');
    expect(r.stdout).toBe('');
  });

  it('says in one line what cannot be combined', async () => {
    const both = await querylens(['compare', QRELS, BASELINE, '--queries', BASELINE, variant]);
    expect(both.status).toBe(2);
    expect(both.stderr).toContain('run files or --queries, not both');
    const one = await querylens(['compare', QRELS, '--queries', BASELINE, '--index', index]);
    expect(one.stderr).toContain('two or more query files');
    const stray = await querylens(['compare', QRELS, join(work, 'run0.txt'), join(work, 'run1.txt'), '--expand', 'bo1']);
    expect(stray.status).toBe(2);
    expect(stray.stderr).toContain('--expand rank query files: use them with --queries');
  });
});

describe('compare --queries on a cluster', () => {
  const corpus: MockCorpus = {
    a: { text: 'heat conduction in composite slabs' },
    b: { text: 'heat transfer in slabs' },
    c: { text: 'supersonic flow over a cone' },
    d: { text: 'conduction of heat' },
  };

  it("ranks each file's queries on the cluster through its SearchBackend", async () => {
    const mock = replay('elasticsearch', searchingCluster(corpus));
    setClusterBackendOptions({ Connection: mock.Connection, env: {} });
    const config = join(work, 'cluster.json');
    writeFileSync(config, JSON.stringify({ type: 'elasticsearch', url: 'http://localhost:9200', index: 'docs', fields: ['text'], maxRetries: 0 }));
    const one = join(work, 'one.indri');
    const two = join(work, 'two.indri');
    writeFileSync(one, '1\t#combine( heat conduction )\n2\t#combine( supersonic cone )\n');
    writeFileSync(two, '1\t#weight( 0.9 conduction 0.1 slabs )\n2\t#combine( flow )\n');
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const runs = await rankQueryFiles({ queries: [one, two], backendConfig: config, k: '10', scorer: 'bm25', windowStats: 'exact' });
      const direct = new ClusterSearchBackend(
        new ClusterBackend(validateClusterConfig({ type: 'elasticsearch', url: 'http://localhost:9200', index: 'docs', fields: ['text'], maxRetries: 0 }), {
          Connection: replay('elasticsearch', searchingCluster(corpus)).Connection,
          env: {},
        }),
      );
      const expected = async (text: string) => (await direct.search(parseIndri(text).ast, { k: 10, describe: 0 })).hits;
      expect(runs.map((r) => r.runId)).toEqual(['one.indri', 'two.indri']);
      expect(runs[0]!.queries.get('1')).toEqual(await expected('#combine( heat conduction )'));
      expect(runs[1]!.queries.get('1')).toEqual(await expected('#weight( 0.9 conduction 0.1 slabs )'));
      expect(runs[1]!.queries.get('2')!.map((h) => h.docno)).toEqual(['c']);
      await direct.close();
      expect(mock.requests.some((r) => r.path === '/docs/_search')).toBe(true);

      // A cluster ranks with its own similarity and expands with Bo1 only.
      await expect(rankQueryFiles({ queries: [one, two], backendConfig: config, k: '10', scorer: 'bm25', windowStats: 'exact', k1: '2' })).rejects.toThrow(
        new CliError('--k1 cannot be used with --backend-config: the cluster ranks with its own index and similarity settings'),
      );
      await expect(rankQueryFiles({ queries: [one, two], backendConfig: config, k: '10', scorer: 'bm25', windowStats: 'exact', expand: 'rm3' })).rejects.toThrow(/bo1 only/);
    } finally {
      stderr.mockRestore();
      setClusterBackendOptions({});
    }
  });
});
