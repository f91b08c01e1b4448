/**
 * A private build of the CLI for the grammar CLI tests.
 *
 * Several people build dist/ in this working tree at the same time, and tsc rewrites
 * files in place, so a CLI spawned from dist/ can load a half-written module and die with
 * a stack trace that is not ours. The tests therefore compile the same sources with the
 * same tsconfig into their own folder and run a verbatim copy of bin/querylens.js beside
 * it (it finds `../dist/server/cli/main.js` relative to itself; packages still resolve
 * from the repository's node_modules).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '../..');

/** Builds into node_modules/.cache/querylens-tests/<name> and returns the bin path. */
export function buildPrivateCli(name: string): string {
  const base = join(ROOT, 'node_modules/.cache/querylens-tests', name);
  rmSync(base, { recursive: true, force: true });
  mkdirSync(join(base, 'bin'), { recursive: true });
  // Other parts of the tree may not type-check yet; tsc still emits, and the CLI is what we test.
  spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.json'), '--outDir', join(base, 'dist')], {
    cwd: ROOT,
    stdio: 'ignore',
  });
  for (const f of ['server/cli/main.js', 'server/cli/commands/check.js', 'server/cli/main-job.js']) {
    if (!existsSync(join(base, 'dist', f))) throw new Error(`build failed: ${f} missing in ${base}/dist`);
  }
  copyFileSync(join(ROOT, 'bin/querylens.js'), join(base, 'bin/querylens.js'));
  return join(base, 'bin/querylens.js');
}

export function privateDist(bin: string): string {
  return join(bin, '../../dist');
}
