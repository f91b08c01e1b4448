/**
 * Fast path of parseIndri for the common case: a valid query built from belief operators
 * (#combine #weight #wand #wsum #or #max #not), windows (#N #odN #uwN #od #uw), #band,
 * synonyms (#syn { } < >), terms, numbers, floats, hyphen chains (`covid-19` → #od1),
 * suffix wildcards (`inform*`), quoted raw terms (`"term"`) and field lists (`term.title,h1`).
 *
 * Why: a query file of 10,000 queries must parse and diagnose in under 200 ms (issue 2,
 * §7). Chevrotain's recovering CST parser plus the CST visitor cost ~45 µs per query; this
 * scanner + recursive descent builds the AST directly in a few µs.
 *
 * Contract (differential-tested in test/grammar/indri/fast-path.test.ts): for any text,
 * `fastParseIndri(text)` either returns `undefined` ("not sure, take the full path") or
 * exactly the `ParseResult` the full path (lexer.ts → parser.ts → visitor.ts) returns:
 * the same AST, key order included, and no diagnostics. It gives up on anything outside
 * the subset above or anything the full path would report: every other character
 * (`[ ] : / \ ' ...`, foreign characters, surrogates), a `-` after whitespace (a minus
 * sign), negative numbers, #base64, unknown operators,
 * #sum, empty operators, #not with several items, weightless or ambiguous weights
 * (a number followed by a number), all-zero weights, contexts, unsafe window sizes, infinite weights, and
 * nesting deeper than FAST_MAX_DEPTH. Every bracket is matched by construction, so a
 * query that gets through has no syntax error.
 */
import type { BeliefOp, QueryNode, SourceRange, TermNode, WeightedItem } from '../ast.js';
import type { ParseResult } from '../diagnostics.js';

// Token kinds of the fast scanner (a subset of tokens.ts, same surface rules).
const TERM = 1;
const NUM = 2;
const FLOAT = 3;
const OP = 4;
const LPAREN = 5;
const RPAREN = 6;
const DOT = 7;
const COMMA = 8;
const LBRACE = 9;
const RBRACE = 10;
const LANGLE = 11;
const RANGLE = 12;
const DASH = 13;
const STAR = 14;
const DQUOTE = 15;
const END = 0;

// Operator classes (index into the op-kind array).
const OP_UNWEIGHTED = 1;
const OP_WEIGHTED = 2;
const OP_WINDOW = 3;
const OP_BAND = 4;
const OP_SYN = 5;

/** Deeper queries take the full path (which has its own MAX_INDRI_DEPTH check). */
const FAST_MAX_DEPTH = 64;

const OPS: ReadonlyMap<string, number> = new Map([
  ['#combine', OP_UNWEIGHTED],
  ['#or', OP_UNWEIGHTED],
  ['#max', OP_UNWEIGHTED],
  ['#not', OP_UNWEIGHTED],
  ['#weight', OP_WEIGHTED],
  ['#wand', OP_WEIGHTED],
  ['#wsum', OP_WEIGHTED],
  ['#band', OP_BAND],
  ['#syn', OP_SYN],
]);
const BELIEF_OPS: Readonly<Record<string, BeliefOp>> = {
  '#combine': 'combine',
  '#or': 'or',
  '#max': 'max',
  '#not': 'not',
  '#weight': 'weight',
  '#wand': 'wand',
  '#wsum': 'wsum',
};
const WINDOW_OP = /^#(?:od|uw)?[0-9]*$/;

/** Thrown (and caught in fastParseIndri) to give up; a constant, so giving up allocates nothing. */
const BAIL = Symbol('bail');

// The token stream of the text being parsed; grown on demand and reused between calls.
let kinds = new Uint8Array(256);
let starts = new Int32Array(256);
let ends = new Int32Array(256);
let count = 0;
let text = '';
let pos = 0;

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

