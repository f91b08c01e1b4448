/** The Lucene lexer: built once at module load and reused (SPECS §3, tokens in tokens.ts). */
import { Lexer, type ILexingResult } from 'chevrotain';
import { defaultModeTokens, rangeModeTokens } from './tokens.js';

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
  return luceneLexer.tokenize(text);
}
