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
import type { BooleanNode, BoostNode, FuzzyNode, PhraseNode, QueryNode, RangeNode, TermNode, WildcardNode } from '../ast.js';
import { BOOST_NUMBER } from './parser.js';
import * as T from './tokens.js';
import { classifyWord, unescapeLucene, type ClauseItem, type Ctx, type LuceneAstBuilder } from './visitor.js';

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
// Recursive descent over `tokens`, building the AST exactly as visitor.ts builds it from
// parser.ts's CST (same node shapes, key order and diagnostics, in the same order), with
// the visitor's own helpers for clause flags, checks, fuzzy edits and phrase words. Any
// token the grammar does not expect declines, so no syntax error ever needs reporting.

/** visitor.ts classifyWord's test: only words with `\\`, `*` or `?` need a character scan. */
const NEEDS_SCAN = /[\\*?]/;

let b: LuceneAstBuilder;
let source = '';

function type(p: number): TokenType | undefined {
  return p < tokens.length ? tokens[p].tokenType : undefined;
}

function end(t: IToken): number {
  return t.startOffset + t.image.length;
}

/** topQuery := clauseItem* EOF (visitor.ts topQuery). */
function topQuery(): BooleanNode {
  const range = { start: 0, end: source.length };
  const items: ClauseItem[] = [];
  while (pos < tokens.length) items.push(clauseItem({ field: undefined }));
  const node: BooleanNode = { kind: 'boolean', clauses: b.addClauses(items), grouped: false, range };
  b.checkClauses(node);
  return node;
}

/** clauseItem := (AND|OR)? (+|-|NOT)? (Word ':')? body (visitor.ts clauseItem + clauseBody). */
function clauseItem(ctx: Ctx): ClauseItem {
  let conj: IToken | undefined;
  let mod: IToken | undefined;
  let t = type(pos);
  if (t === T.And || t === T.Or) {
    conj = tokens[pos++];
    t = type(pos);
  }
  if (t === T.Plus || t === T.Minus || t === T.Not) {
    mod = tokens[pos++];
    t = type(pos);
  }
  let inner = ctx;
  let node: QueryNode | undefined;
  if (t === T.Word && type(pos + 1) === T.Colon) {
    const fieldTok = tokens[pos];
    pos += 2;
    t = type(pos);
    const info = classifyWord(fieldTok.image);
    if (info.wildcard && fieldTok.image !== '*') {
      b.report('lucene/bad-field', 'error', `a field name cannot contain wildcards: '${fieldTok.image}'`, { start: fieldTok.startOffset, end: end(fieldTok) });
    }
    inner = { field: info.text, start: fieldTok.startOffset };
    // `*:*` (optionally boosted) → MatchAllNode (visitor.ts matchAll).
    if (fieldTok.image === '*' && t === T.Word && tokens[pos].image === '*') node = matchAll(fieldTok);
  }
  if (!node) {
    if (t === T.LParen) node = group(inner);
    else if (t === T.Word) node = wordTerm(inner);
    else if (t === T.Quoted) node = phrase(inner);
    else if (t === T.RangeInStart || t === T.RangeExStart) node = range(inner);
    else throw DECLINE;
  }
  let start = node.range.start;
  if (conj && conj.startOffset < start) start = conj.startOffset;
  if (mod && mod.startOffset < start) start = mod.startOffset;
  return { conj, mod, node, start };
}

function matchAll(fieldTok: IToken): QueryNode {
  const w = tokens[pos++];
  suffixSlops();
  const boostToks = slopBoost;
  const fuzzy = slopFirst;
  if (fuzzy) b.report('lucene/ignored-fuzzy', 'warning', "'~' has no effect on *:*", { start: fuzzy.startOffset, end: end(fuzzy) });
  const node: QueryNode = { kind: 'matchAll', range: { start: fieldTok.startOffset, end: end(w) } };
  return boostToks ? withBoost(node, boostToks) : node;
}