/** ASCII letter, digit or `_`, or a BMP character outside the surrogates (TERM_CHAR of tokens.ts). */
function isTermChar(c: number): boolean {
  if (c < 0x80) return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
  return c <= 0xd7ff || c >= 0xe000;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * Tokenises like lexer.ts (first matching pattern wins: whitespace, `#base64(`, operator
 * word, float, word, punctuation). Returns false for any character outside the subset.
 */
function scan(s: string): boolean {
  count = 0;
  const n = s.length;
  let i = 0;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13) {
      i++;
      // `[ \t\r\n]+-` is SpaceDash (a minus sign, never a hyphen): left to the full path.
      if (i < n && s.charCodeAt(i) === 45) return false;
      continue;
    }
    const start = i;
    if (c === 35 /* # */) {
      i++;
      while (i < n) {
        const d = s.charCodeAt(i);
        if ((d >= 97 && d <= 122) || (d >= 65 && d <= 90) || (d >= 48 && d <= 57) || d === 95) i++;
        else break;
      }
      // `#base64(` is its own token (the Base64 pattern is tried first); `#base64x` is unknown.
      push(OP, start, i);
      continue;
    }
    if (isTermChar(c)) {
      if (isDigit(c)) {
        // FloatTok `[0-9]+\.[0-9]+` is tried before Word.
        let j = i + 1;
        while (j < n && isDigit(s.charCodeAt(j))) j++;
        if (j + 1 < n && s.charCodeAt(j) === 46 && isDigit(s.charCodeAt(j + 1))) {
          j += 2;
          while (j < n && isDigit(s.charCodeAt(j))) j++;
          push(FLOAT, start, j);
          i = j;
          continue;
        }
      }
      let digits = true;
      while (i < n) {
        const d = s.charCodeAt(i);
        if (!isTermChar(d)) break;
        if (digits && !isDigit(d)) digits = false;
        i++;
      }
      // Word also takes foreign characters and surrogates (then it is a BadTerm or needs a
      // check for lone surrogates): leave those to the full path.
      if (i < n) {
        const d = s.charCodeAt(i);
        if ((d >= 0xd800 && d <= 0xdfff) || isForeignChar(d)) return false;
      }
      push(digits ? NUM : TERM, start, i);
      continue;
    }
    let kind: number;
    switch (c) {
      case 40:
        kind = LPAREN;
        break;
      case 41:
        kind = RPAREN;
        break;
      case 46:
        kind = DOT;
        break;
      case 44:
        kind = COMMA;
        break;
      case 123:
        kind = LBRACE;
        break;
      case 125:
        kind = RBRACE;
        break;
      case 60:
        kind = LANGLE;
        break;
      case 62:
        kind = RANGLE;
        break;
      case 45:
        kind = DASH;
        break;
      case 42:
        kind = STAR;
        break;
      case 34:
        kind = DQUOTE;
        break;
      default:
        return false;
    }
    push(kind, i, i + 1);
    i++;
  }
  return true;
}

/** FOREIGN_CHAR_CLASS of tokens.ts: controls but tab/CR/LF, ``! $ % & ' + ; = ? @ ^ ` | ~`` and DEL. */
function isForeignChar(c: number): boolean {
  if (c < 0x20) return c !== 9 && c !== 10 && c !== 13;
  switch (c) {
    case 33: // !
    case 36: // $
    case 37: // %
    case 38: // &
    case 39: // '
    case 43: // +
    case 59: // ;
    case 61: // =
    case 63: // ?
    case 64: // @
    case 94: // ^
    case 96: // `
    case 124: // |
    case 126: // ~
    case 127:
      return true;
    default:
      return false;
  }
}

function kindAt(p: number): number {
  return p < count ? kinds[p] : END;
}

function range(p: number): SourceRange {
  return { start: starts[p], end: ends[p] };
}

function expect(kind: number): number {
  if (kindAt(pos) !== kind) throw BAIL;
  return pos++;
}

/** Operator class of the operator token at p, or a bail for anything the subset lacks. */
function opClass(p: number): number {
  const image = text.slice(starts[p], ends[p]);
  const known = OPS.get(image);
  if (known !== undefined) return known;
  if (image.length > 1 && WINDOW_OP.test(image)) return OP_WINDOW;
  throw BAIL;
}

/** rule `scored` (parser.ts): a belief operator or a term expression. */
function scored(depth: number): QueryNode {
  if (kindAt(pos) === OP) {
    const cls = opClass(pos);
    if (cls === OP_UNWEIGHTED) return unweighted(depth);
    if (cls === OP_WEIGHTED) return weighted(depth);
  }
  return termExpr(depth);
}

