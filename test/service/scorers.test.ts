/**
 * The scorer registry (server/engine/scoring/scorers.ts) is the one list of scorers: the engine's
 * defaults, the CLI's options, querylens.json's check and the VS Code settings all follow it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveParameters } from '../../server/engine/search.js';
import { SCORER_NAMES, SCORERS } from '../../server/engine/scoring/scorers.js';
import { validateConfig } from '../../server/lsp/config.js';
import { searchOptionsOf } from '../../server/lsp/engine/session.js';
import { resolveConfig } from '../../server/lsp/config.js';
import { toSearchOptions } from '../../server/cli/commands/search-options.js';
import { ROOT } from '../support/build.js';

describe('scorer registry', () => {
  it('resolves every scorer to the defaults it lists', () => {
    for (const name of SCORER_NAMES) {
      const p = resolveParameters({ scorer: name });
      for (const [key, value] of Object.entries(SCORERS[name].defaults)) expect(p[key as 'k1'], `${name} ${key}`).toBe(value);
    }
    expect(() => resolveParameters({ scorer: 'bm26' as never })).toThrow(/unknown scorer "bm26" \(expected bm25, bm25-lucene, ql, bm25f or impact\)/);
  });

  it('the CLI accepts exactly the registered scorers', () => {
    for (const name of SCORER_NAMES) expect(toSearchOptions({ scorer: name, windowStats: 'exact' }).scorer).toBe(name);
    expect(() => toSearchOptions({ scorer: 'tfidf', windowStats: 'exact' })).toThrow(`unknown --scorer 'tfidf' (expected ${SCORER_NAMES.join(', ')})`);
  });

  it('querylens.json accepts every registered scorer and the session ranks with it', () => {
    for (const name of SCORER_NAMES) {
      const { problems } = validateConfig({ scorer: { name } }, 'querylens.json');
      expect(problems, name).toEqual([]);
      expect(searchOptionsOf(resolveConfig({ scorer: { name } }, null)).scorer).toBe(name);
    }
    expect(validateConfig({ scorer: { name: 'tfidf' } }, 'querylens.json').problems).toHaveLength(1);
  });

  it("the session passes each scorer the configured values of exactly the parameters it reads", () => {
    const config = (name: string) => resolveConfig({ scorer: { name, k1: 1.1, b: 0.5, mu: 900 } } as never, null);
    expect(SCORER_NAMES.map((name) => searchOptionsOf(config(name)))).toEqual([
      { scorer: 'bm25', k1: 1.1, b: 0.5 },
      { scorer: 'bm25-lucene', k1: 1.1, b: 0.5 },
      { scorer: 'ql', mu: 900 },
      { scorer: 'bm25f', k1: 1.1, fieldParams: {} },
      { scorer: 'impact' },
    ]);
  });

  it("querylens.json's bm25f per-field parameters reach the session's search options", () => {
    const { config, problems } = validateConfig({ scorer: { name: 'bm25f', 'w.title': 2, 'c.text': 0.5, k1: 1 } }, 'querylens.json');
    expect(problems).toEqual([]);
    expect(searchOptionsOf(resolveConfig(config, null))).toEqual({ scorer: 'bm25f', k1: 1, fieldParams: { 'w.title': 2, 'c.text': 0.5 } });
    const bad = validateConfig({ scorer: { name: 'bm25f', 'w.title': 'two', 'x.title': 1 } }, 'querylens.json').problems.map((p) => p.message);
    expect(bad).toEqual(['"scorer.w.title" must be a number', 'unknown key "scorer.x.title" (known: name, k1, b, mu, w.<field>, c.<field>)']);
    // Other scorers do not read them.
    expect(searchOptionsOf(resolveConfig({ scorer: { name: 'bm25', 'w.title': 2 } }, null))).toEqual({ scorer: 'bm25', k1: 1.2, b: 0.75 });
  });

  it("the VS Code setting querylens.scorer.name offers the registry's scorers", () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'client/package.json'), 'utf8'));
    expect(manifest.contributes.configuration.properties['querylens.scorer.name'].enum).toEqual([...SCORER_NAMES, null]);
  });
});

describe('the editor session with bm25f settings', () => {
  it('drops a w.<field>/c.<field> for a field the index lacks and says so once, keeping the others', async () => {
    const { buildMemoryIndex } = await import('../../server/engine/index/index.js');
    const { LocalIndexBackend } = await import('../../server/service/backend.js');
    const { EngineSession } = await import('../../server/lsp/engine/session.js');
    const reader = buildMemoryIndex([{ docno: 'a', fields: { title: 'wing', text: 'flow wing' } }], { profile: 'terrier' });
    const config = resolveConfig({ scorer: { name: 'bm25f', 'w.titel': 2, 'c.text': 0.5 } }, null);
    const session = new EngineSession(new LocalIndexBackend(reader, 'test'), config, null, '/nowhere');
    expect(session.options.fieldParams).toEqual({ 'c.text': 0.5 });
    expect(session.settingsProblem).toBe('scorer "w.titel" ignored: the index has no such field (its fields: title, text)');
    expect(new EngineSession(new LocalIndexBackend(reader, 'test'), resolveConfig({ scorer: { name: 'bm25f', 'w.title': 2 } }, null), null, '/nowhere').settingsProblem).toBeUndefined();
  });
});
