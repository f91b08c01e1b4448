/**
 * Translation between query dialects: Indri ↔ Lucene, and any dialect → Terrier MatchOpQL.
 *
 * The AST is converted node by node into the target dialect's shapes, then printed with
 * that dialect's printer. Every construct without an exact equivalent yields a
 * `translate/approximated` or `translate/dropped` diagnostic at the node's range (offsets
 * into the source query), never silently.
 *
 * Weights. Indri belief operators average or normalise their children (SEMANTICS.md §1.5);
 * Lucene's BooleanQuery sums clause scores and `^` multiplies (SEMANTICS.md §3). Both are linear
 * in the leaf scores, so weights can be carried over exactly up to one constant factor:
 * - Indri → Lucene: item i of a belief node gets boost `w_i / K(child)`, K = the child's
 *   Σ|w| (item count for #combine), 1 for a leaf. The products along each path are then
 *   proportional to Indri's effective weights, and `#weight(2 a 1 b)` becomes `a^2 b`.
 * - Lucene → Indri: clause i gets weight `boost_i × M(child)`, M = the child's summed
 *   clause mass (Σ boost × M over its scored clauses), 1 for a leaf. `(a b)^2 c` becomes
 *   `#weight(4 #combine(a b) 1 c)`, which weighs a : b : c as 2 : 2 : 1 like Lucene.
 * The retrieval models themselves differ (query likelihood vs BM25); that is not flagged.
 */
import type {
  BeliefNode,
  BooleanClause,
  BooleanNode,
  QueryAst,
  QueryNode,
  SourceRange,
  TermNode,
  WeightedItem,
  WindowNode,
} from './ast.js';
import { stripRanges, walk } from './ast.js';
import type { QueryDiagnostic } from './diagnostics.js';
import { printIndri } from './print/indri.js';
import { printLucene } from './print/lucene.js';
import { printTerrier } from './print/terrier.js';

export type TranslateTarget = 'indri' | 'lucene' | 'terrier';

export interface TranslateResult {
  /** The translated AST (absent for Terrier, which has no AST of its own). */
  ast?: QueryAst;
  text: string;
  /** Approximations and drops, with ranges into the source query. */
  diagnostics: QueryDiagnostic[];
}

export const TRANSLATE_TARGETS: readonly TranslateTarget[] = ['indri', 'lucene', 'terrier'];

/** Translates a parsed query into another dialect. Never throws. */
export function translate(ast: QueryAst, to: TranslateTarget): TranslateResult {
  if (to === 'terrier') return printTerrier(ast);
  try {
    if (to === ast.dialect) return { ast, text: print(ast), diagnostics: [] };
    const t = new Translator();
    let root = ast.root ? (to === 'indri' ? t.toIndriRoot(ast.root) : t.toLuceneRoot(ast.root)) : null;
    // A translated query gets an explicit #combine( ... ), which says what it means.
    if (root?.kind === 'belief' && root.implicit) root = { ...root, implicit: undefined };
    const out: QueryAst = { dialect: to, root, range: ast.range };
    return { ast: out, text: root ? print(out) : '', diagnostics: t.diagnostics };
  } catch (err) {
    // Total like the parsers: a query the printers cannot handle (deep nesting, or an
    // error-recovered tree a printer does not expect) becomes a diagnostic, not a crash.
    const tooDeep = err instanceof RangeError;
    return {
      text: '',
      diagnostics: [
        {
          code: tooDeep ? 'translate/too-deep' : 'translate/failed',
          severity: 'error',
          message: tooDeep
            ? `The query is nested too deeply to translate to ${to}.`
            : `The query could not be translated to ${to}: ${err instanceof Error ? err.message : String(err)}`,
          range: ast.range,
        },
      ],
    };
  }
}

function print(ast: QueryAst): string {
  return ast.dialect === 'lucene' ? printLucene(ast) : printIndri(ast);
}

/** Indri TEXT_TERM characters we keep unencoded (SEMANTICS.md §1.1; non-ASCII goes to #base64). */
const INDRI_WORD = /^[A-Za-z0-9_]+$/;
const INDRI_NUMBER = /^-?[0-9]+(\.[0-9]+)?$/;
const INDRI_HYPHENATED = /^[A-Za-z0-9_]+(-[A-Za-z0-9_]+)+$/;

