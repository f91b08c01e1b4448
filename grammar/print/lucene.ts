/**
 * Canonical Lucene classic text for an AST (SEMANTICS.md §3).
 *
 * Round trip: for every tree parseLucene can produce, parseLucene(printLucene(ast)) gives the
 * same tree up to ranges, with one deliberate normalisation: clause flags are printed as
 * `+` / `-` / nothing (must / mustNot / should) instead of the AND / OR / NOT words, because
 * the classic parser has no Boolean precedence (the "precedence pitfall") and a prefix on
 * every clause says exactly what each clause is. So `a OR b AND c` prints as `a +b +c`:
 * same occurs, `via` becomes plus / minus / default. The output is meant to be parsed with
 * the default operator OR.
 *
 * Escaping: a term escapes `\`, whitespace and every character that cannot appear in a
 * bare term (`! ( ) : ^ [ ] " { } ~ * ? /` ), a leading `+` or `-`, and the
 * first character of a term that is exactly AND, OR, NOT, && or ||. Boosts and numbers never use an
 * exponent and parse back to the identical double.
 *
 * Nodes that only Indri has (beliefs, windows, ...) print as their nearest Lucene shape;
 * translate.ts does the real conversion and reports what it approximates.
 */
import type { BooleanClause, QueryAst, QueryNode } from '../ast.js';

export interface LucenePrintOptions {
  /** Field in force from an enclosing `field:( ... )`; leaves in it need no prefix. */
  field?: string;
  /** Text put before each clause; defaults to `+` / `-` / nothing by occur. */
  clausePrefix?: (clause: BooleanClause) => string;
}

export function printLucene(ast: QueryAst | QueryNode): string {
  const node = 'dialect' in ast ? ast.root : ast;
  if (!node) return '';
  if (node.kind === 'boolean' && !node.grouped) return printClauses(node.clauses, {}, node.field);
  return printLuceneNode(node, {});
}

export function occurPrefix(clause: BooleanClause): string {
  return clause.occur === 'must' ? '+' : clause.occur === 'mustNot' ? '-' : '';
}

function printClauses(clauses: BooleanClause[], opts: LucenePrintOptions, field: string | undefined): string {
  const inner: LucenePrintOptions = { ...opts, field: field ?? opts.field };
  const prefix = opts.clausePrefix ?? occurPrefix;
  return clauses.map((c) => prefix(c) + printLuceneNode(c.node, inner)).join(' ');
}

/** Prints one node; `opts.field` is the field already in force around it. */
export function printLuceneNode(node: QueryNode, opts: LucenePrintOptions = {}): string {
  switch (node.kind) {
    case 'term':
      return fieldPrefix(node.fields, opts) + (node.text === '' ? '""' : escapeLuceneTerm(node.text));
    case 'wildcard':
      return fieldPrefix(node.fields, opts) + escapeWildcardPattern(node.pattern);
    case 'fuzzy':
      return fieldPrefix(node.fields, opts) + escapeLuceneTerm(node.text) + (node.explicit ? `~${formatLuceneNumber(node.maxEdits)}` : '~');
    case 'regex':
      return fieldPrefix(node.fields, opts) + `/${escapeRegexBody(node.pattern)}/`;
    case 'range':
      return (
        fieldPrefix(node.fields, opts) +
        `${node.includeLower ? '[' : '{'}${rangeBound(node.lower)} TO ${rangeBound(node.upper)}${node.includeUpper ? ']' : '}'}`
      );
    case 'matchAll':
      return '*:*';
    case 'phrase': {
      const body = node.terms.map((t) => escapePhraseText(t.text)).join(' ');
      return fieldPrefix(node.fields, opts) + `"${body}"` + (node.explicitSlop ? `~${formatLuceneNumber(node.slop)}` : '');
    }
    case 'boolean': {
      const head = node.field !== undefined ? `${escapeLuceneTerm(node.field)}:` : '';
      return `${head}(${printClauses(node.clauses, opts, node.field)})`;
    }
    case 'boost': {
      const child = printLuceneNode(node.child, opts);
      // `a^2^3` does not parse: a boosted boost needs parentheses.
      const wrapped = node.child.kind === 'boost' ? `(${child})` : child;
      return `${wrapped}^${formatLuceneNumber(node.boost)}`;
    }
    case 'error':
      return node.text;
    // Indri-only shapes: nearest Lucene equivalent (lossy; see the module comment).
    case 'window': {
      const words = node.children.filter((c): c is Extract<QueryNode, { kind: 'term' }> => c.kind === 'term');
      if (words.length !== node.children.length) return group(node.children.map((c) => `+${printLuceneNode(c, opts)}`));
      const slop = node.ordered && node.size === 1 ? '' : `~${node.size ?? 100}`;
      return fieldPrefix(node.fields, opts) + `"${words.map((w) => escapePhraseText(w.text)).join(' ')}"${slop}`;
    }
    case 'synonym':
      return group(node.items.map((i) => printLuceneNode(i.node, opts)));
    case 'band':
      return group(node.children.map((c) => `+${printLuceneNode(c, opts)}`));
    case 'belief': {
      if (node.op === 'not') return group(['*:*', ...node.items.map((i) => `-${printLuceneNode(i.node, opts)}`)]);
      return group(
        node.items.map((i) => {
          const s = printLuceneNode(i.node, opts);
          if (i.weight === undefined || i.weight === 1 || !(i.weight > 0)) return s;
          return `${i.node.kind === 'boost' ? `(${s})` : s}^${formatLuceneNumber(i.weight)}`;
        }),
      );
    }
    case 'filter': {
      // #filreq: the filter must match and adds no score; #filrej: it must not match.
      const filter = printLuceneNode(node.filter, opts);
      const scored = printLuceneNode(node.scored, opts);
      return group(node.mode === 'require' ? [`+${filter}^0`, scored] : [`-${filter}`, scored]);
    }
    case 'any':
      return `${escapeLuceneTerm(node.field)}:*`;
    case 'numericCompare': {
      const f = escapeLuceneTerm(node.field);
      const [a, b] = node.values.map(formatLuceneNumber);
      if (node.op === 'less') return `${f}:{* TO ${a}}`;
      if (node.op === 'greater') return `${f}:{${a} TO *}`;
      if (node.op === 'between') return `${f}:[${a} TO ${b ?? a}]`;
      return `${f}:[${a} TO ${a}]`;
    }
    case 'dateCompare': {
      const [a, b] = node.dates.map((d) => rangeBound(d));
      if (node.op === 'after') return `date:{${a} TO *}`;
      if (node.op === 'before') return `date:{* TO ${a}}`;
      if (node.op === 'between') return `date:[${a} TO ${b ?? a}]`;
      return `date:[${a} TO ${a}]`;
    }
    case 'prior':
      return '*:*';
  }
}

