/**
 * Printer for Terrier's MatchOpQL (SEMANTICS.md §2.2), the Indri-like language PyTerrier sends to
 * Terrier. It takes any dialect's AST.
 *
 * MatchOpQL has semantic operators (a term, `#1`, `#uwN`, `#syn`, `#band`, `#prefix`,
 * `#fuzzy`) that each yield one posting list, and one syntactic operator, `#combine`,
 * which is a flat bag of weighted operators: nested `#combine` weights multiply. So the
 * whole scored part of a query is flattened into one `#combine:i=w(...)` whose weights
 * are the products along each path:
 * - Indri belief operators average (`#combine`) or normalise (`#weight`, weights divided
 *   by Σ|w|, SEMANTICS.md §1.5). Item i of a belief node B gets `w_i / K(child)`, where K is the
 *   child's Σ|w| (its item count for `#combine`) and 1 for a leaf; the products then equal
 *   Indri's effective weights up to one constant factor, which Terrier removes anyway when
 *   it divides every weight by the largest (SEMANTICS.md §2.1).
 * - Lucene clauses sum and `^` multiplies, which is already Terrier's arithmetic.
 * Constructs with no MatchOpQL form are approximated or dropped, each with a
 * `translate/approximated` or `translate/dropped` diagnostic at the node's range.
 */
import type { QueryAst, QueryNode, SourceRange, TermNode } from '../ast.js';
import type { QueryDiagnostic } from '../diagnostics.js';

export interface TerrierPrintResult {
  text: string;
  diagnostics: QueryDiagnostic[];
}

/** MatchOpQL WORD: anything else must be written as `#base64(...)`. */
const WORD = /^[A-Za-z0-9]+$/;

/** A scored item of the flat top-level `#combine`. */
interface Item {
  text: string;
  weight: number;
}

class TerrierPrinter {
  readonly diagnostics: QueryDiagnostic[] = [];

  approximated(range: SourceRange, message: string): void {
    this.diagnostics.push({ code: 'translate/approximated', severity: 'warning', message: `Terrier: ${message}`, range });
  }

  dropped(range: SourceRange, message: string): void {
    this.diagnostics.push({ code: 'translate/dropped', severity: 'warning', message: `Terrier: ${message}`, range });
  }

  /** The scored items `node` contributes, each with its weight multiplied by `factor`. */
  scored(node: QueryNode, factor: number, out: Item[]): void {
    switch (node.kind) {
      case 'belief': {
        if (node.restriction) this.dropped(node.restriction.range, 'MatchOpQL has no extent restriction ([field], [passage]); the operator scores the whole document.');
        if (node.op === 'not') {
          this.dropped(node.range, '#not has no MatchOpQL form (the complement of a belief); it is left out.');
          return;
        }
        if (node.op === 'wsum' || node.op === 'or' || node.op === 'max') {
          this.approximated(node.range, `#${node.op} has no MatchOpQL form; its items are scored as a weighted #combine.`);
        }
        for (const item of node.items) {
          const w = item.weight ?? 1;
          if (!(w > 0)) {
            this.dropped(item.weightRange ?? item.node.range, `weight ${w} is not positive; Terrier weights multiply term scores, so the item is left out.`);
            continue;
          }
          this.scored(item.node, (factor * w) / massOf(item.node), out);
        }
        return;
      }
      case 'boolean': {
        for (const clause of node.clauses) {
          if (clause.occur === 'should') {
            this.scored(clause.node, factor, out);
            continue;
          }
          const inner: Item[] = [];
          this.scored(clause.node, 1, inner);
          if (inner.length === 0) continue;
          if (inner.length > 1 && clause.occur === 'must') {
            this.approximated(clause.node.range, 'req=true requires every term of the group, where Lucene requires the group to match as a whole.');
          }
          const req = clause.occur === 'must' ? 'true' : 'false';
          out.push({ text: combine(inner, `req=${req}`), weight: factor });
        }
        return;
      }
      case 'boost':
        if (!(node.boost > 0)) {
          this.dropped(node.range, `boost ${node.boost} is not positive; the clause is left out.`);
          return;
        }
        this.scored(node.child, factor * node.boost, out);
        return;
      case 'filter': {
        const filter = this.op(node.filter);
        if (filter !== null) {
          if (node.mode === 'require') {
            this.approximated(node.filter.range, `#${node.form}'s filter becomes req=true, so Terrier also scores it.`);
            out.push({ text: `#combine:req=true(${filter})`, weight: factor });
          } else {
            out.push({ text: `#combine:req=false(${filter})`, weight: factor });
          }
        }
        this.scored(node.scored, factor, out);
        return;
      }
      case 'prior':
        this.dropped(node.range, `#prior(${node.name}) has no MatchOpQL form; document priors are set outside the query in Terrier.`);
        return;
      case 'error':
        this.dropped(node.range, 'a part of the query that did not parse is left out.');
        return;
      default: {
        const text = this.op(node);
        if (text !== null) out.push({ text, weight: factor });
      }
    }
  }

