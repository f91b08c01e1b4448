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

/** The project's own module graph (relative imports, type-only ones too), keyed by repo-relative path. */
function moduleGraph(folders: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const folder of folders) {
    for (const file of sources(join(ROOT, folder))) {
      const from = relative(ROOT, file);
      const targets = imports(file)
        .filter((s) => !s.startsWith('.') && (s.startsWith('grammar/') || s.startsWith('server/') || s.startsWith('client/')))
        .map((s) => s.replace(/\.js$/, '.ts').replace(/\.mjs$/, '.mts'));
      graph.set(from, targets);
    }
  }
  return graph;
}

/** Strongly connected components with more than one module (Tarjan), i.e. the import cycles. */
function importCycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

describe('architecture invariants', () => {
  it('the cycle finder finds a cycle (self-check)', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(importCycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('no import cycles among the project modules (type-only imports included)', () => {
    expect(importCycles(moduleGraph(['grammar', 'server', 'client/src']))).toEqual([]);
  });

  it('grammar/ imports nothing from server/, client/ or vscode', () => {
    expect(violations('grammar', (s) => s.startsWith('server') || s.startsWith('client') || s.startsWith('vscode'))).toEqual([]);
  });

  it('the engine (server/engine) knows nothing of the LSP, the CLI or the model', () => {
    expect(
      violations('server/engine', (s) => s.startsWith('server/lsp') || s.startsWith('server/cli') || s.startsWith('server/model') || s.startsWith('vscode')),
    ).toEqual([]);
  });

  it('the engine draws nothing on a terminal: the index build reports progress through a callback, the CLI draws the bar', () => {
    expect(violations('server/engine', (s) => s === 'cli-progress')).toEqual([]);
  });

  it('the model runtime (server/model) knows nothing of the LSP or the CLI', () => {
    expect(violations('server/model', (s) => s.startsWith('server/lsp') || s.startsWith('server/cli') || s.startsWith('vscode'))).toEqual([]);
  });

  it('the service layer (server/service) knows nothing of the LSP, the CLI or an editor', () => {
    expect(violations('server/service', (s) => s.startsWith('server/lsp') || s.startsWith('server/cli') || s.startsWith('vscode'))).toEqual([]);
  });

  it('the engine and the model know nothing of the service layer above them', () => {
    for (const folder of ['server/engine', 'server/model']) expect(violations(folder, (s) => s.startsWith('server/service'))).toEqual([]);
  });

  it("the LSP's engine features reach the index only through server/service (no server/engine/index, no IndexReader)", () => {
    expect(violations('server/lsp/engine', (s) => s.startsWith('server/engine/index'))).toEqual([]);
    const named = sources(join(ROOT, 'server/lsp/engine')).filter((f) => /\bIndexReader\b/.test(readFileSync(f, 'utf8')));
    expect(named.map((f) => relative(ROOT, f))).toEqual([]);
  });

  it("the LSP shows the engine's query checks (server/engine/scoring/lint.ts) instead of re-deriving them", () => {
    expect(violations('server/lsp', (s) => s.startsWith('server/engine/scoring/vocabulary-match'))).toEqual([]);
  });

  it('the cluster backend (server/backends) knows nothing of the LSP, the CLI or an editor', () => {
    expect(violations('server/backends', (s) => s.startsWith('server/lsp') || s.startsWith('server/cli') || s.startsWith('vscode'))).toEqual([]);
  });

  it('the language server loads the cluster clients only when a cluster is configured (type imports or import())', () => {
    // cluster-backend.ts imports both official clients; a static value import would load them on every start.
    const eager = sources(join(ROOT, 'server/lsp')).filter((f) =>
      /^import\s+(?!type\b)[^;]*?from\s+['"][^'"]*backends\/remote\/cluster-backend\.js['"]/m.test(readFileSync(f, 'utf8')),
    );
    expect(eager.map((f) => relative(ROOT, f))).toEqual([]);
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
