/**
 * Public entry of the Indri dialect: `parseIndri(text)` → AST + diagnostics.
 *
 * Total: it never throws. An internal failure becomes an `internal/parser-failure`
 * diagnostic. Pipeline: lex (lexer.ts) → depth check → parse with recovery (parser.ts) →
 * turn Chevrotain's recognition errors into located diagnostics in the user's words →
 * CST to AST (visitor.ts), which adds the semantic diagnostics.
 */
import { EOF, type IRecognitionException, type IToken, type TokenType } from 'chevrotain';
import type { QueryAst, QueryNode, SourceRange } from '../ast.js';
import type { ParseResult, QueryDiagnostic } from '../diagnostics.js';
import { fastParseIndri } from './fast.js';
import { lexIndri } from './lexer.js';
import { describeToken, expectedByMessage, lineColumn, missingCloseMessage } from './messages.js';
import { indriParser } from './parser.js';
import * as T from './tokens.js';
import { indriVisitor } from './visitor.js';

export { lexIndri } from './lexer.js';
export { INDRI_OPERATORS } from './tokens.js';

/**
 * Deepest bracket nesting we parse. Chevrotain and the visitor recurse per level; beyond
 * this the query is reported (`syntax/too-deep`) instead of risking the call stack.
 * No hand-written query comes anywhere near it.
 */
export const MAX_INDRI_DEPTH = 500;
/** Parse errors reported per query; past this the rest are summarised in one diagnostic. */
const MAX_SYNTAX_DIAGNOSTICS = 100;

const OPENERS = new Map<TokenType, string>([
  [T.LParen, ')'],
  [T.LBrace, '}'],
  [T.LAngle, '>'],
  [T.LBracket, ']'],
]);
const CLOSERS = new Map<TokenType, TokenType>([
  [T.RParen, T.LParen],
  [T.RBrace, T.LBrace],
  [T.RAngle, T.LAngle],
  [T.RBracket, T.LBracket],
]);
const OPERATOR_TYPES = new Set<TokenType>([...T.OPERATOR_TABLE.values(), T.HashNumber, T.UnknownOp]);
const BELIEF_TYPES = new Set<TokenType>([
  T.Combine,
  T.Weight,
  T.Wand,
  T.Wsum,
  T.Or,
  T.Not,
  T.Max,
  T.Sum,
  T.Prior,
  T.Filreq,
  T.Filrej,
  T.Scoreif,
  T.Scoreifnot,
]);

export function parseIndri(text: string): ParseResult {
  // Most queries are valid and simple: fast.ts parses those directly, with the same
  // result (differential-tested); anything else, and every error, takes the full path.
  if (typeof text === 'string') {
    try {
      const fast = fastParseIndri(text);
      if (fast) return fast;
    } catch {
      // A fast-path bug must not make parsing fail: the full path below is total.
    }
  }
  return parseIndriFull(text);
}

/**
 * The full pipeline (Chevrotain lexer, recovering parser, CST visitor): every query,
 * every diagnostic. Exported for the differential test of the fast path.
 */
export function parseIndriFull(text: string): ParseResult {
  const diagnostics: QueryDiagnostic[] = [];
  const range: SourceRange = { start: 0, end: typeof text === 'string' ? text.length : 0 };
  try {
    if (typeof text !== 'string') throw new TypeError('parseIndri expects a string');
    const root = parseInto(text, diagnostics);
    // In reading order (syntax errors are found before the visitor's checks); sort is stable.
    diagnostics.sort((a, b) => a.range.start - b.range.start);
    const ast: QueryAst = { dialect: 'indri', root, range };
    return { ast, diagnostics };
  } catch (err) {
    // The parser is total. Whatever went wrong is shown, never thrown.
    const message = err instanceof Error ? err.message : String(err);
    diagnostics.push({
      code: 'internal/parser-failure',
      severity: 'error',
      message: `internal parser failure: ${message}`,
      range,
    });
    const root: QueryNode | null = range.end > 0 ? { kind: 'error', text: String(text), range } : null;
    return { ast: { dialect: 'indri', root, range }, diagnostics };
  }
}