  /** A semantic operator (one posting list), or null when it has no MatchOpQL form. */
  op(node: QueryNode, field?: string): string | null {
    switch (node.kind) {
      case 'term':
        return this.term(node, field);
      case 'window':
        return this.window(node, field);
      case 'phrase': {
        const f = field ?? this.field(node);
        const terms = node.terms.map((t) => this.term(t, f));
        if (terms.length === 1) return terms[0];
        if (node.slop === 0) return `#1(${terms.join(' ')})`;
        // The same reading as translate.ts gives Indri: slop N ≈ a window of N (at least k) positions.
        const size = Math.max(node.slop, terms.length);
        this.approximated(node.range, `a sloppy phrase ~${node.slop} becomes #uw${size}; Lucene's slop counts position moves, not a window.`);
        return `#uw${size}(${terms.join(' ')})`;
      }
      case 'synonym': {
        if (node.form === 'wsyn' && node.items.some((i) => (i.weight ?? 1) !== 1)) {
          this.approximated(node.range, '#wsyn weights have no MatchOpQL form; it becomes #syn with equal weights.');
        }
        const f = field ?? this.field(node);
        const parts = this.opList(node.items.map((i) => i.node), f, node.range, false);
        if (parts.length === 0) return null;
        return parts.length === 1 ? parts[0] : `#syn(${parts.join(' ')})`;
      }
      case 'band': {
        const f = field ?? this.field(node);
        const parts = this.opList(node.children, f, node.range, false);
        if (parts.length === 0) return null;
        return parts.length === 1 ? parts[0] : `#band(${parts.join(' ')})`;
      }
      case 'wildcard': {
        const prefix = node.pattern.endsWith('*') ? node.pattern.slice(0, -1) : '';
        if (prefix && WORD.test(prefix)) return `#prefix(${prefix})${this.fieldSuffix(field ?? this.field(node))}`;
        this.dropped(node.range, `the wildcard '${node.pattern}' has no MatchOpQL form (only #prefix of a plain word); it is left out.`);
        return null;
      }
      case 'fuzzy': {
        if (!WORD.test(node.text)) {
          this.dropped(node.range, `fuzzy '${node.text}' is not a plain word, which #fuzzy needs; it is left out.`);
          return null;
        }
        if (node.explicit) this.approximated(node.range, `#fuzzy uses Terrier's own edit distance, not ~${node.maxEdits}.`);
        return `#fuzzy(${node.text})${this.fieldSuffix(field ?? this.field(node))}`;
      }
      case 'regex':
        this.dropped(node.range, `regular expression /${node.pattern}/ has no MatchOpQL form; it is left out.`);
        return null;
      case 'range':
        this.dropped(node.range, 'term ranges have no MatchOpQL form; the range is left out.');
        return null;
      case 'matchAll':
        this.dropped(node.range, '*:* has no MatchOpQL form; it is left out.');
        return null;
      case 'any':
        this.dropped(node.range, `#any:${node.field} has no MatchOpQL form; it is left out.`);
        return null;
      case 'numericCompare':
        this.dropped(node.range, `#${node.op} on field ${node.field} has no MatchOpQL form; it is left out.`);
        return null;
      case 'dateCompare':
        this.dropped(node.range, `#date${node.op} has no MatchOpQL form; it is left out.`);
        return null;
      case 'error':
        this.dropped(node.range, 'a part of the query that did not parse is left out.');
        return null;
      case 'belief':
      case 'boolean':
      case 'boost':
      case 'filter':
      case 'prior': {
        // A scored operator where a posting list is needed (Terrier allows no #combine
        // inside #syn, #uwN, #band): keep its terms as an alternative list.
        this.approximated(node.range, 'a scored operator inside a proximity or synonym operator is not allowed in MatchOpQL; only its terms are kept.');
        const items: Item[] = [];
        const quiet = new TerrierPrinter();
        quiet.scored(node, 1, items);
        this.diagnostics.push(...quiet.diagnostics);
        if (items.length === 0) return null;
        return items.length === 1 ? items[0].text : `#syn(${items.map((i) => i.text).join(' ')})`;
      }
    }
  }

