/**
 * CST → AST for the Lucene classic syntax (SEMANTICS.md §3).
 *
 * Rules this visitor keeps (documented here because printers and tests rely on them):
 * - Every `Query` production becomes a BooleanNode, even with a single clause: the root is
 *   `grouped: false`, each `( ... )` is `grouped: true`. Lucene itself collapses a
 *   one-clause query to the clause; the meaning is the same and the tree stays uniform.
 * - Clause flags follow `QueryParserBase.addClause` exactly (SEMANTICS.md §3 "precedence
 *   pitfall"); `via` says which token decided the flag, `coerced-by-*` marks a clause
 *   whose flag a *later* AND / OR rewrote.
 * - `field:` is kept on the leaf (`fields: [field]`); a `field:( ... )` group also records
 *   `field` on its BooleanNode (only where the user wrote it) and every leaf inside that
 *   has no field of its own gets it.
 * - Leaf ranges include the `field:` prefix; a BoostNode's range covers its child and the
 *   `^N`; a group's range runs from the field (or `(`) to `)`.
 * - TermNode.text and FuzzyNode.text are unescaped. WildcardNode.pattern keeps `\*`, `\?`
 *   and `\\` escaped (literal star, question mark, backslash), as Lucene's WildcardQuery
 *   reads them; every other escape is removed.
 * - Stray tokens (a `)` with no `(`, `]`, `^`, `~`, `:` or a trailing `\`) become ErrorNode
 *   clauses, so the tree still shows where they were.
 */
import { parseLuceneRegexp } from './regexp.js';
import type { IToken } from 'chevrotain';
import type {
  FuzzyNode,
  WildcardNode,
  BooleanClause,
  BooleanNode,
  BoostNode,
  ErrorNode,
  Occur,
  PhraseNode,
  QueryNode,
  RangeNode,
  SourceRange,
  TermNode,
} from '../ast.js';
import type { QueryDiagnostic, Severity } from '../diagnostics.js';
import { javaIntCast, javaParseFloat } from './java-float.js';
import { luceneParser, type CstNode } from './parser.js';
import * as T from './tokens.js';

type CstElement = CstNode | IToken;
type Children = Record<string, CstElement[] | undefined>;

export interface Ctx {
  /** The field in force: written on this clause, or inherited from an enclosing `field:( )`. */
  field: string | undefined;
  /** Where the `field:` prefix of this clause starts, so the leaf range can include it. */
  start?: number;
  /** Where the field name written on this clause ends (with `start`, the name's range). */
  fieldEnd?: number;
}

export interface ClauseItem {
  conj?: IToken;
  mod?: IToken;
  node: QueryNode;
  start: number;
}

const byStart = (a: ClauseItem, b: ClauseItem): number => a.start - b.start;

const BODY_RULES = ['group', 'wordTerm', 'phrase', 'regex', 'range', 'bareOperator'];

const BaseVisitor = luceneParser.getBaseCstVisitorConstructor<Ctx, unknown>();

function isToken(e: CstElement): e is IToken {
  return (e as IToken).tokenType !== undefined;
}

function real(token: IToken | undefined): token is IToken {
  return token !== undefined && !token.isInsertedInRecovery && !Number.isNaN(token.startOffset);
}

function tok(ch: Children, name: string, i = 0): IToken | undefined {
  const e = ch[name]?.[i];
  return e && isToken(e) ? e : undefined;
}

function sub(ch: Children, name: string, i = 0): CstNode | undefined {
  const e = ch[name]?.[i];
  return e && !isToken(e) ? e : undefined;
}

/** The lexer tracks start offsets only (faster); every token is its image long. */
function tokEnd(t: IToken): number {
  return t.startOffset + t.image.length;
}

/** Offset one past the last real token inside a CST element (NaN when it has none). */
function lastEnd(e: CstElement): number {
  if (isToken(e)) return real(e) ? tokEnd(e) : Number.NaN;
  let best = Number.NaN;
  for (const list of Object.values(e.children)) {
    for (const c of list ?? []) {
      const v = lastEnd(c);
      if (!Number.isNaN(v) && !(v <= best)) best = v;
    }
  }
  return best;
}

/** Offset of the first real token inside a CST element (NaN when it has none). */
function firstStart(e: CstElement): number {
  if (isToken(e)) return real(e) ? e.startOffset : Number.NaN;
  let best = Number.NaN;
  for (const list of Object.values(e.children)) {
    for (const c of list ?? []) {
      const v = firstStart(c);
      if (!Number.isNaN(v) && !(v >= best)) best = v;
    }
  }
  return best;
}

