/**
 * Fast path of parseLucene for queries without syntax errors: a hand-written scanner and
 * recursive descent that build the very CST the Chevrotain lexer (lexer.ts) and parser
 * (parser.ts) would build, so visitor.ts then makes the AST and every diagnostic as usual.
 *
 * Why: a 10,000-query file must parse and diagnose in under 200 ms (issue 2, §7), and the
 * Chevrotain lexer + recovering parser are most of a Lucene query's cost.
 *
 * Contract (differential-tested in test/grammar/lucene/fast-path.test.ts): for any text,
 * `fastLuceneCst(text)` either returns undefined ("take the Chevrotain path") or the CST
 * Chevrotain builds for it *when Chevrotain reports no syntax error*. It declines at the
 * first token the grammar does not expect (so recovery never has to happen), and for the
 * rarer forms it does not scan itself: backslash escapes, regexes `/.../`, bare operators
 * (`+`/`-`/`!` before a space), stray `]` `}` `^` `~` `:`, quoted range bounds, unclosed
 * quotes and ranges, and `^` without a number.
 */
import type { IToken, TokenType } from 'chevrotain';
import type { CstNode } from './parser.js';
import { BOOST_NUMBER } from './parser.js';
import * as T from './tokens.js';

type Children = Record<string, (CstNode | IToken)[]>;

/** Thrown (and caught in fastLuceneCst) to decline; a constant, so declining allocates nothing. */
const DECLINE = Symbol('decline');

let tokens: IToken[] = [];
let pos = 0;

function token(tokenType: TokenType, image: string, startOffset: number): IToken {
  // The same own properties as the Chevrotain lexer's tokens ('onlyOffset' tracking).
  return { image, startOffset, tokenTypeIdx: tokenType.tokenTypeIdx!, tokenType } as IToken;
}

/** Lucene's whitespace (tokens.ts WS): space, tab, LF, CR, U+3000. */
function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 0x3000;
}