  /** Operators for the children of #syn/#band/#uwN; `positional` rejects nested windows. */
  opList(children: QueryNode[], field: string | undefined, range: SourceRange, positional: boolean): string[] {
    const parts: string[] = [];
    for (const child of children) {
      if (positional && (child.kind === 'window' || child.kind === 'band' || (child.kind === 'phrase' && child.terms.length > 1))) {
        this.approximated(child.range, 'MatchOpQL cannot nest a proximity operator inside #uwN/#1 (its result has no positions); its terms are used directly.');
        const terms: TermNode[] = [];
        collectTerms(child, terms);
        for (const t of terms) parts.push(this.term(t, field ?? firstField(t)));
        continue;
      }
      const text = this.op(child, field);
      if (text !== null) parts.push(text);
    }
    if (parts.length === 0 && children.length > 0) this.dropped(range, 'nothing inside this operator has a MatchOpQL form; it is left out.');
    return parts;
  }

  window(node: Extract<QueryNode, { kind: 'window' }>, field?: string): string | null {
    if (node.context?.length) this.dropped(node.range, `context .(${node.context.join(',')}) has no MatchOpQL form; the document model is used.`);
    const f = field ?? this.field(node);
    const parts = this.opList(node.children, f, node.range, true);
    if (parts.length === 0) return null;
    if (parts.length === 1) return parts[0];
    const k = parts.length;
    if (node.size === null) {
      this.approximated(node.range, `#${node.ordered ? 'od' : 'uw'} without a size has no MatchOpQL form; it becomes #band (all terms present anywhere).`);
      return `#band(${parts.join(' ')})`;
    }
    if (node.ordered) {
      if (node.size === 1) return `#1(${parts.join(' ')})`;
      const size = (k - 1) * node.size + 1;
      this.approximated(node.range, `MatchOpQL has ordered windows of size 1 only; #od${node.size} becomes #uw${size}, which no longer enforces the order.`);
      return `#uw${size}(${parts.join(' ')})`;
    }
    return `#uw${node.size}(${parts.join(' ')})`;
  }

  /** The one field MatchOpQL can attach, with a diagnostic when more were given. */
  field(node: { fields?: string[]; range: SourceRange; kind: string }): string | undefined {
    const fields = node.fields;
    if (!fields || fields.length === 0) return undefined;
    if (fields.length > 1) this.approximated(node.range, `MatchOpQL restricts to one field; .${fields.join(',')} keeps only .${fields[0]}.`);
    if (node.kind !== 'term' && node.kind !== 'wildcard' && node.kind !== 'fuzzy') {
      this.approximated(node.range, `MatchOpQL restricts terms, not operators; .${fields[0]} is put on each term inside.`);
    }
    return fields[0];
  }

