/**
 * Token types of the Indri query language (SEMANTICS.md §1.1, after `indrilang.g`).
 *
 * The Chevrotain lexer only knows a handful of *surface* patterns (an operator word, a word,
 * a float, punctuation). Operator words and words are then re-typed by `lexer.ts` from a
 * table (`#combine` → Combine, `#od5` → Od, `123` → NumberTok, `c++` → BadTerm, ...).
 * One table lookup per token is much cheaper than letting the lexer try thirty operator
 * regexes in turn, and it gives one place to decide what an unknown operator means.
 *
 * Every token type has a `label`: the error-message provider speaks in labels (`")"`,
 * `#combine`, `a number`), never in token type names.
 */
import { createToken, Lexer, type TokenType } from 'chevrotain';

// ---------------------------------------------------------------- character classes
/**
 * Characters Indri's lexer accepts inside a term: ASCII letters, digits, `_`, and every
 * non-ASCII character (Indri reads UTF-8 bytes 0x80-0xFF as term bytes).
 */
const TERM_CHAR = 'A-Za-z0-9_\\u0080-\\uD7FF\\uE000-\\uFFFF';
/**
 * Characters that no Indri token accepts ("foreign"): controls other than tab/CR/LF,
 * `! $ % & ' + ; = ? @ ^ \` | ~` and DEL. A word containing one can only be written as
 * `#base64(...)`; we lex such a word whole (as BadTerm) so the quick fix can replace it.
 * (`'` is a token in indrilang.g, but no parser rule uses it.)
 */
export const FOREIGN_CHAR_CLASS = "\\x00-\\x08\\x0B\\x0C\\x0E-\\x1F!$%&'+;=?@^`|~\\x7F";

// ---------------------------------------------------------------- surface tokens (lexed)
/** `" -"`: a dash after whitespace reads as a minus sign, never as a hyphen (SEMANTICS.md §1.1). */
export const SpaceDash = createToken({ name: 'SpaceDash', pattern: /[ \t\r\n]+-/, line_breaks: true, label: '"-"' });
export const WhiteSpace = createToken({
  name: 'WhiteSpace',
  pattern: /[ \t\r\n]+/,
  group: Lexer.SKIPPED,
  line_breaks: true,
});
/**
 * `#base64(...)` / `#base64quote(...)` are single tokens in Indri's lexer. The closing
 * `)` is optional here so that a missing one becomes a located diagnostic, not a lexer error.
 */
