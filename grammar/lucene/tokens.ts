/**
 * Token types of the Lucene classic query syntax (SPECS §3), mirroring the lexical states
 * of Lucene's `QueryParser.jj`: a default state and a range state entered by `[` / `{`.
 *
 * Deliberate differences from the JavaCC lexer, each chosen so that the editor can report
 * a located diagnostic instead of a lexical failure:
 * - Unterminated quotes and regexes lex as their own token (to the end of the text) so the
 *   parser can say "missing closing quote" and still build a phrase.
 * - A stray `]` / `}` outside a range, and a `\` at the very end of the text, are tokens.
 * - There is no separate boost state: the number after `^` lexes as a `Word`, which the
 *   parser takes as the boost only when it looks like Lucene's NUMBER `[0-9]+(\.[0-9]+)?`.
 * - Terms, prefix terms and wildcard terms are one `Word` token; the visitor classifies
 *   them by their unescaped `*` / `?`.
 */
import { createToken, Lexer, type TokenType } from 'chevrotain';

/** Lucene's whitespace: space, tab, CR, LF and the ideographic space U+3000 (nothing else). */
const WS = ' \\t\\n\\r\\u3000';
/** Characters that cannot start a term unless escaped. */
const TERM_START = `[^${WS}+\\-!():^\\[\\]"{}~*?\\\\/]`;
/** Inside a term `+` and `-` are ordinary characters (`foo-bar` is one term). */
const TERM_INNER = `[^${WS}!():^\\[\\]"{}~*?\\\\/]`;
const ESCAPED = '\\\\[\\s\\S]';

export const WhiteSpace = createToken({ name: 'WhiteSpace', pattern: new RegExp(`[${WS}]+`), group: Lexer.SKIPPED, line_breaks: true });

/** A maximal run of term characters, escapes and wildcards: term, prefix or wildcard term. */
export const Word = createToken({
  name: 'Word',
  pattern: new RegExp(`(?:${TERM_START}|${ESCAPED}|[*?])(?:${TERM_INNER}|${ESCAPED}|[*?])*`),
  label: 'a term',
  line_breaks: true,
});

/**
 * AND / && and OR / || are never lexed directly: they are words to the lexer, and lexer.ts
 * retypes a Word whose whole text is one of them (JavaCC's longest match gives the same:
 * `AND` is the operator, `ANDY`, `AND*` and `&&b` are terms). Trying keyword patterns
 * before Word on every token cost more than the rest of the lexing.
 */
export const And = createToken({ name: 'And', pattern: Lexer.NA, label: "'AND'" });
export const Or = createToken({ name: 'Or', pattern: Lexer.NA, label: "'OR'" });
/** `!` is lexed; `NOT` is retyped from a Word like AND. */
export const Not = createToken({ name: 'Not', pattern: /!/, label: "'NOT'" });
/** `+`, `-` or `!` followed by whitespace: Lucene's BAREOPER, searched as a term. */
export const BareOperator = createToken({ name: 'BareOperator', pattern: new RegExp(`[+\\-!](?=[${WS}])`), label: 'a lone operator' });
export const Plus = createToken({ name: 'Plus', pattern: /\+/, label: "'+'" });
export const Minus = createToken({ name: 'Minus', pattern: /-/, label: "'-'" });
export const LParen = createToken({ name: 'LParen', pattern: /\(/, label: "'('" });
export const RParen = createToken({ name: 'RParen', pattern: /\)/, label: "')'" });
export const Colon = createToken({ name: 'Colon', pattern: /:/, label: "':'" });
export const Caret = createToken({ name: 'Caret', pattern: /\^/, label: "'^'" });
export const Quoted = createToken({ name: 'Quoted', pattern: /"(?:[^"\\]|\\[\s\S])*"/, line_breaks: true, label: 'a quoted phrase' });
export const QuotedUnclosed = createToken({ name: 'QuotedUnclosed', pattern: /"(?:[^"\\]|\\[\s\S])*\\?/, line_breaks: true, label: 'a quoted phrase' });
export const FuzzySlop = createToken({ name: 'FuzzySlop', pattern: /~(?:[0-9]+(?:\.[0-9]+)?)?/, label: "'~'" });
export const Regex = createToken({ name: 'Regex', pattern: /\/(?:[^/\\]|\\[\s\S])*\//, line_breaks: true, label: 'a regular expression' });
export const RegexUnclosed = createToken({ name: 'RegexUnclosed', pattern: /\/(?:[^/\\]|\\[\s\S])*\\?/, line_breaks: true, label: 'a regular expression' });
export const RangeInStart = createToken({ name: 'RangeInStart', pattern: /\[/, push_mode: 'range', label: "'['" });
export const RangeExStart = createToken({ name: 'RangeExStart', pattern: /\{/, push_mode: 'range', label: "'{'" });
/** `]` or `}` where no range is open. */
export const StrayClose = createToken({ name: 'StrayClose', pattern: /[\]}]/, label: "a closing bracket" });
/** A backslash with nothing after it (only possible at the end of the text). */
export const DanglingEscape = createToken({ name: 'DanglingEscape', pattern: /\\/, label: "'\\'" });

// Range state.
/** Category of `]` and `}` so the parser can expect "either closing bracket" in one CONSUME. */
export const RangeEnd = createToken({ name: 'RangeEnd', pattern: Lexer.NA, label: "']' or '}'" });
export const RangeTo = createToken({ name: 'RangeTo', pattern: /TO/, label: "'TO'" });
export const RangeInEnd = createToken({ name: 'RangeInEnd', pattern: /]/, pop_mode: true, categories: [RangeEnd], label: "']'" });
export const RangeExEnd = createToken({ name: 'RangeExEnd', pattern: /}/, pop_mode: true, categories: [RangeEnd], label: "'}'" });
export const RangeQuoted = createToken({ name: 'RangeQuoted', pattern: /"(?:[^"\\]|\\[\s\S])*"/, line_breaks: true, label: 'a quoted bound' });
export const RangeQuotedUnclosed = createToken({ name: 'RangeQuotedUnclosed', pattern: /"(?:[^"\\]|\\[\s\S])*\\?/, line_breaks: true, label: 'a quoted bound' });
export const RangeGoop = createToken({ name: 'RangeGoop', pattern: new RegExp(`[^${WS}\\]}"][^${WS}\\]}]*`), label: 'a range bound' });
RangeTo.LONGER_ALT = RangeGoop;

// Word comes first because the lexer tries patterns in order and most tokens are words;
// no other default-mode pattern can match where Word does (`!`, `+`, `-` cannot start a
// word, and a word ends at whitespace).
export const defaultModeTokens: TokenType[] = [
  Word,
  WhiteSpace,
  BareOperator,
  Not,
  Plus,
  Minus,
  LParen,
  RParen,
  Colon,
  Caret,
  Quoted,
  QuotedUnclosed,
  FuzzySlop,
  Regex,
  RegexUnclosed,
  RangeInStart,
  RangeExStart,
  StrayClose,
  DanglingEscape,
];

export const rangeModeTokens: TokenType[] = [
  WhiteSpace,
  RangeTo,
  RangeInEnd,
  RangeExEnd,
  RangeQuoted,
  RangeQuotedUnclosed,
  RangeGoop,
];

export const allTokens: TokenType[] = [...defaultModeTokens, And, Or, ...rangeModeTokens.filter((t) => t !== WhiteSpace), RangeEnd];
