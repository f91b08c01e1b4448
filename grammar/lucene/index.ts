/**
 * Public API of the Lucene classic dialect (SEMANTICS.md §3).
 *
 * parseLucene is total: it never throws, always returns an AST and reports every problem
 * as a diagnostic with a stable code:
 * - `syntax/missing-close` (data {insert, offset}), `syntax/unmatched-close` (data {close}), `syntax/unexpected-token`,
 *   `syntax/expected-clause`, `syntax/empty-group`, `syntax/too-deep`,
 *   `syntax/too-many-errors`, `syntax/unexpected-character`
 * - `lucene/mixed-and-or`, `lucene/only-negative`, `lucene/lowercase-operator`
 *   (data {replacement}), `lucene/leading-wildcard`, `lucene/bad-boost`, `lucene/zero-boost`,
 *   `lucene/bad-fuzzy`, `lucene/bad-slop`, `lucene/bad-escape`, `lucene/bad-regex`, `lucene/fuzzy-too-far`, `lucene/ignored-fuzzy`, `lucene/bad-field`,
 *   `lucene/range-expected-to`, `lucene/range-bound`, `lucene/empty-phrase`,
 *   `lucene/wildcard-in-phrase`, `lucene/bare-operator`, `lucene/dangling-escape`,
 *   `lucene/control-character`, `lucene/lone-surrogate`
 * - `internal/parser-failure` when something inside the parser throws.
 *
 * The root is null only for an empty (whitespace-only) text; otherwise it is a BooleanNode
 * with `grouped: false`, even for a single clause (see visitor.ts for the rules).
 */
import { EOF, type CstNode, type IRecognitionException, type IToken } from 'chevrotain';
import type { BooleanNode, QueryAst } from '../ast.js';
import type { ParseResult, QueryDiagnostic } from '../diagnostics.js';
import { fastLuceneAst } from './fast.js';
import { lexLucene } from './lexer.js';
import { describeToken, splitCodedMessage } from './messages.js';
import { luceneParser, TooManyParseErrors } from './parser.js';
import * as T from './tokens.js';
import { badUnicodeEscape, LuceneAstBuilder } from './visitor.js';

/** Tokens whose text Lucene passes through discardEscapeChar (the fast path declines on any `\\`). */
const ESCAPE_CHECKED = new Set([T.Word, T.Quoted, T.QuotedUnclosed, T.Regex, T.RegexUnclosed, T.RangeGoop, T.RangeQuoted]);

export interface LuceneParseOptions {
  /** Lucene's default operator between clauses with no AND/OR (QueryParser default: OR). */
  defaultOperator?: 'OR' | 'AND';
}

/**
 * Deepest `(` nesting the recursive-descent parser is allowed to see. Each level costs
 * several Chevrotain rule invocations (clauseItem → clause → group), a few dozen stack
 * frames: about 350 levels overflow Node's default stack when called from the top. 100
 * leaves room for callers deep in their own stacks, and no hand-written query comes near.
 */
export const MAX_NESTING_DEPTH = 100;

/**
 * After this many syntax errors the parser stops (garbage input would otherwise flood the
 * editor, and each error costs Chevrotain a scan for a re-sync point).
 */
const MAX_PARSER_ERRORS = 50;
const MAX_TEXT_DIAGNOSTICS = 20;

const astBuilder = new LuceneAstBuilder();

const ONLY_SPACE = /^[ \t\n\r\u3000]*$/;

export function parseLucene(text: string, options?: LuceneParseOptions): ParseResult {
  return parseWith(text, options, true);
}

/**
 * parseLucene without the fast path (fast.ts): Chevrotain's lexer and recovering parser
 * on every query. Exported for the differential test of the fast path.
 */
export function parseLuceneFull(text: string, options?: LuceneParseOptions): ParseResult {
  return parseWith(text, options, false);
}

