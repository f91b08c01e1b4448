/**
 * The results panel as a workbench in a real VS Code (code-server + Chromium, the packaged .vsix) on
 * the Cranfield sample: a user opens a query's results from its lens, explains the top hit, pages
 * past the top 10, judges a hit in place (the workspace's qrels file gains or changes exactly one
 * line), opens the document, reloads the window and finds the panel as it was, opens the scoreboard,
 * sweeps k1 and applies the best setting to querylens.json, looks a term's postings up, compares
 * three tries of the file side by side on the scoreboard, and then two scorers. Screenshots go
 * to test-output/e2e-panel/ (ignored); `panel.png` shows the workbench.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../lsp/harness.js';
import { CHROMIUM, CHROMIUM_ARGS, ensureEditorSetup, hasChromium, openFile, paletteCommand, startCodeServer, type CodeServer } from './workbench.js';

const OUT = join(REPO, 'test-output/e2e-panel');
const WORKSPACE = join(OUT, 'workspace');

if (!hasChromium) console.log(`test/e2e/panel: SKIPPED — Chromium is not installed at ${CHROMIUM} (apt-get install chromium)`);

describe.skipIf(!hasChromium)('the results panel workbench in VS Code (code-server)', { timeout: 300_000 }, () => {
  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  let page: Page;

  beforeAll(async () => {
    const vsix = await ensureEditorSetup();
    rmSync(OUT, { recursive: true, force: true });
    mkdirSync(WORKSPACE, { recursive: true });
    cpSync(join(REPO, 'samples/queries.indri'), join(WORKSPACE, 'queries.indri'));
    cpSync(join(REPO, 'samples/cranfield/corpus.jsonl'), join(WORKSPACE, 'corpus.jsonl'));
    cpSync(join(REPO, 'samples/cranfield/qrels.txt'), join(WORKSPACE, 'qrels.txt'));
    writeFileSync(join(WORKSPACE, 'querylens.json'), JSON.stringify({ corpus: 'corpus.jsonl', index: '.index', qrels: 'qrels.txt' }));
    // No model: this test is about the panel (the model's features are code-server.test.ts's).
    server = await startCodeServer(vsix, join(OUT, 'data'), { 'editor.cursorBlinking': 'solid', 'querylens.model': null }, WORKSPACE);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`http://127.0.0.1:${server.port}/?folder=${encodeURIComponent(WORKSPACE)}`);
    await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
  });

  afterAll(async () => {
    await browser?.close();
    server?.process.kill('SIGTERM');
    if (server && existsSync(OUT)) writeFileSync(join(OUT, 'code-server.log'), server.log.join(''));
  });

  /**
   * A workbench gesture, tried again when its quick input did not open (a key pressed while the
   * workbench is still restoring its editors is lost): at most three times.
   */
  async function gesture(run: () => Promise<void>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await run();
      } catch (err) {
        if (attempt === 3) throw err;
        await page.keyboard.press('Escape');
      }
    }
  }

  /** The results panel's page (webview content lives two iframes down; the first webview is the results panel). */
  const panel = () => page.frameLocator('iframe.webview').first().frameLocator('iframe#active-frame');

  it('explains, pages, judges in place and comes back after a reload', async () => {
    await gesture(() => openFile(page, 'queries.indri'));
    const lens = page.locator('.monaco-editor .codelens-decoration a', { hasText: /[1-9]\d* results/ }).first();
    await lens.waitFor({ timeout: 120_000 });
    await lens.click();
    await panel().locator('h2', { hasText: /^Query / }).waitFor({ timeout: 60_000 });
    const qid = (await panel().locator('h2').first().innerText()).replace(/^Query /, '');
    // Cranfield's qrels grade 0 to 4: the legend and the buttons follow the grades the query's judgements use.
    expect(await panel().locator('body').innerText()).toMatch(/Grades: 0 = not relevant, 1 (= relevant, 2 = highly relevant|to \d = relevant)/);

    // Explain the top hit: the score broken down, the explanation's root equal to the hit's score.
    const firstRow = panel().locator('tbody tr').first();
    const score = (await firstRow.locator('td').nth(2).innerText()).trim();
    await firstRow.locator('button', { hasText: 'explain' }).click();
    const explanation = panel().locator('#explanation');
    await explanation.waitFor({ timeout: 30_000 });
    expect(await explanation.locator('h3').innerText()).toMatch(new RegExp(`scores ${score.replace('.', '\\.')} \\(rank 1;`));
    expect(await explanation.locator('.tree li').count()).toBeGreaterThan(1);

    // Page past the top 10.
    await panel().locator('button', { hasText: 'next ▶' }).click();
    await panel().locator('p', { hasText: /^Ranks 11–20 of \d+/ }).waitFor({ timeout: 30_000 });

    // Judge rank 11 relevant: the qrels file keeps every other line and gains or changes exactly one.
    const before = readFileSync(join(WORKSPACE, 'qrels.txt'), 'utf8').split('\n');
    const top = panel().locator('tbody tr').first();
    expect((await top.locator('td').first().innerText()).trim()).toBe('11');
    const docno = (await top.locator('small').first().innerText()).trim();
    await top.locator('button[title="judge relevant, grade 1"]').click();
    await panel().locator('p i', { hasText: new RegExp(`${docno}(: grade \\d+ → 1| judged 1| was already judged 1)`) }).waitFor({ timeout: 30_000 });
    const after = readFileSync(join(WORKSPACE, 'qrels.txt'), 'utf8').split('\n');
    const judges = (l: string) => {
      const f = l.trim().split(/\s+/);
      return f.length === 4 && f[0] === qid && f[2] === docno;
    };
    const i = after.findIndex(judges);
    expect(after[i]!.trim().split(/\s+/)[3]).toBe('1');
    const j = before.findIndex(judges);
    expect([...after.slice(0, i), ...after.slice(i + 1)]).toEqual(j < 0 ? before : [...before.slice(0, j), ...before.slice(j + 1)]);
    expect(await panel().locator('button.on[title="judge relevant, grade 1"]').count()).toBeGreaterThan(0);
    await page.screenshot({ path: join(OUT, 'panel.png') });

    // Open the judged document: its stored text, read-only, in an editor of its own.
    await top.locator('button', { hasText: 'open' }).click();
    await page.waitForSelector(`.tab[aria-label*="${docno}.txt"]`, { timeout: 30_000 });
    await page.locator('.monaco-editor .view-lines', { hasText: `docno: ${docno}` }).first().waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(OUT, 'document.png') });

    // A reload brings the panel back on the same page (webview state + serializer).
    await gesture(() => paletteCommand(page, 'Developer: Reload Window'));
    await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
    await panel().locator('p', { hasText: /^Ranks 11–20 of \d+/ }).waitFor({ timeout: 120_000 });
    expect(await panel().locator('h2').first().innerText()).toBe(`Query ${qid}`);
    await page.screenshot({ path: join(OUT, 'panel-restored.png') });
  });

  it('scores every query of the file on the scoreboard', async () => {
    await gesture(() => openFile(page, 'queries.indri'));
    // The workbench commands are offered while a query file's editor is active: click into its text,
    // since after the reload the restored results panel may hold the focus.
    await page.locator('.monaco-editor .view-lines').first().click();
    await gesture(() => paletteCommand(page, 'querylens: Scoreboard'));
    const board = page.frameLocator('iframe.webview').last().frameLocator('iframe#active-frame');
    await board.locator('#scoreboard').waitFor({ timeout: 120_000 });
    expect(await board.locator('#scoreboard tbody tr').count()).toBeGreaterThan(2);
    expect(await board.locator('#scoreboard tbody tr').first().innerText()).toMatch(/^mean \(\d+\)/);
    await page.screenshot({ path: join(OUT, 'scoreboard.png') });
  });

  /** The one webview open (the others closed first). */
  const onlyWebview = () => page.frameLocator('iframe.webview').first().frameLocator('iframe#active-frame');

  it('sweeps k1 and applies the best setting to querylens.json; browses the index', async () => {
    await gesture(() => paletteCommand(page, 'View: Close All Editors'));
    await gesture(() => openFile(page, 'queries.indri'));
    await gesture(() => paletteCommand(page, 'querylens: Sweep Parameters'));
    // The input box for the grid.
    await page.locator('.quick-input-widget', { hasText: 'Values per parameter' }).waitFor({ timeout: 20_000 });
    const input = page.locator('.quick-input-widget input').first();
    await input.fill('k1=0.9,1.2 b=0.75');
    await page.keyboard.press('Enter');
    const sweep = onlyWebview();
    await sweep.locator('#sweep').waitFor({ timeout: 120_000 });
    expect(await sweep.locator('#sweep tbody tr').count()).toBe(2);
    const best = await sweep.locator('#best td').first().innerText();
    const k1 = /k1=([\d.]+)/.exec(best)![1]!;
    await sweep.locator('button', { hasText: /^Apply / }).click();
    await sweep.locator('p i', { hasText: /querylens\.json now sets/ }).waitFor({ timeout: 30_000 });
    await expect.poll(() => JSON.parse(readFileSync(join(WORKSPACE, 'querylens.json'), 'utf8')), { timeout: 30_000 }).toMatchObject({
      corpus: 'corpus.jsonl',
      qrels: 'qrels.txt',
      scorer: { k1: Number(k1), b: 0.75 },
    });
    await page.screenshot({ path: join(OUT, 'sweep.png') });

    await gesture(() => paletteCommand(page, 'View: Close All Editors'));
    await gesture(() => openFile(page, 'queries.indri'));
    await gesture(() => paletteCommand(page, 'querylens: Index Browser'));
    const browser = onlyWebview();
    const postings = browser.locator('form', { hasText: 'Postings of a term' });
    await postings.waitFor({ timeout: 30_000 });
    await postings.locator('input').fill('flow');
    await postings.locator('button').click();
    await browser.locator('#postings tbody tr').first().waitFor({ timeout: 30_000 });
    expect(await browser.locator('h3', { hasText: /^Postings of flow: df \d+, cf \d+/ }).count()).toBe(1);
    await page.screenshot({ path: join(OUT, 'index-browser.png') });
  });

  it('compares three ticked tries side by side against the baseline marked', async () => {
    await gesture(() => paletteCommand(page, 'View: Close All Editors'));
    // The first try is the scoreboard test's; two more (the second and third after the sweep's setting).
    // Each try under another k1 (a run the same as the last try is not a new try). The edit of
    // querylens.json reloads the engine: a scoreboard run meanwhile says so (no try recorded) and is run again.
    for (let want = 2; want <= 3; want++) {
      const config = JSON.parse(readFileSync(join(WORKSPACE, 'querylens.json'), 'utf8'));
      writeFileSync(join(WORKSPACE, 'querylens.json'), JSON.stringify({ ...config, scorer: { ...config.scorer, k1: want === 2 ? 0.5 : 2.0 } }));
      for (let attempt = 1; ; attempt++) {
        await gesture(() => openFile(page, 'queries.indri'));
        await page.locator('.monaco-editor .view-lines').first().click();
        await gesture(() => paletteCommand(page, 'querylens: Scoreboard'));
        const heading = onlyWebview().locator('h3', { hasText: /^Tries of this file/ });
        await heading.waitFor({ timeout: 120_000 });
        if ((await heading.innerText()) === `Tries of this file (${want})`) break;
        if (attempt === 10) {
          await page.screenshot({ path: join(OUT, 'scoreboard-three-tries-failed.png') });
          throw new Error(`the scoreboard did not record try ${want}: ${await onlyWebview().locator('body').innerText()}`);
        }
        await page.waitForTimeout(3000);
      }
    }
    const board = onlyWebview();
    const tries = board.locator('#tries tbody tr');
    // A scoreboard run of an earlier attempt may still re-render the page: wait for the table.
    await expect.poll(() => tries.count(), { timeout: 30_000 }).toBe(3);
    for (let i = 0; i < 3; i++) {
      await board.locator('#tries tbody tr').nth(i).locator('button', { hasText: '☐' }).click();
      await board.locator('#tries tbody tr').nth(i).locator('button', { hasText: '☑' }).waitFor({ timeout: 30_000 });
    }
    // The second try as the baseline.
    await board.locator('#tries tbody tr').nth(1).locator('button', { hasText: /^baseline$/ }).click();
    await board.locator('#tries tbody tr').nth(1).getByText('★ baseline').waitFor({ timeout: 30_000 });
    await board.locator('button', { hasText: 'Compare the 3 ticked tries' }).click();
    await board.locator('#try-list').waitFor({ timeout: 60_000 });
    expect(await board.locator('#try-list thead tr').first().innerText()).toMatch(/try 1\s+★ try 2 \(baseline\)\s+try 3/);
    expect(await board.locator('section h3', { hasText: /^3 tries against try 2: paired t-test over \d+ queries, Holm-corrected across \d+ tests/ }).count()).toBe(1);
    expect(await board.locator('#try-list tbody tr').count()).toBe(5);
    await page.screenshot({ path: join(OUT, 'scoreboard-three-tries.png') });
  });

  it('ranks the file with two scorers and sets them side by side', async () => {
    const board = onlyWebview();
    // The configured scorer (bm25) is ticked; tick query likelihood too, then rank and compare.
    await board.locator('#scorers button', { hasText: /^☑ bm25 ★$/ }).waitFor({ timeout: 30_000 });
    await board.locator('#scorers button', { hasText: /^☐ ql$/ }).click();
    await board.locator('#scorers button', { hasText: /^☑ ql$/ }).waitFor({ timeout: 30_000 });
    await board.locator('button', { hasText: 'Rank with the 2 ticked scorers and compare' }).click();
    await board.locator('#try-list').waitFor({ timeout: 120_000 });
    const heading = await board.locator('section h3', { hasText: /^2 tries against try \d+/ }).innerText();
    // The bm25 run repeats the latest try (the same settings) or is a new one; the ql run is a new try, listed under its own settings.
    expect(heading).toMatch(/^2 tries against try [34]: paired t-test over \d+ queries/);
    expect(await board.locator('#tries tbody tr').last().innerText()).toContain('QL μ=');
    expect(await board.locator('#try-list tbody tr').count()).toBe(5);
    await page.screenshot({ path: join(OUT, 'scoreboard-scorers.png') });

    // The scoreboard has the focus now (no text editor is active): the command still finds the
    // query file beside it (client/src/query-editors.ts) and ranks it again, the comparison closed.
    await board.locator('h2').first().click();
    await gesture(() => paletteCommand(page, 'querylens: Scoreboard'));
    await board.locator('#try-list').waitFor({ state: 'detached', timeout: 120_000 });
    expect(await board.locator('#scoreboard').count()).toBe(1);
  });
});