/** #combine #or #max #not ( scored+ ), as visitor.ts `unweightedOp` builds it. */
function unweighted(depth: number): QueryNode {
  if (depth > FAST_MAX_DEPTH) throw BAIL;
  const opTok = pos++;
  const image = text.slice(starts[opTok], ends[opTok]);
  expect(LPAREN);
  const items: WeightedItem[] = [];
  while (kindAt(pos) !== RPAREN) items.push({ node: scored(depth + 1) });
  const close = pos++;
  const op = BELIEF_OPS[image];
  // Empty operators and #not with several items are reported by the visitor.
  if (items.length === 0 || (op === 'not' && items.length > 1)) throw BAIL;
  return { kind: 'belief', op, items, range: { start: starts[opTok], end: ends[close] }, operatorRange: range(opTok) };
}

/** #weight #wand #wsum ( (weight scored)+ ): every item has a weight, unambiguously. */
function weighted(depth: number): QueryNode {
  if (depth > FAST_MAX_DEPTH) throw BAIL;
  const opTok = pos++;
  const image = text.slice(starts[opTok], ends[opTok]);
  expect(LPAREN);
  const items: WeightedItem[] = [];
  while (kindAt(pos) !== RPAREN) {
    const w = kindAt(pos);
    // A number followed by another number could be a weight and a numeric term or a
    // weightless numeric item: only Chevrotain's lookahead knows, so let it decide.
    if (w !== NUM && w !== FLOAT) throw BAIL;
    const next = kindAt(pos + 1);
    if (next !== TERM && next !== OP && next !== LBRACE && next !== LANGLE) throw BAIL;
    const weight = Number(text.slice(starts[pos], ends[pos]));
    if (!Number.isFinite(weight)) throw BAIL;
    const weightRange = range(pos);
    pos++;
    items.push({ weight, weightRange, node: scored(depth + 1) });
  }
  const close = pos++;
  // Empty operators and all-zero weights (indri/zero-weights) are reported by the visitor.
  if (items.length === 0 || items.every((it) => it.weight === 0)) throw BAIL;
  return { kind: 'belief', op: BELIEF_OPS[image], items, range: { start: starts[opTok], end: ends[close] }, operatorRange: range(opTok) };
}

/** Children of an extent operator up to `closer`; at least one. */
function unscoredChildren(depth: number, closer: number): QueryNode[] {
  const children: QueryNode[] = [];
  while (kindAt(pos) !== closer) children.push(termExpr(depth + 1));
  if (children.length === 0) throw BAIL;
  return children;
}

/** visitor.ts plainTerm: a TERM, NUMBER or FLOAT token as a term (numbers flagged). */
function plainTerm(p: number): TermNode {
  const node: TermNode = { kind: 'term', text: text.slice(starts[p], ends[p]), raw: false, range: range(p) };
  if (kinds[p] !== TERM) node.numeric = true;
  return node;
}

