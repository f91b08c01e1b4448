/**
 * Where the shared test collections are: QUERYLENS_DATA, else a `shared/data` folder beside the
 * checkout or beside one of its parent folders (the CI and developer layout), else the same beside
 * the repository this one was cloned from (a local `git clone` of a developer checkout), else
 * `shared/data` inside the checkout. Every test and bench finds the data through this one helper,
 * never through a machine path.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { ROOT } from './build.js';

/** `dir/shared/data` for `dir` = `start`'s parent and each folder above it. */
function besideAncestors(start: string): string[] {
  const out: string[] = [];
  let dir = dirname(resolve(start));
  for (;;) {
    out.push(join(dir, 'shared', 'data'));
    const parent = dirname(dir);
    if (parent === dir) return out;
    dir = parent;
  }
}

/** The local folder this checkout was cloned from (`remote.origin.url` when it is a path), if any. */
function clonedFrom(root: string): string | undefined {
  try {
    const config = readFileSync(join(root, '.git', 'config'), 'utf8');
    const origin = /\[remote "origin"\][^[]*?\burl\s*=\s*(.+)/.exec(config)?.[1]?.trim();
    if (!origin) return undefined;
    const path = origin.startsWith('file://') ? origin.slice('file://'.length) : origin;
    if (!isAbsolute(path) && !path.startsWith('.')) return undefined; // a network remote
    return resolve(root, path);
  } catch {
    return undefined;
  }
}

function resolveDataDir(): string {
  if (process.env.QUERYLENS_DATA) return process.env.QUERYLENS_DATA;
  const origin = clonedFrom(ROOT);
  const candidates = [...besideAncestors(ROOT), ...(origin ? besideAncestors(origin) : []), join(ROOT, 'shared', 'data')];
  return candidates.find((d) => existsSync(d)) ?? candidates[0]!;
}

export const DATA_DIR = resolveDataDir();

/** A path inside the shared data folder, e.g. `dataPath('cranfield', 'corpus.jsonl')`. */
export function dataPath(...parts: string[]): string {
  return join(DATA_DIR, ...parts);
}