/** Characters that end a Word (TERM_INNER of tokens.ts, `\` included: escapes decline). */
function endsWord(c: number): boolean {
  switch (c) {
    case 32:
    case 9:
    case 10:
    case 13:
    case 0x3000:
    case 33: // !
    case 40: // (
    case 41: // )
    case 58: // :
    case 94: // ^
    case 91: // [
    case 93: // ]
    case 34: // "
    case 123: // {
    case 125: // }
    case 126: // ~
    case 92: // \
    case 47: // /
      return true;
    default:
      return false;
  }
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * Tokenises like lexer.ts (the first pattern that matches wins, in the order of
 * defaultModeTokens / rangeModeTokens), or returns false for a form left to Chevrotain.
 */
function scan(s: string): boolean {
  tokens = [];
  const n = s.length;
  let i = 0;
  while (i < n) {
    const c = s.charCodeAt(i);
    // Word: a term character (not `+ -` at the start), `*` or `?`, then term characters.
    if (!endsWord(c) && c !== 43 && c !== 45) {
      const start = i;
      i++;
      while (i < n && !endsWord(s.charCodeAt(i))) i++;
      if (i < n && s.charCodeAt(i) === 92) return false; // an escape: Chevrotain's lexer
      const image = s.slice(start, i);
      // lexer.ts: a Word that is exactly AND / && / OR / || / NOT is an operator.
      let type: TokenType = T.Word;
      if (image.length === 2 || image.length === 3) {
        if (image === 'AND' || image === '&&') type = T.And;
        else if (image === 'OR' || image === '||') type = T.Or;
        else if (image === 'NOT') type = T.Not;
      }
      tokens.push(token(type, image, start));
      continue;
    }
    if (isSpace(c)) {
      i++;
      continue;
    }
    switch (c) {
      case 43: // +
      case 45: // -
      case 33: {
        // !
        // `+ `, `- `, `! ` are BareOperator (searched as a term, with a warning).
        if (i + 1 < n && isSpace(s.charCodeAt(i + 1))) return false;
        tokens.push(token(c === 43 ? T.Plus : c === 45 ? T.Minus : T.Not, s[i], i));
        i++;
        continue;
      }
      case 40:
        tokens.push(token(T.LParen, '(', i++));
        continue;
      case 41:
        tokens.push(token(T.RParen, ')', i++));
        continue;
      case 58:
        tokens.push(token(T.Colon, ':', i++));
        continue;
      case 94:
        tokens.push(token(T.Caret, '^', i++));
        continue;
      case 34: {
        // Quoted: to the next `"`; escapes and unclosed quotes are left to Chevrotain.
        let j = i + 1;
        while (j < n) {
          const d = s.charCodeAt(j);
          if (d === 92) return false;
          if (d === 34) break;
          j++;
        }
        if (j >= n) return false;
        tokens.push(token(T.Quoted, s.slice(i, j + 1), i));
        i = j + 1;
        continue;
      }
      case 126: {
        // FuzzySlop: ~ ( [0-9]+ ( . [0-9]+ )? )?
        let j = i + 1;
        if (j < n && isDigit(s.charCodeAt(j))) {
          while (j < n && isDigit(s.charCodeAt(j))) j++;
          if (j + 1 < n && s.charCodeAt(j) === 46 && isDigit(s.charCodeAt(j + 1))) {
            j += 2;
            while (j < n && isDigit(s.charCodeAt(j))) j++;
          }
        }
        tokens.push(token(T.FuzzySlop, s.slice(i, j), i));
        i = j;
        continue;
      }
      case 91:
      case 123: {
        tokens.push(token(c === 91 ? T.RangeInStart : T.RangeExStart, s[i], i));
        i = scanRange(s, i + 1);
        if (i < 0) return false;
        continue;
      }
      default:
        // `/` regex, `]` `}` stray closers, `\` escapes.
        return false;
    }
  }
  return true;
}

/** Range mode (rangeModeTokens) from `i` to its closing `]` / `}`; -1 to decline. */
function scanRange(s: string, i: number): number {
  const n = s.length;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (c === 93 || c === 125) {
      tokens.push(token(c === 93 ? T.RangeInEnd : T.RangeExEnd, s[i], i));
      return i + 1;
    }
    if (c === 34) return -1; // quoted bound
    // RangeGoop [^WS\]}"][^WS\]}]*; `TO` is RangeTo unless the goop match is longer.
    const start = i;
    i++;
    while (i < n) {
      const d = s.charCodeAt(i);
      if (isSpace(d) || d === 93 || d === 125) break;
      i++;
    }
    const image = s.slice(start, i);
    tokens.push(token(image === 'TO' ? T.RangeTo : T.RangeGoop, image, start));
  }
  return -1; // unclosed range
}

// ---------------------------------------------------------------------------------------
// Recursive descent over `tokens`, building parser.ts's CST (children keyed by token type
// name or LABEL, in consumption order). Any unexpected token declines.

function type(p: number): TokenType | undefined {
  return p < tokens.length ? tokens[p].tokenType : undefined;
}

function node(name: string, children: Children): CstNode {
  return { name, children } as CstNode;
}

/** topQuery := clauseItem* EOF (a stray token declines). */
function topQuery(): CstNode {
  const items: CstNode[] = [];
  while (pos < tokens.length) items.push(clauseItem(0));
  const children: Children = {};
  if (items.length) children.clauseItem = items;
  return node('topQuery', children);
}