function parseInto(text: string, diagnostics: QueryDiagnostic[]): QueryNode | null {
  const lexed = lexIndri(text, MAX_INDRI_DEPTH);
  for (const e of lexed.errors) {
    const start = Math.min(e.offset, text.length);
    diagnostics.push({
      code: 'syntax/unexpected-character',
      severity: 'error',
      message: `unexpected character ${JSON.stringify(text.slice(start, start + e.length))}`,
      range: { start, end: Math.min(start + e.length, text.length) },
    });
  }
  const tokens = lexed.tokens;
  if (tokens.length === 0) return null;
  if (lexed.tooDeepAt) {
    const t = lexed.tooDeepAt;
    diagnostics.push({
      code: 'syntax/too-deep',
      severity: 'error',
      message: `this query nests operators more than ${MAX_INDRI_DEPTH} levels deep; it is not parsed further`,
      range: { start: t.startOffset, end: t.endOffset! + 1 },
    });
    return { kind: 'error', text, range: { start: tokens[0].startOffset, end: tokens[tokens.length - 1].endOffset! + 1 } };
  }
  const items: QueryNode[] = [];
  /** Tokens that are not part of the tree: strays, and tokens recovery deleted or skipped. */
  const strays = new Set<number>();
  /** Openers whose closer the parser already reported (and inserted in recovery). */
  const recoveredOpeners = new Set<number>();
  let start = 0;
  while (start < tokens.length) {
    // Tokens that cannot start an item are reported one by one, then parsing resumes.
    while (start < tokens.length && !canStartItem(tokens, start) && diagnostics.length <= MAX_SYNTAX_DIAGNOSTICS) {
      diagnostics.push(strayDiagnostic(tokens[start]));
      strays.add(start);
      start++;
    }
    if (start >= tokens.length) break;
    if (diagnostics.length > MAX_SYNTAX_DIAGNOSTICS) {
      diagnostics.push({
        code: 'syntax/too-many-errors',
        severity: 'error',
        message: `more than ${MAX_SYNTAX_DIAGNOSTICS} errors; the rest of the query is not checked`,
        range: { start: tokens[start].startOffset, end: text.length },
      });
      break;
    }
    const segment = start === 0 ? tokens : tokens.slice(start);
    expectedByMessage.clear();
    const cst = indriParser.parseQuery(segment);
    const errors = indriParser.errors;
    let next = start + Math.max(1, indriParser.consumedTokens());
    for (const e of errors) {
      for (const t of [e.token, ...(e.resyncedTokens ?? [])]) {
        if (!isEof(t) && CLOSERS.has(t.tokenType) === false) strays.add(start + tokenIndex(segment, t));
      }
    }
    const located = errors.filter((e) => {
      if (e.name !== 'NotAllInputParsedException') return true;
      next = start + tokenIndex(segment, e.token);
      return false;
    });
    if (located.length) {
      const closed = new Set<number>();
      diagnostics.push(...syntaxDiagnostics(text, segment, located, closed));
      for (const i of closed) recoveredOpeners.add(start + i);
    }
    // (a loop, not push(...spread): a 1 MB query has more items than a call has arguments)
    for (const item of indriVisitor.build(cst, text, diagnostics)) items.push(item);
    start = Math.max(next, start + 1);
  }
  // With every bracket matched in the text, nothing can be left open.
  if (!lexed.balanced && diagnostics.length <= MAX_SYNTAX_DIAGNOSTICS) reportUnclosed(text, tokens, strays, recoveredOpeners, diagnostics);
  if (items.length === 0) return null;
  if (items.length === 1) return items[0];
  // Several top-level items: the implicit #combine of rule `query` (SEMANTICS.md §1.1).
  return {
    kind: 'belief',
    op: 'combine',
    items: items.map((node) => ({ node })),
    implicit: true,
    range: { start: items[0].range.start, end: items[items.length - 1].range.end },
  };
}