export const Base64 = createToken({
  name: 'Base64',
  pattern: /#base64(?:quote)?\([^)]*\)?/,
  line_breaks: true,
  label: '#base64(...)',
});
/** `#` followed by letters/digits: re-typed from OPERATOR_TABLE by the lexer. */
export const OperatorWord = createToken({ name: 'OperatorWord', pattern: /#[A-Za-z0-9_]*/, label: 'an operator' });
export const FloatTok = createToken({ name: 'FloatTok', pattern: /[0-9]+\.[0-9]+/, label: 'a number' });
/**
 * A maximal run of term characters, foreign characters and (paired or lone) surrogates.
 * Re-typed by the lexer: all digits → NumberTok, any foreign char / lone surrogate →
 * BadTerm, else Term.
 */
export const Word = createToken({
  name: 'Word',
  pattern: new RegExp(`(?:[${TERM_CHAR}]|[\\uD800-\\uDFFF]|[${FOREIGN_CHAR_CLASS}])+`),
  label: 'a term',
});

export const LParen = createToken({ name: 'LParen', pattern: '(', label: '"("' });
export const RParen = createToken({ name: 'RParen', pattern: ')', label: '")"' });
export const LAngle = createToken({ name: 'LAngle', pattern: '<', label: '"<"' });
export const RAngle = createToken({ name: 'RAngle', pattern: '>', label: '">"' });
export const LBracket = createToken({ name: 'LBracket', pattern: '[', label: '"["' });
export const RBracket = createToken({ name: 'RBracket', pattern: ']', label: '"]"' });
export const LBrace = createToken({ name: 'LBrace', pattern: '{', label: '"{"' });
export const RBrace = createToken({ name: 'RBrace', pattern: '}', label: '"}"' });
export const DQuote = createToken({ name: 'DQuote', pattern: '"', label: "'\"'" });
export const Dot = createToken({ name: 'Dot', pattern: '.', label: '"."' });
export const Comma = createToken({ name: 'Comma', pattern: ',', label: '","' });
export const Slash = createToken({ name: 'Slash', pattern: '/', label: '"/"' });
export const Backslash = createToken({ name: 'Backslash', pattern: '\\', label: '"\\"' });
export const Dash = createToken({ name: 'Dash', pattern: '-', label: '"-"' });
export const Colon = createToken({ name: 'Colon', pattern: ':', label: '":"' });
export const Star = createToken({ name: 'Star', pattern: '*', label: '"*"' });

// ---------------------------------------------------------------- re-typed tokens (not lexed directly)
const na = (name: string, label: string): TokenType => createToken({ name, pattern: Lexer.NA, label });

export const Term = na('Term', 'a term');
export const NumberTok = na('NumberTok', 'a number');
/** A word with characters Indri rejects (or a lone UTF-16 surrogate). */
export const BadTerm = na('BadTerm', 'a term');

export const Combine = na('Combine', '#combine');
export const Weight = na('Weight', '#weight');
export const Wand = na('Wand', '#wand');
export const Wsum = na('Wsum', '#wsum');
export const Or = na('Or', '#or');
export const Not = na('Not', '#not');
export const Max = na('Max', '#max');
/** `#sum` is a lexer token whose parser rule is unreachable (SEMANTICS.md §1.2 note). */
export const Sum = na('Sum', '#sum');
export const Prior = na('Prior', '#prior');
export const Filreq = na('Filreq', '#filreq');
export const Filrej = na('Filrej', '#filrej');
export const Scoreif = na('Scoreif', '#scoreif');
export const Scoreifnot = na('Scoreifnot', '#scoreifnot');
/** `#od`, `#od5`. */
export const Od = na('Od', '#od');
/** `#5`: ordered window shorthand. */
export const HashNumber = na('HashNumber', '#N');
/** `#uw`, `#uw8`. */
export const Uw = na('Uw', '#uw');
export const Band = na('Band', '#band');
export const Syn = na('Syn', '#syn');
export const Wsyn = na('Wsyn', '#wsyn');
export const Any = na('Any', '#any');
export const Less = na('Less', '#less');
export const Greater = na('Greater', '#greater');
export const Between = na('Between', '#between');
export const Equals = na('Equals', '#equals');
export const DateAfter = na('DateAfter', '#dateafter');
export const DateBefore = na('DateBefore', '#datebefore');
export const DateBetween = na('DateBetween', '#datebetween');
export const DateEquals = na('DateEquals', '#dateequals');
export const Wildcard = na('Wildcard', '#wildcard');
/** `#foo`, `#Combine`, `#uwx`, a lone `#`: parsed (for recovery) and reported. */
export const UnknownOp = na('UnknownOp', 'an operator');

/** Operator spelling → token type (exact, case-sensitive: SEMANTICS.md §1.1). */
export const OPERATOR_TABLE: ReadonlyMap<string, TokenType> = new Map([
  ['#combine', Combine],
  ['#weight', Weight],
  ['#wand', Wand],
  ['#wsum', Wsum],
  ['#or', Or],
  ['#not', Not],
  ['#max', Max],
  ['#sum', Sum],
  ['#prior', Prior],
  ['#filreq', Filreq],
  ['#filrej', Filrej],
  ['#scoreif', Scoreif],
  ['#scoreifnot', Scoreifnot],
  ['#od', Od],
  ['#uw', Uw],
  ['#band', Band],
  ['#syn', Syn],
  ['#wsyn', Wsyn],
  ['#any', Any],
  ['#less', Less],
  ['#greater', Greater],
  ['#between', Between],
  ['#equals', Equals],
  ['#dateafter', DateAfter],
  ['#datebefore', DateBefore],
  ['#datebetween', DateBetween],
  ['#dateequals', DateEquals],
  ['#wildcard', Wildcard],
]);

/** Operator names users can write, for "did you mean" suggestions and completion. */
export const INDRI_OPERATORS: readonly string[] = [...OPERATOR_TABLE.keys()].filter((k) => k !== '#sum');

/** The patterns the Chevrotain lexer tries, in priority order (first match wins). */
export const LEXED_TOKENS: TokenType[] = [
  SpaceDash,
  WhiteSpace,
  Base64,
  OperatorWord,
  FloatTok,
  Word,
  LParen,
  RParen,
  LAngle,
  RAngle,
  LBracket,
  RBracket,
  LBrace,
  RBrace,
  DQuote,
  Dot,
  Comma,
  Slash,
  Backslash,
  Dash,
  Colon,
  Star,
];

/** Every token type the parser may see (the re-typed ones included). */
export const ALL_TOKENS: TokenType[] = [
  ...LEXED_TOKENS,
  Term,
  NumberTok,
  BadTerm,
  ...new Set(OPERATOR_TABLE.values()),
  HashNumber,
  UnknownOp,
];
