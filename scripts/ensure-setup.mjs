// Installs what is missing and builds, so that `npm start` and `npm test` work on a
// fresh clone. Uses only Node built-ins: it runs before dependencies exist.
import { execSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const run = (cmd) => execSync(cmd, { cwd: root, stdio: 'inherit', env: { ...process.env, ONNXRUNTIME_NODE_INSTALL: 'skip' } });

const lock = `${root}/package-lock.json`;
const installed = `${root}/node_modules/.package-lock.json`;
if (!existsSync(installed) || statSync(installed).mtimeMs < statSync(lock).mtimeMs) {
  console.error('querylens: installing dependencies (npm ci)...');
  run('npm ci --no-audit --no-fund');
} else {
  run('npx tsc -p tsconfig.json');
}