/** rule `termExpr` without negative numbers, base64 and contexts; then `.fields`. */
function termExpr(depth: number): QueryNode {
  if (depth > FAST_MAX_DEPTH) throw BAIL;
  const k = kindAt(pos);
  let base: QueryNode;
  if (k === TERM || k === NUM) {
    const first = pos++;
    const after = kindAt(pos);
    if (after === STAR) {
      // `term*` (visitor.ts word): a suffix wildcard.
      base = { kind: 'wildcard', pattern: text.slice(starts[first], ends[first]) + '*', form: 'suffix-star', range: { start: starts[first], end: ends[pos] } };
      pos++;
    } else if (after === DASH) {
      // `a-b-c` → #od1(a b c) (SEMANTICS.md §1.1, rule hyphenTerm); each part a term or a number.
      const terms: QueryNode[] = [plainTerm(first)];
      while (kindAt(pos) === DASH) {
        const part = kindAt(pos + 1);
        if (part !== TERM && part !== NUM) throw BAIL;
        terms.push(plainTerm(pos + 1));
        pos += 2;
      }
      base = { kind: 'window', ordered: true, size: 1, children: terms, form: 'hyphen', range: { start: starts[first], end: ends[pos - 1] } };
    } else {
      base = plainTerm(first);
    }
  } else if (k === FLOAT) {
    const first = pos++;
    if (kindAt(pos) === STAR) {
      base = { kind: 'wildcard', pattern: text.slice(starts[first], ends[first]) + '*', form: 'suffix-star', range: { start: starts[first], end: ends[pos] } };
      pos++;
    } else {
      base = plainTerm(first);
    }
  } else if (k === DQUOTE) {
    // `"term"`: one raw (unstemmed) term (visitor.ts quotedAtom).
    const open = pos++;
    const inner = kindAt(pos);
    if (inner !== TERM && inner !== NUM && inner !== FLOAT) throw BAIL;
    const node = plainTerm(pos++);
    const close = expect(DQUOTE);
    node.raw = true;
    node.range = { start: starts[open], end: ends[close] };
    base = node;
  } else if (k === OP) {
    const opTok = pos;
    const cls = opClass(opTok);
    const image = text.slice(starts[opTok], ends[opTok]);
    pos++;
    if (cls === OP_WINDOW) {
      expect(LPAREN);
      const children = unscoredChildren(depth, RPAREN);
      const close = pos++;
      const ordered = !image.startsWith('#uw');
      const digits = image.startsWith('#od') || image.startsWith('#uw') ? image.slice(3) : image.slice(1);
      const size = digits === '' ? null : Number(digits);
      if (size !== null && !Number.isSafeInteger(size)) throw BAIL;
      const form = image.startsWith('#od') ? 'od' : image.startsWith('#uw') ? 'uw' : 'hash-number';
      base = { kind: 'window', ordered, size, children, form, range: { start: starts[opTok], end: ends[close] }, operatorRange: range(opTok) };
    } else if (cls === OP_BAND) {
      expect(LPAREN);
      const children = unscoredChildren(depth, RPAREN);
      const close = pos++;
      base = { kind: 'band', children, range: { start: starts[opTok], end: ends[close] }, operatorRange: range(opTok) };
    } else if (cls === OP_SYN) {
      expect(LPAREN);
      const children = unscoredChildren(depth, RPAREN);
      const close = pos++;
      base = { kind: 'synonym', items: children.map((node) => ({ node })), form: 'syn', range: { start: starts[opTok], end: ends[close] }, operatorRange: range(opTok) };
    } else {
      // A belief operator inside an extent operator: reported by the full path.
      throw BAIL;
    }
  } else if (k === LBRACE || k === LANGLE) {
    const open = pos++;
    const children = unscoredChildren(depth, k === LBRACE ? RBRACE : RANGLE);
    const close = pos++;
    base = {
      kind: 'synonym',
      items: children.map((node) => ({ node })),
      form: k === LBRACE ? 'braces' : 'angle',
      range: { start: starts[open], end: ends[close] },
      operatorRange: range(open),
    };
  } else {
    throw BAIL;
  }
  if (kindAt(pos) !== DOT) return base;
  // `.field(,field)*` (rule fieldList); a context `.(...)` or anything after the list is left to the full path.
  pos++;
  const fields: string[] = [];
  const fieldRanges: SourceRange[] = [];
  for (;;) {
    const f = expect(TERM);
    fields.push(text.slice(starts[f], ends[f]));
    fieldRanges.push(range(f));
    if (kindAt(pos) !== COMMA) break;
    pos++;
  }
  const after = kindAt(pos);
  if (after === DOT || after === LPAREN) throw BAIL;
  // visitor.ts termExpr: fields first, then the range widened to the last field.
  (base as { fields?: string[] }).fields = fields;
  (base as { fieldRanges?: SourceRange[] }).fieldRanges = fieldRanges;
  base.range = { start: base.range.start, end: Math.max(base.range.end, ends[pos - 1]) };
  return base;
}

/**
 * The result parseIndri's full path gives for `source`, or undefined when the query is
 * outside the fast subset (or the full path would report anything).
 */
export function fastParseIndri(source: string): ParseResult | undefined {
  if (!scan(source)) return undefined;
  text = source;
  pos = 0;
  const range = { start: 0, end: source.length };
  try {
    if (count === 0) return { ast: { dialect: 'indri', root: null, range }, diagnostics: [] };
    const items: QueryNode[] = [];
    while (pos < count) items.push(scored(0));
    const root: QueryNode =
      items.length === 1
        ? items[0]
        : {
            kind: 'belief',
            op: 'combine',
            items: items.map((node) => ({ node })),
            implicit: true,
            range: { start: items[0].range.start, end: items[items.length - 1].range.end },
          };
    return { ast: { dialect: 'indri', root, range }, diagnostics: [] };
  } catch (err) {
    if (err === BAIL) return undefined;
    throw err;
  } finally {
    text = '';
  }
}