/** Weights as written in the output: 6 significant digits, so 1/3 does not print 17 digits. */
function roundWeight(w: number): number {
  return Number(w.toPrecision(6));
}

function sameNode(a: QueryNode, b: QueryNode): boolean {
  return JSON.stringify(stripRanges(a)) === JSON.stringify(stripRanges(b));
}

class Translator {
  readonly diagnostics: QueryDiagnostic[] = [];

  approximated(range: SourceRange, message: string): void {
    this.diagnostics.push({ code: 'translate/approximated', severity: 'warning', message, range });
  }

  dropped(range: SourceRange, message: string): void {
    this.diagnostics.push({ code: 'translate/dropped', severity: 'warning', message, range });
  }

  // ------------------------------------------------------------------ → Indri

  toIndriRoot(node: QueryNode): QueryNode | null {
    // A boost on the whole query (`(a b)^2`, or the only clause) scales every score alike.
    const top = node.kind === 'boolean' && !node.grouped && node.clauses.length === 1 ? node.clauses[0].node : node;
    if (top.kind === 'boost' && top.boost !== 1) {
      this.dropped(top.range, `^${top.boost} on the whole query scales every score alike and does not change the ranking; Indri has no place for it, so it is left out.`);
    }
    return this.indriScored(node)?.node ?? null;
  }

  /** A scored Indri node and its Lucene mass M (see the module comment). */
  indriScored(node: QueryNode): { node: QueryNode; mass: number } | null {
    switch (node.kind) {
      case 'boolean':
        return this.indriBoolean(node);
      case 'boost': {
        // A boost reaches here only at the top or inside a non-boolean parent: it scales
        // the whole item, which the parent's weight computation handles.
        return this.indriScored(node.child);
      }
      case 'belief': {
        const items: WeightedItem[] = [];
        for (const item of node.items) {
          const child = this.indriScored(item.node);
          if (child) items.push({ ...item, node: child.node });
        }
        if (items.length === 0) return null;
        return { node: { ...node, items }, mass: 1 };
      }
      case 'filter': {
        const filter = this.indriUnscored(node.filter);
        const scored = this.indriScored(node.scored);
        if (!scored) return null;
        if (!filter) return scored;
        return { node: { ...node, filter, scored: scored.node }, mass: scored.mass };
      }
      case 'prior':
        return { node, mass: 1 };
      case 'error':
        this.dropped(node.range, 'A part of the query that did not parse is left out.');
        return null;
      default: {
        const u = this.indriUnscored(node);
        return u ? { node: u, mass: 1 } : null;
      }
    }
  }

  /** Lucene clauses → #combine/#weight, required clauses → #filreq, prohibited → #filrej. */
  indriBoolean(node: BooleanNode): { node: QueryNode; mass: number } | null {
    const items: WeightedItem[] = [];
    const required: QueryNode[] = [];
    const prohibited: QueryNode[] = [];
    let mass = 0;
    for (const clause of node.clauses) {
      let boost = 1;
      let inner = clause.node;
      while (inner.kind === 'boost') {
        boost *= inner.boost;
        inner = inner.child;
      }
      if (clause.occur === 'mustNot') {
        const u = this.indriUnscored(inner, true);
        if (u) prohibited.push(u);
        else this.dropped(clause.node.range, 'This prohibited clause has no unscored Indri form for #filrej; the exclusion is left out.');
        continue;
      }
      if (!(boost > 0)) {
        this.dropped(clause.node.range, `Boost ${boost} is not positive; the clause is left out.`);
        continue;
      }
      const scored = this.indriScored(inner);
      if (!scored) continue;
      const weight = boost * scored.mass;
      items.push({ weight: roundWeight(weight), node: scored.node });
      mass += weight;
      if (clause.occur === 'must') {
        const u = this.indriUnscored(inner, true);
        if (u) required.push(u);
        else this.approximated(clause.node.range, 'Indri can only require an unscored expression (#filreq); this required group is scored but no longer required.');
      }
    }
    if (items.length === 0) {
      if (prohibited.length) this.dropped(node.range, 'A query with only prohibited clauses matches no documents in Lucene; it has no Indri form and is left out.');
      return null;
    }
    let result: QueryNode = this.beliefOf(items, node.range);
    if (required.length) {
      const filter: QueryNode = required.length === 1 ? required[0] : { kind: 'band', children: required, range: node.range };
      result = { kind: 'filter', mode: 'require', form: 'filreq', filter, scored: result, range: node.range };
    }
    if (prohibited.length) {
      const filter: QueryNode =
        prohibited.length === 1 ? prohibited[0] : { kind: 'synonym', form: 'syn', items: prohibited.map((n) => ({ node: n })), range: node.range };
      result = { kind: 'filter', mode: 'reject', form: 'filrej', filter, scored: result, range: node.range };
    }
    return { node: result, mass };
  }

