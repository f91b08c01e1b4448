/**
 * The one typed AST shared by the Indri, Lucene and plain-text dialects.
 *
 * Every node carries `range`: UTF-16 offsets [start, end) into the text that was parsed
 * (a single query, not the whole file). Nodes produced by error recovery or by
 * desugaring (e.g. the implicit #combine around several top-level items) still carry a
 * range that lies inside the text.
 *
 * Design rules (see docs/ARCHITECTURE.md):
 * - A node says what the query *means*, with just enough surface detail (`form`,
 *   `encoding`) for the printers to give back what the user wrote.
 * - Field restrictions live on the leaf (`fields`), because both Indri (`term.title`)
 *   and Lucene (`title:term`, `title:(a b)`) restrict the match, not the scoring model.
 * - Weights live on the item that carries them (`WeightedItem.weight`) for Indri, and on
 *   a `boost` wrapper for Lucene's `^`; both multiply under the engine's bag-of-concepts
 *   semantics.
 */

export interface SourceRange {
  /** Offset of the first UTF-16 code unit. */
  start: number;
  /** Offset one past the last UTF-16 code unit. */
  end: number;
}

export type Dialect = 'indri' | 'lucene' | 'text';

interface NodeBase {
  range: SourceRange;
  /**
   * Where the operator that makes this node was written, so editors colour and explain it without
   * reading the text again: Indri `#combine`, `#od3`, `#syn`, `{`, `<`, `#any`, `#base64`, …;
   * Lucene `~` (fuzzy term, sloppy phrase) and `^` (boost). Absent for nodes that have no operator
   * of their own (plain terms, hyphen chains, the implicit top-level #combine) or were built by code.
   */
  operatorRange?: SourceRange;
}

/** Field restriction shared by leaves and windows (Indri `x.title,h1`, Lucene `title:x`). */
interface Restrictable {
  /** Occurrences must lie inside every listed field. Absent = the whole document. */
  fields?: string[];
  /**
   * Where each of `fields` was written on this node (`.title,h1`, `title:`), in the same order;
   * absent when the fields were inherited from an enclosing Lucene `title:( … )` group.
   */
  fieldRanges?: SourceRange[];
}

/** A single query term. */
export interface TermNode extends NodeBase, Restrictable {
  kind: 'term';
  /** The term text after unescaping / base64 decoding, before analysis. */
  text: string;
  /**
   * True when the term must not be stemmed or normalised: Indri `"term"` and
   * `#base64quote(...)` (SEMANTICS.md §1.3).
   */
  raw: boolean;
  /** How the term was written, so printers can reproduce it. */
  encoding?: 'base64' | 'base64quote';
  /** Indri context evaluation `term.(title)`: score with the language model of these fields. */
  context?: string[];
  /** Where each of `context` was written, in the same order. */
  contextRanges?: SourceRange[];
  /** True for Indri NUMBER/FLOAT/negative-number terms (rule rawText). */
  numeric?: boolean;
}

/**
 * Wildcard term. Indri supports only a trailing `*` (`term*`, `#wildcard(term)`);
 * Lucene supports `?` and `*` anywhere (prefix queries are `foo*`).
 */
export interface WildcardNode extends NodeBase, Restrictable {
  kind: 'wildcard';
  /** Pattern with `*` and `?` as wildcard characters (unescaped literal otherwise). */
  pattern: string;
  form: 'suffix-star' | 'wildcard-op' | 'lucene';
}

/** Lucene fuzzy term `roam~` / `roam~1`. */
export interface FuzzyNode extends NodeBase, Restrictable {
  kind: 'fuzzy';
  text: string;
  /** Maximum edit distance, 0..2 (Lucene default 2). */
  maxEdits: number;
  /** True when the user wrote an explicit distance. */
  explicit: boolean;
  /** Where the explicit distance after `~` was written. */
  parameterRange?: SourceRange;
}

/** Lucene regular expression `/[mb]oat/`. */
export interface RegexNode extends NodeBase, Restrictable {
  kind: 'regex';
  pattern: string;
}

/** Lucene term range `[a TO b]`, `{a TO b}`, `[a TO *]`. */
export interface RangeNode extends NodeBase, Restrictable {
  kind: 'range';
  /** null = open (`*`). */
  lower: string | null;
  upper: string | null;
  includeLower: boolean;
  includeUpper: boolean;
}

