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
    expect(() => resolveParameters({ scorer: 'bm26' as never })).toThrow(/unknown scorer "bm26" \(expected bm25, bm25-lucene or ql\)/);
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

  it("the VS Code setting querylens.scorer.name offers the registry's scorers", () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'client/package.json'), 'utf8'));
    expect(manifest.contributes.configuration.properties['querylens.scorer.name'].enum).toEqual([...SCORER_NAMES, null]);
  });
});