function parseWith(text: string, options: LuceneParseOptions | undefined, fastPath: boolean): ParseResult {
  const range = { start: 0, end: text.length };
  const ast: QueryAst = { dialect: 'lucene', root: null, range };
  try {
    if (ONLY_SPACE.test(text)) return { ast, diagnostics: textChecks(text) };
    const deep = findTooDeep(text);
    if (deep >= 0) {
      ast.root = errorRoot(text);
      return {
        ast,
        diagnostics: [
          {
            code: 'syntax/too-deep',
            severity: 'error',
            message: `parentheses are nested more than ${MAX_NESTING_DEPTH} levels deep; the query was not parsed`,
            range: { start: deep, end: deep + 1 },
          },
        ],
      };
    }
    return parseChecked(text, options?.defaultOperator ?? 'OR', ast, fastPath);
  } catch (e) {
    ast.root = errorRoot(text);
    if (e instanceof RangeError) {
      // The caller's own stack was too deep for even MAX_NESTING_DEPTH levels.
      return { ast, diagnostics: [{ code: 'syntax/too-deep', severity: 'error', message: 'the query is nested too deeply to parse here', range }] };
    }
    return {
      ast,
      diagnostics: [
        {
          code: 'internal/parser-failure',
          severity: 'error',
          message: `internal error in the Lucene parser: ${e instanceof Error ? e.message : String(e)}`,
          range,
        },
      ],
    };
  }
}

function errorRoot(text: string): BooleanNode {
  const range = { start: 0, end: text.length };
  return { kind: 'boolean', grouped: false, range, clauses: [{ occur: 'should', via: 'default', node: { kind: 'error', text, range } }] };
}

function parseChecked(text: string, defaultOperator: 'OR' | 'AND', ast: QueryAst, fastPath: boolean): ParseResult {
  // Most queries have no syntax error: fast.ts builds their AST and diagnostics directly
  // (the same as below, differential-tested); anything else takes the Chevrotain path.
  if (fastPath) {
    astBuilder.reset(text, defaultOperator);
    const root = fastAst(text);
    if (root) return finishFast(text, ast, root);
  }
  const diagnostics: QueryDiagnostic[] = [];
  const lexed = lexLucene(text);
  for (const err of lexed.errors.slice(0, MAX_PARSER_ERRORS)) {
    // Every character is some token in tokens.ts, so this is a safety net only.
    diagnostics.push({
      code: 'syntax/unexpected-character',
      severity: 'error',
      message: `unexpected character '${text.substr(err.offset, 1)}'`,
      range: { start: err.offset, end: err.offset + Math.max(1, err.length) },
    });
  }
  for (const t of lexed.tokens) {
    if (!ESCAPE_CHECKED.has(t.tokenType)) continue;
    const at = badUnicodeEscape(t.image);
    if (at < 0) continue;
    const start = t.startOffset + at;
    diagnostics.push({
      code: 'lucene/bad-escape',
      severity: 'error',
      message: `'${text.slice(start, start + 6)}' is not a unicode escape: Lucene needs \\u and four hex digits (write \\\\u for a backslash and a u)`,
      range: { start, end: Math.min(start + 6, t.startOffset + t.image.length) },
    });
  }
  let tokens = lexed.tokens;
  let cst: CstNode;
  let stoppedAt = -1;
  try {
    cst = runParser(tokens, MAX_PARSER_ERRORS);
  } catch (e) {
    if (!(e instanceof TooManyParseErrors)) throw e;
    // Keep the part before the error that hit the limit: it parses into a tree with the
    // same first errors, and the rest of the text is not checked.
    stoppedAt = Number.isNaN(e.token.startOffset) ? text.length : e.token.startOffset;
    tokens = tokens.filter((t) => t.startOffset < stoppedAt);
    // Same errors again plus at most a few at the new end: the larger limit is not reached.
    cst = runParser(tokens, MAX_PARSER_ERRORS * 2);
  }
  astBuilder.reset(text, defaultOperator);
  const root = astBuilder.visit(cst, { field: undefined }) as BooleanNode;
  return finish(text, ast, diagnostics, root, luceneParser.errors, lexed.tokens, stoppedAt);
}

/** A fast-path bug must never make parsing fail: the Chevrotain path is total. */
function fastAst(text: string): BooleanNode | undefined {
  try {
    return fastLuceneAst(text, astBuilder);
  } catch {
    return undefined;
  }
}

/** The AST and every diagnostic (parser errors, the visitor's, text checks), sorted. */
function finish(
  text: string,
  ast: QueryAst,
  diagnostics: QueryDiagnostic[],
  root: BooleanNode,
  parserErrors: IRecognitionException[],
  lexedTokens: IToken[],
  stoppedAt: number,
): ParseResult {
  ast.root = root;
  if (stoppedAt >= 0) {
    diagnostics.push({
      code: 'syntax/too-many-errors',
      severity: 'error',
      message: `too many syntax errors; the query was not checked after this point`,
      range: { start: stoppedAt, end: text.length },
    });
  }
  for (const e of parserErrors.slice(0, MAX_PARSER_ERRORS)) diagnostics.push(toDiagnostic(e, text, lexedTokens));
  const visitorDiagnostics = withoutReportedCloses(astBuilder.diagnostics, diagnostics).filter((d) => !closedButSkipped(d, lexedTokens));
  diagnostics.push(...visitorDiagnostics.slice(0, MAX_PARSER_ERRORS));
  return sorted(ast, textChecks(text, diagnostics));
}

