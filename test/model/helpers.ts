import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { IngestDocument } from '../../server/engine/ingest/types.js';

export const PYTHON = '/usr/bin/python3';
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const TOKENIZER_FILE = fileURLToPath(new URL('../../model/artifacts/tokenizer.json', import.meta.url));
export const ARTIFACTS_DIR = fileURLToPath(new URL('../../model/artifacts/', import.meta.url));

/** null when torch can be imported by /usr/bin/python3, else the reason to print when skipping. */
export function torchUnavailableReason(): string | null {
  const r = spawnSync(PYTHON, ['-c', 'import torch, numpy'], { encoding: 'utf8' });
  if (r.error) return `${PYTHON} cannot run (${r.error.message})`;
  if (r.status !== 0) return `${PYTHON} cannot import torch/numpy: ${(r.stderr || '').trim().split('\n').pop()}`;
  return null;
}

/** Deterministic PRNG (mulberry32). */
export function prng(seed: number): () => number {
  let s = seed | 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const VOCABULARY = [
  'flow', 'laminar', 'turbulent', 'boundary', 'layer', 'plate', 'heat', 'transfer', 'wing', 'shock',
  'wave', 'pressure', 'supersonic', 'cylinder', 'model', 'aircraft', 'buckling', 'shell', 'vortex', 'jet',
];
const STOPWORDS = ['the', 'of', 'and', 'in', 'a', 'over'];

/** A synthetic corpus: skewed word frequencies so that some terms have df > N/2 (negative idf). */
export function syntheticCorpus(n: number, seed: number): IngestDocument[] {
  const rand = prng(seed);
  const docs: IngestDocument[] = [];
  for (let i = 0; i < n; i++) {
    const len = 3 + Math.floor(rand() * 40);
    const words: string[] = [];
    for (let j = 0; j < len; j++) {
      const r = rand();
      if (r < 0.15) words.push(STOPWORDS[Math.floor(rand() * STOPWORDS.length)]);
      else words.push(VOCABULARY[Math.floor(VOCABULARY.length * rand() * rand())]);
    }
    const title = words.slice(0, 3).join(' ');
    docs.push({ docno: `D${i}`, fields: { title, text: words.slice(3).join(' ') } });
  }
  return docs;
}

export function randomQuery(rand: () => number): string {
  const len = 1 + Math.floor(rand() * 7);
  const words: string[] = [];
  for (let j = 0; j < len; j++) {
    if (rand() < 0.2) words.push(STOPWORDS[Math.floor(rand() * STOPWORDS.length)]);
    else words.push(VOCABULARY[Math.floor(rand() * VOCABULARY.length)]);
  }
  return words.join(' ');
}

/**
 * A weighting model that hands a collection-aware model the statistics of `indexDir`'s collection, as the
 * CLI and the language server do (LocalBackend.ngramStatistics): tests that call the model directly compare
 * with what the server computes for that index.
 */
export async function withIndexStatistics(model: import('../../server/model/runtime.js').WeightModel, indexDir: string) {
  const { openLocalBackend } = await import('../../server/service/backend.js');
  const backend = openLocalBackend(indexDir);
  return {
    name: model.name,
    weigh: (queries: string[]) => model.weigh(queries, model.readsStatistics ? queries.map((q) => backend.ngramStatistics(q)) : undefined),
    dispose: () => model.dispose(),
  };
}
