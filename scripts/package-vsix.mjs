#!/usr/bin/env node
// Builds the linux-x64 .vsix of the querylens extension into out/.
//
// 1. esbuild bundles the client (client/src/extension.ts, `vscode` external) and the
//    language server (server/lsp/main.ts; the native modules onnxruntime-node and
//    tokenizers external) into a staging folder, out/vsix-staging/.
// 2. The extension manifest is generated there from client/package.json, so the root
//    package.json stays the project's.
// 3. The native modules are copied to dist/node_modules with their linux-x64 binaries only
//    (all platforms would make a 136 MB package).
// 4. `vsce package --target linux-x64 --no-dependencies` writes out/querylens-linux-x64-<version>.vsix.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(join(root, 'package.json'));
const stage = join(root, 'out/vsix-staging');
const TARGET = 'linux-x64';
const NATIVE = ['onnxruntime-node', 'tokenizers'];

const started = Date.now();
rmSync(stage, { recursive: true, force: true });
mkdirSync(join(stage, 'dist'), { recursive: true });

// ---- 1. bundles
// ES module builds first: a UMD build (jsonc-parser's) requires its own files at run time, which a bundle does not carry.
const common = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', sourcemap: false, minify: true, logLevel: 'warning', mainFields: ['module', 'main'] };
await build({ ...common, entryPoints: [join(root, 'client/src/extension.ts')], outfile: join(stage, 'dist/extension.js'), external: ['vscode'] });
// The sources are ES modules; in the CommonJS bundle `import.meta.url` (used with createRequire
// to load the native modules lazily) becomes this file's own URL.
await build({
  ...common,
  entryPoints: [join(root, 'server/lsp/main.ts')],
  outfile: join(stage, 'dist/server.js'),
  external: NATIVE,
  define: { 'import.meta.url': '__importMetaUrl' },
  banner: { js: "const __importMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
});
// The weighting model's worker thread (server/model/worker-model.ts looks for weigh-worker.js next to
// the server bundle; without it the model runs on the server's own thread).
await build({
  ...common,
  entryPoints: [join(root, 'server/model/weigh-worker.ts')],
  outfile: join(stage, 'dist/weigh-worker.js'),
  external: NATIVE,
  define: { 'import.meta.url': '__importMetaUrl' },
  banner: { js: "const __importMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
});
// The index build's reading and analysing thread (server/engine/index/batch-source.ts looks for
// build-worker.js next to the server bundle; without it the build reads on the server's own thread).
await build({
  ...common,
  entryPoints: [join(root, 'server/engine/index/build-worker.ts')],
  outfile: join(stage, 'dist/build-worker.js'),
  external: NATIVE,
  define: { 'import.meta.url': '__importMetaUrl' },
  banner: { js: "const __importMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
});

// ---- 2. manifest and static files
const manifest = JSON.parse(readFileSync(join(root, 'client/package.json'), 'utf8'));
delete manifest.scripts;
delete manifest.devDependencies;
delete manifest.dependencies;
writeFileSync(join(stage, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
for (const f of ['README.md', 'language-configuration-indri.json', 'language-configuration-lucene.json', 'syntaxes']) {
  cpSync(join(root, 'client', f), join(stage, f), { recursive: true });
}
writeFileSync(
  join(stage, 'LICENSE'),
  `MIT License\n\nCopyright (c) querylens authors\n\nPermission is hereby granted, free of charge, to any person obtaining a copy of this software and associated documentation files (the "Software"), to deal in the Software without restriction, including without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the Software, and to permit persons to whom the Software is furnished to do so, subject to the following conditions:\n\nThe above copyright notice and this permission notice shall be included in all copies or substantial portions of the Software.\n\nTHE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.\n`,
);

// ---- 3. native modules, this platform's binaries only. Node resolves them from
// dist/server.js through dist/node_modules; vsce --no-dependencies skips only the
// top-level node_modules folder.
/** Files of another platform: skipped when copying (and listed in .vscodeignore as a second guard). */
const OTHER_PLATFORMS = [
  /[/\\]bin[/\\]napi-v\d+[/\\](darwin|win32)[/\\]/,
  /[/\\]bin[/\\]napi-v\d+[/\\]linux[/\\]arm64[/\\]/,
  /tokenizers\.(android|darwin|win32|linux-arm|linux-arm64|linux-x64-musl)[^/\\]*\.node$/,
];
/** Installed (hoisted) location; some packages do not export ./package.json, so no require.resolve. */
function packageDir(name) {
  return join(root, 'node_modules', name);
}
function copyPackage(name) {
  const from = packageDir(name);
  const to = join(stage, 'dist/node_modules', name);
  cpSync(from, to, {
    recursive: true,
    filter: (src) => !OTHER_PLATFORMS.some((re) => re.test(src)) && !/[/\\]node_modules[/\\].*[/\\]node_modules$/.test(src.slice(from.length)),
  });
  const pkg = JSON.parse(readFileSync(join(from, 'package.json'), 'utf8'));
  return Object.keys(pkg.dependencies ?? {});
}
const runtimeDeps = { 'onnxruntime-node': ['onnxruntime-common'], tokenizers: [] }; // adm-zip/global-agent serve only its installer
for (const name of NATIVE) {
  if (!existsSync(join(root, 'node_modules', name))) {
    console.error(`package-vsix: ${name} is not installed; run npm ci first`);
    process.exit(2);
  }
  copyPackage(name);
  for (const dep of runtimeDeps[name]) copyPackage(dep);
}
writeFileSync(join(stage, '.vscodeignore'), ['**/*.map', '**/*.d.ts', '**/bin/napi-v*/darwin/**', '**/bin/napi-v*/win32/**', '**/bin/napi-v*/linux/arm64/**', ''].join('\n'));

// ---- 4. vsce
mkdirSync(join(root, 'out'), { recursive: true });
const vsix = join(root, 'out', `querylens-${TARGET}-${manifest.version}.vsix`);
const vsce = join(dirname(require.resolve('@vscode/vsce/package.json')), 'vsce');
execFileSync(process.execPath, [vsce, 'package', '--target', TARGET, '--no-dependencies', '--allow-missing-repository', '--skip-license', '--out', vsix], {
  cwd: stage,
  stdio: ['ignore', 'inherit', 'inherit'],
});

function size(path) {
  return statSync(path).size;
}
const mb = (n) => `${(n / 1024 / 1024).toFixed(1)} MB`;
console.log(`package-vsix: ${vsix} (${mb(size(vsix))}) in ${((Date.now() - started) / 1000).toFixed(1)} s`);

