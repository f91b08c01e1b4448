/**
 * Token types of the Lucene classic query syntax (SEMANTICS.md §3), mirroring the lexical states
 * of Lucene's `QueryParser.jj`: a default state and a range state entered by `[` / `{`.
 *
 * Deliberate differences from the JavaCC lexer, each chosen so that the editor can report
 * a located diagnostic instead of a lexical failure:
 * - Unterminated quotes and regexes lex as their own token (to the end of the text) so the
 *   parser can say "missing closing quote" and still build a phrase.
 * - A stray `]` / `}` outside a range, and a `\` at the very end of the text, are tokens.
 * - Lucene's boost state (after `^` only NUMBER `[0-9]+(\.[0-9]+)?` may follow, then the
 *   default state again: `a^2b` is `a^2` then the term `b`) is one token, `BoostNumber`,
 *   that matches only right after a `^`; anything else after `^` is left to the parser,
 *   which reports the missing number.
 * - Terms, prefix terms and wildcard terms are one `Word` token; the visitor classifies
 *   them by their unescaped `*` / `?`.
 */
import { createToken, Lexer, type IToken, type TokenType } from 'chevrotain';

/** Lucene's whitespace: space, tab, CR, LF and the ideographic space U+3000 (nothing else). */
const WS = ' \\t\\n\\r\\u3000';
/** Characters that cannot start a term unless escaped. */
const TERM_START = `[^${WS}+\\-!():^\\[\\]"{}~*?\\\\/]`;
/** Inside a term `+` and `-` are ordinary characters (`foo-bar` is one term). */
const TERM_INNER = `[^${WS}!():^\\[\\]"{}~*?\\\\/]`;
const ESCAPED = '\\\\[\\s\\S]';
/** Lucene's TERM_CHAR: what may follow a term's first character (escapes included). */
const TERM_CHAR = `(?:${TERM_INNER}|${ESCAPED})`;

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

const BOOST_NUMBER_AT = /[0-9]+(?:\.[0-9]+)?/y;
/** Lucene's NUMBER, which exists only in the boost state: directly after a `^`. */
export const BoostNumber = createToken({
  name: 'BoostNumber',
  pattern: {
    exec(text: string, offset: number, tokens: IToken[]): RegExpExecArray | null {
      const previous = tokens[tokens.length - 1];
      if (previous === undefined || previous.tokenType !== Caret || previous.startOffset + previous.image.length !== offset) return null;
      BOOST_NUMBER_AT.lastIndex = offset;
      return BOOST_NUMBER_AT.exec(text);
    },
  },
  start_chars_hint: [...'0123456789'],
  line_breaks: false,
  label: 'a number',
});
export const Quoted = createToken({ name: 'Quoted', pattern: /"(?:[^"\\]|\\[\s\S])*"/, line_breaks: true, label: 'a quoted phrase' });
export const QuotedUnclosed = createToken({ name: 'QuotedUnclosed', pattern: /"(?:[^"\\]|\\[\s\S])*\\?/, line_breaks: true, label: 'a quoted phrase' });
/**
 * Lucene's FUZZY_SLOP: `~` and every term character after it (`~2`, `~0.5`, but also `~2x`,
 * `~abc`, `~-1`), so `tex~t:flow` is `tex`, `~t`, then a `:` that Lucene rejects. The
 * visitor reads the number as Java's Float.parseFloat would.
 */
export const FuzzySlop = createToken({ name: 'FuzzySlop', pattern: new RegExp(`~${TERM_CHAR}*`), label: "'~'" });
/**
 * Lucene's REGEXPTERM: inside the slashes only `\/` is an escape (for the lexer; RegExp
 * reads the body's other escapes), so `/a\\/b/` is one regex. `\\/` is tried first because
 * Lucene's lexer takes the longest match.
 */
export const Regex = createToken({ name: 'Regex', pattern: /\/(?:\\\/|[^/])*\//, line_breaks: true, label: 'a regular expression' });
export const RegexUnclosed = createToken({ name: 'RegexUnclosed', pattern: /\/(?:\\\/|[^/])*/, line_breaks: true, label: 'a regular expression' });
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
/**
 * Lucene's range state: RANGE_QUOTED is `"` (any character but `"`, or `\"`)+ `"`, RANGE_GOOP
 * any run of characters but space, `]` and `}` (tabs and quotes included), and the longest
 * match wins (`""x` and `"a"x` are goop, `"abc` without a closing quote too), equal lengths
 * going to the one declared first. Chevrotain's LONGER_ALT gives that choice.
 */
export const RangeGoop = createToken({ name: 'RangeGoop', pattern: /[^ \]}]+/, line_breaks: true, label: 'a range bound' });
export const RangeQuoted = createToken({ name: 'RangeQuoted', pattern: /"(?:\\"|[^"])+"/, line_breaks: true, label: 'a quoted bound', longer_alt: RangeGoop });
/** Lucene skips one whitespace character at a time here; a tab followed by goop is goop. */
export const RangeWhiteSpace = createToken({ name: 'RangeWhiteSpace', pattern: new RegExp(`[${WS}]`), group: Lexer.SKIPPED, line_breaks: true, longer_alt: RangeGoop });
RangeTo.LONGER_ALT = RangeGoop;

// Word comes first because the lexer tries patterns in order and most tokens are words;
// no other default-mode pattern can match where Word does (`!`, `+`, `-` cannot start a
// word, and a word ends at whitespace).
export const defaultModeTokens: TokenType[] = [
  BoostNumber,
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

export const rangeModeTokens: TokenType[] = [RangeWhiteSpace, RangeTo, RangeInEnd, RangeExEnd, RangeQuoted, RangeGoop];

export const allTokens: TokenType[] = [...defaultModeTokens, And, Or, ...rangeModeTokens, RangeEnd];
