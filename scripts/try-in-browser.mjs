#!/usr/bin/env node
// `npm run try`: querylens in a browser, for people without VS Code.
// 1. scripts/e2e-setup.mjs: builds, packages the .vsix, installs code-server 4.100.3 into
//    .cache/code-server (once; needs the Debian packages libkrb5-dev and ripgrep);
// 2. installs the .vsix into a private code-server profile (.cache/try unless --data DIR);
// 3. starts code-server on samples/ (Cranfield, the TW-BERT model, no setup), bound to
//    127.0.0.1 only and without a password (--auth none: it is reachable from this machine
//    alone), and prints the URL. Ctrl+C stops it.
// Options: --port N (default 8765), --data DIR (the profile folder), --folder DIR (default samples),
// --skip-setup (code-server and the .vsix are already there: step 1 neither compiles nor packages;
// the e2e test uses it, as other tests run servers from dist/ meanwhile).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}
const port = Number(option('port', '8765'));
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  console.error(`try: --port must be a port number, not ${option('port')}`);
  process.exit(2);
}
const data = resolve(root, option('data', '.cache/try'));
const folder = resolve(root, option('folder', 'samples'));
const codeServer = join(root, '.cache/code-server/node_modules/code-server/out/node/entry.js');

/** Runs a child to completion, its output on ours; exits with its status when it fails. */
function run(args) {
  return new Promise((done) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('close', (status) => {
      if (status !== 0) process.exit(status ?? 1);
      done();
    });
  });
}

const version = JSON.parse(readFileSync(join(root, 'client/package.json'), 'utf8')).version;
const vsix = join(root, 'out', `querylens-linux-x64-${version}.vsix`);
if (!process.argv.includes('--skip-setup')) await run([join(root, 'scripts/e2e-setup.mjs')]);
else if (!existsSync(codeServer) || !existsSync(vsix)) {
  console.error('try: code-server or the .vsix is missing: run again without --skip-setup');
  process.exit(2);
}
const user = join(data, 'user');
const extensions = join(data, 'extensions');
const installed = join(data, '.installed-vsix');
mkdirSync(join(user, 'User'), { recursive: true });
const settings = join(user, 'User/settings.json');
if (!existsSync(settings)) {
  // A quiet first start; the user may change any of it (the file is kept between runs).
  writeFileSync(
    settings,
    JSON.stringify(
      {
        'workbench.startupEditor': 'none',
        'security.workspace.trust.enabled': false,
        'telemetry.telemetryLevel': 'off',
        'workbench.tips.enabled': false,
        'git.openRepositoryInParentFolders': 'never',
        // Weighted queries carry one weight hint per word: show them all (VS Code cuts a line's hints at 43 characters).
        'editor.inlayHints.maximumLength': 0,
      },
      null,
      2,
    ) + '\n',
  );
}
// The shipped model lies outside samples/, so it is named in the user's settings (a workspace's
// querylens.json may only point inside the workspace: docs/ARCHITECTURE.md, "Trust model").
const userSettings = JSON.parse(readFileSync(settings, 'utf8'));
if (userSettings['querylens.model'] === undefined) {
  userSettings['querylens.model'] = join(root, 'model/artifacts');
  writeFileSync(settings, JSON.stringify(userSettings, null, 2) + '\n');
}
// (Re)install when the package is newer than the one installed last time.
const stamp = `${vsix} ${statSync(vsix).mtimeMs}`;
if (!existsSync(installed) || readFileSync(installed, 'utf8') !== stamp) {
  await run([codeServer, '--user-data-dir', user, '--extensions-dir', extensions, '--install-extension', vsix, '--force']);
  writeFileSync(installed, stamp);
}

const server = spawn(
  process.execPath,
  [
    codeServer,
    '--bind-addr', `127.0.0.1:${port}`,
    '--auth', 'none',
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    // Its own config file (code-server would otherwise write ~/.config/code-server/config.yaml).
    '--config', join(data, 'config.yaml'),
    '--user-data-dir', user,
    '--extensions-dir', extensions,
    folder,
  ],
  { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
);
const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(folder)}`;
let announced = false;
const echo = (stream) => (chunk) => {
  stream.write(chunk);
  // code-server prints "HTTP server listening on …" once it accepts connections.
  if (!announced && /HTTP server listening on/.test(String(chunk))) {
    announced = true;
    console.log(`\nquerylens in code-server: open ${url}\n(bound to 127.0.0.1 without a password; Ctrl+C stops it)\n`);
  }
};
server.stdout.on('data', echo(process.stdout));
server.stderr.on('data', echo(process.stderr));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('close', (status, signal) => process.exit(status ?? (signal === 'SIGINT' || signal === 'SIGTERM' ? 0 : 1)));
