/**
 * What the code-server end-to-end tests share: the one-time editor setup (code-server and the
 * packaged .vsix), starting code-server on a free port with its own user data, and the
 * workbench gestures a user makes (quick open, command palette).
 *
 * The setup runs under a lock: vitest may run code-server.test.ts and commands.test.ts at the
 * same time, and two `npm install`s into .cache/code-server or two packagers writing
 * out/vsix-staging at once break each other.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { REPO } from '../lsp/harness.js';
import { runChecked } from '../support/process.js';

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
export const CODE_SERVER = join(REPO, '.cache/code-server/node_modules/code-server/out/node/entry.js');
export const MODEL = join(REPO, 'model/artifacts');
export const hasChromium = existsSync(CHROMIUM);

const LOCK = join(REPO, '.cache/e2e-setup.lock');
/** A lock older than this was left by a killed run (the setup itself takes minutes, not this). */
const STALE_LOCK_MS = 30 * 60_000;

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

async function withLock<T>(work: () => Promise<T>): Promise<T> {
  mkdirSync(join(REPO, '.cache'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(LOCK); // atomic: exactly one caller creates it
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      try {
        if (Date.now() - statSync(LOCK).mtimeMs > STALE_LOCK_MS) rmSync(LOCK, { recursive: true, force: true });
      } catch {
        // released meanwhile
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

/**
 * Installs code-server and packages the .vsix when missing (scripts/e2e-setup.mjs), or
 * repackages a .vsix older than the sources (test what the sources say, not an old package).
 * Returns the .vsix path.
 */
export function ensureEditorSetup(): Promise<string> {
  return withLock(async () => {
    const version = JSON.parse(readFileSync(join(REPO, 'client/package.json'), 'utf8')).version;
    const vsix = join(REPO, 'out', `querylens-linux-x64-${version}.vsix`);
    if (!existsSync(CODE_SERVER) || !existsSync(vsix)) await runChecked(process.execPath, ['scripts/e2e-setup.mjs'], { cwd: REPO, echo: true });
    else if (statSync(vsix).mtimeMs < Math.max(...['client', 'server', 'grammar'].map((d) => newestMtime(join(REPO, d))))) {
      await runChecked(process.execPath, ['scripts/package-vsix.mjs'], { cwd: REPO, echo: true });
    }
    return vsix;
  });
}

export function freePort(): Promise<number> {
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
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

export interface CodeServer {
  process: ChildProcess;
  port: number;
  /** What code-server printed (written next to the screenshots after the tests). */
  log: string[];
}

/**
 * Installs `vsix` into a fresh user-data folder under `dataDir` with the given user settings,
 * then starts code-server on a free port and waits until it answers.
 */
export async function startCodeServer(vsix: string, dataDir: string, settings: Record<string, unknown>, workspace: string): Promise<CodeServer> {
  mkdirSync(join(dataDir, 'u/User'), { recursive: true });
  // A quiet editor: no welcome page, no trust prompt, no telemetry.
  const quiet = {
    'workbench.startupEditor': 'none',
    'security.workspace.trust.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'workbench.tips.enabled': false,
    'git.openRepositoryInParentFolders': 'never',
    // The model lies outside the test workspaces, and a workspace's querylens.json may only name
    // paths inside it (docs/ARCHITECTURE.md, "Trust model"): the user's own settings name it.
    'querylens.model': MODEL,
  };
  writeFileSync(join(dataDir, 'u/User/settings.json'), JSON.stringify({ ...quiet, ...settings }));
  const dirs = ['--user-data-dir', join(dataDir, 'u'), '--extensions-dir', join(dataDir, 'e')];
  await runChecked(process.execPath, [CODE_SERVER, ...dirs, '--install-extension', vsix]);
  const port = await freePort();
  const child = spawn(process.execPath, [CODE_SERVER, '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', ...dirs, workspace], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log: string[] = [];
  child.stdout!.on('data', (d) => log.push(String(d)));
  child.stderr!.on('data', (d) => log.push(String(d)));
  await waitForHttp(`http://127.0.0.1:${port}/healthz`, 60_000);
  return { process: child, port, log };
}

/** Opens `name` through Quick Open (Ctrl+P), as a user does, and waits for its tab. */
export async function openFile(page: Page, name: string): Promise<void> {
  await page.keyboard.press('Control+P');
  await page.waitForSelector('.quick-input-widget input', { state: 'visible' });
  await page.keyboard.type(name);
  await page.waitForSelector(`.quick-input-list .monaco-list-row[aria-label*="${name}"]`, { timeout: 20_000 });
  await page.keyboard.press('Enter');
  await page.waitForSelector(`.tab[aria-label*="${name}"]`, { timeout: 20_000 });
}

/** Runs a command from the command palette by its label (the palette stays open when the command opens a quick input). */
export async function paletteCommand(page: Page, label: string): Promise<void> {
  // Right after a window reload the workbench may still take the focus back (a restored panel, a
  // notification), swallowing the typed label: close the palette and type again, a few times.
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('Control+Shift+P');
    await page.waitForSelector('.quick-input-widget input', { state: 'visible' });
    await page.keyboard.type(label);
    try {
      await page.locator('.quick-input-list .monaco-list-row', { hasText: label }).first().waitFor({ timeout: 20_000 });
      break;
    } catch (err) {
      if (attempt === 3) {
        await page.screenshot({ path: 'test-output/palette-failure.png' }).catch(() => undefined);
        throw err;
      }
      await page.keyboard.press('Escape');
    }
  }
  await page.keyboard.press('Enter');
}
