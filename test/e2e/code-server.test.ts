/**
 * The packaged extension in a real VS Code: code-server 4.100.3 (installed by
 * scripts/e2e-setup.mjs into .cache/code-server) with the .vsix installed, driven by
 * Debian's Chromium through playwright-core. A user opens a query file, sees the squiggle
 * under a broken query, and hovers an operator to read its description. Screenshots go to
 * test-output/e2e-code-server/.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { REPO } from '../lsp/harness.js';
import { runChecked } from '../support/process.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const CODE_SERVER = join(REPO, '.cache/code-server/node_modules/code-server/out/node/entry.js');
const OUT = join(REPO, 'test-output/e2e-code-server');

const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.log(`test/e2e/code-server: SKIPPED — Chromium is not installed at ${CHROMIUM} (apt-get install chromium)`);

/** Runs in the page: the computed text colour of an element (no DOM types in this project). */
const colorOf = (el: unknown): string => (globalThis as unknown as { getComputedStyle(e: unknown): { color: string } }).getComputedStyle(el).color;

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

async function waitForHttp(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

describe.skipIf(!hasChromium)('VS Code (code-server) with the packaged extension', () => {
  let server: ChildProcess | undefined;
  let browser: Browser | undefined;
  let page: Page;
  const log: string[] = [];
  const timings: Record<string, number> = {};

  beforeAll(async () => {
    const t0 = Date.now();
    const version = JSON.parse(readFileSync(join(REPO, 'client/package.json'), 'utf8')).version;
    const vsix = join(REPO, 'out', `querylens-linux-x64-${version}.vsix`);
    if (!existsSync(CODE_SERVER) || !existsSync(vsix)) await runChecked(process.execPath, ['scripts/e2e-setup.mjs'], { cwd: REPO, echo: true });
    else if (statSync(vsix).mtimeMs < Math.max(...['client', 'server', 'grammar'].map((d) => newestMtime(join(REPO, d))))) {
      // Test what the sources say, not an old package.
      await runChecked(process.execPath, ['scripts/package-vsix.mjs'], { cwd: REPO, echo: true });
    }
    timings.setup = Date.now() - t0;

    rmSync(OUT, { recursive: true, force: true });
    const data = join(OUT, 'data');
    const workspace = join(OUT, 'workspace');
    mkdirSync(join(data, 'u/User'), { recursive: true });
    mkdirSync(workspace, { recursive: true });
    // A quiet editor: no welcome page, no trust prompt, no telemetry.
    writeFileSync(
      join(data, 'u/User/settings.json'),
      JSON.stringify({ 'workbench.startupEditor': 'none', 'security.workspace.trust.enabled': false, 'telemetry.telemetryLevel': 'off', 'workbench.tips.enabled': false, 'git.openRepositoryInParentFolders': 'never' }),
    );
    cpSync(join(REPO, 'samples/queries.indri'), join(workspace, 'queries.indri'));
    // The Cranfield sample: the server builds the index on first use, then shows result lenses.
    cpSync(join(REPO, 'samples/cranfield/corpus.jsonl'), join(workspace, 'corpus.jsonl'));
    cpSync(join(REPO, 'samples/cranfield/qrels.txt'), join(workspace, 'qrels.txt'));
    writeFileSync(join(workspace, 'querylens.json'), JSON.stringify({ corpus: 'corpus.jsonl', index: '.index', qrels: 'qrels.txt' }));
    // The broken query the user will see squiggled: line 1, unclosed #combine.
    writeFileSync(join(workspace, 'broken.indri'), '1\t#weight( 2.0 #combine( white house ) 1.0 tour\n2\t#combine( easter egg )\n');

    const t1 = Date.now();
    await runChecked(process.execPath, [CODE_SERVER, '--user-data-dir', join(data, 'u'), '--extensions-dir', join(data, 'e'), '--install-extension', vsix]);
    timings.install = Date.now() - t1;

    const port = await freePort();
    server = spawn(
      process.execPath,
      [CODE_SERVER, '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--user-data-dir', join(data, 'u'), '--extensions-dir', join(data, 'e'), workspace],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    server.stdout!.on('data', (d) => log.push(String(d)));
    server.stderr!.on('data', (d) => log.push(String(d)));
    await waitForHttp(`http://127.0.0.1:${port}/healthz`, 60_000);

    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const t2 = Date.now();
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
    await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
    timings.workbench = Date.now() - t2;
  });

  afterAll(async () => {
    console.log(`code-server e2e timings (ms): ${JSON.stringify(timings)}`);
    await browser?.close();
    server?.kill('SIGTERM');
    writeFileSync(join(OUT, 'code-server.log'), log.join(''));
  });

  async function openFile(name: string): Promise<void> {
    await page.keyboard.press('Control+P');
    await page.waitForSelector('.quick-input-widget input', { state: 'visible' });
    await page.keyboard.type(name);
    await page.waitForSelector(`.quick-input-list .monaco-list-row[aria-label*="${name}"]`, { timeout: 20_000 });
    await page.keyboard.press('Enter');
    await page.waitForSelector(`.tab[aria-label*="${name}"]`, { timeout: 20_000 });
  }

  it('shows a squiggle under the broken query', async () => {
    const t = Date.now();
    await openFile('broken.indri');
    // The server's error decoration: Monaco draws errors with .squiggly-error.
    await page.waitForSelector('.monaco-editor .squiggly-error', { timeout: 60_000 });
    timings.firstDiagnostic = Date.now() - t;
    await page.screenshot({ path: join(OUT, 'diagnostic.png') });
    // The Problems panel names the code and message.
    await page.keyboard.press('Control+Shift+M');
    const problems = page.locator('.markers-panel .monaco-list-row', { hasText: 'querylens' }).first();
    await problems.waitFor({ timeout: 20_000 });
    const text = await problems.innerText();
    expect(text).toMatch(/missing "\)" to close #weight/);
    expect(text).toMatch(/syntax\/missing-close/);
    await page.screenshot({ path: join(OUT, 'problems.png') });
  });

  it('hovers #weight and reads its description', async () => {
    const operator = page.locator('.monaco-editor .view-line span', { hasText: /^#weight$/ }).first();
    await operator.waitFor({ timeout: 20_000 });
    // Hover needs the mouse to rest on the word; move off and on again until the widget appears.
    let hoverText = '';
    for (let attempt = 0; attempt < 5 && !/#weight/.test(hoverText); attempt++) {
      await page.mouse.move(5, 5);
      await operator.hover();
      const hover = page.locator('.monaco-hover', { hasText: 'Weighted belief' }).first();
      try {
        await hover.waitFor({ state: 'visible', timeout: 5_000 });
        hoverText = await hover.innerText();
      } catch {
        hoverText = '';
      }
    }
    await page.screenshot({ path: join(OUT, 'hover.png') });
    expect(hoverText).toMatch(/#weight/);
    expect(hoverText).toMatch(/Weighted belief AND/);
  });

  it('converts the file to Lucene with the command', async () => {
    await page.keyboard.press('Control+Shift+P');
    await page.waitForSelector('.quick-input-widget input', { state: 'visible' });
    await page.keyboard.type('querylens: Convert');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Convert to the Other Dialect' }).first().waitFor({ timeout: 20_000 });
    await page.keyboard.press('Enter');
    // The translation opens beside the file, as an untitled Lucene document.
    const converted = page.locator('.monaco-editor .view-lines', { hasText: 'Converted from broken.indri' });
    await converted.waitFor({ timeout: 20_000 });
    // Monaco renders spaces as no-break spaces.
    const text = (await converted.innerText()).replace(/\u00a0/g, ' ');
    expect(text).toMatch(/not converted: the query has syntax errors/);
    expect(text).toMatch(/easter egg/);
    await page.screenshot({ path: join(OUT, 'convert.png') });
  });

  it('colours operators with the TextMate grammar', async () => {
    await openFile('queries.indri');
    const color = await page.locator('.monaco-editor .view-line span', { hasText: /^#weight$/ }).first().evaluate(colorOf);
    const termColor = await page.locator('.monaco-editor .view-line span', { hasText: /^aeroelastic$/ }).first().evaluate(colorOf);
    expect(color).not.toBe(termColor);
    await page.screenshot({ path: join(OUT, 'highlighting.png') });
  });

  it('opens the results of a query from its code lens', async () => {
    const t = Date.now();
    // queries.indri is open; the lens appears once the index is built and loaded.
    // A query that matches something (broken.indri, open beside, has a 0-result lens).
    const lens = page.locator('.monaco-editor .codelens-decoration a', { hasText: /[1-9]\d* results/ }).first();
    await lens.waitFor({ timeout: 120_000 });
    timings.firstLens = Date.now() - t;
    const lensText = await lens.innerText();
    expect(lensText).toMatch(/\d+ results/);
    await page.screenshot({ path: join(OUT, 'code-lens.png') });
    await lens.click();
    // Webview content lives two iframes down.
    const panel = page.frameLocator('iframe.webview').frameLocator('iframe#active-frame');
    await panel.locator('h2', { hasText: /^Query / }).waitFor({ timeout: 30_000 });
    const rows = await panel.locator('tbody tr').count();
    expect(rows).toBeGreaterThan(0);
    expect(await panel.locator('body').innerText()).toMatch(/matching documents · BM25/);
    await page.screenshot({ path: join(OUT, 'results.png') });
    // The status bar reports the loaded index (and no model configured).
    const status = page.locator('.statusbar-item', { hasText: 'querylens index' }).first();
    expect(await status.getAttribute('aria-label')).toMatch(/querylens index\s+pass-filled\s+model\s+circle-slash/);
  });
});
