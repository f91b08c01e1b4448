/**
 * A small corpus whose statistics are known by hand, indexed with the real indexer into a
 * temp folder, and a workspace whose querylens.json points at it.
 *
 * Terrier analysis (stopped, Porter-stemmed); counts below include titles, which come first
 * in each document's token stream:
 * - flow:      d1 (title + text: 2), d3 (1), d5 (1)               → df 3, cf 4
 * - heat:      d2 (title + 2 in text: 3), d5 (title + text: 2)    → df 2, cf 5
 * - #1(heat conduction): d2 twice                                  → df 1, cf 2
 * - boundari:  d1, d3 (title + text: 2), d5, d6                    → df 4, cf 5
 * - zz0 … zz119: 120 distinct terms in d9, for the wildcard cap (100)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildIndex } from '../../../server/engine/index/index.js';
import type { ResponseError } from 'vscode-languageserver';
import { TestClient, type StartOptions } from '../harness.js';

export const DOCS = [
  { _id: 'd1', title: 'Flow over a flat plate', text: 'boundary layer flow over a flat plate at high speed' },
  { _id: 'd2', title: 'Heat conduction in slabs', text: 'heat conduction in composite slabs with heat transfer' },
  { _id: 'd3', title: 'Boundary layer transition', text: 'transition of the boundary layer in supersonic flow' },
  { _id: 'd4', title: 'Wing flutter', text: 'flutter of wings at transonic speed' },
  { _id: 'd5', title: 'Heat transfer', text: 'heat transfer to a flat plate in hypersonic flow near the boundary' },
  { _id: 'd6', title: 'Shock waves', text: 'shock wave and boundary layer interaction' },
  { _id: 'd7', title: 'Aeroelastic models', text: 'similarity laws for aeroelastic models of aircraft' },
  { _id: 'd8', title: 'Slender bodies', text: 'pressure on slender bodies of revolution' },
  { _id: 'd9', title: 'Numbers', text: Array.from({ length: 120 }, (_, i) => `zz${i}`).join(' ') },
];
export const NUM_DOCS = DOCS.length;

/** Judgements for qid 1 (flow / boundary layer queries). */
export const QRELS = ['1 0 d1 2', '1 0 d3 1', '1 0 d6 0', '2 0 d2 1'].join('\n');

export function corpusJsonl(): string {
  return DOCS.map((d) => JSON.stringify(d)).join('\n') + '\n';
}

/** Terrier's idf as the engine computes it (SEMANTICS.md §4.1). */
export function terrierIdf(df: number, n = NUM_DOCS): number {
  return Math.log((n - df + 0.5) / (df + 0.5)) / Math.log(2);
}

export interface Workspace {
  root: string;
  index: string;
  dispose(): void;
}

/** A workspace with the corpus, qrels and (unless `build` is false) a built index. */
export async function makeWorkspace(options: { build?: boolean; config?: Record<string, unknown> } = {}): Promise<Workspace> {
  const root = mkdtempSync(join(tmpdir(), 'querylens-engine-'));
  mkdirSync(join(root, 'data'));
  writeFileSync(join(root, 'data/corpus.jsonl'), corpusJsonl());
  writeFileSync(join(root, 'data/qrels.txt'), QRELS + '\n');
  const index = join(root, 'idx');
  if (options.build !== false) await buildIndex([join(root, 'data/corpus.jsonl')], index, { profile: 'terrier' });
  const config = options.config ?? { corpus: 'data/corpus.jsonl', index: 'idx', qrels: 'data/qrels.txt' };
  writeFileSync(join(root, 'querylens.json'), JSON.stringify(config));
  return { root, index, dispose: () => rmSync(root, { recursive: true, force: true }) };
}

export interface Status {
  index: { state: string; path: string | null; message: string; fix?: string };
  model: { state: string; message?: string };
  provider: string;
}

/**
 * Starts the server in `root`. `$/progress` is routed by token inside vscode-jsonrpc, so the
 * client records unclaimed progress as a notification; registering before the first I/O
 * callback means no report is missed.
 */
export async function startClient(root: string, extra: Partial<StartOptions> = {}): Promise<TestClient> {
  const client = await TestClient.start({ root, ...extra });
  client.connection.onUnhandledProgress((params) => client.notifications.push({ method: '$/progress', params }));
  return client;
}

/** Starts the server in `root` and waits for the first `querylens/status` it announces. */
export async function startIn(root: string, extra: Partial<StartOptions> = {}): Promise<{ client: TestClient; status: Status }> {
  const client = await startClient(root, extra);
  const status = await client.until(
    () => client.notifications.find((n) => n.method === 'querylens/status')?.params as Status | undefined,
    'querylens/status',
    120_000,
  );
  return { client, status };
}

/** The error a request failed with; fails the test when the request succeeds. */
export async function failure(p: Promise<unknown>): Promise<ResponseError<unknown>> {
  try {
    await p;
  } catch (err) {
    return err as ResponseError<unknown>;
  }
  throw new Error('expected the request to fail');
}
