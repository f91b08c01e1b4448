/**
 * Canonical Indri text for an AST (SEMANTICS.md §1.2-1.3).
 *
 * Round trip: for every tree parseIndri produces without errors,
 * `parseIndri(printIndri(ast))` gives the same tree up to ranges.
 *
 * Canonical spacing:
 * - scored (belief and filter) operators put one space inside their parentheses:
 *   `#weight( 0.5 a 1 #1(b c) )`, `#combine[title]( a b )`, `#filreq( #band(a b) c )`;
 * - extent operators and leaves are compact: `#1(b c)`, `#uw8(a b)`, `{a b}`, `<a b>`,
 *   `#wsyn(1 a 0.5 b)`, `#any:person`, `#less(year 2000)`, `#dateafter(11/01/2004)`;
 * - items are separated by one space; the implicit top-level #combine prints no wrapper;
 * - field restriction `x.title,h1`, context `x.(title)`, both `x.title.(h1)` (the form
 *   indrilang.g accepts; `x.title(h1)` is read as well but printed this way);
 * - what the user wrote is kept where the AST records it: `{}`/`<>`/#syn, #N/#odN, hyphens,
 *   `#base64(...)`, `#any:F`/`#any(F)`, `term*`/`#wildcard(term)`.
 *
 * Terms: a term whose text Indri cannot lex as a term prints as `#base64(...)` (or
 * `#base64quote(...)` when raw), so every text survives. Weights and numbers print with
 * `String(n)` (the shortest text that parses back to the same double) with any exponent
 * written out, because Indri has no exponent syntax; -0 prints as `-0`.
 *
 * Nodes only Lucene has print as their nearest Indri shape (a phrase as `#1(...)`, a
 * Boolean query as `#combine`, a boost as `#weight`); translate.ts does the real
 * conversion and reports what it approximates.
 */
import type { ExtentRestriction, QueryAst, QueryNode, TermNode, WeightedItem } from '../ast.js';

const TERM_TEXT = /^(?:[A-Za-z0-9_\u0080-\uD7FF\uE000-\uFFFF]|[\uD800-\uDBFF][\uDC00-\uDFFF])+$/;
const DIGITS = /^[0-9]+$/;
const NUMBER_TEXT = /^-?[0-9]+(?:\.[0-9]+)?$/;
const FIELD_NAME = /^[A-Za-z0-9_\u0080-\uFFFF]*[A-Za-z_\u0080-\uFFFF][A-Za-z0-9_\u0080-\uFFFF]*(?:-[A-Za-z0-9_\u0080-\uFFFF]+)*$/;

export function printIndri(ast: QueryAst | QueryNode): string {
  const node = 'dialect' in ast ? ast.root : ast;
  if (!node) return '';
  if (node.kind === 'belief' && node.implicit && !node.restriction) {
    return node.items.map((i) => printItem(i, false)).join(' ');
  }
  return printIndriNode(node);
}

/** A number as Indri reads it back exactly: no exponent, `-0` kept. */
export function formatIndriNumber(n: number): string {
  if (!Number.isFinite(n)) throw new RangeError(`printIndri: ${n} has no Indri spelling`);
  if (Object.is(n, -0)) return '-0';
  const s = String(n);
  const e = s.indexOf('e');
  if (e === -1) return s;
  // Write d.ddde±x out as a plain decimal: the same digits, so the same double.
  const sign = s.startsWith('-') ? '-' : '';
  const mantissa = s.slice(sign.length, e);
  const exp = Number(s.slice(e + 1));
  const dot = mantissa.indexOf('.');
  const digits = mantissa.replace('.', '');
  const intLen = (dot === -1 ? mantissa.length : dot) + exp;
  if (intLen <= 0) return `${sign}0.${'0'.repeat(-intLen)}${digits}`;
  if (intLen >= digits.length) return sign + digits + '0'.repeat(intLen - digits.length);
  return `${sign}${digits.slice(0, intLen)}.${digits.slice(intLen)}`;
}