/** Token types that can begin an item (FIRST of rule `scored`); a dash only before a number. */
const ITEM_START = new Set<TokenType>([
  ...OPERATOR_TYPES,
  T.Term,
  T.NumberTok,
  T.FloatTok,
  T.BadTerm,
  T.Base64,
  T.DQuote,
  T.LBrace,
  T.LAngle,
]);

function canStartItem(tokens: IToken[], i: number): boolean {
  const type = tokens[i].tokenType;
  if (ITEM_START.has(type)) return true;
  if (type === T.Dash || type === T.SpaceDash) {
    const next = tokens[i + 1]?.tokenType;
    return next === T.NumberTok || next === T.FloatTok;
  }
  return false;
}

/** A token met where an item should start, in the user's words. */
function strayDiagnostic(t: IToken): QueryDiagnostic {
  const range = { start: t.startOffset, end: t.endOffset! + 1 };
  const open = CLOSERS.get(t.tokenType);
  if (open) {
    return {
      code: 'syntax/unmatched-close',
      severity: 'error',
      message: `"${t.image}" has no matching ${open.LABEL}`,
      range,
      data: { close: t.image },
    };
  }
  if (t.tokenType === T.LParen) {
    return {
      code: 'syntax/unexpected-token',
      severity: 'error',
      message: 'Indri has no "(" grouping; use #combine( ... ) to group items',
      range,
    };
  }
  if (t.tokenType === T.Dash || t.tokenType === T.SpaceDash) {
    return {
      code: 'indri/no-minus-operator',
      severity: 'error',
      message:
        'Indri has no "-" operator to exclude a term; use #not( ... ) to score against it or #filrej( ... ) to drop documents that match it',
      range,
    };
  }
  return { code: 'syntax/unexpected-token', severity: 'error', message: `unexpected ${describeToken(t)}`, range };
}

/**
 * Every bracket still open at the end of the query gets a `syntax/missing-close`: Chevrotain
 * reports only the innermost (the outer rules give up once the input is exhausted).
 */
function reportUnclosed(
  text: string,
  tokens: IToken[],
  strays: Set<number>,
  recoveredOpeners: Set<number>,
  diagnostics: QueryDiagnostic[],
): void {
  const stack: OpenBracket[] = [];
  for (let i = 0; i < tokens.length; i++) {
    if (strays.has(i)) continue;
    const t = tokens[i].tokenType;
    if (OPENERS.has(t)) stack.push({ index: i, type: t });
    else {
      const opener = CLOSERS.get(t);
      if (opener) {
        const k = stack.map((o) => o.type).lastIndexOf(opener);
        if (k !== -1) stack.length = k;
      }
    }
  }
  if (stack.length === 0) return;
  const reported = new Set(
    diagnostics.filter((d) => d.code === 'syntax/missing-close').map((d) => d.range.start),
  );
  const last = tokens[tokens.length - 1];
  const offset = last.endOffset! + 1;
  for (let k = stack.length - 1; k >= 0 && diagnostics.length <= MAX_SYNTAX_DIAGNOSTICS; k--) {
    const open = stack[k];
    if (recoveredOpeners.has(open.index)) continue;
    const { name, start } = openerName(tokens, open);
    if (reported.has(start)) continue;
    const close = OPENERS.get(open.type)!;
    diagnostics.push({
      code: 'syntax/missing-close',
      severity: 'error',
      message: missingCloseMessage(close, name, lineColumn(text, start)),
      range: { start, end: tokens[open.index].endOffset! + 1 },
      data: { insert: close, offset, name, openedAt: start },
    });
  }
}

interface OpenBracket {
  index: number;
  type: TokenType;
}

/**
 * Convert Chevrotain's recognition errors. Bracket context (which operator a missing ")"
 * closes) is found with one pass over the tokens, stopping at each error's token.
 */