/** Lucene `*:*`. */
export interface MatchAllNode extends NodeBase {
  kind: 'matchAll';
}

/**
 * Indri proximity window: `#odN` / `#N` / `#od` (ordered), `#uwN` / `#uw` (unordered),
 * and hyphenated terms (`a-b` = `#od1(a b)`). Semantics: SEMANTICS.md §1.4.
 */
export interface WindowNode extends NodeBase, Restrictable {
  kind: 'window';
  ordered: boolean;
  /** Window size N; null = unlimited (`#od(...)`, `#uw(...)`). */
  size: number | null;
  children: QueryNode[];
  form: 'od' | 'hash-number' | 'uw' | 'hyphen';
  context?: string[];
  /** Where each of `context` was written, in the same order. */
  contextRanges?: SourceRange[];
}

/**
 * Lucene phrase `"a b"` (slop 0 = exact adjacent phrase, the same as Indri `#1`) and
 * sloppy phrase `"a b"~N` (Lucene's positional edit distance, *not* an Indri window).
 */
export interface PhraseNode extends NodeBase, Restrictable {
  kind: 'phrase';
  terms: TermNode[];
  slop: number;
  /** True when the user wrote `~N`. */
  explicitSlop: boolean;
  /** Where N of `~N` was written. */
  parameterRange?: SourceRange;
}

/** Synonym sets: Indri `#syn(...)`, `{...}`, `<...>`, `#wsyn(w t ...)`. */
export interface SynonymNode extends NodeBase, Restrictable {
  kind: 'synonym';
  /** Per-item weights are present only for `#wsyn`. */
  items: WeightedItem[];
  form: 'syn' | 'braces' | 'angle' | 'wsyn';
}

/** Indri `#band(...)`: tf = 1 when every child occurs (SEMANTICS.md §1.4). */
export interface BandNode extends NodeBase, Restrictable {
  kind: 'band';
  children: QueryNode[];
}

/** Indri `#any:F` / `#any(F)`: every extent of field F. */
export interface AnyNode extends NodeBase {
  kind: 'any';
  field: string;
  form: 'colon' | 'paren';
  /** Where the field name was written. */
  fieldRange?: SourceRange;
}

/** Indri numeric field comparisons `#less(F n)`, `#greater`, `#between(F lo hi)`, `#equals`. */
export interface NumericCompareNode extends NodeBase {
  kind: 'numericCompare';
  op: 'less' | 'greater' | 'between' | 'equals';
  field: string;
  values: number[];
  /** Where the field name was written. */
  fieldRange?: SourceRange;
  /** Where each of `values` was written, in the same order. */
  valueRanges?: SourceRange[];
}

/** Indri date operators on the `date` field. Dates are kept as written. */
export interface DateCompareNode extends NodeBase {
  kind: 'dateCompare';
  op: 'after' | 'before' | 'between' | 'equals';
  dates: string[];
  /** Where the dates were written: from the first one's start to the last one's end. */
  datesRange?: SourceRange;
}

/** Indri extent restriction on a belief operator: `[title]`, `[passage100:50]`, `[./field]`. */
export type ExtentRestriction =
  | { kind: 'field'; field: string; range: SourceRange }
  | { kind: 'passage'; width: number; increment: number; range: SourceRange }
  | { kind: 'path'; path: string; range: SourceRange };

export interface WeightedItem {
  /** Present for weighted operators (#weight, #wand, #wsum, #wsyn). */
  weight?: number;
  /** Range of the weight literal, when one was written. */
  weightRange?: SourceRange;
  node: QueryNode;
}

export type BeliefOp = 'combine' | 'weight' | 'wand' | 'wsum' | 'or' | 'not' | 'max';

/**
 * Indri belief operators (SEMANTICS.md §1.5). `#not` has exactly one item. For
 * `#weight`/`#wand`/`#wsum` every item has a weight.
 */
export interface BeliefNode extends NodeBase {
  kind: 'belief';
  op: BeliefOp;
  items: WeightedItem[];
  restriction?: ExtentRestriction;
  /** True for the implicit #combine around several top-level items (rule `query`). */
  implicit?: boolean;
}

