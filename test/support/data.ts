/**
 * Where the shared test collections are: QUERYLENS_DATA, else `shared/data` beside the checkout
 * (the CI and developer layout), else `shared/data` inside it. Every test and bench finds the
 * data through this one helper, never through a machine path.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './build.js';

function resolveDataDir(): string {
  if (process.env.QUERYLENS_DATA) return process.env.QUERYLENS_DATA;
  const candidates = [join(ROOT, '..', 'shared', 'data'), join(ROOT, 'shared', 'data')];
  return candidates.find((d) => existsSync(d)) ?? candidates[0]!;
}

export const DATA_DIR = resolveDataDir();

/** A path inside the shared data folder, e.g. `dataPath('cranfield', 'corpus.jsonl')`. */
export function dataPath(...parts: string[]): string {
  return join(DATA_DIR, ...parts);
}