  fieldSuffix(field: string | undefined): string {
    if (!field) return '';
    return WORD.test(field) ? `.${field}` : '';
  }

  term(node: TermNode, field?: string): string {
    const f = field ?? this.field(node);
    if (node.raw) this.approximated(node.range, `MatchOpQL has no unstemmed term form; '${node.text}' goes through Terrier's term pipeline.`);
    if (node.context?.length) this.dropped(node.range, `context .(${node.context.join(',')}) has no MatchOpQL form; the document model is used.`);
    if (f && !WORD.test(f)) this.dropped(node.range, `field name '${f}' is not a MatchOpQL word; the restriction is left out.`);
    return termText(node.text) + this.fieldSuffix(f);
  }
}

/** The term as MatchOpQL reads it: a WORD, or `#base64(UTF-8 bytes)` like PyTerrier's matchop. */
export function terrierTermText(text: string): string {
  return termText(text);
}

function termText(text: string): string {
  if (WORD.test(text)) return text;
  return `#base64(${Buffer.from(text, 'utf8').toString('base64')})`;
}

function firstField(t: TermNode): string | undefined {
  return t.fields?.[0];
}

function collectTerms(node: QueryNode, out: TermNode[]): void {
  if (node.kind === 'term') out.push(node);
  else if (node.kind === 'window' || node.kind === 'band') for (const c of node.children) collectTerms(c, out);
  else if (node.kind === 'phrase') out.push(...node.terms);
  else if (node.kind === 'synonym') for (const i of node.items) collectTerms(i.node, out);
}

/**
 * K(node) of the module comment: Σ|w| of an Indri belief node (its item count for
 * unweighted operators), 1 for everything else.
 */
function massOf(node: QueryNode): number {
  if (node.kind !== 'belief' || node.op === 'not' || node.items.length === 0) return 1;
  const sum = node.items.reduce((s, i) => s + Math.abs(i.weight ?? 1), 0);
  return sum > 0 ? sum : 1;
}

/** A weight as MatchOpQL reads it: plain decimal, at most 6 significant digits. */
export function formatWeight(w: number): string {
  if (Number.isInteger(w)) return String(w);
  const s = Number(w.toPrecision(6));
  if (Math.abs(s) >= 1e-6) return String(s);
  return s.toFixed(12).replace(/0+$/, '');
}

function combine(items: Item[], extraKey?: string): string {
  const keys: string[] = [];
  items.forEach((it, i) => {
    if (it.weight !== 1) keys.push(`${i}=${formatWeight(it.weight)}`);
  });
  if (extraKey) keys.push(extraKey);
  const head = keys.length ? `#combine:${keys.join(':')}` : '#combine';
  return `${head}(${items.map((i) => i.text).join(' ')})`;
}

/** Prints an AST (or a node) as Terrier MatchOpQL. Never throws. */
export function printTerrier(ast: QueryAst | QueryNode): TerrierPrintResult {
  const root = 'kind' in ast ? ast : ast.root;
  const printer = new TerrierPrinter();
  if (!root) return { text: '', diagnostics: [] };
  try {
    const items: Item[] = [];
    printer.scored(root, 1, items);
    if (items.length === 0) return { text: '', diagnostics: printer.diagnostics };
    // A single item needs no #combine: its weight only scales the whole query, which
    // Terrier normalises away (every weight is divided by the largest, SEMANTICS.md §2.1).
    const text = items.length === 1 ? items[0].text : combine(items);
    return { text, diagnostics: printer.diagnostics };
  } catch (err) {
    // Never throws: a failure (deep nesting, an unexpected tree) becomes a diagnostic.
    const tooDeep = err instanceof RangeError;
    const why = tooDeep ? 'the query is nested too deeply to print.' : `the query could not be printed (${err instanceof Error ? err.message : String(err)}).`;
    return {
      text: '',
      diagnostics: [{ code: tooDeep ? 'translate/too-deep' : 'translate/failed', severity: 'error', message: `Terrier: ${why}`, range: root.range }],
    };
  }
}