  /** #combine when every weight is 1 (or there is one item), #weight otherwise. */
  beliefOf(items: WeightedItem[], range: SourceRange): QueryNode {
    if (items.length === 1) return items[0].node;
    const uniform = items.every((i) => i.weight === 1);
    const belief: BeliefNode = uniform
      ? { kind: 'belief', op: 'combine', items: items.map((i) => ({ node: i.node })), range }
      : { kind: 'belief', op: 'weight', items, range };
    return belief;
  }

  /**
   * An unscored Indri expression (a term, window, synonym...) for `node`, or null when it
   * has none. `quiet` suppresses the "no Indri form" diagnostics when the caller reports.
   */
  indriUnscored(node: QueryNode, quiet = false): QueryNode | null {
    switch (node.kind) {
      case 'term':
        return this.indriTerm(node);
      case 'phrase': {
        // The phrase's field goes on the window (`#1(a b).title`), not on each term.
        const bare = (t: TermNode): TermNode => (node.fields && sameFields(t.fields, node.fields) ? { ...t, fields: undefined } : t);
        const terms = node.terms.map((t) => (node.terms.length === 1 ? this.indriTerm(t, node.fields) : this.indriTerm(bare(t))));
        if (terms.length === 1) return terms[0];
        if (node.slop === 0) {
          const w: WindowNode = { kind: 'window', ordered: true, size: 1, form: 'hash-number', children: terms, range: node.range };
          if (node.fields) w.fields = node.fields;
          return w;
        }
        const size = Math.max(node.slop, terms.length);
        this.approximated(node.range, `"…"~${node.slop} becomes #uw${size}: Lucene's slop counts position moves; it is not the same window as #uw${size}.`);
        const w: WindowNode = { kind: 'window', ordered: false, size, form: 'uw', children: terms, range: node.range };
        if (node.fields) w.fields = node.fields;
        return w;
      }
      case 'wildcard': {
        const star = node.pattern.indexOf('*');
        const suffixOnly = star === node.pattern.length - 1 && !node.pattern.includes('?') && star > 0;
        if (node.form !== 'lucene' || suffixOnly) {
          const prefix = node.pattern.slice(0, -1);
          if (INDRI_WORD.test(prefix)) return { ...node, form: 'suffix-star' };
        }
        this.dropped(node.range, `The wildcard '${node.pattern}' has no Indri form (Indri has only a trailing * on a plain word); it is left out.`);
        return null;
      }
      case 'fuzzy':
        this.dropped(node.range, `Fuzzy term '${node.text}~' has no Indri form; it is left out.`);
        return null;
      case 'regex':
        this.dropped(node.range, `Regular expression /${node.pattern}/ has no Indri form; it is left out.`);
        return null;
      case 'range':
        this.dropped(node.range, 'Term ranges have no Indri form; the range is left out.');
        return null;
      case 'matchAll':
        this.dropped(node.range, '*:* has no Indri form; it is left out.');
        return null;
      case 'boost':
        return this.indriUnscored(node.child, quiet);
      case 'error':
        this.dropped(node.range, 'A part of the query that did not parse is left out.');
        return null;
      case 'boolean': {
        if (quiet) return null;
        // A group where an unscored expression is needed: keep its terms as alternatives.
        this.approximated(node.range, 'A group inside a phrase or filter has no unscored Indri form; its clauses become #syn alternatives.');
        const parts = node.clauses.filter((c) => c.occur !== 'mustNot').map((c) => this.indriUnscored(c.node));
        const kept = parts.filter((p): p is QueryNode => p !== null);
        if (kept.length === 0) return null;
        return kept.length === 1 ? kept[0] : { kind: 'synonym', form: 'syn', items: kept.map((n) => ({ node: n })), range: node.range };
      }
      case 'belief':
      case 'filter':
      case 'prior':
        return quiet ? null : null;
      default:
        // Indri-only unscored nodes (windows, synonyms, #band, #any, comparisons) are
        // already Indri: copy them, re-checking their terms.
        return this.indriCopy(node);
    }
  }