function syntaxDiagnostics(
  text: string,
  tokens: IToken[],
  errors: IRecognitionException[],
  closedOpeners: Set<number>,
): QueryDiagnostic[] {
  const out: QueryDiagnostic[] = [];
  const seen = new Set<string>();
  const located = errors
    .map((e) => ({ e, index: tokenIndex(tokens, e.token) }))
    .sort((a, b) => a.index - b.index);
  const stack: OpenBracket[] = [];
  let cursor = 0;
  for (const { e, index } of located) {
    for (; cursor < index && cursor < tokens.length; cursor++) {
      const t = tokens[cursor].tokenType;
      if (OPENERS.has(t)) stack.push({ index: cursor, type: t });
      else {
        const opener = CLOSERS.get(t);
        if (opener) {
          for (let k = stack.length - 1; k >= 0; k--) {
            if (stack[k].type === opener) {
              stack.length = k;
              break;
            }
          }
        }
      }
    }
    const d = toDiagnostic(text, tokens, e, index, stack, closedOpeners);
    const key = `${d.range.start}:${d.range.end}:${d.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (out.length === MAX_SYNTAX_DIAGNOSTICS) {
      out.push({
        code: 'syntax/too-many-errors',
        severity: 'error',
        message: `more than ${MAX_SYNTAX_DIAGNOSTICS} syntax errors; the rest are not shown`,
        range: d.range,
      });
      break;
    }
    out.push(d);
  }
  return out;
}

function isEof(t: IToken | undefined): boolean {
  return !t || t.tokenType === EOF || Number.isNaN(t.startOffset);
}

/** Index of a token in the stream (binary search by offset); tokens.length for EOF. */
function tokenIndex(tokens: IToken[], t: IToken): number {
  if (isEof(t)) return tokens.length;
  let lo = 0;
  let hi = tokens.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const s = tokens[mid].startOffset;
    if (s === t.startOffset) return mid;
    if (s < t.startOffset) lo = mid + 1;
    else hi = mid - 1;
  }
  return lo;
}

/** The operator an opening bracket belongs to, e.g. `#combine` for `#combine[title](`. */
function openerName(tokens: IToken[], open: OpenBracket): { name: string; start: number } {
  const t = tokens[open.index];
  if (open.type !== T.LParen) return { name: `"${t.image}"`, start: t.startOffset };
  let k = open.index - 1;
  if (k >= 0 && tokens[k].tokenType === T.RBracket) {
    while (k >= 0 && tokens[k].tokenType !== T.LBracket) k--;
    k--;
  }
  const op = tokens[k];
  if (op && OPERATOR_TYPES.has(op.tokenType)) return { name: op.image, start: op.startOffset };
  if (op && op.tokenType === T.Dot) return { name: 'the context list', start: t.startOffset };
  return { name: '"("', start: t.startOffset };
}

function toDiagnostic(
  text: string,
  tokens: IToken[],
  e: IRecognitionException,
  index: number,
  stack: OpenBracket[],
  closedOpeners: Set<number>,
): QueryDiagnostic {
  const actual = e.token;
  const atEof = isEof(actual);
  const prevEnd = index > 0 ? tokens[index - 1].endOffset! + 1 : 0;
  const range: SourceRange = atEof
    ? { start: prevEnd, end: prevEnd }
    : { start: actual.startOffset, end: actual.endOffset! + 1 };
  const innermost = stack[stack.length - 1];
  const where = innermost ? openerName(tokens, innermost) : undefined;

  if (e.name === 'MismatchedTokenException') {
    const expected = expectedByMessage.get(e.message);
    if (expected === T.DQuote && !atEof && actual.tokenType !== T.DQuote) {
      return {
        code: 'indri/quoted-phrase',
        severity: 'error',
        message: 'Indri has no quoted phrases: "..." holds one raw term; write #1( ... ) for a phrase',
        range,
      };
    }
    const closer = expected ? [...OPENERS.entries()].find(([, c]) => `"${c}"` === expected.LABEL) : undefined;
    if (closer && expected) {
      const opener = findOpen(stack, closer[0]);
      if (opener) closedOpeners.add(opener.index);
      const actualOpener = atEof ? undefined : CLOSERS.get(actual.tokenType);
      if (actualOpener && !findOpen(stack.slice(0, opener ? stack.indexOf(opener) : 0), actualOpener)) {
        // A closer that closes nothing open around here (`#combine(a ] b)`): recovery skipped it.
        return {
          code: 'syntax/unmatched-close',
          severity: 'error',
          message: `"${actual.image}" has no matching ${actualOpener.LABEL}`,
          range,
          data: { close: actual.image },
        };
      }
      if (opener && (atEof || actualOpener)) {
        const { name, start } = openerName(tokens, opener);
        const openTok = tokens[opener.index];
        return {
          code: 'syntax/missing-close',
          severity: 'error',
          message: missingCloseMessage(closer[1], name, lineColumn(text, start)),
          range: { start, end: openTok.endOffset! + 1 },
          data: { insert: closer[1], offset: prevEnd, name, openedAt: start },
        };
      }
      if (!atEof && BELIEF_TYPES.has(actual.tokenType) && where) {
        return {
          code: 'indri/scored-in-unscored',
          severity: 'error',
          message: `${actual.image} cannot be used inside ${where.name}: only terms and extent operators (#1, #uw, #syn, ...) can`,
          range,
        };
      }
      if (where && opener && !atEof) {
        return {
          code: 'syntax/unexpected-token',
          severity: 'error',
          message: `expected "${closer[1]}" to close ${where.name}, found ${describeToken(actual)}`,
          range,
        };
      }
    }
    return { code: 'syntax/unexpected-token', severity: 'error', message: e.message, range };
  }
  if (e.name === 'EarlyExitException') {
    const rule = e.context.ruleStack[e.context.ruleStack.length - 1] ?? '';
    if (where && (atEof || CLOSERS.has(actual.tokenType))) {
      const what = rule === 'weightedOp' ? 'a weight and an item' : rule === 'wsynOp' ? 'a weight and a term' : rule === 'dateOp' ? 'a date' : rule === 'compareOp' ? 'a number' : 'at least one item';
      return {
        code: 'syntax/empty-operator',
        severity: 'error',
        message: `${where.name} needs ${what}, found ${describeToken(actual)}`,
        range,
      };
    }
  }
  const rule = e.context.ruleStack[e.context.ruleStack.length - 1];
  const caller = e.context.ruleStack[e.context.ruleStack.length - 2];
  const prev = tokens[index - 1];
  if ((caller === 'weightedItem' || caller === 'wsynItem') && prev && (prev.tokenType === T.NumberTok || prev.tokenType === T.FloatTok)) {
    return {
      code: 'indri/item-expected',
      severity: 'error',
      message: `expected an item after the weight ${prev.image}, found ${describeToken(actual)}`,
      range,
    };
  }
  if (rule === 'negativeNumber' && prev && (prev.tokenType === T.Dash || prev.tokenType === T.SpaceDash)) {
    return {
      code: 'indri/no-minus-operator',
      severity: 'error',
      message:
        'Indri has no "-" operator to exclude a term; use #not( ... ) to score against it or #filrej( ... ) to drop documents that match it',
      range: { start: prev.startOffset, end: prev.endOffset! + 1 },
    };
  }
  if (!atEof && BELIEF_TYPES.has(actual.tokenType) && where && e.context.ruleStack.includes('termExpr')) {
    return {
      code: 'indri/scored-in-unscored',
      severity: 'error',
      message: `${actual.image} cannot be used inside ${where.name}: only terms and extent operators (#1, #uw, #syn, ...) can`,
      range,
    };
  }
  const code = e.name === 'NotAllInputParsedException' ? 'syntax/unexpected-token' : 'syntax/expected-item';
  return { code, severity: 'error', message: e.message, range };
}

function findOpen(stack: OpenBracket[], type: TokenType): OpenBracket | undefined {
  for (let k = stack.length - 1; k >= 0; k--) if (stack[k].type === type) return stack[k];
  return undefined;
}
