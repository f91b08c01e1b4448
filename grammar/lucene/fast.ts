/**
 * Fast path of parseLucene for queries without syntax errors: a hand-written scanner and
 * recursive descent that build the AST visitor.ts would build from the Chevrotain parser's
 * CST, reporting the same diagnostics through the visitor's own helpers.
 *
 * Why: a 10,000-query file must parse and diagnose in under 200 ms (issue 2, §7), and the
 * Chevrotain lexer, recovering parser and CST visitor are most of a Lucene query's cost.
 *
 * Contract (differential-tested in test/grammar/lucene/fast-path.test.ts): for any text,
 * `fastLuceneAst(text)` either returns undefined ("take the Chevrotain path") or the root
 * (and diagnostics) of the full path *when Chevrotain reports no syntax error*. It declines at the
 * first token the grammar does not expect (so recovery never has to happen), and for the
 * rarer forms it does not scan itself: backslash escapes, regexes `/.../`, bare operators
 * (`+`/`-`/`!` before a space), stray `]` `}` `^` `~` `:`, quoted range bounds, unclosed
 * quotes and ranges, and `^` without a number.
 */
import type { IToken, TokenType } from 'chevrotain';
import type { BooleanNode, BoostNode, FuzzyNode, PhraseNode, QueryNode, RangeNode, TermNode, WildcardNode, SourceRange } from '../ast.js';
import * as T from './tokens.js';
import { unescapeLucene, type ClauseItem, type LuceneAstBuilder } from './visitor.js';

/** Thrown (and caught in fastLuceneAst) to decline; a constant, so declining allocates nothing. */
const DECLINE = Symbol('decline');

// Token kinds of the scanner. A token is a kind and a [start, end) range in parallel typed
// arrays, reused from query to query: a 10,000-query file must not leave a token object
// (and an image string) per token for the garbage collector. Only the few tokens a
// visitor.ts helper takes as an IToken (AND/OR, +/-/NOT, `~N`) become objects (tokenAt).
const WORD = 0; // a Word without `*` or `?`
const WILD_WORD = 1; // a Word with `*` or `?` (a wildcard term)
const AND = 2;
const OR = 3;
const NOT = 4;
const PLUS = 5;
const MINUS = 6;
const LPAREN = 7;
const RPAREN = 8;
const COLON = 9;
const CARET = 10;
const QUOTED = 11;
const FUZZY_SLOP = 12;
const RANGE_IN_START = 13;
const RANGE_EX_START = 14;
const RANGE_IN_END = 15;
const RANGE_EX_END = 16;
const RANGE_GOOP = 17;
const RANGE_TO = 18;
/** kindAt past the last token. */
const NONE = 255;

/** The tokens.ts type of each kind, for tokenAt. */
const TOKEN_TYPES: readonly TokenType[] = [
  T.Word,
  T.Word,
  T.And,
  T.Or,
  T.Not,
  T.Plus,
  T.Minus,
  T.LParen,
  T.RParen,
  T.Colon,
  T.Caret,
  T.Quoted,
  T.FuzzySlop,
  T.RangeInStart,
  T.RangeExStart,
  T.RangeInEnd,
  T.RangeExEnd,
  T.RangeGoop,
  T.RangeTo,
];

/** Token arrays above this size (a huge line) are not kept for the next query. */
const KEEP_CAPACITY = 1024;

let kinds = new Uint8Array(KEEP_CAPACITY);
let starts = new Int32Array(KEEP_CAPACITY);
let ends = new Int32Array(KEEP_CAPACITY);
let count = 0;

function push(kind: number, start: number, end: number): void {
  if (count === kinds.length) {
    const k = new Uint8Array(count * 2);
    k.set(kinds);
    kinds = k;
    const s = new Int32Array(count * 2);
    s.set(starts);
    starts = s;
    const e = new Int32Array(count * 2);
    e.set(ends);
    ends = e;
  }
  kinds[count] = kind;
  starts[count] = start;
  ends[count] = end;
  count++;
}