  indriCopy(node: QueryNode): QueryNode {
    switch (node.kind) {
      case 'term':
        return this.indriTerm(node);
      case 'window':
        return { ...node, children: node.children.map((c) => this.indriUnscored(c) ?? c) };
      case 'band':
        return { ...node, children: node.children.map((c) => this.indriUnscored(c) ?? c) };
      case 'synonym':
        return { ...node, items: node.items.map((i) => ({ ...i, node: this.indriUnscored(i.node) ?? i.node })) };
      default:
        return node;
    }
  }

  /** A term Indri can read: plain, numeric, hyphenated (#od1) or #base64. */
  indriTerm(node: TermNode, inherited?: string[]): QueryNode {
    const fields = node.fields ?? inherited;
    const base: TermNode = { ...node };
    if (fields) base.fields = fields;
    const text = node.text;
    if (node.encoding) return base;
    // Digits alone lex as an Indri NUMBER, which is a term only when marked numeric.
    if (INDRI_NUMBER.test(text)) return { ...base, numeric: true };
    if (INDRI_WORD.test(text)) return base;
    if (!node.raw && INDRI_HYPHENATED.test(text)) {
      this.approximated(node.range, `'${text}' becomes the Indri hyphenated term ${text}, which Indri reads as the exact phrase #od1(${text.split('-').join(' ')}).`);
      const parts = text.split('-');
      let at = node.range.start;
      const children: TermNode[] = parts.map((p) => {
        const t: TermNode = { kind: 'term', text: p, raw: false, range: { start: at, end: Math.min(at + p.length, node.range.end) } };
        at += p.length + 1;
        return t;
      });
      const w: WindowNode = { kind: 'window', ordered: true, size: 1, form: 'hyphen', children, range: node.range };
      if (fields) w.fields = fields;
      return w;
    }
    return { ...base, encoding: node.raw ? 'base64quote' : 'base64' };
  }

  // ------------------------------------------------------------------ → Lucene

  toLuceneRoot(node: QueryNode): QueryNode | null {
    const clauses = this.luceneClauses(node, 1);
    if (clauses.length === 0) return null;
    for (const clause of clauses) this.oneFieldEach(clause.node);
    if (clauses.every((c) => c.occur === 'mustNot')) {
      this.dropped(node.range, 'Only exclusions are left, and a purely negative Lucene query matches nothing; the query is empty.');
      return null;
    }
    return { kind: 'boolean', clauses, grouped: false, range: node.range };
  }

  /** A Lucene node standing for a clause list: a single SHOULD clause stays bare. */
  luceneGroup(clauses: BooleanClause[], range: SourceRange): QueryNode | null {
    if (clauses.length === 0) return null;
    if (clauses.length === 1 && clauses[0].occur === 'should') return clauses[0].node;
    return { kind: 'boolean', clauses, grouped: true, range };
  }