function group(parts: string[]): string {
  return `(${parts.join(' ')})`;
}

function fieldPrefix(fields: string[] | undefined, opts: LucenePrintOptions): string {
  if (!fields || fields.length === 0) return '';
  const field = fields[0];
  return field === opts.field ? '' : `${escapeLuceneTerm(field)}:`;
}

const ALWAYS_ESCAPED = new Set([...'\\!():^[]"{}~*?/ \t\n\r\u3000']);
/** Whole terms that would lex as an operator. */
const OPERATOR_WORDS = new Set(['AND', 'OR', 'NOT', '&&', '||']);

export function escapeLuceneTerm(text: string): string {
  if (OPERATOR_WORDS.has(text)) return `\\${text}`;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (ALWAYS_ESCAPED.has(c) || (i === 0 && (c === '+' || c === '-'))) out += `\\${c}`;
    else out += c;
  }
  return out;
}

/** Wildcards stay bare; `\*`, `\?`, `\\` in the pattern are literal and stay escaped. */
function escapeWildcardPattern(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\' && i + 1 < pattern.length) {
      out += `\\${pattern[i + 1]}`;
      i++;
    } else if (c === '*' || c === '?') out += c;
    else out += escapeLuceneTerm(c).length > 1 || (i === 0 && (c === '+' || c === '-')) ? `\\${c}` : c;
  }
  return out;
}

function escapePhraseText(text: string): string {
  return text.replace(/["\\]/g, (c) => `\\${c}`);
}

/** A regex body keeps its own escapes; only a bare `/` would end it early. */
function escapeRegexBody(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\' && i + 1 < pattern.length) {
      out += c + pattern[i + 1];
      i++;
    } else out += c === '/' ? '\\/' : c;
  }
  return out;
}

const BARE_BOUND = /^[^ \t\n\r\u3000\]}"\\][^ \t\n\r\u3000\]}\\]*$/;

/**
 * A bound as Lucene's range state reads it back: bare when it can be, else quoted. Inside a
 * quoted bound the lexer knows only the `\"` escape (a `\\` before the closing quote would
 * read as an escaped quote), so a backslash is written as the unicode escape `\u005C`,
 * which Lucene decodes.
 */
function rangeBound(value: string | null): string {
  if (value === null) return '*';
  if (value !== 'TO' && value !== '*' && BARE_BOUND.test(value)) return value;
  return `"${value.replace(/\\/g, '\\u005C').replace(/"/g, '\\"')}"`;
}

/**
 * Shortest decimal that reads back as the same double, never in exponent form (Lucene's
 * NUMBER token has no exponent): 1e-7 → 0.0000001, 1e21 → 1000000000000000000000.
 */
export function formatLuceneNumber(n: number): string {
  if (!Number.isFinite(n)) return '1';
  const s = String(n);
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (!m) return s;
  const digits = m[2] + (m[3] ?? '');
  const exp = Number(m[4]);
  if (exp < 0) return `${m[1]}0.${'0'.repeat(-exp - 1)}${digits}`;
  return m[1] + digits + '0'.repeat(Math.max(0, exp - (digits.length - 1)));
}
