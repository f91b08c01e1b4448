/**
 * The packaged extension in a real VS Code: code-server 4.100.3 (installed by
 * scripts/e2e-setup.mjs into .cache/code-server) with the .vsix installed, driven by
 * Debian's Chromium through playwright-core, on the Cranfield sample with the TW-BERT model.
 * A user opens a query file and sees the squiggle under a broken query, hovers an operator and
 * a term (its df and cf, checked against the index the server built), converts the file,
 * opens a query's results from its code lens, and applies the Bo1 and TW-BERT code actions
 * (the saved file holds what the action titles promised). Screenshots go to
 * test-output/e2e-code-server/; with QUERYLENS_UPDATE_SCREENSHOT=1 the last one also
 * replaces the README's docs/images/editor.png (normal runs leave the tree clean).
 *
 * Every wait is on a condition with a generous limit (the machine may be loaded); nothing
 * asserts after a fixed sleep.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { openIndex } from '../../server/engine/index/index.js';
import { REPO } from '../lsp/harness.js';
import { CHROMIUM, CHROMIUM_ARGS, ensureEditorSetup, freePort, hasChromium, MODEL, openFile as quickOpen, paletteCommand, startCodeServer, type CodeServer } from './workbench.js';

const OUT = join(REPO, 'test-output/e2e-code-server');
/** The README's screenshot, written only on request. */
const README_SCREENSHOT = join(REPO, 'docs/images/editor.png');
const UPDATE_SCREENSHOT = process.env.QUERYLENS_UPDATE_SCREENSHOT === '1';

if (!hasChromium) console.log(`test/e2e/code-server: SKIPPED — Chromium is not installed at ${CHROMIUM} (apt-get install chromium)`);

/** Runs in the page: the computed text colour of an element (no DOM types in this project). */
const colorOf = (el: unknown): string => (globalThis as unknown as { getComputedStyle(e: unknown): { color: string } }).getComputedStyle(el).color;