  /** The clauses `node` stands for, each boosted by `boost` (unless it is 1). */
  luceneClauses(node: QueryNode, boost: number): BooleanClause[] {
    const should = (n: QueryNode | null): BooleanClause[] => (n ? [{ occur: 'should', node: boosted(n, boost), via: 'default' }] : []);
    switch (node.kind) {
      case 'belief':
        return this.luceneBelief(node, boost);
      case 'filter': {
        const clauses = this.luceneClauses(node.scored, boost);
        const filterParts = node.mode === 'require' ? andParts(node.filter) : orParts(node.filter);
        for (const part of filterParts) {
          const f = this.luceneUnscored(part);
          if (!f) continue;
          if (node.mode === 'reject') {
            clauses.push({ occur: 'mustNot', node: f, via: 'minus' });
            continue;
          }
          // `+f` also scores f; when f is already one of the scored clauses, requiring that
          // clause is exact.
          const same = clauses.find((c) => c.occur === 'should' && sameNode(unboost(c.node), f));
          if (same) {
            same.occur = 'must';
            same.via = 'plus';
          } else {
            this.approximated(part.range, `#${node.form}'s filter becomes a required clause, which Lucene also scores.`);
            clauses.push({ occur: 'must', node: f, via: 'plus' });
          }
        }
        return clauses;
      }
      case 'boolean': {
        const inner = node.clauses.flatMap((c) => {
          const sub = this.luceneClauses(c.node, 1);
          if (c.occur === 'should') return sub;
          const group = this.luceneGroup(sub, c.node.range);
          return group ? [{ ...c, node: group }] : [];
        });
        if (boost === 1 && !node.grouped) return inner;
        const group = this.luceneGroup(inner, node.range);
        return should(group);
      }
      case 'boost':
        return this.luceneClauses(node.child, boost * node.boost);
      case 'prior':
        this.dropped(node.range, `#prior(${node.name}) has no Lucene form; it is left out.`);
        return [];
      case 'error':
        this.dropped(node.range, 'A part of the query that did not parse is left out.');
        return [];
      case 'band': {
        this.approximated(node.range, '#band becomes a group of required clauses, which Lucene scores (Indri counts tf = 1).');
        const parts = node.children.map((c) => this.luceneUnscored(c)).filter((n): n is QueryNode => n !== null);
        const clauses: BooleanClause[] = parts.map((n) => ({ occur: 'must', node: n, via: 'plus' }));
        return should(this.luceneGroup(clauses, node.range));
      }
      default:
        return should(this.luceneUnscored(node));
    }
  }

  luceneBelief(node: BeliefNode, boost: number): BooleanClause[] {
    if (node.restriction) {
      if (node.restriction.kind === 'field') {
        this.approximated(node.restriction.range, `[${node.restriction.field}] (score only within ${node.restriction.field} extents) becomes a field restriction on each term.`);
      } else {
        this.dropped(node.restriction.range, 'Passage and path restrictions have no Lucene form; the whole document is scored.');
      }
    }
    if (node.op === 'wsum' || node.op === 'or' || node.op === 'max') {
      this.approximated(node.range, `#${node.op} has no Lucene form; its items are summed like a BooleanQuery's optional clauses.`);
    }
    if (node.op === 'not') {
      this.approximated(node.range, "#not (the complement of a belief) becomes a prohibited clause, which excludes documents instead of scoring them.");
      const inner = this.luceneClauses(node.items[0].node, 1);
      const group = this.luceneGroup(inner, node.range);
      return group ? [{ occur: 'mustNot', node: group, via: 'minus' }] : [];
    }
    const field = node.restriction?.kind === 'field' ? node.restriction.field : undefined;
    const clauses: BooleanClause[] = [];
    for (const item of node.items) {
      const w = item.weight ?? 1;
      if (!(w > 0)) {
        this.dropped(item.weightRange ?? item.node.range, `Weight ${w} is not positive; Lucene boosts must be positive, so the item is left out.`);
        continue;
      }
      const child = field ? withField(item.node, field) : item.node;
      const sub = this.luceneClauses(child, 1);
      const b = roundWeight(w / beliefMass(item.node));
      // Items are clauses of this level; a multi-clause item becomes a boosted group.
      if (sub.length === 1 && sub[0].occur === 'should') clauses.push({ ...sub[0], node: boosted(sub[0].node, b) });
      else if (sub.length === 1 && sub[0].occur === 'mustNot') clauses.push(sub[0]);
      else {
        const group = this.luceneGroup(sub, item.node.range);
        if (group) clauses.push({ occur: 'should', node: boosted(group, b), via: 'default' });
      }
    }
    if (boost === 1) return clauses;
    const group = this.luceneGroup(clauses, node.range);
    return group ? [{ occur: 'should', node: boosted(group, boost), via: 'default' }] : [];
  }