/** True when `text` lexes as one plain Indri term (TEXT_TERM, not all digits). */
export function isIndriTermText(text: string): boolean {
  return TERM_TEXT.test(text) && !DIGITS.test(text);
}

function isIndriNumberText(text: string): boolean {
  return NUMBER_TEXT.test(text);
}

function base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

function printTermText(t: TermNode): string {
  if (t.encoding === 'base64') return `#base64(${base64(t.text)})`;
  if (t.encoding === 'base64quote') return `#base64quote(${base64(t.text)})`;
  const lexable = t.numeric ? isIndriNumberText(t.text) : isIndriTermText(t.text);
  if (!lexable) return t.raw ? `#base64quote(${base64(t.text)})` : `#base64(${base64(t.text)})`;
  return t.raw ? `"${t.text}"` : t.text;
}

function printFieldList(fields: string[] | undefined, context: string[] | undefined): string {
  let out = '';
  if (fields && fields.length) out += '.' + fields.join(',');
  if (context && context.length) out += '.(' + context.join(',') + ')';
  return out;
}

function printRestriction(r: ExtentRestriction | undefined): string {
  if (!r) return '';
  switch (r.kind) {
    case 'field':
      return `[${r.field}]`;
    case 'passage':
      return `[passage${r.width}:${r.increment}]`;
    case 'path':
      return `[${r.path}]`;
  }
}

function printItem(item: WeightedItem, weighted: boolean): string {
  const body = printIndriNode(item.node);
  return weighted && item.weight !== undefined ? `${formatIndriNumber(item.weight)} ${body}` : body;
}

/** `#weight`, `#1`, `{`: the text before a node's children (for the formatter too). */
export function indriOpener(node: QueryNode): string | undefined {
  switch (node.kind) {
    case 'belief':
      return `#${node.op}${printRestriction(node.restriction)}(`;
    case 'filter':
      return `#${node.form}(`;
    case 'window':
      if (node.form === 'hyphen') return undefined;
      if (node.form === 'hash-number' && node.size !== null) return `#${node.size}(`;
      return `${node.ordered ? '#od' : '#uw'}${node.size ?? ''}(`;
    case 'band':
      return '#band(';
    case 'synonym':
      return node.form === 'braces' ? '{' : node.form === 'angle' ? '<' : node.form === 'wsyn' ? '#wsyn(' : '#syn(';
    default:
      return undefined;
  }
}

/** The text after a node's children: the closing bracket and any field/context suffix. */
export function indriCloser(node: QueryNode): string {
  switch (node.kind) {
    case 'synonym': {
      const close = node.form === 'braces' ? '}' : node.form === 'angle' ? '>' : ')';
      return close + printFieldList(node.fields, undefined);
    }
    case 'window':
      return ')' + printFieldList(node.fields, node.context);
    case 'band':
      return ')' + printFieldList(node.fields, undefined);
    default:
      return ')';
  }
}

/** The children of a node, as the items printed between opener and closer. */
export function indriChildItems(node: QueryNode): { items: WeightedItem[]; weighted: boolean; spaced: boolean } | undefined {
  switch (node.kind) {
    case 'belief':
      return { items: node.items, weighted: node.op === 'weight' || node.op === 'wand' || node.op === 'wsum', spaced: true };
    case 'filter':
      return { items: [{ node: node.filter }, { node: node.scored }], weighted: false, spaced: true };
    case 'window':
      if (node.form === 'hyphen') return undefined;
      return { items: node.children.map((c) => ({ node: c })), weighted: false, spaced: false };
    case 'band':
      return { items: node.children.map((c) => ({ node: c })), weighted: false, spaced: false };
    case 'synonym':
      return { items: node.items, weighted: node.form === 'wsyn', spaced: false };
    default:
      return undefined;
  }
}