/** Lucene's discardEscapeChar: `\x` → `x`. */
export function unescapeLucene(s: string): string {
  if (s.indexOf('\\') < 0) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\' && i + 1 < s.length) {
      const unicode = unicodeEscapeAt(s, i);
      if (unicode !== undefined) {
        out += unicode;
        i += 5;
        continue;
      }
      out += s[i + 1];
      i++;
    } else out += c;
  }
  return out;
}

const HEX4 = /^[0-9a-fA-F]{4}$/;

/** The character of a `\uXXXX` escape at `i` (QueryParserBase.discardEscapeChar), if there is one. */
export function unicodeEscapeAt(s: string, i: number): string | undefined {
  if (s[i + 1] !== 'u') return undefined;
  const hex = s.slice(i + 2, i + 6);
  return HEX4.test(hex) ? String.fromCharCode(Number.parseInt(hex, 16)) : undefined;
}

/**
 * Where discardEscapeChar, which Lucene applies to every term, field, phrase and range bound
 * (and to a regex's image, though it searches the regex as written), throws: a `\u` not
 * followed by four hex digits. The offset of that backslash in `s`, or -1.
 */
export function badUnicodeEscape(s: string): number {
  for (let i = s.indexOf('\\'); i >= 0 && i < s.length; i = s.indexOf('\\', i)) {
    if (s[i + 1] === 'u' && unicodeEscapeAt(s, i) === undefined) return i;
    i += s[i + 1] === 'u' ? 6 : 2;
  }
  return -1;
}

interface WordInfo {
  text: string;
  pattern: string;
  wildcard: boolean;
  leadingWildcard: boolean;
}

const NEEDS_SCAN = /[\\*?]/;

export function classifyWord(image: string): WordInfo {
  // Most words have no escape and no wildcard: no per-character work.
  if (!NEEDS_SCAN.test(image)) return { text: image, pattern: image, wildcard: false, leadingWildcard: false };
  let text = '';
  let pattern = '';
  let wildcard = false;
  for (let i = 0; i < image.length; i++) {
    const c = image[i];
    if (c === '\\' && i + 1 < image.length) {
      const n = image[i + 1];
      const unicode = unicodeEscapeAt(image, i);
      // The term's text decodes `\uXXXX`; a wildcard pattern keeps it, as WildcardQuery reads the raw image.
      if (unicode !== undefined) {
        text += unicode;
        pattern += image.slice(i, i + 6);
        i += 5;
        continue;
      }
      text += n;
      pattern += n === '*' || n === '?' || n === '\\' ? `\\${n}` : n;
      i++;
    } else {
      if (c === '*' || c === '?') wildcard = true;
      text += c;
      pattern += c;
    }
  }
  return { text, pattern, wildcard, leadingWildcard: image[0] === '*' || image[0] === '?' };
}

function isLuceneSpace(c: string): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\u3000';
}

/** isLuceneSpace for a character code. */
function isLuceneSpaceCode(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 0x3000;
}

/** Runs of Lucene whitespace (a constant: a regex literal in slice() is a new object per call). */
const SPACE_RUN = /[ \t\n\r\u3000]+/g;