  /** A Lucene node for an unscored/leaf Indri node, or null when it has no Lucene form. */
  luceneUnscored(node: QueryNode): QueryNode | null {
    switch (node.kind) {
      case 'term':
        return this.luceneTerm(node);
      case 'window':
        return this.luceneWindow(node);
      case 'synonym': {
        this.approximated(node.range, 'Lucene has no synonym operator; #syn becomes a group of alternatives whose scores are summed (Indri pools their counts as one term).');
        const clauses: BooleanClause[] = [];
        for (const item of node.items) {
          const n = this.luceneUnscored(node.fields ? withField(item.node, node.fields[0]) : item.node);
          if (!n) continue;
          const w = item.weight ?? 1;
          if (!(w > 0)) {
            this.dropped(item.weightRange ?? item.node.range, `Weight ${w} is not positive; the alternative is left out.`);
            continue;
          }
          clauses.push({ occur: 'should', node: boosted(n, roundWeight(w)), via: 'default' });
        }
        return this.luceneGroup(clauses, node.range);
      }
      case 'wildcard':
        return { ...node, form: 'lucene' };
      case 'numericCompare': {
        this.approximated(node.range, `#${node.op} becomes a term range on ${node.field}; Lucene's classic parser compares terms as strings, not numbers.`);
        const v = node.values.map(String);
        const base = { kind: 'range' as const, fields: [node.field], range: node.range };
        switch (node.op) {
          case 'less':
            return { ...base, lower: null, upper: v[0], includeLower: false, includeUpper: false };
          case 'greater':
            return { ...base, lower: v[0], upper: null, includeLower: false, includeUpper: false };
          case 'between':
            return { ...base, lower: v[0], upper: v[1], includeLower: true, includeUpper: true };
          case 'equals':
            return { kind: 'term', text: v[0], raw: false, fields: [node.field], range: node.range };
        }
        return null;
      }
      case 'dateCompare':
        this.dropped(node.range, `#date${node.op} has no Lucene form; it is left out.`);
        return null;
      case 'any':
        this.dropped(node.range, `#any:${node.field} has no Lucene form; it is left out.`);
        return null;
      case 'band':
      case 'belief':
      case 'filter':
      case 'boolean':
      case 'boost':
      case 'prior':
        return this.luceneGroup(this.luceneClauses(node, 1), node.range);
      case 'error':
        this.dropped(node.range, 'A part of the query that did not parse is left out.');
        return null;
      default:
        // Lucene-only leaves (phrase, fuzzy, regex, range, *:*) are already Lucene.
        return node;
    }
  }

  /**
   * Lucene restricts a clause to one field; Indri's `x.title,heading` requires the match inside every
   * listed field. The printer writes the first field; the others are reported here (the nodes may be the
   * source's own, so they are not changed).
   */
  oneFieldEach(root: QueryNode): void {
    walk(root, (n) => {
      if ('fields' in n && n.fields && n.fields.length > 1) {
        this.approximated(n.range, `Lucene restricts a clause to one field: the match must lie in ${n.fields[0]}; Indri also required it inside ${n.fields.slice(1).join(', ')}, which is left out.`);
      }
    });
  }

  luceneTerm(node: TermNode): QueryNode {
    const out: TermNode = { kind: 'term', text: node.text, raw: false, range: node.range };
    if (node.fields) out.fields = node.fields;
    if (node.raw) this.approximated(node.range, `Lucene has no unstemmed term form; '${node.text}' goes through the field's analyzer.`);
    if (node.context?.length) this.dropped(node.range, `Context .(${node.context.join(',')}) has no Lucene form; the document is scored as a whole.`);
    if (node.numeric) out.numeric = true;
    return out;
  }