function group(ctx: Ctx): QueryNode {
  const lp = tokens[pos++];
  const items: ClauseItem[] = [];
  const inner: Ctx = { field: ctx.field };
  while (type(pos) !== T.RParen) {
    if (pos >= tokens.length) throw DECLINE;
    items.push(clauseItem(inner));
  }
  const rp = tokens[pos++];
  const clauses = b.addClauses(items);
  const node: BooleanNode = { kind: 'boolean', clauses, grouped: true, range: { start: ctx.start ?? lp.startOffset, end: end(rp) } };
  if (ctx.start !== undefined && ctx.field !== undefined) node.field = ctx.field;
  if (clauses.length === 0) {
    b.report('syntax/empty-group', 'error', "empty group '()': Lucene needs at least one clause inside parentheses", { start: lp.startOffset, end: end(rp) });
  }
  b.checkClauses(node);
  const boost = type(pos) === T.Caret ? boostTokens() : undefined;
  return boost ? withBoost(node, boost) : node;
}

/** boost := '^' NUMBER (a `^` without a number is left to Chevrotain and the visitor). */
function boostTokens(): [IToken, IToken] {
  const caret = tokens[pos++];
  const value = tokens[pos];
  if (!value || value.tokenType !== T.Word || !BOOST_NUMBER.test(value.image)) throw DECLINE;
  pos++;
  return [caret, value];
}

/** visitor.ts withBoost, for a well-formed `^NUMBER`. */
function withBoost(node: QueryNode, [caret, value]: [IToken, IToken]): QueryNode {
  const range = { start: caret.startOffset, end: end(value) };
  const boost = Number(value.image);
  if (boost === 0) b.report('lucene/zero-boost', 'warning', 'a boost of 0 gives this clause no weight at all', range);
  const out: BoostNode = { kind: 'boost', boost, child: node, range: { start: node.range.start, end: range.end } };
  return out;
}

// What suffixSlops found (module variables rather than a result object per word).
let slopFirst: IToken | undefined;
let slopLast: IToken | undefined;
let slopCount = 0;
let slopBoost: [IToken, IToken] | undefined;

/** After a word: ('~')? ('^' NUMBER ('~')?)? (parser.ts wordTerm), into the slop* variables. */
function suffixSlops(): void {
  slopFirst = slopLast = slopBoost = undefined;
  slopCount = 0;
  if (type(pos) === T.FuzzySlop) {
    slopFirst = slopLast = tokens[pos++];
    slopCount++;
  }
  if (type(pos) === T.Caret) {
    slopBoost = boostTokens();
    if (type(pos) === T.FuzzySlop) {
      slopLast = tokens[pos++];
      if (!slopFirst) slopFirst = slopLast;
      slopCount++;
    }
  }
}

/** visitor.ts wordTerm. */
function wordTerm(ctx: Ctx): QueryNode {
  const w = tokens[pos++];
  suffixSlops();
  const first = slopFirst;
  const slop = slopLast;
  const count = slopCount;
  const boost = slopBoost;
  // The leaf ends at its `~N` when that comes before the boost (`roam~1^2`).
  const e = first && (!boost || first.startOffset < boost[0].startOffset) ? end(first) : end(w);
  const range = { start: ctx.start ?? w.startOffset, end: e };
  const image = w.image;
  if (!slop && !NEEDS_SCAN.test(image)) {
    // The common plain term: what classifyWord + the branch below give, without the info object.
    const node: TermNode = { kind: 'term', text: image, raw: false, range };
    if (ctx.field !== undefined) node.fields = [ctx.field];
    return boost ? withBoost(node, boost) : node;
  }
  const info = classifyWord(image);
  if (count > 1) {
    b.report('lucene/ignored-fuzzy', 'warning', `'${first!.image}' is ignored: Lucene uses the last '~' ('${slop!.image}')`, {
      start: first!.startOffset,
      end: end(first!),
    });
  }
  let node: TermNode | WildcardNode | FuzzyNode;
  if (info.wildcard) {
    node = { kind: 'wildcard', pattern: info.pattern, form: 'lucene', range };
    if (info.leadingWildcard) {
      b.report(
        'lucene/leading-wildcard',
        'warning',
        `Lucene rejects a term that starts with '${image[0]}' unless allowLeadingWildcard is set (and such a query scans every term)`,
        { start: w.startOffset, end: end(w) },
      );
    }
    if (slop) b.report('lucene/ignored-fuzzy', 'warning', `'${slop.image}' is ignored on a wildcard term`, { start: slop.startOffset, end: end(slop) });
  } else if (slop) {
    const edits = b.fuzzyEdits(slop, info.text);
    node = { kind: 'fuzzy', text: info.text, maxEdits: edits.maxEdits, explicit: edits.explicit, range };
  } else {
    node = { kind: 'term', text: info.text, raw: false, range };
  }
  if (ctx.field !== undefined) node.fields = [ctx.field];
  return boost ? withBoost(node, boost) : node;
}

