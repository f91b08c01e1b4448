/**
 * The extension manifest agrees with the code: the languages activate the extension, the
 * settings are exactly the server's configuration keys, every contributed command is
 * registered by the extension (no stubs), the comment syntax is the query files' one, and
 * the custom semantic token types are declared.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMENT_PREFIX } from '../../grammar/index.js';
import { validateConfig } from '../../server/lsp/config.js';
import { SEMANTIC_TOKENS_LEGEND } from '../../server/lsp/semantic-tokens.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const manifest = JSON.parse(read('client/package.json'));
/** Every source file of the extension: commands are registered in extension.ts and commands.ts. */
const clientSources = readdirSync(new URL('../../client/src/', import.meta.url))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => read(`client/src/${f}`));
const registered = clientSources.flatMap((src) => [...src.matchAll(/registerCommand\('([^']+)'/g)].map((m) => m[1]!)).sort();

describe('client/package.json', () => {
  it('activates on both languages and a restored results panel, and targets VS Code 1.91+', () => {
    // The languages, and the results panel VS Code restores after a reload (its serializer).
    expect(manifest.activationEvents).toEqual(['onLanguage:indri', 'onLanguage:lucene', 'onWebviewPanel:querylens.results']);
    expect(manifest.engines.vscode).toBe('^1.91.0');
    expect(manifest.contributes.languages.map((l: { id: string }) => l.id)).toEqual(['indri', 'lucene']);
    expect(manifest.main).toBe('./dist/extension.js');
  });

  it('makes TAB insert a TAB in query files, so qid<TAB>query keeps its id', () => {
    for (const lang of ['[indri]', '[lucene]']) {
      expect(manifest.contributes.configurationDefaults[lang]).toMatchObject({ 'editor.insertSpaces': false, 'editor.detectIndentation': false });
    }
  });

  it("hides the index folders out of the explorer: the samples' .index and the documented .querylens/index", () => {
    // VS Code merges an object default contributed here with its own (.git, node_modules …).
    const excluded = manifest.contributes.configurationDefaults['files.exclude'];
    const samples = JSON.parse(read('samples/querylens.json')) as { index: string };
    expect(excluded[`**/${samples.index.split('/')[0]}`]).toBe(true);
    const documented = /"index": "([^"]+)"/.exec(read('docs/LSP_EXTENSIONS.md'))![1]!;
    expect(excluded[`**/${documented.split('/')[0]}`]).toBe(true);
  });

  it('registers every contributed command, and only those, once each', () => {
    const contributed = manifest.contributes.commands.map((c: { command: string }) => c.command).sort();
    expect(registered).toEqual(contributed);
    expect(new Set(registered).size).toBe(registered.length);
  });

  it('offers the commands of issue 4 §2 in the palette of Indri and Lucene editors, under the querylens category', () => {
    const titles = Object.fromEntries(manifest.contributes.commands.map((c: { command: string; title: string }) => [c.command, c.title]));
    // What a user types to find them.
    expect(titles).toMatchObject({
      'querylens.buildIndex': expect.stringMatching(/^Build Index/),
      'querylens.showResults': 'Preview Results',
      'querylens.compare': expect.stringMatching(/^Compare/),
      'querylens.applyWeightsToFile': expect.stringMatching(/^Apply Weights to Every Query/),
      'querylens.exportRun': 'Export Run File',
    });
    for (const c of manifest.contributes.commands) expect(c.category, c.command).toBe('querylens');
    const palette = new Map(manifest.contributes.menus.commandPalette.map((m: { command: string; when: string }) => [m.command, m.when]));
    for (const command of registered) {
      expect(palette.get(command), command).toContain('editorLangId == indri');
      expect(palette.get(command), command).toContain('editorLangId == lucene');
    }
    // The whole-file workbench commands stay in the palette while a panel beside the query file has
    // the focus (the context key client/src/commands.ts trackQueryEditors keeps).
    for (const command of ['querylens.scoreboard', 'querylens.sweep', 'querylens.indexBrowser', 'querylens.exportRun', 'querylens.applyWeightsToFile'])
      expect(palette.get(command), command).toContain('querylens.queryFileVisible');
  });

  it('offers settings the server accepts, one per configuration key', () => {
    const settings: Record<string, unknown> = {};
    for (const [key, schema] of Object.entries<{ enum?: unknown[]; type: string | string[] }>(manifest.contributes.configuration.properties)) {
      const path = key.replace(/^querylens\./, '').split('.');
      const types = ([] as string[]).concat(schema.type);
      const sample = schema.enum?.find((v) => v !== null) ?? (types.includes('integer') ? 3 : types.includes('number') ? 0.5 : types.includes('boolean') ? true : 'x');
      let target = settings;
      for (const part of path.slice(0, -1)) target = (target[part] ??= {}) as Record<string, unknown>;
      target[path.at(-1)!] = sample;
    }
    const { problems } = validateConfig(settings, 'settings');
    expect(problems).toEqual([]);
    for (const key of ['index', 'corpus', 'qrels', 'model', 'device', 'scorer.name', 'scorer.k1', 'scorer.b', 'scorer.mu', 'expansion.method', 'expansion.fbDocs', 'expansion.fbTerms', 'learnedExpansion.hints']) {
      expect(manifest.contributes.configuration.properties).toHaveProperty([`querylens.${key}`]);
    }
    // Unset settings must not override querylens.json: every default is null.
    for (const schema of Object.values<{ default: unknown }>(manifest.contributes.configuration.properties)) expect(schema.default).toBeNull();
  });

  it('comments lines the way query files do', () => {
    for (const language of ['indri', 'lucene']) {
      const config = JSON.parse(read(`client/language-configuration-${language}.json`));
      expect(config.comments.lineComment).toBe(COMMENT_PREFIX);
    }
  });

  it('declares the custom semantic token types the server uses', () => {
    const standard = new Set(['operator', 'string', 'number', 'regexp', 'comment', 'keyword']);
    const custom = SEMANTIC_TOKENS_LEGEND.tokenTypes.filter((t) => !standard.has(t));
    expect(manifest.contributes.semanticTokenTypes.map((t: { id: string }) => t.id).sort()).toEqual(custom.sort());
  });
});

describe('docs/LSP_EXTENSIONS.md', () => {
  it('documents every custom message and configuration key', async () => {
    const doc = read('docs/LSP_EXTENSIONS.md');
    const server = read('server/lsp/server.ts');
    for (const m of server.matchAll(/export const \w+_(?:REQUEST|NOTIFICATION) = '([^']+)'/g)) expect(doc).toContain(`\`${m[1]}\``);
    for (const key of Object.keys(manifest.contributes.configuration.properties)) {
      const [section] = key.replace(/^querylens\./, '').split('.');
      expect(doc).toContain(`"${section}"`);
    }
  });
});