/** A hyphen chain `a-b-5` holds plain words and unsigned integers only (rule hyphenTerm). */
function hyphenable(node: QueryNode): node is TermNode {
  if (node.kind !== 'term' || node.raw || node.encoding || node.fields || node.context) return false;
  return node.numeric ? DIGITS.test(node.text) : isIndriTermText(node.text);
}

export function printIndriNode(node: QueryNode): string {
  switch (node.kind) {
    case 'term': {
      const text = printTermText(node);
      const list = printFieldList(node.fields, node.context);
      // `0.0a` would lex as the float 0.0 then `a`: after a whole number, a field list that starts
      // with a digit keeps a space after its dot (`0. 0a`, which the grammar reads as written).
      return DIGITS.test(text) && /^\.\d/.test(list) ? `${text}. ${list.slice(1)}` : text + list;
    }
    case 'wildcard': {
      const prefix = node.pattern.endsWith('*') ? node.pattern.slice(0, -1) : node.pattern;
      const body = node.form === 'wildcard-op' ? `#wildcard(${prefix})` : `${prefix}*`;
      return body + printFieldList(node.fields, undefined);
    }
    case 'window':
      if (node.form === 'hyphen' && node.children.length > 1 && node.children.every(hyphenable)) {
        return node.children.map((c) => (c as TermNode).text).join('-') + printFieldList(node.fields, node.context);
      }
      // A hyphen chain that cannot be written with dashes (e.g. one word left by error
      // recovery in `shock-(`) prints as the window it means: #od1.
      return printCompound(node.form === 'hyphen' ? { ...node, form: 'od' } : node);
    case 'band':
    case 'synonym':
    case 'belief':
    case 'filter':
      return printCompound(node);
    case 'any':
      return node.form === 'colon' ? `#any:${node.field}` : `#any(${node.field})`;
    case 'numericCompare':
      return `#${node.op}(${node.field} ${node.values.map(formatIndriNumber).join(' ')})`;
    case 'dateCompare':
      return `#date${node.op}(${node.dates.join(' ')})`;
    case 'prior':
      return `#prior(${node.name})`;
    case 'error':
      return node.text;
    // Lucene-only nodes: nearest Indri shape (translate.ts reports the approximation).
    case 'phrase': {
      const inner = node.terms.map((t) => printIndriNode({ ...t, fields: undefined })).join(' ');
      const op = node.slop === 0 ? '#1' : `#uw${node.slop + node.terms.length}`;
      return `${op}(${inner})` + printFieldList(node.fields, undefined);
    }
    case 'boolean': {
      const items = node.clauses.map((c) => (c.occur === 'mustNot' ? `#not( ${printIndriNode(c.node)} )` : printIndriNode(c.node)));
      return `#combine( ${items.join(' ')} )`;
    }
    case 'boost':
      return `#weight( ${formatIndriNumber(node.boost)} ${printIndriNode(node.child)} )`;
    case 'fuzzy':
      return printTermText({ kind: 'term', text: node.text, raw: false, range: node.range }) + printFieldList(node.fields, undefined);
    case 'regex':
      return printTermText({ kind: 'term', text: node.pattern, raw: true, range: node.range });
    case 'range':
      return printTermText({ kind: 'term', text: `${node.lower ?? '*'} TO ${node.upper ?? '*'}`, raw: true, range: node.range });
    case 'matchAll':
      return '#any:document';
  }
}

function printCompound(node: QueryNode): string {
  const opener = indriOpener(node)!;
  const kids = indriChildItems(node)!;
  const inner = kids.items.map((i) => printItem(i, kids.weighted)).join(' ');
  return kids.spaced ? `${opener} ${inner} ${indriCloser(node)}` : `${opener}${inner}${indriCloser(node)}`;
}

/** Field names the printer can write back (TERM, then `-TERM`/`-NUMBER` parts). */
export function isIndriFieldName(name: string): boolean {
  return FIELD_NAME.test(name);
}