/** Indri `#filreq/#filrej/#scoreif/#scoreifnot(filter scored)`. */
export interface FilterNode extends NodeBase {
  kind: 'filter';
  /** `require` = #filreq/#scoreif, `reject` = #filrej/#scoreifnot (exact aliases). */
  mode: 'require' | 'reject';
  form: 'filreq' | 'filrej' | 'scoreif' | 'scoreifnot';
  filter: QueryNode;
  scored: QueryNode;
}

/** Indri `#prior(NAME)`. */
export interface PriorNode extends NodeBase {
  kind: 'prior';
  name: string;
}

export type Occur = 'must' | 'should' | 'mustNot';

export interface BooleanClause {
  occur: Occur;
  node: QueryNode;
  /** How the occur flag was decided, for the precedence-pitfall warning (SEMANTICS.md §3). */
  via: 'default' | 'plus' | 'minus' | 'AND' | 'OR' | 'NOT' | 'coerced-by-AND' | 'coerced-by-OR';
  /** Range of the operator token(s) that introduced the clause, if any. */
  operatorRange?: SourceRange;
}

/**
 * Lucene BooleanQuery: a flat list of clauses with flags, as the classic parser builds
 * them (`addClause`, SEMANTICS.md §3). Also the root of a Lucene query and of `( ... )` groups.
 */
export interface BooleanNode extends NodeBase {
  kind: 'boolean';
  clauses: BooleanClause[];
  /** True for `( ... )` groups, false for the top level. */
  grouped: boolean;
  /** `title:( ... )`: the field the group's children were parsed with. */
  field?: string;
  /** Where `field` was written. */
  fieldRange?: SourceRange;
}

/** Lucene `^boost` on a term, phrase or group. */
export interface BoostNode extends NodeBase {
  kind: 'boost';
  boost: number;
  child: QueryNode;
  /** Where the number after `^` was written. */
  parameterRange?: SourceRange;
}

/** Placeholder left where error recovery skipped or could not build a node. */
export interface ErrorNode extends NodeBase {
  kind: 'error';
  /** The source text that was skipped (may be empty for an insertion). */
  text: string;
}

export type QueryNode =
  | TermNode
  | WildcardNode
  | FuzzyNode
  | RegexNode
  | RangeNode
  | MatchAllNode
  | WindowNode
  | PhraseNode
  | SynonymNode
  | BandNode
  | AnyNode
  | NumericCompareNode
  | DateCompareNode
  | BeliefNode
  | FilterNode
  | PriorNode
  | BooleanNode
  | BoostNode
  | ErrorNode;

export type QueryNodeKind = QueryNode['kind'];

/** A parsed query: the root is null only for an empty (or wholly unparseable) text. */
export interface QueryAst {
  dialect: Dialect;
  root: QueryNode | null;
  range: SourceRange;
}

/** Children of a node, in source order (for generic walks). */
export function childrenOf(node: QueryNode): QueryNode[] {
  switch (node.kind) {
    case 'window':
    case 'band':
      return node.children;
    case 'phrase':
      return node.terms;
    case 'synonym':
    case 'belief':
      return node.items.map((i) => i.node);
    case 'filter':
      return [node.filter, node.scored];
    case 'boolean':
      return node.clauses.map((c) => c.node);
    case 'boost':
      return [node.child];
    default:
      return [];
  }
}

/** Pre-order walk. Return false from `visit` to skip a node's children. */
export function walk(node: QueryNode | null, visit: (n: QueryNode, parents: QueryNode[]) => boolean | void): void {
  if (!node) return;
  const stack: { n: QueryNode; parents: QueryNode[] }[] = [{ n: node, parents: [] }];
  while (stack.length) {
    const { n, parents } = stack.pop()!;
    if (visit(n, parents) === false) continue;
    const kids = childrenOf(n);
    const p = [...parents, n];
    for (let i = kids.length - 1; i >= 0; i--) stack.push({ n: kids[i], parents: p });
  }
}

/** A deep copy of the AST with every source range (`range`, `…Range`, `…Ranges`) removed, for structural comparison. */
export function stripRanges<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => stripRanges(v)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (k === 'range' || k.endsWith('Range') || k.endsWith('Ranges')) continue;
      if (v === undefined) continue;
      out[k] = stripRanges(v);
    }
    return out as T;
  }
  return value;
}
