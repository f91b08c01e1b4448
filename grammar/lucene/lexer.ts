/** The Lucene lexer: built once at module load and reused (SEMANTICS.md §3, tokens in tokens.ts). */
import { Lexer, type ILexingResult } from 'chevrotain';
import { And, defaultModeTokens, Not, Or, rangeModeTokens, Word } from './tokens.js';

export const luceneLexer = new Lexer(
  { modes: { default: defaultModeTokens, range: rangeModeTokens }, defaultMode: 'default' },
  {
    // Offsets are all the AST needs; line/column tracking costs time on 10k-line files.
    positionTracking: 'onlyOffset',
    // The term patterns use negated classes and a look-ahead, which Chevrotain cannot
    // index by first character; that only costs a little speed.
    ensureOptimizations: false,
  },
);

export function lexLucene(text: string): ILexingResult {
  const result = luceneLexer.tokenize(text);
  // Operator words: a Word whose whole text is AND, &&, OR, || or NOT (see tokens.ts).
  for (const t of result.tokens) {
    if (t.tokenType !== Word || t.image.length > 3 || t.image.length < 2) continue;
    const type = t.image === 'AND' || t.image === '&&' ? And : t.image === 'OR' || t.image === '||' ? Or : t.image === 'NOT' ? Not : null;
    if (type) {
      t.tokenType = type;
      t.tokenTypeIdx = type.tokenTypeIdx!;
    }
  }
  return result;
}