/** clauseItem := (AND|OR)? (+|-|NOT)? (Word ':')? body */
function clauseItem(depth: number): CstNode {
  const children: Children = {};
  let t = type(pos);
  if (t === T.And || t === T.Or) {
    children.conj = [tokens[pos++]];
    t = type(pos);
  }
  if (t === T.Plus || t === T.Minus || t === T.Not) {
    children.mod = [tokens[pos++]];
    t = type(pos);
  }
  if (t === T.Word && type(pos + 1) === T.Colon) {
    children.field = [tokens[pos++]];
    children.Colon = [tokens[pos++]];
    t = type(pos);
  }
  if (t === T.LParen) children.group = [group(depth + 1)];
  else if (t === T.Word) children.wordTerm = [wordTerm()];
  else if (t === T.Quoted) children.phrase = [phrase()];
  else if (t === T.RangeInStart || t === T.RangeExStart) children.range = [range()];
  else throw DECLINE;
  return node('clauseItem', children);
}

function group(depth: number): CstNode {
  // findTooDeep (index.ts) has bounded the nesting already; this is a second guard.
  if (depth > 100) throw DECLINE;
  const children: Children = { LParen: [tokens[pos++]] };
  const items: CstNode[] = [];
  while (type(pos) !== T.RParen) {
    if (pos >= tokens.length) throw DECLINE;
    items.push(clauseItem(depth));
  }
  if (items.length) children.clauseItem = items;
  children.RParen = [tokens[pos++]];
  if (type(pos) === T.Caret) children.boost = [boost()];
  return node('group', children);
}

/** boost := '^' NUMBER (a `^` without a number is left to Chevrotain and the visitor). */
function boost(): CstNode {
  const caret = tokens[pos++];
  const value = tokens[pos];
  if (!value || value.tokenType !== T.Word || !BOOST_NUMBER.test(value.image)) throw DECLINE;
  pos++;
  return node('boost', { Caret: [caret], value: [value] });
}

/** wordTerm := Word ('~')? ('^' NUMBER ('~')?)? */
function wordTerm(): CstNode {
  const children: Children = { Word: [tokens[pos++]] };
  if (type(pos) === T.FuzzySlop) children.FuzzySlop = [tokens[pos++]];
  if (type(pos) === T.Caret) {
    children.boost = [boost()];
    if (type(pos) === T.FuzzySlop) (children.FuzzySlop ??= []).push(tokens[pos++]);
  }
  return node('wordTerm', children);
}

/** phrase := Quoted ('~')? ('^' NUMBER)? */
function phrase(): CstNode {
  const children: Children = { Quoted: [tokens[pos++]] };
  if (type(pos) === T.FuzzySlop) children.FuzzySlop = [tokens[pos++]];
  if (type(pos) === T.Caret) children.boost = [boost()];
  return node('phrase', children);
}

/** range := ('['|'{') bound TO bound (']'|'}') ('^' NUMBER)? */
function range(): CstNode {
  const open = tokens[pos++];
  const lower = tokens[pos];
  const to = tokens[pos + 1];
  const upper = tokens[pos + 2];
  const close = tokens[pos + 3];
  if (lower?.tokenType !== T.RangeGoop || to?.tokenType !== T.RangeTo || upper?.tokenType !== T.RangeGoop) throw DECLINE;
  if (close?.tokenType !== T.RangeInEnd && close?.tokenType !== T.RangeExEnd) throw DECLINE;
  pos += 4;
  const children: Children = {
    [open.tokenType.name]: [open],
    lower: [node('rangeBound', { RangeGoop: [lower] })],
    RangeTo: [to],
    upper: [node('rangeBound', { RangeGoop: [upper] })],
    RangeEnd: [close],
  };
  if (type(pos) === T.Caret) children.boost = [boost()];
  return node('range', children);
}

/**
 * The CST Chevrotain builds for `text` when it parses without a syntax error, or
 * undefined when the text is outside what this fast path reads.
 */
export function fastLuceneCst(text: string): CstNode | undefined {
  try {
    if (!scan(text)) return undefined;
    pos = 0;
    return topQuery();
  } catch (err) {
    if (err === DECLINE) return undefined;
    throw err;
  } finally {
    tokens = [];
  }
}