/** Lucene's whitespace (tokens.ts WS): space, tab, LF, CR, U+3000. */
function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 0x3000;
}

/**
 * Characters that end a Word (TERM_INNER of tokens.ts, `\` included: escapes decline): a
 * table over ASCII, since every character of the text is looked up; U+3000 is the only
 * other one.
 */
const ENDS_WORD = new Uint8Array(128);
for (const c of ' \t\n\r!():^[]"{}~\\/') ENDS_WORD[c.charCodeAt(0)] = 1;

function endsWord(c: number): boolean {
  return c < 128 ? ENDS_WORD[c] === 1 : c === 0x3000;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * lexer.ts: a Word that is exactly AND / && / OR / || / NOT is an operator. Compared by
 * character, so that no image is cut out of the text to find out.
 */
function wordKind(s: string, start: number, end: number, wild: boolean): number {
  if (wild) return WILD_WORD;
  const length = end - start;
  if (length === 2) {
    const a = s.charCodeAt(start);
    const b = s.charCodeAt(start + 1);
    if (a === 38 && b === 38) return AND; // &&
    if ((a === 79 && b === 82) || (a === 124 && b === 124)) return OR; // OR ||
  } else if (length === 3) {
    const a = s.charCodeAt(start);
    const b = s.charCodeAt(start + 1);
    const c = s.charCodeAt(start + 2);
    if (a === 65 && b === 78 && c === 68) return AND; // AND
    if (a === 78 && b === 79 && c === 84) return NOT; // NOT
  }
  return WORD;
}

/**
 * Tokenises like lexer.ts (the first pattern that matches wins, in the order of
 * defaultModeTokens / rangeModeTokens), or returns false for a form left to Chevrotain.
 */
function scan(s: string): boolean {
  count = 0;
  const n = s.length;
  let i = 0;
  while (i < n) {
    const c = s.charCodeAt(i);
    // Word: a term character (not `+ -` at the start), `*` or `?`, then term characters.
    if (!endsWord(c) && c !== 43 && c !== 45) {
      const start = i;
      // `*` and `?` make a wildcard term (visitor.ts classifyWord, which escapes aside
      // only looks for them; escapes decline below).
      let wild = c === 42 || c === 63;
      i++;
      while (i < n) {
        const d = s.charCodeAt(i);
        if (endsWord(d)) break;
        if (d === 42 || d === 63) wild = true;
        i++;
      }
      if (i < n && s.charCodeAt(i) === 92) return false; // an escape: Chevrotain's lexer
      push(wordKind(s, start, i, wild), start, i);
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
        push(c === 43 ? PLUS : c === 45 ? MINUS : NOT, i, i + 1);
        i++;
        continue;
      }
      case 40:
        push(LPAREN, i, ++i);
        continue;
      case 41:
        push(RPAREN, i, ++i);
        continue;
      case 58:
        push(COLON, i, ++i);
        continue;
      case 94: {
        push(CARET, i, ++i);
        // tokens.ts BoostNumber: Lucene's boost state reads [0-9]+(.[0-9]+)? right after `^`
        // and goes back to the default state (`a^2b` is `a^2` and the term `b`).
        let j = i;
        while (j < n && isDigit(s.charCodeAt(j))) j++;
        if (j === i) continue;
        if (j + 1 < n && s.charCodeAt(j) === 46 && isDigit(s.charCodeAt(j + 1))) {
          j += 2;
          while (j < n && isDigit(s.charCodeAt(j))) j++;
        }
        push(WORD, i, j);
        i = j;
        continue;
      }
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
        push(QUOTED, i, j + 1);
        i = j + 1;
        continue;
      }
      case 126: {
        // FuzzySlop: `~` and the term characters after it (tokens.ts); escapes decline.
        let j = i + 1;
        while (j < n) {
          const d = s.charCodeAt(j);
          if (endsWord(d) || d === 42 || d === 63) break;
          j++;
        }
        if (j < n && s.charCodeAt(j) === 92) return false;
        push(FUZZY_SLOP, i, j);
        i = j;
        continue;
      }
      case 91:
      case 123: {
        push(c === 91 ? RANGE_IN_START : RANGE_EX_START, i, i + 1);
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
    if (c === 32) {
      i++;
      continue;
    }
    // Other whitespace may start or join a bound in Lucene's range state (tokens.ts): declined.
    if (isSpace(c)) return -1;
    if (c === 92) return -1; // an escape (maybe a bad `\\u`): Chevrotain's lexer
    if (c === 93 || c === 125) {
      push(c === 93 ? RANGE_IN_END : RANGE_EX_END, i, i + 1);
      return i + 1;
    }
    if (c === 34) return -1; // quoted bound
    // RangeGoop [^WS\]}"][^WS\]}]*; `TO` is RangeTo unless the goop match is longer.
    const start = i;
    i++;
    while (i < n) {
      const d = s.charCodeAt(i);
      if (d === 32 || d === 93 || d === 125) break;
      if (isSpace(d) || d === 92) return -1;
      i++;
    }
    const isTo = i - start === 2 && s.charCodeAt(start) === 84 && s.charCodeAt(start + 1) === 79;
    push(isTo ? RANGE_TO : RANGE_GOOP, start, i);
  }
  return -1; // unclosed range
}

// ---------------------------------------------------------------------------------------
// Recursive descent over the tokens, building the AST exactly as visitor.ts builds it from
// parser.ts's CST (same node shapes, key order and diagnostics, in the same order), with
// the visitor's own helpers for clause flags, checks, fuzzy edits and phrase words. Any
// token the grammar does not expect declines, so no syntax error ever needs reporting.
//
// visitor.ts's Ctx becomes two arguments: `field` (the field in force) and `fieldStart`
// (where this clause's own `field:` prefix starts, -1 for none), so no Ctx object is made
// per clause. Nodes are written as one object literal each, `fields` included, rather than
// given a property afterwards: the key order is the visitor's, and V8 keeps every property
// inside the object instead of allocating a separate property store for the late one.

/** `*` or `?` in a phrase word (searched as written, with a note). */
const WILDCARD_CHAR = /[*?]/;

let b: LuceneAstBuilder;
let source = '';
let pos = 0;

function kindAt(p: number): number {
  return p < count ? kinds[p] : NONE;
}

function isWord(kind: number): boolean {
  return kind === WORD || kind === WILD_WORD;
}

function image(p: number): string {
  return source.slice(starts[p], ends[p]);
}

/** The token Chevrotain's lexer makes for token `p` (its own properties), for the visitor's helpers. */
function tokenAt(p: number): IToken {
  const tokenType = TOKEN_TYPES[kinds[p]];
  return { image: image(p), startOffset: starts[p], tokenTypeIdx: tokenType.tokenTypeIdx!, tokenType } as IToken;
}

/** topQuery := clauseItem* EOF (visitor.ts topQuery). */
function topQuery(): BooleanNode {
  const range = { start: 0, end: source.length };
  const items: ClauseItem[] = [];
  while (pos < count) items.push(clauseItem(undefined));
  const node: BooleanNode = { kind: 'boolean', clauses: b.addClauses(items), grouped: false, range };
  b.checkClauses(node);
  return node;
}

/** clauseItem := (AND|OR)? (+|-|NOT)? (Word ':')? body (visitor.ts clauseItem + clauseBody). */
function clauseItem(field: string | undefined): ClauseItem {
  let conj = -1;
  let mod = -1;
  let k = kindAt(pos);
  if (k === AND || k === OR) {
    conj = pos++;
    k = kindAt(pos);
  }
  if (k === PLUS || k === MINUS || k === NOT) {
    mod = pos++;
    k = kindAt(pos);
  }
  let fieldStart = -1;
  let node: QueryNode | undefined;
  if (isWord(k) && kindAt(pos + 1) === COLON) {
    const f = pos;
    pos += 2;
    k = kindAt(pos);
    // Escapes decline in scan(), so classifyWord's text is the image itself.
    const name = image(f);
    if (kinds[f] === WILD_WORD && name !== '*') {
      b.report('lucene/bad-field', 'error', `a field name cannot contain wildcards: '${name}'`, { start: starts[f], end: ends[f] });
    }
    field = name;
    fieldStart = starts[f];
    // `*:*` (optionally boosted) → MatchAllNode (visitor.ts matchAll).
    if (name === '*' && k === WILD_WORD && ends[pos] - starts[pos] === 1 && source.charCodeAt(starts[pos]) === 42) node = matchAll(f);
  }
  if (!node) {
    if (k === LPAREN) node = group(field, fieldStart);
    else if (isWord(k)) node = wordTerm(field, fieldStart);
    else if (k === QUOTED) node = phrase(field, fieldStart);
    else if (k === RANGE_IN_START || k === RANGE_EX_START) node = range(field, fieldStart);
    else throw DECLINE;
  }
  let start = node.range.start;
  if (conj >= 0 && starts[conj] < start) start = starts[conj];
  if (mod >= 0 && starts[mod] < start) start = starts[mod];
  return { conj: conj >= 0 ? tokenAt(conj) : undefined, mod: mod >= 0 ? tokenAt(mod) : undefined, node, start };
}

function matchAll(fieldTok: number): QueryNode {
  const w = pos++;
  suffixSlops();
  const boost = slopBoost;
  const fuzzy = slopFirst;
  if (fuzzy >= 0) b.report('lucene/ignored-fuzzy', 'warning', "'~' has no effect on *:*", { start: starts[fuzzy], end: ends[fuzzy] });
  const node: QueryNode = { kind: 'matchAll', range: { start: starts[fieldTok], end: ends[w] } };
  return boost >= 0 ? withBoost(node, boost) : node;
}

function group(field: string | undefined, fieldStart: number): QueryNode {
  const lp = pos++;
  const items: ClauseItem[] = [];
  while (kindAt(pos) !== RPAREN) {
    if (pos >= count) throw DECLINE;
    items.push(clauseItem(field));
  }
  const rp = pos++;
  const clauses = b.addClauses(items);
  const range = { start: fieldStart >= 0 ? fieldStart : starts[lp], end: ends[rp] };
  // The group records its field only where the user wrote `field:(` (visitor.ts group).
  const node: BooleanNode =
    fieldStart >= 0 && field !== undefined
      ? { kind: 'boolean', clauses, grouped: true, range, field, fieldRange: { start: fieldStart, end: fieldStart + field.length } }
      : { kind: 'boolean', clauses, grouped: true, range };
  if (clauses.length === 0) {
    b.report('syntax/empty-group', 'error', "empty group '()': Lucene needs at least one clause inside parentheses", { start: starts[lp], end: ends[rp] });
  }
  b.checkClauses(node);
  return kindAt(pos) === CARET ? withBoost(node, boostCaret()) : node;
}

/**
 * boost := '^' NUMBER: the index of the `^` (its number is the next token). A `^` without
 * a number is left to Chevrotain and the visitor.
 */
function boostCaret(): number {
  const caret = pos;
  // The number must touch the `^` (Lucene's boost state skips no whitespace).
  if (!isWord(kindAt(caret + 1)) || starts[caret + 1] !== ends[caret] || !isBoostNumber(caret + 1)) throw DECLINE;
  pos += 2;
  return caret;
}

/** parser.ts BOOST_NUMBER `^[0-9]+(?:\.[0-9]+)?$` on token `p`, read in place. */
function isBoostNumber(p: number): boolean {
  const end = ends[p];
  let i = starts[p];
  const whole = i;
  while (i < end && isDigit(source.charCodeAt(i))) i++;
  if (i === whole) return false;
  if (i === end) return true;
  if (source.charCodeAt(i) !== 46) return false;
  const fraction = ++i;
  while (i < end && isDigit(source.charCodeAt(i))) i++;
  return i > fraction && i === end;
}

/** visitor.ts withBoost, for a well-formed `^NUMBER` whose `^` is token `caret`. */
function withBoost(node: QueryNode, caret: number): QueryNode {
  const value = caret + 1;
  const boost = Number(image(value));
  if (boost === 0) b.report('lucene/zero-boost', 'warning', 'a boost of 0 gives this clause no weight at all', { start: starts[caret], end: ends[value] });
  const out: BoostNode = {
    kind: 'boost',
    boost,
    child: node,
    range: { start: node.range.start, end: ends[value] },
    operatorRange: { start: starts[caret], end: ends[caret] },
    parameterRange: { start: starts[value], end: ends[value] },
  };
  return out;
}

// What suffixSlops found, as token indices (-1: none), in module variables rather than a
// result object per word.
let slopFirst = -1;
let slopLast = -1;
let slopCount = 0;
let slopBoost = -1;

/** After a word: ('~')? ('^' NUMBER ('~')?)? (parser.ts wordTerm), into the slop* variables. */
function suffixSlops(): void {
  slopFirst = slopLast = slopBoost = -1;
  slopCount = 0;
  if (kindAt(pos) === FUZZY_SLOP) {
    slopFirst = slopLast = pos++;
    slopCount++;
  }
  if (kindAt(pos) === CARET) {
    slopBoost = boostCaret();
    if (kindAt(pos) === FUZZY_SLOP) {
      // A second `~` (`roam~1^2~2`) is an error: left to Chevrotain.
      if (slopFirst >= 0) throw DECLINE;
      slopLast = pos++;
      slopFirst = slopLast;
      slopCount++;
    }
  }
}

/** visitor.ts wordTerm (a word without escapes: its text and pattern are its image). */
function wordTerm(field: string | undefined, fieldStart: number): QueryNode {
  const w = pos++;
  suffixSlops();
  const first = slopFirst;
  const slop = slopLast;
  const boost = slopBoost;
  // The leaf ends at its `~N` when that comes before the boost (`roam~1^2`).
  const e = first >= 0 && (boost < 0 || starts[first] < starts[boost]) ? ends[first] : ends[w];
  const range = { start: fieldStart >= 0 ? fieldStart : starts[w], end: e };
  const text = image(w);
  let node: TermNode | WildcardNode | FuzzyNode;
  if (kinds[w] === WORD && slop < 0) {
    // The common plain term.
    node = field !== undefined ? { kind: 'term', text, raw: false, range, fields: [field] } : { kind: 'term', text, raw: false, range };
    if (fieldStart >= 0) node.fieldRanges = [writtenField(field!, fieldStart)];
    return boost >= 0 ? withBoost(node, boost) : node;
  }
  if (kinds[w] === WILD_WORD) {
    node = field !== undefined ? { kind: 'wildcard', pattern: text, form: 'lucene', range, fields: [field] } : { kind: 'wildcard', pattern: text, form: 'lucene', range };
    const c = text.charCodeAt(0);
    if (c === 42 || c === 63) {
      b.report(
        'lucene/leading-wildcard',
        'warning',
        `Lucene rejects a term that starts with '${text[0]}' unless allowLeadingWildcard is set (and such a query scans every term)`,
        { start: starts[w], end: ends[w] },
      );
    }
    if (slop >= 0) b.report('lucene/ignored-fuzzy', 'warning', `'${image(slop)}' is ignored on a wildcard term`, { start: starts[slop], end: ends[slop] });
  } else {
    const { maxEdits, explicit } = b.fuzzyEdits(tokenAt(slop), text);
    node = field !== undefined ? { kind: 'fuzzy', text, maxEdits, explicit, range, fields: [field] } : { kind: 'fuzzy', text, maxEdits, explicit, range };
  }
  b.leafSurface(node, fieldStart >= 0 ? writtenField(field!, fieldStart) : undefined, slop >= 0 ? { start: starts[slop], end: ends[slop] } : undefined);
  return boost >= 0 ? withBoost(node, boost) : node;
}

/** visitor.ts phrase, for a closed phrase: Quoted ('~')? ('^' NUMBER)? */
function phrase(field: string | undefined, fieldStart: number): QueryNode {
  const q = pos++;
  suffixSlops();
  const slop = slopLast;
  const boost = slopBoost;
  // The phrase ends at its `~N` when that comes before the boost (`"a b"~1^2`).
  const e = slop >= 0 && (boost < 0 || starts[slop] < starts[boost]) ? ends[slop] : ends[q];
  const range = { start: fieldStart >= 0 ? fieldStart : starts[q], end: e };
  const terms = b.phraseTerms(starts[q] + 1, ends[q] - 1);
  let slopValue = 0;
  let explicitSlop = false;
  if (slop >= 0) ({ slop: slopValue, explicit: explicitSlop } = b.phraseSlop(tokenAt(slop)));
  const node: PhraseNode =
    field !== undefined
      ? { kind: 'phrase', terms, slop: slopValue, explicitSlop, range, fields: [field] }
      : { kind: 'phrase', terms, slop: slopValue, explicitSlop, range };
  b.leafSurface(node, fieldStart >= 0 ? writtenField(field!, fieldStart) : undefined, slop >= 0 ? { start: starts[slop], end: ends[slop] } : undefined);
  if (terms.length === 0) b.report('lucene/empty-phrase', 'warning', 'an empty phrase matches nothing', { start: starts[q], end: ends[q] });
  for (const t of terms) {
    if (WILDCARD_CHAR.test(t.text)) {
      b.report('lucene/wildcard-in-phrase', 'info', `wildcards are not expanded inside a phrase: '${t.text}' is searched as written`, t.range);
    }
  }
  return boost >= 0 ? withBoost(node, boost) : node;
}

/** The range of a field name written at `fieldStart` (escapes decline in scan(), so the name is its image). */
function writtenField(field: string, fieldStart: number): SourceRange {
  return { start: fieldStart, end: fieldStart + field.length };
}

function bound(p: number): string | null {
  return ends[p] - starts[p] === 1 && source.charCodeAt(starts[p]) === 42 ? null : unescapeLucene(image(p));
}

/** visitor.ts range + rangeBound: ('['|'{') goop TO goop (']'|'}') ('^' NUMBER)? */
function range(field: string | undefined, fieldStart: number): QueryNode {
  const open = pos;
  const close = pos + 4;
  if (kindAt(open + 1) !== RANGE_GOOP || kindAt(open + 2) !== RANGE_TO || kindAt(open + 3) !== RANGE_GOOP) throw DECLINE;
  const closeKind = kindAt(close);
  if (closeKind !== RANGE_IN_END && closeKind !== RANGE_EX_END) throw DECLINE;
  pos += 5;
  const lower = bound(open + 1);
  const upper = bound(open + 3);
  const includeLower = kinds[open] === RANGE_IN_START;
  const includeUpper = closeKind === RANGE_IN_END;
  const range = { start: fieldStart >= 0 ? fieldStart : starts[open], end: ends[close] };
  const node: RangeNode =
    field !== undefined
      ? { kind: 'range', lower, upper, includeLower, includeUpper, range, fields: [field] }
      : { kind: 'range', lower, upper, includeLower, includeUpper, range };
  if (fieldStart >= 0) node.fieldRanges = [writtenField(field!, fieldStart)];
  return kindAt(pos) === CARET ? withBoost(node, boostCaret()) : node;
}

/**
 * The root visitor.ts builds for `text` (diagnostics in `builder`, which the caller has
 * reset) when Chevrotain parses it without a syntax error; undefined when the text is
 * outside what this fast path reads (then `builder` holds leftovers: reset it again).
 */
export function fastLuceneAst(text: string, builder: LuceneAstBuilder): BooleanNode | undefined {
  try {
    if (!scan(text)) return undefined;
    pos = 0;
    b = builder;
    source = text;
    return topQuery();
  } catch (err) {
    if (err === DECLINE) return undefined;
    throw err;
  } finally {
    count = 0;
    source = '';
    if (kinds.length > KEEP_CAPACITY) {
      kinds = new Uint8Array(KEEP_CAPACITY);
      starts = new Int32Array(KEEP_CAPACITY);
      ends = new Int32Array(KEEP_CAPACITY);
    }
  }
}
