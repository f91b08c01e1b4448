/**
 * The CLI and the language server run from dist/. Tests that spawn them call
 * `ensureBuilt()`: it compiles once per test run (vitest's global setup does it before any
 * worker starts, and says so through QUERYLENS_TEST_BUILT), so parallel test files never
 * write dist/ while another one is spawning the CLI from it.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export function build(): void {
  // tsc emits even when some file has a type error; the tests then say what broke.
  try {
    execFileSync(process.execPath, [`${ROOT}/node_modules/typescript/bin/tsc`, '-p', `${ROOT}/tsconfig.json`], { cwd: ROOT, stdio: 'pipe' });
  } catch {
    /* type errors are reported by `npm run typecheck`, not here */
  }
}

export function ensureBuilt(): void {
  if (process.env.QUERYLENS_TEST_BUILT === '1') return;
  build();
  process.env.QUERYLENS_TEST_BUILT = '1';
}
