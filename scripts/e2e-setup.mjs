#!/usr/bin/env node
// Prepares the real-editor end-to-end tests (test/e2e/):
// 1. builds dist/ (the Neovim test runs `node bin/querylens.js lsp --stdio`);
// 2. packages the .vsix when it is missing or older than the sources;
// 3. installs code-server 4.100.3 into .cache/code-server, following the offline-safe
//    recipe step by step (the plain npm install fails in three places).
// Idempotent: each step is skipped when its result is already there.
import { execSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
export const CODE_SERVER_VERSION = '4.100.3';
const cache = join(root, '.cache/code-server');
const ready = join(cache, `.ready-${CODE_SERVER_VERSION}`);
const started = Date.now();

function run(cmd, cwd = root, env = {}) {
  console.error(`e2e-setup: (${cwd.replace(root, '.') || '.'}) ${cmd}`);
  execSync(cmd, { cwd, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, ONNXRUNTIME_NODE_INSTALL: 'skip', ...env } });
}

function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

// ---- 1. build
run('npx tsc -p tsconfig.json || true');

// ---- 2. vsix
const version = JSON.parse((await import('node:fs')).readFileSync(join(root, 'client/package.json'), 'utf8')).version;
const vsix = join(root, 'out', `querylens-linux-x64-${version}.vsix`);
const sourcesTime = Math.max(newest(join(root, 'client')), newest(join(root, 'server')), newest(join(root, 'grammar')));
if (!existsSync(vsix) || statSync(vsix).mtimeMs < sourcesTime) run('node scripts/package-vsix.mjs');

// ---- 3. code-server
function hasDebianPackage(name) {
  try {
    execSync(`dpkg -s ${name}`, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
if (!existsSync(ready)) {
  const missing = ['libkrb5-dev', 'ripgrep'].filter((p) => !hasDebianPackage(p));
  if (missing.length) {
    if (process.getuid?.() !== 0) {
      console.error(`e2e-setup: code-server needs the Debian packages ${missing.join(' ')}; install them (apt-get install -y ${missing.join(' ')}) and run again`);
      process.exit(2);
    }
    run('apt-get update');
    run(`apt-get install -y ${missing.join(' ')}`);
  }
  mkdirSync(cache, { recursive: true });
  // Anchor npm here, so that it does not install into the project's node_modules.
  if (!existsSync(join(cache, 'package.json'))) writeFileSync(join(cache, 'package.json'), '{ "private": true }\n');
  run(`npm install --no-save --ignore-scripts code-server@${CODE_SERVER_VERSION}`, cache);
  run('npm rebuild argon2', cache); // its prebuilt download fails; builds from source
  const vscode = join(cache, 'node_modules/code-server/lib/vscode');
  run('npm install --omit=dev --ignore-scripts', vscode);
  mkdirSync(join(vscode, 'node_modules/@vscode/ripgrep/bin'), { recursive: true });
  run('ln -sf /usr/bin/rg node_modules/@vscode/ripgrep/bin/rg', vscode);
  run('npm rebuild', vscode, { npm_config_yes: 'true' }); // node-pty's postinstall calls npx node-gyp
  run('ln -sfn node_modules node_modules.asar', vscode);
  run('ln -sf code-linux.sh code-server', join(vscode, 'bin/remote-cli'));
  run('ln -sf browser-linux.sh browser.sh', join(vscode, 'bin/helpers'));
  run('npm install --omit=dev', join(vscode, 'extensions'));
  writeFileSync(ready, new Date().toISOString() + '\n');
}
console.error(`e2e-setup: ready in ${((Date.now() - started) / 1000).toFixed(1)} s (code-server ${CODE_SERVER_VERSION} in .cache/code-server, ${relative(root, vsix)})`);