/**
 * finish() for a root from the fast path, which declines before any syntax error and
 * reports no missing close (so nothing of the visitor's is filtered): the diagnostics are
 * the builder's own list, taken over as it is (reset() starts a new one for the next
 * query), plus the text checks.
 */
function finishFast(text: string, ast: QueryAst, root: BooleanNode): ParseResult {
  ast.root = root;
  let diagnostics = astBuilder.diagnostics;
  if (diagnostics.length > MAX_PARSER_ERRORS) diagnostics = diagnostics.slice(0, MAX_PARSER_ERRORS);
  return sorted(ast, textChecks(text, diagnostics));
}

/** The result with its diagnostics in text order, duplicates removed. */
function sorted(ast: QueryAst, diagnostics: QueryDiagnostic[]): ParseResult {
  if (diagnostics.length < 2) return { ast, diagnostics };
  diagnostics.sort((a, b) => a.range.start - b.range.start || a.range.end - b.range.end);
  return { ast, diagnostics: dedupe(diagnostics) };
}

/**
 * The visitor reports every group / range left without its `)` / `]` / `}`; the parser
 * reports some of them itself (when it inserts the token). Each parser report cancels one
 * visitor report with the same insertion point, so a missing `)` is reported once and
 * nested ones are all reported.
 */
function withoutReportedCloses(fromVisitor: QueryDiagnostic[], fromParser: QueryDiagnostic[]): QueryDiagnostic[] {
  const key = (d: QueryDiagnostic): string | null => {
    const data = d.data as { insert?: string; offset?: number } | undefined;
    return d.code === 'syntax/missing-close' && data?.insert !== undefined ? `${data.insert}@${data.offset}` : null;
  };
  const pending = new Map<string, number>();
  for (const d of fromParser) {
    const k = key(d);
    if (k) pending.set(k, (pending.get(k) ?? 0) + 1);
  }
  if (pending.size === 0) return fromVisitor;
  return fromVisitor.filter((d) => {
    const k = key(d);
    const n = k ? pending.get(k) ?? 0 : 0;
    if (n === 0) return true;
    pending.set(k!, n - 1);
    return false;
  });
}

/**
 * A range whose `]` / `}` was there but skipped by recovery (`[a TO b c d]`) is not missing
 * its bracket: the "unexpected c d]" error says what is wrong.
 */
function closedButSkipped(d: QueryDiagnostic, tokens: IToken[]): boolean {
  const data = d.data as { insert?: string; offset?: number } | undefined;
  if (d.code !== 'syntax/missing-close' || (data?.insert !== ']' && data?.insert !== '}') || data.offset === undefined) return false;
  let lo = 0;
  let hi = tokens.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (tokens[mid].startOffset < data.offset) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.tokenType === T.RangeInEnd || t.tokenType === T.RangeExEnd) return luceneParser.skippedTokens.has(t.startOffset);
    if (t.tokenType === T.RangeInStart || t.tokenType === T.RangeExStart) return false;
  }
  return false;
}

function runParser(tokens: IToken[], errorLimit: number): CstNode {
  luceneParser.input = tokens;
  luceneParser.startParse(errorLimit);
  return luceneParser.topQuery();
}

