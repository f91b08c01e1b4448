/**
 * The Indri lexer: Chevrotain's lexer for the surface patterns, then one pass that
 * re-types operator words and words (see tokens.ts) and measures bracket depth.
 *
 * The token set covers every UTF-16 code unit, so the lexer itself never fails: characters
 * Indri rejects end up inside a BadTerm token and are reported by the visitor.
 */
import { Lexer, type IToken, type ILexingError, type TokenType } from 'chevrotain';
import {
  BadTerm,
  FOREIGN_CHAR_CLASS,
  HashNumber,
  LAngle,
  LBrace,
  LEXED_TOKENS,
  LParen,
  NumberTok,
  Od,
  OPERATOR_TABLE,
  OperatorWord,
  RAngle,
  RBrace,
  RParen,
  SpaceDash,
  Term,
  UnknownOp,
  Uw,
  Word,
} from './tokens.js';

const indriLexer = new Lexer(LEXED_TOKENS, {
  positionTracking: 'onlyOffset',
  ensureOptimizations: true,
});

const ALL_DIGITS = /^[0-9]+$/;
const HAS_FOREIGN_OR_SURROGATE = new RegExp(`[${FOREIGN_CHAR_CLASS}\\uD800-\\uDFFF]`);
const HAS_FOREIGN = new RegExp(`[${FOREIGN_CHAR_CLASS}]`);
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const OD_N = /^#od[0-9]+$/;
const UW_N = /^#uw[0-9]+$/;
const HASH_N = /^#[0-9]+$/;

export interface IndriLexResult {
  tokens: IToken[];
  /** Lexer errors; empty in practice (every character belongs to some token). */
  errors: ILexingError[];
  /** Deepest nesting of `(`, `{`, `<` seen. */
  maxDepth: number;
  /** The first opening bracket whose depth exceeded `depthLimit`, if any. */
  tooDeepAt?: IToken;
  /** True when every `(`, `{`, `<` is closed by its own kind of closer, in order. */
  balanced: boolean;
}

function retype(token: IToken, type: TokenType): void {
  token.tokenType = type;
  token.tokenTypeIdx = type.tokenTypeIdx!;
}

/** True when a word contains a character that no Indri token accepts or a lone surrogate. */
export function isForeignWord(image: string): boolean {
  if (!HAS_FOREIGN_OR_SURROGATE.test(image)) return false;
  return HAS_FOREIGN.test(image) || LONE_SURROGATE.test(image);
}

export function hasLoneSurrogate(s: string): boolean {
  return LONE_SURROGATE.test(s);
}

/** Classify an operator word (`#combine`, `#od5`, `#12`, `#Foo`, `#`). */
export function operatorType(image: string): TokenType {
  const known = OPERATOR_TABLE.get(image);
  if (known) return known;
  if (OD_N.test(image)) return Od;
  if (UW_N.test(image)) return Uw;
  if (HASH_N.test(image)) return HashNumber;
  return UnknownOp;
}

/** Classify a word: all digits → number; foreign characters → bad term; else a term. */
export function wordType(image: string): TokenType {
  if (ALL_DIGITS.test(image)) return NumberTok;
  if (isForeignWord(image)) return BadTerm;
  return Term;
}

export function lexIndri(text: string, depthLimit = Infinity): IndriLexResult {
  const lexed = indriLexer.tokenize(text);
  const tokens = lexed.tokens;
  let depth = 0;
  let maxDepth = 0;
  let tooDeepAt: IToken | undefined;
  // Kinds of the open brackets (1 = paren, 2 = brace, 3 = angle); balanced = all matched.
  const open: number[] = [];
  let balanced = true;
  const opW = OperatorWord.tokenTypeIdx;
  const wordIdx = Word.tokenTypeIdx;
  const spaceDash = SpaceDash.tokenTypeIdx;
  const lp = LParen.tokenTypeIdx;
  const lb = LBrace.tokenTypeIdx;
  const la = LAngle.tokenTypeIdx;
  const rp = RParen.tokenTypeIdx;
  const rb = RBrace.tokenTypeIdx;
  const ra = RAngle.tokenTypeIdx;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    // 'onlyOffset' tracking gives start offsets only; ranges and CST locations need the end.
    t.endOffset = t.startOffset + t.image.length - 1;
    const idx = t.tokenTypeIdx;
    if (idx === opW) retype(t, operatorType(t.image));
    else if (idx === wordIdx) retype(t, wordType(t.image));
    else if (idx === spaceDash) {
      // Keep only the dash: the whitespace before it is not part of any node.
      t.startOffset = t.endOffset;
      t.image = '-';
    } else if (idx === lp || idx === lb || idx === la) {
      depth++;
      open.push(idx === lp ? 1 : idx === lb ? 2 : 3);
      if (depth > maxDepth) {
        maxDepth = depth;
        if (depth > depthLimit && !tooDeepAt) tooDeepAt = t;
      }
    } else if (idx === rp || idx === rb || idx === ra) {
      if (depth > 0) depth--;
      if (open.pop() !== (idx === rp ? 1 : idx === rb ? 2 : 3)) balanced = false;
    }
  }
  if (open.length > 0) balanced = false;
  return { tokens, errors: lexed.errors, maxDepth, tooDeepAt, balanced };
}