// Each step waits up to a minute or two for a condition on a loaded machine: more than vitest's default 60 s per test.
describe.skipIf(!hasChromium)('VS Code (code-server) with the packaged extension', { timeout: 300_000 }, () => {
  let server: CodeServer | undefined;
  /** `npm run try`, started by the last test. */
  let tryProcess: ChildProcess | undefined;
  let browser: Browser | undefined;
  let page: Page;
  const timings: Record<string, number> = {};

  beforeAll(async () => {
    const t0 = Date.now();
    const vsix = await ensureEditorSetup();
    timings.setup = Date.now() - t0;

    rmSync(OUT, { recursive: true, force: true });
    const workspace = join(OUT, 'workspace');
    mkdirSync(workspace, { recursive: true });
    cpSync(join(REPO, 'samples/queries.indri'), join(workspace, 'queries.indri'));
    // The Cranfield sample: the server builds the index on first use, then shows result lenses.
    cpSync(join(REPO, 'samples/cranfield/corpus.jsonl'), join(workspace, 'corpus.jsonl'));
    cpSync(join(REPO, 'samples/cranfield/qrels.txt'), join(workspace, 'qrels.txt'));
    // The shipped TW-BERT model on the CPU: weight inlay hints and the "Apply TW-BERT weights" action.
    writeFileSync(join(workspace, 'querylens.json'), JSON.stringify({ corpus: 'corpus.jsonl', index: '.index', qrels: 'qrels.txt', model: MODEL, device: 'cpu' }));
    // The broken query the user will see squiggled: line 1, unclosed #combine.
    writeFileSync(join(workspace, 'broken.indri'), '1\t#weight( 2.0 #combine( white house ) 1.0 tour\n2\t#combine( easter egg )\n');

    const t1 = Date.now();
    server = await startCodeServer(
      vsix,
      join(OUT, 'data'),
      {
        // VS Code cuts a line's inlay hints past 43 characters in all (`·0.…`), which a weighted
        // query of 9 words reaches: 0 shows them all.
        'editor.inlayHints.maximumLength': 0,
        // A still picture: the cursor does not blink (see settledScreenshot).
        'editor.cursorBlinking': 'solid',
      },
      workspace,
    );
    timings.install = Date.now() - t1;

    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const t2 = Date.now();
    await page.goto(`http://127.0.0.1:${server.port}/?folder=${encodeURIComponent(workspace)}`);
    await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
    timings.workbench = Date.now() - t2;
  });

  afterAll(async () => {
    if (tryProcess && tryProcess.exitCode === null && tryProcess.signalCode === null) tryProcess.kill('SIGTERM'); // forwarded to code-server
    console.log(`code-server e2e timings (ms): ${JSON.stringify(timings)}`);
    await browser?.close();
    server?.process.kill('SIGTERM');
    if (server && existsSync(OUT)) writeFileSync(join(OUT, 'code-server.log'), server.log.join(''));
  });

  const openFile = (name: string) => quickOpen(page, name);

  /** Runs a command from the command palette by its label, and waits for the palette to close. */
  async function command(label: string): Promise<void> {
    await paletteCommand(page, label);
    await page.waitForSelector('.quick-input-widget', { state: 'hidden', timeout: 20_000 });
  }

  /**
   * Hovers `target` until a hover holding `hasText` shows (the mouse must rest on the word, and
   * the first hover of a term may arrive before the server has the index: move off and on again).
   */
  async function hoverText(target: ReturnType<Page['locator']>, hasText: RegExp, timeoutMs = 60_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      await page.mouse.move(5, 5);
      await target.hover();
      const hover = page.locator('.monaco-hover', { hasText }).first();
      try {
        await hover.waitFor({ state: 'visible', timeout: 5_000 });
        return await hover.innerText();
      } catch {
        // not yet: hover again
      }
    }
    return '';
  }

  /**
   * Saves the active editor until the file on disk satisfies `ready`, and returns its text.
   * VS Code applies a code action's edit asynchronously, so a save pressed at once may store
   * the old text: press Ctrl+S again every 2 s (saving a saved file changes nothing).
   */
  async function savedText(name: string, ready: (text: string) => boolean, timeoutMs = 60_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let text = '';
    let lastSave = 0;
    while (Date.now() < deadline) {
      if (Date.now() - lastSave > 2_000) {
        await page.keyboard.press('Control+S');
        lastSave = Date.now();
      }
      text = readFileSync(join(OUT, 'workspace', name), 'utf8');
      if (ready(text)) return text;
      await new Promise((r) => setTimeout(r, 200));
    }
    return text;
  }

  /**
   * A screenshot once the page stops changing (two in a row, 500 ms apart, are identical):
   * after an edit Monaco lays out the wrapped lines, inlay hints and lenses in several passes.
   */
  async function settledScreenshot(path: string): Promise<void> {
    let previous = await page.screenshot();
    const deadline = Date.now() + 30_000;
    for (;;) {
      await page.waitForTimeout(500);
      const next = await page.screenshot();
      if (next.equals(previous) || Date.now() > deadline) {
        writeFileSync(path, next);
        return;
      }
      previous = next;
    }
  }

  /** The line of query `qid` in a `qid<TAB>query` file. */
  const queryLine = (text: string, qid: string): string => text.split('\n').find((l) => l.startsWith(`${qid}\t`)) ?? '';
  /**
   * The file holds query qid and its line is no longer `before`. A read can land between the editor
   * truncating the file and writing it (an empty text): that is not a change of the line.
   */
  const lineChanged = (qid: string, before: string) => (text: string): boolean => {
    const line = queryLine(text, qid);
    return line !== '' && line !== before;
  };

  /**
   * Puts the cursor on the query showing `word`, opens the code-action menu (Ctrl+., as a user
   * does), and returns the title of the action starting with `prefix` after choosing it.
   */
  async function applyCodeAction(word: RegExp, prefix: string): Promise<string> {
    await page.locator('.monaco-editor .view-line span', { hasText: word }).first().click();
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      await page.keyboard.press('Control+.');
      const offered = page.locator('.action-widget .monaco-list-row.action', { hasText: prefix }).first();
      try {
        await offered.waitFor({ state: 'visible', timeout: 10_000 });
      } catch {
        // The menu had no such action yet (the engine was still loading): close it and ask again.
        await page.keyboard.press('Escape');
        continue;
      }
      // Choose it with the keyboard, as the menu suggests ("Enter to Apply").
      const rows = await page.locator('.action-widget .monaco-list-row.action').count();
      for (let i = 0; i < rows; i++) {
        const focused = (await page.locator('.action-widget .monaco-list-row.action.focused').getAttribute('aria-label')) ?? '';
        if (focused.startsWith(prefix)) {
          await page.keyboard.press('Enter');
          await page.waitForSelector('.action-widget', { state: 'hidden', timeout: 20_000 });
          return focused;
        }
        await page.keyboard.press('ArrowDown');
      }
      throw new Error(`"${prefix}" was offered but could not be focused`);
    }
    throw new Error(`no "${prefix}" action was offered within 60 s`);
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
    const hoverTextFound = await hoverText(operator, /Weighted belief/, 30_000);
    await page.screenshot({ path: join(OUT, 'hover.png') });
    expect(hoverTextFound).toMatch(/#weight/);
    expect(hoverTextFound).toMatch(/Weighted belief AND/);
  });

  it('converts the file to Lucene with the command', async () => {
    await command('querylens: Convert to the Other Dialect');
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

  it('hovers a term and reads its df and cf in the Cranfield index', async () => {
    const term = page.locator('.monaco-editor .view-line span', { hasText: /^aeroelastic$/ }).first();
    await term.waitFor({ timeout: 20_000 });
    // The statistics section appears once the server has built and loaded the index.
    const text = (await hoverText(term, /whole document/, 120_000)).replace(/\s+/g, ' ');
    await page.waitForTimeout(300); // only for the picture: the hover's fade-in animation
    await page.screenshot({ path: join(OUT, 'hover-term.png') });
    // What the hover must say, read from the index the server built in the workspace.
    const reader = openIndex(join(OUT, 'workspace/.index'));
    const [analysed] = reader.analyzer.analyzeTerm('aeroelastic', { raw: false });
    const stats = reader.termStats(analysed!)!;
    expect(stats.df).toBeGreaterThan(0);
    expect(text).toContain(`aeroelastic → ${analysed} (terrier analysis)`);
    expect(text).toMatch(/df cf idf/);
    expect(text).toContain(`whole document ${stats.df.toLocaleString('en-US')} ${stats.cf.toLocaleString('en-US')} `);
  });

  it('opens the results of a query from its code lens', async () => {
    const t = Date.now();
    // queries.indri is open; the lens appears once the index is built and loaded.
    // A query that matches something (broken.indri, open beside, has a 0-result lens).
    const lens = page.locator('.monaco-editor .codelens-decoration a', { hasText: /[1-9]\d* results/ }).first();
    await lens.waitFor({ timeout: 120_000 });
    timings.firstLens = Date.now() - t;
    const lensText = await lens.innerText();
    // `▶ N results · nDCG@10 x.xx [· U of the top 10 unjudged] · top: <title>` (the workspace has qrels).
    expect(lensText).toMatch(/\d+ results · nDCG@10 \d\.\d\d (· \d+ of the top \d+ unjudged )?· top: \S/);
    await page.screenshot({ path: join(OUT, 'code-lens.png') });
    await lens.click();
    // Webview content lives two iframes down.
    const panel = page.frameLocator('iframe.webview').frameLocator('iframe#active-frame');
    await panel.locator('h2', { hasText: /^Query / }).waitFor({ timeout: 30_000 });
    const rows = await panel.locator('tbody tr').count();
    expect(rows).toBeGreaterThan(0);
    expect(await panel.locator('body').innerText()).toMatch(/matching documents · BM25/);
    await page.screenshot({ path: join(OUT, 'results.png') });
    // The status bar reports the loaded index and the loaded model.
    const status = page.locator('.statusbar-item', { hasText: 'querylens index' }).first();
    await expect.poll(async () => status.getAttribute('aria-label'), { timeout: 60_000 }).toMatch(/querylens index\s+pass-filled\s+model\s+pass-filled/);
  });

  it('adds Bo1 expansion terms to a query with the code action', async () => {
    // One editor, wide, wrapped: the rest of the session works on queries.indri alone.
    const tl = Date.now();
    await command('View: Single Column Editor Layout');
    if (await page.locator('.part.panel').isVisible()) await command('View: Toggle Panel Visibility');
    await command('View: Close Primary Side Bar');
    await openFile('queries.indri');
    await command('View: Toggle Word Wrap');
    timings.layout = Date.now() - tl;
    const before = queryLine(readFileSync(join(OUT, 'workspace/queries.indri'), 'utf8'), '2');
    expect(before).toBe('2\t#combine( structural aeroelastic problems #1(high speed) aircraft flight )');
    const ta = Date.now();
    const title = await applyCodeAction(/structural/, 'Add Bo1 expansion terms');
    timings.bo1Action = Date.now() - ta;
    const line = queryLine(await savedText('queries.indri', lineChanged('2', before)), '2');
    await page.screenshot({ path: join(OUT, 'bo1.png') });
    // The title named the added words and their weights; the query now holds exactly those (words of
    // the documents, not quoted stems; 3 significant digits) beside the user's words as typed.
    const promised = [...title.matchAll(/([^\s:,]+) (\d+\.\d\d)/g)].map((m) => ({ term: m[1]!, weight: Number(m[2]) }));
    expect(promised.length).toBeGreaterThan(0);
    expect(line).toMatch(/^2\t#weight\( /);
    expect(line).not.toContain('"');
    const weights = new Map([...line.matchAll(/(\d+(?:\.\d+)?) ([a-z0-9]+)(?= )/g)].map((m) => [m[2]!, Number(m[1])]));
    for (const { term, weight } of promised) {
      expect(weights.has(term), `"${term}" from the title "${title}" in ${line}`).toBe(true);
      expect(Math.abs(weights.get(term)! - weight)).toBeLessThanOrEqual(0.006);
    }
    const analyzer = openIndex(join(OUT, 'workspace/.index')).analyzer;
    for (const word of ['structural', 'aeroelastic', 'problems', 'aircraft', 'flight']) {
      expect(weights.has(word), `original word "${word}" kept as typed in ${line}`).toBe(true);
    }
    // Every word analyses back to one index term: the query is the expansion.
    for (const word of weights.keys()) expect(analyzer.analyzeTerm(word, { raw: false }), word).toHaveLength(1);
    expect(line).toContain('#1(high speed)');
  });

  it('applies the TW-BERT weights to a query with the code action, and shows them as inlay hints', async () => {
    const before = queryLine(readFileSync(join(OUT, 'workspace/queries.indri'), 'utf8'), '3');
    expect(before).toBe('3\t#combine( #1(heat conduction) composite slabs )');
    // The model's weight beside every word of a plain-term query (`composite ·0.50`).
    await page.locator('.monaco-editor .view-line', { hasText: /composite\W*·\d\.\d\d/ }).first().waitFor({ timeout: 60_000 });
    const tw = Date.now();
    const title = await applyCodeAction(/composite/, 'Apply TW-BERT weights');
    timings.twbertAction = Date.now() - tw;
    const line = queryLine(await savedText('queries.indri', lineChanged('3', before)), '3');
    // The user's structure is kept: `#weight( w #1(heat conduction) w composite w slabs )`, and the title
    // promises exactly the weights applied (the window weighed as a whole).
    const promised = [...title.matchAll(/(#1\([^)]*\)|[^\s:,]+) (\d+\.\d\d)/g)].map((m) => ({ word: m[1]!, weight: Number(m[2]) }));
    expect(promised.map((p) => p.word)).toEqual(['#1(heat conduction)', 'composite', 'slabs']);
    expect(line).toMatch(/^3\t#weight\( /);
    const weights = new Map([...line.matchAll(/(\d+(?:\.\d+)?) (#1\([^)]*\)|[a-z]+)(?= )/g)].map((m) => [m[2]!, Number(m[1])]));
    for (const { word, weight } of promised) {
      expect(weights.has(word), `"${word}" from the title "${title}" in ${line}`).toBe(true);
      expect(Math.abs(weights.get(word)! - weight)).toBeLessThanOrEqual(0.006);
    }
    expect(line).toMatch(/\d #1\(heat conduction\)/);
    // Each query's lens is recomputed for the new text; the weighted and expanded queries still rank documents.
    await page.locator('.monaco-editor .codelens-decoration a', { hasText: /[1-9]\d* results/ }).nth(2).waitFor({ timeout: 60_000 });
    await page.keyboard.press('Escape');
    await page.mouse.move(640, 790);
    await settledScreenshot(join(OUT, 'editor.png'));
    if (UPDATE_SCREENSHOT) {
      mkdirSync(join(REPO, 'docs/images'), { recursive: true });
      cpSync(join(OUT, 'editor.png'), README_SCREENSHOT);
    }
  });

  // `npm run try` (scripts/try-in-browser.mjs) in the same suite, after the setup above: it
  // installs the .vsix into its own profile, serves samples/ on 127.0.0.1 and prints the URL;
  // SIGTERM (Ctrl+C) stops code-server with it. --skip-setup: beforeAll prepared code-server and
  // the .vsix, and recompiling dist/ now could hand a half-written file to another test's server.
  it('npm run try: prints a URL that code-server answers for samples/, with the extension installed, and stops on SIGTERM', async () => {
    const data = join(REPO, 'test-output/try-in-browser');
    rmSync(data, { recursive: true, force: true });
    const port = await freePort();
    const proc = spawn(process.execPath, ['scripts/try-in-browser.mjs', '--skip-setup', '--port', String(port), '--data', data], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    tryProcess = proc;
    let output = '';
    proc.stdout!.on('data', (d) => (output += String(d)));
    proc.stderr!.on('data', (d) => (output += String(d)));
    const exited = new Promise<number | null>((resolve) => proc.on('close', (status) => resolve(status)));
    const deadline = Date.now() + 180_000;
    let url: string | undefined;
    while (!url && Date.now() < deadline && proc.exitCode === null) {
      url = /open (http:\/\/127\.0\.0\.1:\d+\/\?folder=\S+)/.exec(output)?.[1];
      if (!url) await new Promise((r) => setTimeout(r, 250));
    }
    expect(url, output.slice(-3000)).toBe(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(join(REPO, 'samples'))}`);
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toHaveProperty('status');
    // The workbench page itself, without a password prompt (--auth none).
    const workbench = await fetch(url!);
    expect(workbench.status).toBe(200);
    expect(await workbench.text()).toMatch(/<html/i);
    expect(readdirSync(join(data, 'extensions')).some((e) => /^querylens\.querylens-\d/.test(e))).toBe(true);

    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });
});