function slice(text: string, r: SourceRange, max = 40): string {
  const s = text.slice(r.start, r.end).replace(SPACE_RUN, ' ');
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

function listWords(words: string[]): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

export class LuceneAstBuilder extends BaseVisitor {
  text = '';
  defaultOperator: 'OR' | 'AND' = 'OR';
  diagnostics: QueryDiagnostic[] = [];

  constructor() {
    super();
    this.validateVisitor();
  }

  reset(text: string, defaultOperator: 'OR' | 'AND'): void {
    this.text = text;
    this.defaultOperator = defaultOperator;
    this.diagnostics = [];
  }

  /** Also used by fast.ts, which builds the same AST without a CST. */
  report(code: string, severity: Severity, message: string, range: SourceRange, data?: unknown): void {
    const d: QueryDiagnostic = { code, severity, message, range };
    if (data !== undefined) d.data = data;
    this.diagnostics.push(d);
  }

  // ---- queries and clauses -------------------------------------------------------------

  topQuery(ch: Children, ctx: Ctx): BooleanNode {
    const range = { start: 0, end: this.text.length };
    // Recovery can re-sync before EOF; those clauses are still in `ch`.
    const node: BooleanNode = { kind: 'boolean', clauses: this.clauses(ch, ctx), grouped: false, range };
    this.checkClauses(node);
    return node;
  }

  private clauses(ch: Children, ctx: Ctx): BooleanClause[] {
    const items: ClauseItem[] = [];
    for (const e of ch.clauseItem ?? []) {
      const item = this.visit(e as CstNode, ctx) as ClauseItem | null;
      if (item) items.push(item);
    }
    const strays = ch.stray;
    if (strays) {
      // Stray tokens come in their own CST list: put them back between the clauses.
      for (const e of strays) items.push(this.strayItem(e as CstNode));
      items.sort(byStart);
    }
    return this.addClauses(items);
  }

  /** QueryParserBase.addClause, clause by clause (SEMANTICS.md §3). Also used by fast.ts. */
  addClauses(items: ClauseItem[]): BooleanClause[] {
    // Sized up front: the AST keeps this array, and one grown by push() keeps spare room
    // (16 slots for a one-clause group), which a file of 10,000 queries pays for in GC time.
    const out: BooleanClause[] = new Array(items.length);
    const orDefault = this.defaultOperator === 'OR';
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      const conj = item.conj ? (item.conj.tokenType === T.And ? 'AND' : 'OR') : undefined;
      const mod = item.mod?.tokenType;
      if (i === 0 && item.conj) {
        this.report(
          'syntax/unexpected-token',
          'error',
          `'${item.conj.image}' at the start has nothing before it to join`,
          { start: item.conj.startOffset, end: tokEnd(item.conj) },
        );
      }
      const prev = i > 0 ? out[i - 1] : undefined;
      if (prev && conj === 'AND' && prev.occur !== 'mustNot' && prev.occur !== 'must') {
        prev.occur = 'must';
        prev.via = 'coerced-by-AND';
      }
      if (prev && !orDefault && conj === 'OR' && prev.occur !== 'mustNot' && prev.occur !== 'should') {
        prev.occur = 'should';
        prev.via = 'coerced-by-OR';
      }
      const prohibited = mod === T.Minus || mod === T.Not;
      const required = orDefault ? mod === T.Plus || (conj === 'AND' && !prohibited) : !prohibited && conj !== 'OR';
      const occur: Occur = prohibited ? 'mustNot' : required ? 'must' : 'should';
      let via: BooleanClause['via'];
      if (mod === T.Minus) via = 'minus';
      else if (mod === T.Not) via = 'NOT';
      else if (mod === T.Plus) via = 'plus';
      else if (conj === 'AND') via = 'AND';
      else if (conj === 'OR') via = 'OR';
      else via = 'default';
      const first = item.conj ?? item.mod;
      const last = item.mod ?? item.conj;
      // One literal per shape rather than adding operatorRange afterwards (which gives the
      // object a separate property store); the key order is the same either way.
      out[i] =
        first && last
          ? { occur, node: item.node, via, operatorRange: { start: first.startOffset, end: tokEnd(last) } }
          : { occur, node: item.node, via };
    }
    return out;
  }

  private strayItem(node: CstNode): ClauseItem {
    const tokens = Object.values(node.children).flat() as IToken[];
    const t = tokens[0]!;
    // A stray `^` and its number are one error.
    const range = { start: t.startOffset, end: Math.max(...tokens.map(tokEnd)) };
    switch (t.tokenType) {
      case T.DanglingEscape:
        this.report('lucene/dangling-escape', 'error', "a '\\' at the end escapes nothing; write '\\\\' for a backslash", range);
        break;
      case T.StrayClose:
        this.report('syntax/unmatched-close', 'error', `unexpected '${t.image}': no range is open`, range, { close: t.image });
        break;
      case T.Caret:
        this.report('syntax/unexpected-token', 'error', "'^' must follow a term, phrase or group (as in term^2)", range);
        break;
      case T.FuzzySlop:
        this.report('syntax/unexpected-token', 'error', `'${t.image}' must follow a term or a phrase (as in roam~1)`, range);
        break;
      default:
        this.report('syntax/unexpected-token', 'error', `'${t.image}' must follow a field name (as in title:term)`, range);
    }
    return { node: { kind: 'error', text: t.image, range }, start: t.startOffset };
  }

  stray(): never {
    throw new Error('stray nodes are handled by clauses()');
  }

  clauseItem(ch: Children, ctx: Ctx): ClauseItem {
    const conj = tok(ch, 'conj');
    const mod = tok(ch, 'mod');
    let node = this.clauseBody(ch, ctx);
    if (!node) {
      // Recovery left the clause empty (`a AND` at the end): an empty placeholder right
      // after the last token we have.
      const at = Math.max(0, lastEnd({ name: 'clauseItem', children: ch } as CstNode) || 0);
      node = { kind: 'error', text: '', range: { start: at, end: at } } satisfies ErrorNode;
    }
    let start = node.range.start;
    if (real(conj) && conj.startOffset < start) start = conj.startOffset;
    if (real(mod) && mod.startOffset < start) start = mod.startOffset;
    return { conj: real(conj) ? conj : undefined, mod: real(mod) ? mod : undefined, node, start };
  }

  /** `[field ':'] (group | term)` of a clause. */
  private clauseBody(ch: Children, ctx: Ctx): QueryNode | null {
    const fieldTok = tok(ch, 'field');
    let inner: Ctx = ctx;
    if (real(fieldTok)) {
      const info = classifyWord(fieldTok.image);
      // `*:*` is the only place a wildcard may stand for a field.
      if (info.wildcard && fieldTok.image !== '*') {
        this.report('lucene/bad-field', 'error', `a field name cannot contain wildcards: '${fieldTok.image}'`, {
          start: fieldTok.startOffset,
          end: tokEnd(fieldTok),
        });
      }
      inner = { field: info.text, start: fieldTok.startOffset, fieldEnd: tokEnd(fieldTok) };
      if (fieldTok.image === '*') {
        const matchAll = this.matchAll(ch, fieldTok);
        if (matchAll) return matchAll;
      }
    }
    for (const name of BODY_RULES) {
      const n = sub(ch, name);
      if (n) return this.visit(n, inner) as QueryNode | null;
    }
    return null;
  }

  /** `*:*` (optionally boosted) → MatchAllNode. */
  private matchAll(ch: Children, fieldTok: IToken): QueryNode | null {
    const word = sub(ch, 'wordTerm');
    if (!word) return null;
    const wch = word.children as Children;
    const w = tok(wch, 'Word');
    if (!real(w) || w.image !== '*') return null;
    const fuzzy = tok(wch, 'FuzzySlop');
    if (fuzzy) this.report('lucene/ignored-fuzzy', 'warning', "'~' has no effect on *:*", { start: fuzzy.startOffset, end: tokEnd(fuzzy) });
    const node: QueryNode = { kind: 'matchAll', range: { start: fieldTok.startOffset, end: tokEnd(w) } };
    return this.withBoost(node, sub(wch, 'boost'));
  }

  group(ch: Children, ctx: Ctx): QueryNode {
    const lp = tok(ch, 'LParen')!;
    const rp = tok(ch, 'RParen');
    const clauses = this.clauses(ch, { field: ctx.field });
    const start = ctx.start ?? lp.startOffset;
    let end: number;
    if (real(rp)) end = tokEnd(rp);
    else {
      const inside = lastEnd({ name: 'group', children: { ...ch, boost: [] } } as unknown as CstNode);
      end = Number.isNaN(inside) ? tokEnd(lp) : inside;
    }
    if (!real(rp)) {
      // index.ts drops this when the parser already reported the same missing ')'; nested
      // unclosed groups and groups the parser re-synced out of keep theirs.
      this.report('syntax/missing-close', 'error', "missing ')' to close this '('", { start: lp.startOffset, end: tokEnd(lp) }, { insert: ')', offset: end });
    }
    const node: BooleanNode = { kind: 'boolean', clauses, grouped: true, range: { start, end } };
    if (ctx.start !== undefined && ctx.field !== undefined) {
      node.field = ctx.field;
      node.fieldRange = { start: ctx.start, end: ctx.fieldEnd ?? ctx.start + ctx.field.length };
    }
    if (clauses.length === 0 && real(rp)) {
      this.report('syntax/empty-group', 'error', "empty group '()': Lucene needs at least one clause inside parentheses", { start: lp.startOffset, end });
    }
    this.checkClauses(node);
    return this.withBoost(node, sub(ch, 'boost'));
  }

  // ---- leaves --------------------------------------------------------------------------

  private fieldsOf(ctx: Ctx): { fields?: string[] } {
    return ctx.field !== undefined ? { fields: [ctx.field] } : {};
  }

  /** Where the field name written on this clause is, or undefined when the field (if any) is inherited. */
  private writtenField(ctx: Ctx): SourceRange | undefined {
    return ctx.start !== undefined && ctx.field !== undefined ? { start: ctx.start, end: ctx.fieldEnd ?? ctx.start + ctx.field.length } : undefined;
  }

  /**
   * Records where a leaf's own field name and its `~` (with the number after it) were written, for
   * editors. Also used by fast.ts: the keys come last, in this order, on both paths.
   */
  leafSurface(node: QueryNode, field: SourceRange | undefined, slop: SourceRange | undefined): void {
    if (field && 'fields' in node && node.fields) (node as { fieldRanges?: SourceRange[] }).fieldRanges = [field];
    if (slop && (node.kind === 'fuzzy' || node.kind === 'phrase')) {
      node.operatorRange = { start: slop.start, end: slop.start + 1 };
      if (slop.end - slop.start > 1) node.parameterRange = { start: slop.start + 1, end: slop.end };
    }
  }

  wordTerm(ch: Children, ctx: Ctx): QueryNode | null {
    const w = tok(ch, 'Word');
    if (!real(w)) return null;
    const slops = ch.FuzzySlop as IToken[] | undefined;
    const boost = sub(ch, 'boost');
    const first = slops?.[0];
    // Lucene allows one `~` per term, before or after the boost; `roam~1^2~2` is an error.
    const slop = slops?.[slops.length - 1];
    // The leaf ends at its `~N` when that comes before the boost (`roam~1^2`).
    const end = first && (!boost || first.startOffset < firstStart(boost)) ? tokEnd(first) : tokEnd(w);
    const range = { start: ctx.start ?? w.startOffset, end };
    const image = w.image;
    const info = classifyWord(image);
    if (slops && slops.length > 1) {
      this.report('syntax/unexpected-token', 'error', `only one '~' is allowed on a term, before or after its boost: remove '${slops[0].image}' or '${slop!.image}'`, {
        start: slop!.startOffset,
        end: tokEnd(slop!),
      });
    }
    let node: TermNode | WildcardNode | FuzzyNode;
    if (info.wildcard) {
      node = { kind: 'wildcard', pattern: info.pattern, form: 'lucene', range };
      if (info.leadingWildcard) {
        this.report(
          'lucene/leading-wildcard',
          'warning',
          `Lucene rejects a term that starts with '${image[0]}' unless allowLeadingWildcard is set (and such a query scans every term)`,
          { start: w.startOffset, end: tokEnd(w) },
        );
      }
      if (slop) {
        this.report('lucene/ignored-fuzzy', 'warning', `'${slop.image}' is ignored on a wildcard term`, { start: slop.startOffset, end: tokEnd(slop) });
      }
    } else if (slop) {
      const edits = this.fuzzyEdits(slop, info.text);
      node = { kind: 'fuzzy', text: info.text, maxEdits: edits.maxEdits, explicit: edits.explicit, range };
    } else {
      node = { kind: 'term', text: info.text, raw: false, range };
    }
    if (ctx.field !== undefined) node.fields = [ctx.field];
    this.leafSurface(node, this.writtenField(ctx), slop && { start: slop.startOffset, end: tokEnd(slop) });
    return boost ? this.withBoost(node, boost) : node;
  }


  /**
   * handleBareFuzzy + FuzzyQuery.floatToEdits (SEMANTICS.md §3): the slop is read with Java's
   * Float.parseFloat, and a slop that is not a number (`~2x`, `~abc`) is ignored for the
   * default of 2 edits, as Lucene ignores it. Also used by fast.ts.
   */
  fuzzyEdits(slop: IToken, text: string): { maxEdits: number; explicit: boolean } {
    const digits = slop.image.slice(1);
    if (digits === '') return { maxEdits: 2, explicit: false };
    const range = { start: slop.startOffset, end: tokEnd(slop) };
    const v = javaParseFloat(digits);
    if (v === undefined) {
      this.report('lucene/ignored-fuzzy', 'warning', `'${slop.image}' is not a number: Lucene ignores it and allows the default 2 edits`, range);
      return { maxEdits: 2, explicit: false };
    }
    if (v < 0) {
      this.report('lucene/bad-fuzzy', 'error', `a fuzzy term cannot have a negative similarity: use ~1 or ~2, not ${slop.image}`, range);
      return { maxEdits: 0, explicit: true };
    }
    // Lucene compares the float with its (int) cast: ~2.0 is 2 edits, ~1.5 (and ~1e20) fail.
    if (v >= 1 && v !== javaIntCast(v)) {
      this.report('lucene/bad-fuzzy', 'error', `fractional edit distances are not allowed: use ~1 or ~2, not ${slop.image}`, range);
      return { maxEdits: Math.min(javaIntCast(v), 2), explicit: true };
    }
    if (v > 2) {
      this.report('lucene/fuzzy-too-far', 'warning', `Lucene allows at most 2 edits; ${slop.image} acts as ~2`, range);
      return { maxEdits: 2, explicit: true };
    }
    if (v >= 1 || v === 0) return { maxEdits: v, explicit: true };
    // Legacy similarity in (0, 1) (or NaN, which Java's cast makes 0 edits): edits = (1 - similarity) * length, at most 2.
    const length = [...text].length;
    return { maxEdits: Math.min(javaIntCast((1 - v) * length), 2), explicit: true };
  }

  /** handleQuotedTerm: `(int) Float.parseFloat(slop)`, a slop that is not a number ignored. Also used by fast.ts. */
  phraseSlop(slop: IToken): { slop: number; explicit: boolean } {
    if (slop.image.length === 1) return { slop: 0, explicit: false };
    const range = { start: slop.startOffset, end: tokEnd(slop) };
    const v = javaParseFloat(slop.image.slice(1));
    if (v === undefined) {
      this.report('lucene/ignored-fuzzy', 'warning', `'${slop.image}' is not a number: Lucene ignores it and keeps the phrase exact`, range);
      return { slop: 0, explicit: false };
    }
    const value = javaIntCast(v);
    if (value < 0) {
      this.report('lucene/bad-slop', 'error', `a phrase slop cannot be negative: ${slop.image}`, range);
      return { slop: 0, explicit: false };
    }
    return { slop: value, explicit: true };
  }

  phrase(ch: Children, ctx: Ctx): QueryNode {
    const q = (tok(ch, 'Quoted') ?? tok(ch, 'QuotedUnclosed'))!;
    const closed = q.tokenType === T.Quoted;
    const slops = ch.FuzzySlop as IToken[] | undefined;
    const slop = slops?.[slops.length - 1];
    const boost = sub(ch, 'boost');
    if (slops && slops.length > 1) {
      this.report('syntax/unexpected-token', 'error', `only one '~' is allowed on a phrase, before or after its boost: remove '${slops[0].image}' or '${slop!.image}'`, {
        start: slop!.startOffset,
        end: tokEnd(slop!),
      });
    }
    const start = ctx.start ?? q.startOffset;
    // The phrase ends at its `~N` when that comes before the boost (`"a b"~1^2`).
    const end = slop && (!boost || slop.startOffset < firstStart(boost)) ? tokEnd(slop) : tokEnd(q);
    if (!closed) {
      this.report('syntax/missing-close', 'error', 'missing closing \'"\' for this phrase', { start: q.startOffset, end: tokEnd(q) }, {
        insert: '"',
        offset: tokEnd(q),
      });
    }
    const innerStart = q.startOffset + 1;
    const innerEnd = closed ? tokEnd(q) - 1 : tokEnd(q);
    const terms = this.phraseTerms(innerStart, innerEnd);
    let slopValue = 0;
    let explicitSlop = false;
    if (slop) ({ slop: slopValue, explicit: explicitSlop } = this.phraseSlop(slop));
    const node: PhraseNode = { kind: 'phrase', terms, slop: slopValue, explicitSlop, range: { start, end }, ...this.fieldsOf(ctx) };
    this.leafSurface(node, this.writtenField(ctx), slop && { start: slop.startOffset, end: tokEnd(slop) });
    if (terms.length === 0) {
      this.report('lucene/empty-phrase', 'warning', 'an empty phrase matches nothing', { start: q.startOffset, end: tokEnd(q) });
    }
    for (const t of terms) {
      if (/[*?]/.test(t.text)) {
        this.report('lucene/wildcard-in-phrase', 'info', `wildcards are not expanded inside a phrase: '${t.text}' is searched as written`, t.range);
      }
    }
    return this.withBoost(node, sub(ch, 'boost'));
  }

  /** Splits the phrase body on (unescaped or escaped) whitespace, as the analyzer would. Also used by fast.ts. */
  phraseTerms(from: number, to: number): TermNode[] {
    // Without escapes the words are the runs between Lucene whitespace, offsets map 1:1
    // (scanned by character: no body string and no match object per word).
    const source = this.text;
    const words: TermNode[] = [];
    let i = from;
    while (i < to) {
      const c = source.charCodeAt(i);
      if (c === 92 /* \ */) return this.escapedPhraseTerms(from, to);
      if (isLuceneSpaceCode(c)) {
        i++;
        continue;
      }
      const start = i;
      for (i++; i < to; i++) {
        const d = source.charCodeAt(i);
        if (d === 92) return this.escapedPhraseTerms(from, to);
        if (isLuceneSpaceCode(d)) break;
      }
      words.push({ kind: 'term', text: source.slice(start, i), raw: false, range: { start, end: i } });
    }
    return words;
  }

  /** phraseTerms for a body with a backslash: escaped characters join (or split) words. */
  private escapedPhraseTerms(from: number, to: number): TermNode[] {
    const terms: TermNode[] = [];
    let text = '';
    let termStart = -1;
    let termEnd = -1;
    const flush = (): void => {
      if (termStart >= 0) terms.push({ kind: 'term', text, raw: false, range: { start: termStart, end: termEnd } });
      text = '';
      termStart = -1;
    };
    for (let i = from; i < to; i++) {
      let c = this.text[i];
      const at = i;
      if (c === '\\') {
        if (i + 1 >= to) break; // a dangling backslash in an unclosed phrase
        c = this.text[++i];
      }
      if (isLuceneSpace(c)) {
        flush();
        continue;
      }
      if (termStart < 0) termStart = at;
      text += c;
      termEnd = i + 1;
    }
    flush();
    return terms;
  }

  regex(ch: Children, ctx: Ctx): QueryNode {
    const r = (tok(ch, 'Regex') ?? tok(ch, 'RegexUnclosed'))!;
    const closed = r.tokenType === T.Regex;
    if (!closed) {
      this.report('syntax/missing-close', 'error', "missing closing '/' for this regular expression", { start: r.startOffset, end: tokEnd(r) }, {
        insert: '/',
        offset: tokEnd(r),
      });
    }
    const pattern = closed ? r.image.slice(1, -1) : r.image.slice(1);
    if (closed) {
      // Lucene builds the RegexpQuery while parsing, so a body its RegExp rejects fails the query.
      const parsed = parseLuceneRegexp(pattern);
      if (!parsed.ok) {
        const at = r.startOffset + 1 + parsed.offset;
        this.report('lucene/bad-regex', 'error', `invalid regular expression: ${parsed.message}`, { start: at, end: Math.min(at + 1, tokEnd(r)) });
      }
    }
    const slop = tok(ch, 'FuzzySlop');
    if (slop) {
      // Lucene's grammar accepts `/re/~2` and ignores the `~` (a regexp query wins).
      this.report('lucene/ignored-fuzzy', 'warning', `'${slop.image}' is ignored on a regular expression`, { start: slop.startOffset, end: tokEnd(slop) });
    }
    const node: QueryNode = { kind: 'regex', pattern, range: { start: ctx.start ?? r.startOffset, end: tokEnd(r) }, ...this.fieldsOf(ctx) };
    this.leafSurface(node, this.writtenField(ctx), undefined);
    return this.withBoost(node, sub(ch, 'boost'));
  }

  range(ch: Children, ctx: Ctx): QueryNode {
    const open = (tok(ch, 'RangeInStart') ?? tok(ch, 'RangeExStart'))!;
    const close = tok(ch, 'RangeEnd');
    const includeLower = open.tokenType === T.RangeInStart;
    const lowerNode = sub(ch, 'lower');
    const upperNode = sub(ch, 'upper');
    const lower = lowerNode ? (this.visit(lowerNode, ctx) as string | null) : null;
    const upper = upperNode ? (this.visit(upperNode, ctx) as string | null) : null;
    let end: number;
    let includeUpper: boolean;
    if (real(close)) {
      end = tokEnd(close);
      includeUpper = close.tokenType === T.RangeInEnd;
    } else {
      const candidates = [lastEnd({ name: 'range', children: { ...ch, boost: [] } } as unknown as CstNode), tokEnd(open)].filter((v) => !Number.isNaN(v));
      end = Math.max(...candidates);
      includeUpper = includeLower;
      const insert = includeLower ? ']' : '}';
      this.report('syntax/missing-close', 'error', `missing '${insert}' to close this '${open.image}'`, { start: open.startOffset, end: tokEnd(open) }, { insert, offset: end });
    }
    const node: RangeNode = {
      kind: 'range',
      lower,
      upper,
      includeLower,
      includeUpper,
      range: { start: ctx.start ?? open.startOffset, end },
      ...this.fieldsOf(ctx),
    };
    this.leafSurface(node, this.writtenField(ctx), undefined);
    return this.withBoost(node, sub(ch, 'boost'));
  }

  rangeBound(ch: Children): string | null {
    const goop = tok(ch, 'RangeGoop');
    if (real(goop)) return goop.image === '*' ? null : unescapeLucene(goop.image);
    const q = tok(ch, 'RangeQuoted');
    if (real(q)) return unescapeLucene(q.image.slice(1, -1));
    return null;
  }

  bareOperator(ch: Children, ctx: Ctx): QueryNode {
    const t = tok(ch, 'BareOperator')!;
    const range = { start: t.startOffset, end: tokEnd(t) };
    this.report(
      'lucene/bare-operator',
      'warning',
      `'${t.image}' followed by a space is searched as the term '${t.image}'; write ${t.image}term with no space to use it as an operator`,
      range,
    );
    // Like any term it may carry one `~` (a fuzzy `+`), before or after its boost.
    const slops = ch.FuzzySlop as IToken[] | undefined;
    const slop = slops?.[slops.length - 1];
    if (slops && slops.length > 1) {
      this.report('syntax/unexpected-token', 'error', `only one '~' is allowed on a term, before or after its boost: remove '${slops[0].image}' or '${slop!.image}'`, {
        start: slop!.startOffset,
        end: tokEnd(slop!),
      });
    }
    const boost = sub(ch, 'boost');
    const end = slops && (!boost || slops[0].startOffset < firstStart(boost)) ? tokEnd(slops[0]) : range.end;
    const leafRange = { start: ctx.start ?? t.startOffset, end };
    let node: TermNode | FuzzyNode;
    if (slop) {
      const edits = this.fuzzyEdits(slop, t.image);
      node = { kind: 'fuzzy', text: t.image, maxEdits: edits.maxEdits, explicit: edits.explicit, range: leafRange, ...this.fieldsOf(ctx) };
    } else {
      node = { kind: 'term', text: t.image, raw: false, range: leafRange, ...this.fieldsOf(ctx) };
    }
    this.leafSurface(node, this.writtenField(ctx), slop && { start: slop.startOffset, end: tokEnd(slop) });
    return this.withBoost(node, boost);
  }

  boost(): never {
    throw new Error('boosts are read by withBoost()');
  }

  private withBoost(node: QueryNode, boostNode: CstNode | undefined): QueryNode {
    if (!boostNode) return node;
    const ch = boostNode.children as Children;
    const caret = tok(ch, 'Caret');
    const value = tok(ch, 'value');
    if (!real(value)) {
      const at = real(caret) ? { start: caret.startOffset, end: tokEnd(caret) } : node.range;
      this.report('lucene/bad-boost', 'error', "expected a number after '^' (for example ^2 or ^0.5)", at);
      return node;
    }
    const range = { start: real(caret) ? caret.startOffset : value.startOffset, end: tokEnd(value) };
    const boost = Number(value.image);
    if (boost === 0) {
      this.report('lucene/zero-boost', 'warning', 'a boost of 0 gives this clause no weight at all', range);
    }
    const out: BoostNode = { kind: 'boost', boost, child: node, range: { start: node.range.start, end: range.end } };
    if (real(caret)) out.operatorRange = { start: caret.startOffset, end: tokEnd(caret) };
    out.parameterRange = { start: value.startOffset, end: tokEnd(value) };
    return out;
  }

  // ---- checks over one clause list (SEMANTICS.md §3 precedence pitfall) -------------------------

  /** Also used by fast.ts, which builds the same AST without a CST. */
  checkClauses(node: BooleanNode): void {
    const clauses = node.clauses;
    const n = clauses.length;
    if (n === 0) return;
    let allNegative = true;
    let hasAnd = false;
    let hasOr = false;
    for (let i = 0; i < n; i++) {
      const c = clauses[i];
      if (c.occur !== 'mustNot') allNegative = false;
      if (c.operatorRange) {
        const first = this.text.charCodeAt(c.operatorRange.start);
        if (first === 65 /* A */ || first === 38 /* & */) hasAnd = true;
        else if (first === 79 /* O */ || first === 124 /* | */) hasOr = true;
      }
      if (i > 0 && i + 1 < n && c.via === 'default' && c.node.kind === 'term' && !c.operatorRange) this.checkLowercaseOperator(c.node);
    }
    if (!allNegative && !(hasAnd && hasOr)) return;
    const listRange = { start: clauses[0].operatorRange?.start ?? clauses[0].node.range.start, end: clauses[n - 1].node.range.end };
    if (hasAnd && hasOr) this.reportMixedAndOr(clauses, listRange);
    if (allNegative) {
      this.report(
        'lucene/only-negative',
        'warning',
        'a query made only of negative clauses matches nothing in Lucene; add what to match, e.g. *:* ' + slice(this.text, listRange),
        listRange,
      );
    }
  }

  private checkLowercaseOperator(node: TermNode): void {
    const length = node.range.end - node.range.start;
    if (length < 2 || length > 3) return;
    const written = this.text.slice(node.range.start, node.range.end);
    const upper = written.toUpperCase();
    if ((upper === 'AND' || upper === 'OR' || upper === 'NOT') && written !== upper) {
      this.report('lucene/lowercase-operator', 'info', `'${written}' is searched as a word; did you mean ${upper}? (Lucene operators must be upper case)`, node.range, {
        replacement: upper,
      });
    }
  }

  private reportMixedAndOr(clauses: BooleanClause[], listRange: SourceRange): void {
    // Each clause's text once, for the meaning and for the lists (a file can hold thousands of these).
    const words = clauses.map((c) => slice(this.text, c.node.range, 24));
    const meaning = clauses.map((c, i) => (c.occur === 'must' ? '+' : c.occur === 'mustNot' ? '-' : '') + words[i]).join(' ');
    const parts: string[] = [];
    const wordsWith = (occur: Occur): string[] => words.filter((_, i) => clauses[i].occur === occur);
    const required = wordsWith('must');
    const optional = wordsWith('should');
    const excluded = wordsWith('mustNot');
    if (required.length) parts.push(`${listWords(required)} required`);
    if (optional.length) parts.push(`${listWords(optional)} optional`);
    if (excluded.length) parts.push(`${listWords(excluded)} excluded`);
    this.report(
      'lucene/mixed-and-or',
      'warning',
      `"${slice(this.text, listRange, 80)}" means ${meaning} in Lucene (${parts.join(', ')}); add parentheses to say what you mean`,
      listRange,
    );
  }
}
