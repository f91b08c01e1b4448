/**
 * The architecture invariants of docs/ARCHITECTURE.md, checked on the import statements of
 * every source file, so a change that breaks the layering fails here rather than in review.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/build.js';

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sources(path));
    else if (/\.(ts|mts)$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** Every module specifier imported (statically or dynamically) by a file, resolved when relative. */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"]([^'"]+)['"]/g)].map((m) => m[1]);
  return specs.map((s) => (s.startsWith('.') ? relative(ROOT, resolve(dirname(file), s)) : s));
}

function violations(folder: string, forbidden: (spec: string) => boolean): string[] {
  return sources(join(ROOT, folder)).flatMap((f) =>
    imports(f)
      .filter(forbidden)
      .map((s) => `${relative(ROOT, f)} imports ${s}`),
  );
}

describe('architecture invariants', () => {
  it('grammar/ imports nothing from server/, client/ or vscode', () => {
    expect(violations('grammar', (s) => s.startsWith('server') || s.startsWith('client') || s.startsWith('vscode'))).toEqual([]);
  });

  it('the engine (server/engine) knows nothing of the LSP, the CLI or the model', () => {
    expect(
      violations('server/engine', (s) => s.startsWith('server/lsp') || s.startsWith('server/cli') || s.startsWith('server/model') || s.startsWith('vscode')),
    ).toEqual([]);
  });

  it('the model runtime (server/model) knows nothing of the LSP or the CLI', () => {
    expect(violations('server/model', (s) => s.startsWith('server/lsp') || s.startsWith('server/cli') || s.startsWith('vscode'))).toEqual([]);
  });

  it('only the client imports the vscode API', () => {
    for (const folder of ['grammar', 'server']) {
      expect(violations(folder, (s) => s === 'vscode' || s === 'vscode-languageclient' || s.startsWith('vscode-languageclient/'))).toEqual([]);
    }
  });

  it('the client talks to the server only over LSP (no imports of server/ or grammar/ internals)', () => {
    expect(violations('client/src', (s) => s.startsWith('server/engine') || s.startsWith('server/model'))).toEqual([]);
  });
});