function dedupe(list: QueryDiagnostic[]): QueryDiagnostic[] {
  const seen = new Set<string>();
  return list.filter((d) => {
    const key = `${d.code}|${d.range.start}|${d.range.end}|${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function toDiagnostic(e: IRecognitionException, text: string, tokens: IToken[]): QueryDiagnostic {
  const token = e.token;
  const atEnd = !token || token.tokenType === EOF || Number.isNaN(token.startOffset);
  const prev = (e as { previousToken?: IToken }).previousToken;
  const prevEnd = prev && !Number.isNaN(prev.startOffset) && prev.tokenType !== EOF ? prev.startOffset + prev.image.length : text.length;
  const range = atEnd ? { start: Math.min(prevEnd, text.length), end: Math.min(prevEnd, text.length) } : { start: token.startOffset, end: token.startOffset + token.image.length };
  let { code, message } = splitCodedMessage(e.message);
  if (!atEnd && code !== 'syntax/unexpected-token' && code !== 'syntax/unmatched-close' && luceneParser.skippedTokens.has(token.startOffset)) {
    // Recovery skipped the token (and maybe more after it) and went on: nothing was
    // missing, these tokens were extra. Report the whole skipped run.
    let i = tokenIndexAt(tokens, token.startOffset);
    while (i + 1 < tokens.length && luceneParser.skippedTokens.has(tokens[i + 1].startOffset)) i++;
    const end = i >= 0 ? tokens[i].startOffset + tokens[i].image.length : range.end;
    const skipped = { start: range.start, end };
    const shown = text.slice(skipped.start, skipped.end);
    const what = skipped.end > range.end ? `'${shown.length > 30 ? `${shown.slice(0, 29)}…` : shown}'` : describeToken(token);
    return { code: 'syntax/unexpected-token', severity: 'error', message: `unexpected ${what} here; it was skipped`, range: skipped };
  }
  const d: QueryDiagnostic = { code, severity: 'error', message, range };
  if (code === 'syntax/missing-close') {
    const offset = atEnd ? range.start : prevEnd;
    d.data = { insert: closingFor(tokens, offset, message), offset };
  } else if (code === 'syntax/unmatched-close' && !atEnd) {
    d.data = { close: token.image };
  }
  return d;
}

function tokenIndexAt(tokens: IToken[], offset: number): number {
  let lo = 0;
  let hi = tokens.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const o = tokens[mid].startOffset;
    if (o === offset) return mid;
    if (o < offset) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** `)` for a group; for a range, the bracket that matches the nearest opening one. */
function closingFor(tokens: IToken[], offset: number, message: string): string {
  if (message.includes("')'")) return ')';
  for (let i = tokens.length - 1; i >= 0; i--) {
    const t = tokens[i];
    if (t.startOffset >= offset) continue;
    if (t.tokenType === T.RangeInStart) return ']';
    if (t.tokenType === T.RangeExStart) return '}';
  }
  return ']';
}

/**
 * Offset of the first `(` that opens level MAX_NESTING_DEPTH + 1, or -1. Checked before
 * parsing so that a pathological text cannot overflow the stack. Escapes and quoted
 * phrases are skipped; counting a `(` inside a regex or a range only errs on the safe side.
 */
export function findTooDeep(text: string): number {
  // Fast exit: fewer '(' than the limit cannot nest deeper than it.
  let opens = 0;
  for (let i = text.indexOf('('); i >= 0 && opens <= MAX_NESTING_DEPTH; i = text.indexOf('(', i + 1)) opens++;
  if (opens <= MAX_NESTING_DEPTH) return -1;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 92 /* \ */) i++;
    else if (c === 34 /* " */) {
      for (i++; i < text.length; i++) {
        const q = text.charCodeAt(i);
        if (q === 92) i++;
        else if (q === 34) break;
      }
    } else if (c === 40 /* ( */) {
      if (++depth > MAX_NESTING_DEPTH) return i;
    } else if (c === 41 /* ) */ && depth > 0) depth--;
  }
  return -1;
}

// Control characters (NUL included) are term characters to Lucene but almost always a
// paste accident; unpaired surrogates are not valid UTF-16 and will not match anything.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]+/g;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const SUSPECT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ud800-\udfff]/;

/** Appends the diagnostics of control characters and lone surrogates to `out`. */
function textChecks(text: string, out: QueryDiagnostic[] = []): QueryDiagnostic[] {
  if (!SUSPECT.test(text)) return out;
  let control = 0;
  for (const m of text.matchAll(CONTROL)) {
    if (control++ >= MAX_TEXT_DIAGNOSTICS) break;
    const code = m[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
    out.push({
      code: 'lucene/control-character',
      severity: 'warning',
      message: `control character U+${code} in the query; it becomes part of a term`,
      range: { start: m.index!, end: m.index! + m[0].length },
    });
  }
  let lone = 0;
  for (const m of text.matchAll(LONE_SURROGATE)) {
    if (lone++ >= MAX_TEXT_DIAGNOSTICS) break;
    out.push({
      code: 'lucene/lone-surrogate',
      severity: 'warning',
      message: `unpaired surrogate U+${m[0].charCodeAt(0).toString(16).toUpperCase()}: the text is not valid Unicode here`,
      range: { start: m.index!, end: m.index! + 1 },
    });
  }
  return out;
}

export { unescapeLucene } from './visitor.js';