  luceneWindow(node: WindowNode): QueryNode | null {
    if (node.context?.length) this.dropped(node.range, `Context .(${node.context.join(',')}) has no Lucene form; the document is scored as a whole.`);
    const terms: TermNode[] = [];
    let flattened = false;
    for (const c of node.children) {
      if (c.kind === 'term') terms.push(c);
      else {
        flattened = true;
        collectTerms(c, terms);
      }
    }
    if (flattened) this.approximated(node.range, 'A Lucene phrase holds only terms; the operators inside this window are replaced by their terms.');
    if (terms.length === 0) {
      this.dropped(node.range, 'This window has no terms Lucene can use; it is left out.');
      return null;
    }
    const phraseTerms = terms.map((t) => {
      const out: TermNode = { kind: 'term', text: t.text, raw: false, range: t.range };
      return out;
    });
    const k = phraseTerms.length;
    const fields = node.fields ?? terms.find((t) => t.fields)?.fields;
    const phrase = (slop: number): QueryNode => {
      if (k === 1) return this.luceneTerm({ ...terms[0], fields });
      const p: QueryNode = { kind: 'phrase', terms: phraseTerms, slop, explicitSlop: slop > 0, range: node.range };
      if (fields) p.fields = fields;
      return p;
    };
    if (node.size === null) {
      this.approximated(node.range, `#${node.ordered ? 'od' : 'uw'} without a size has no Lucene form; it becomes required terms anywhere in the document.`);
      const clauses: BooleanClause[] = terms.map((t) => ({ occur: 'must', node: this.luceneTerm({ ...t, fields: fields ?? t.fields }), via: 'plus' }));
      return this.luceneGroup(clauses, node.range);
    }
    if (node.ordered && node.size === 1) return phrase(0);
    if (node.ordered) {
      const slop = (node.size - 1) * (k - 1);
      this.approximated(node.range, `#od${node.size} becomes "…"~${slop}: Lucene's sloppy phrase also matches the terms out of order.`);
      return phrase(slop);
    }
    this.approximated(node.range, `#uw${node.size} becomes "…"~${node.size}: Lucene's slop counts position moves; it is not the same window as #uw${node.size}.`);
    return phrase(node.size);
  }
}

function sameFields(a: string[] | undefined, b: string[]): boolean {
  return !!a && a.length === b.length && a.every((f, i) => f === b[i]);
}

/** The parts a #filreq filter requires: the children of a #band, else the filter itself. */
function andParts(filter: QueryNode): QueryNode[] {
  return filter.kind === 'band' ? filter.children : [filter];
}

/** The parts a #filrej filter rejects on: the alternatives of a #syn, else the filter itself. */
function orParts(filter: QueryNode): QueryNode[] {
  return filter.kind === 'synonym' && filter.form !== 'wsyn' ? filter.items.map((i) => i.node) : [filter];
}

function boosted(node: QueryNode, boost: number): QueryNode {
  if (boost === 1) return node;
  return { kind: 'boost', boost: roundWeight(boost), child: node, range: node.range };
}

function unboost(node: QueryNode): QueryNode {
  return node.kind === 'boost' ? node.child : node;
}

/** K of the module comment: Σ|w| of a belief node's items, 1 for anything else. */
function beliefMass(node: QueryNode): number {
  if (node.kind !== 'belief' || node.op === 'not' || node.items.length === 0) return 1;
  const sum = node.items.reduce((s, i) => s + Math.abs(i.weight ?? 1), 0);
  return sum > 0 ? sum : 1;
}

function collectTerms(node: QueryNode, out: TermNode[]): void {
  if (node.kind === 'term') out.push(node);
  else if (node.kind === 'phrase') out.push(...node.terms);
  else if (node.kind === 'window' || node.kind === 'band') for (const c of node.children) collectTerms(c, out);
  else if (node.kind === 'synonym') for (const i of node.items) collectTerms(i.node, out);
}

/** `node` with `field` on every leaf that has no field of its own. */
function withField(node: QueryNode, field: string): QueryNode {
  switch (node.kind) {
    case 'term':
    case 'wildcard':
    case 'fuzzy':
    case 'regex':
    case 'range':
    case 'phrase':
    case 'window':
    case 'synonym':
    case 'band':
      return node.fields ? node : { ...node, fields: [field] };
    case 'belief':
      return { ...node, items: node.items.map((i) => ({ ...i, node: withField(i.node, field) })) };
    case 'filter':
      return { ...node, filter: withField(node.filter, field), scored: withField(node.scored, field) };
    case 'boost':
      return { ...node, child: withField(node.child, field) };
    case 'boolean':
      return { ...node, clauses: node.clauses.map((c) => ({ ...c, node: withField(c.node, field) })) };
    default:
      return node;
  }
}
