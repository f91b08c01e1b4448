/**
 * Snapshot tests of the TextMate grammars (client/syntaxes): every fixture line is
 * tokenised with vscode-textmate + vscode-oniguruma and written as a "token | scopes"
 * table, compared with the checked-in snapshot next to the fixture. A change in how a
 * grammar colours anything shows up as a snapshot diff to review.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import oniguruma from 'vscode-oniguruma';
import textmate from 'vscode-textmate';
import { beforeAll, describe, expect, it } from 'vitest';

const { INITIAL, Registry, parseRawGrammar } = textmate;
const require = createRequire(import.meta.url);
const HERE = fileURLToPath(new URL('.', import.meta.url));
const SYNTAXES = fileURLToPath(new URL('../../client/syntaxes/', import.meta.url));

const GRAMMARS: Record<string, { scope: string; file: string }> = {
  indri: { scope: 'source.indri', file: 'indri.tmLanguage.json' },
  lucene: { scope: 'source.lucene', file: 'lucene.tmLanguage.json' },
};

let registry: InstanceType<typeof Registry>;

beforeAll(async () => {
  const wasm = readFileSync(join(require.resolve('vscode-oniguruma'), '../onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  registry = new Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns: string[]) => new oniguruma.OnigScanner(patterns),
      createOnigString: (s: string) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scopeName: string) => {
      const entry = Object.values(GRAMMARS).find((g) => g.scope === scopeName);
      if (!entry) return null;
      const path = join(SYNTAXES, entry.file);
      return parseRawGrammar(readFileSync(path, 'utf8'), path);
    },
  });
});

/** "token | scopes" table of a text, one row per token, blank line between source lines. */
export async function tokenTable(language: string, text: string): Promise<string> {
  const grammar = await registry.loadGrammar(GRAMMARS[language].scope);
  if (!grammar) throw new Error(`no grammar for ${language}`);
  let stack = INITIAL;
  const rows: string[] = [];
  for (const line of text.replace(/\n$/, '').split('\n')) {
    const result = grammar.tokenizeLine(line, stack);
    rows.push(`> ${line}`);
    for (const token of result.tokens) {
      const piece = line.slice(token.startIndex, token.endIndex);
      if (piece.trim() === '') continue;
      rows.push(`${JSON.stringify(piece)} | ${token.scopes.slice(1).join(' ')}`);
    }
    stack = result.ruleStack;
  }
  return rows.join('\n') + '\n';
}

describe('TextMate grammars', () => {
  const fixtures = readdirSync(join(HERE, 'fixtures')).filter((f) => /\.(indri|lucene)$/.test(f));
  for (const fixture of fixtures) {
    const language = fixture.split('.').pop()!;
    it(`tokenises ${fixture} as in its snapshot`, async () => {
      const table = await tokenTable(language, readFileSync(join(HERE, 'fixtures', fixture), 'utf8'));
      await expect(table).toMatchFileSnapshot(join(HERE, '__snapshots__', `${fixture}.tokens.txt`));
    });
  }

  it('scopes the pieces users rely on', async () => {
    const indri = await tokenTable('indri', '1\t#weight( 0.5 cat.title 1 "raw" )\n// note');
    expect(indri).toContain('"#weight" | keyword.operator.indri');
    expect(indri).toContain('"0.5" | constant.numeric.weight.indri');
    expect(indri).toContain('"title" | entity.other.attribute-name.field.indri');
    expect(indri).toContain('"1" | entity.name.section.qid.indri');
    expect(indri).toContain('"\\"raw\\"" | string.quoted.double.indri');
    expect(indri).toMatch(/"\/\/" \| comment\.line\.double-slash\.indri punctuation\.definition\.comment\.indri/);
    const lucene = await tokenTable('lucene', 'title:cat^2 AND "a b"~3');
    expect(lucene).toContain('"title" | entity.other.attribute-name.field.lucene');
    expect(lucene).toContain('"2" | constant.numeric.weight.lucene');
    expect(lucene).toContain('"AND" | keyword.operator.logical.lucene');
    expect(lucene).toContain('"3" | constant.numeric.lucene');
  });
});