/** visitor.ts phrase, for a closed phrase: Quoted ('~')? ('^' NUMBER)? */
function phrase(ctx: Ctx): QueryNode {
  const q = tokens[pos++];
  const slop = type(pos) === T.FuzzySlop ? tokens[pos++] : undefined;
  const boost = type(pos) === T.Caret ? boostTokens() : undefined;
  const start = ctx.start ?? q.startOffset;
  const e = slop ? end(slop) : end(q);
  const terms = b.phraseTerms(q.startOffset + 1, end(q) - 1);
  let slopValue = 0;
  let explicitSlop = false;
  if (slop && slop.image.length > 1) {
    // Lucene: (int) Float.parseFloat(...).
    slopValue = Math.trunc(Number(slop.image.slice(1)));
    explicitSlop = true;
  }
  const node: PhraseNode = { kind: 'phrase', terms, slop: slopValue, explicitSlop, range: { start, end: e }, ...fieldsOf(ctx) };
  if (terms.length === 0) b.report('lucene/empty-phrase', 'warning', 'an empty phrase matches nothing', { start: q.startOffset, end: end(q) });
  for (const t of terms) {
    if (/[*?]/.test(t.text)) {
      b.report('lucene/wildcard-in-phrase', 'info', `wildcards are not expanded inside a phrase: '${t.text}' is searched as written`, t.range);
    }
  }
  return boost ? withBoost(node, boost) : node;
}

function fieldsOf(ctx: Ctx): { fields?: string[] } {
  return ctx.field !== undefined ? { fields: [ctx.field] } : {};
}

/** visitor.ts range + rangeBound: ('['|'{') goop TO goop (']'|'}') ('^' NUMBER)? */
function range(ctx: Ctx): QueryNode {
  const open = tokens[pos++];
  const lowerTok = tokens[pos];
  const to = tokens[pos + 1];
  const upperTok = tokens[pos + 2];
  const close = tokens[pos + 3];
  if (lowerTok?.tokenType !== T.RangeGoop || to?.tokenType !== T.RangeTo || upperTok?.tokenType !== T.RangeGoop) throw DECLINE;
  if (close?.tokenType !== T.RangeInEnd && close?.tokenType !== T.RangeExEnd) throw DECLINE;
  pos += 4;
  const bound = (t: IToken): string | null => (t.image === '*' ? null : unescapeLucene(t.image));
  const node: RangeNode = {
    kind: 'range',
    lower: bound(lowerTok),
    upper: bound(upperTok),
    includeLower: open.tokenType === T.RangeInStart,
    includeUpper: close.tokenType === T.RangeInEnd,
    range: { start: ctx.start ?? open.startOffset, end: end(close) },
    ...fieldsOf(ctx),
  };
  const boost = type(pos) === T.Caret ? boostTokens() : undefined;
  return boost ? withBoost(node, boost) : node;
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
    tokens = [];
    source = '';
  }
}
