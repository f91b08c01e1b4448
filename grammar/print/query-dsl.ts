/**
 * Translation of a parsed query (any dialect) into the OpenSearch / Elasticsearch query DSL.
 *
 * The DSL is the JSON body a cluster's `_search` takes under `query`. Both products share the
 * constructs used here (bool, dis_max, match, multi_match, match_phrase, intervals, prefix,
 * wildcard, fuzzy, regexp, range, term, match_all, match_none), so one translation serves both;
 * server/backends type-checks the result against each official client's request types at
 * compile time.
 *
 * Like `translate()`, every construct the cluster cannot evaluate exactly as querylens does yields a
 * `translate/approximated` or `translate/dropped` diagnostic at the construct's range; nothing is
 * changed silently. The rules, in short (docs/SEMANTICS.md §1.4 for Indri's windows):
 * - Weights: a belief operator's item i gets boost w_i / Σ|w| (Indri normalises weights at every
 *   level; #combine is equal weights); Lucene's `^` becomes the clause's `boost`. The root's
 *   boosts are scaled back by Σ|w| so that `#weight( 2 a 1 b )` reads `a^2 b^1`.
 * - Terms are `match` queries, so the cluster's analyzer decides tokens and stems; several search
 *   fields become `multi_match` (most_fields: each field scored and summed).
 * - Windows become `intervals`: `#1` is `max_gaps: 0`, ordered, exact. `#odN` limits every gap to
 *   N−1 words while `max_gaps` limits their total, which agrees for two terms only; `#uwN` (all
 *   terms inside N positions) is `max_gaps: N − k` unordered. Interval queries are scored by
 *   match width, not as a term with its own tf/df as querylens and Indri score windows.
 * - Lucene phrases are `match_phrase` with the same slop (the same PhraseQuery).
 * - `#syn` has no DSL form (Indri pools the forms' counts as one term, Lucene's SynonymQuery takes
 *   the largest df): the forms become alternatives whose scores add up.
 * - `#filreq`/`#filrej` are exact as bool filter/must_not; `#band` becomes required clauses.
 */
import type { BeliefNode, BooleanNode, QueryAst, QueryNode, SourceRange, TermNode, WindowNode } from '../ast.js';
import type { QueryDiagnostic } from '../diagnostics.js';

// ---------------------------------------------------------------------------------------------
// The DSL subset querylens emits, as precise types (checked against the official clients' types).

export interface DslBoost {
  boost?: number;
}
export interface DslMatchParams extends DslBoost {
  query: string;
}
export interface DslMatchPhraseParams extends DslBoost {
  query: string;
  slop?: number;
}
export interface DslMultiMatchParams extends DslBoost {
  query: string;
  fields: string[];
  type: 'most_fields';
}
export interface DslValueParams extends DslBoost {
  value: string;
}
export interface DslFuzzyParams extends DslBoost {
  value: string;
  fuzziness: number;
}
export interface DslRegexpParams extends DslBoost {
  value: string;
  flags: 'ALL';
}
/** A range's bounds are all numbers (a numeric field) or all strings (terms, dates): clients type them apart. */
export interface DslRangeBounds<T extends string | number> extends DslBoost {
  gt?: T;
  gte?: T;
  lt?: T;
  lte?: T;
}
export type DslRangeParams = DslRangeBounds<string> | DslRangeBounds<number>;
export interface DslTermParams extends DslBoost {
  value: string | number;
}
export type DslIntervalsRule =
  | { match: { query: string; max_gaps?: number; ordered?: boolean } }
  | { all_of: { intervals: DslIntervalsRule[]; max_gaps?: number; ordered?: boolean } }
  | { any_of: { intervals: DslIntervalsRule[] } }
  | { prefix: { prefix: string } }
  | { wildcard: { pattern: string } }
  | { fuzzy: { term: string; fuzziness: number } };
export type DslIntervalsParams = DslIntervalsRule & DslBoost;
export interface DslBoolParams extends DslBoost {
  must?: DslQuery[];
  should?: DslQuery[];
  must_not?: DslQuery[];
  filter?: DslQuery[];
}

export type DslQuery =
  | { bool: DslBoolParams }
  | { dis_max: { queries: DslQuery[]; tie_breaker: number } & DslBoost }
  | { match: Record<string, DslMatchParams> }
  | { multi_match: DslMultiMatchParams }
  | { match_phrase: Record<string, DslMatchPhraseParams> }
  | { intervals: Record<string, DslIntervalsParams> }
  | { prefix: Record<string, DslValueParams> }
  | { wildcard: Record<string, DslValueParams> }
  | { fuzzy: Record<string, DslFuzzyParams> }
  | { regexp: Record<string, DslRegexpParams> }
  | { range: Record<string, DslRangeParams> }
  | { term: Record<string, DslTermParams> }
  | { match_all: DslBoost }
  | { match_none: DslBoost };

export interface DslOptions {
  /** The fields a term without a field is searched in (the backend's `fields`; default `["text"]`). */
  fields?: string[];
  /** The scorer the query was written for: under `ql` belief operators have no DSL equivalent. */
  scorer?: 'bm25' | 'bm25-lucene' | 'ql' | 'bm25f' | 'impact';
}

export interface DslResult {
  /** The `query` of a search request; null when nothing of the query could be translated. */
  query: DslQuery | null;
  /** Approximations and drops, with ranges into the source query. */
  diagnostics: QueryDiagnostic[];
}

/** Translates a parsed query into the OpenSearch / Elasticsearch query DSL. Never throws. */
export function toQueryDsl(ast: QueryAst, options: DslOptions = {}): DslResult {
  const t = new DslTranslator(options.fields?.length ? options.fields : ['text'], options.scorer ?? 'bm25');
  try {
    const query = ast.root ? t.root(ast.root) : null;
    return { query, diagnostics: t.diagnostics };
  } catch (err) {
    const tooDeep = err instanceof RangeError;
    return {
      query: null,
      diagnostics: [
        {
          code: tooDeep ? 'translate/too-deep' : 'translate/failed',
          severity: 'error',
          message: tooDeep
            ? 'The query is nested too deeply to translate to the query DSL.'
            : `The query could not be translated to the query DSL: ${err instanceof Error ? err.message : String(err)}`,
          range: ast.range,
        },
      ],
    };
  }
}

/** Boosts as written: 4 significant digits. */
function roundBoost(b: number): number {
  return Number(b.toPrecision(4));
}

/** Multiplies the boost of a query by `factor` (a factor of 1 leaves it untouched). */
export function withBoost(query: DslQuery, factor: number): DslQuery {
  if (factor === 1) return query;
  const scale = (params: DslBoost): void => {
    params.boost = roundBoost((params.boost ?? 1) * factor);
  };
  const q = structuredClone(query) as Record<string, unknown>;
  const [kind] = Object.keys(q);
  const body = q[kind] as Record<string, unknown>;
  const perField = ['match', 'match_phrase', 'intervals', 'prefix', 'wildcard', 'fuzzy', 'regexp', 'range', 'term'];
  if (perField.includes(kind)) for (const field of Object.keys(body)) scale(body[field] as DslBoost);
  else scale(body as DslBoost);
  return q as DslQuery;
}

class DslTranslator {
  readonly diagnostics: QueryDiagnostic[] = [];
  constructor(
    private readonly defaultFields: string[],
    private readonly scorer: 'bm25' | 'bm25-lucene' | 'ql' | 'bm25f' | 'impact',
  ) {}

  approximated(range: SourceRange, message: string): void {
    this.diagnostics.push({ code: 'translate/approximated', severity: 'warning', message, range });
  }

  dropped(range: SourceRange, message: string): void {
    this.diagnostics.push({ code: 'translate/dropped', severity: 'warning', message, range });
  }

  root(node: QueryNode): DslQuery | null {
    if (this.defaultFields.length > 1) {
      this.approximated(
        node.range,
        `querylens scores the document as one text; the cluster scores each of ${this.defaultFields.join(', ')} and adds the scores (most_fields).`,
      );
    }
    if (node.kind === 'belief' && node.op !== 'not' && node.op !== 'max' && node.op !== 'or') {
      // At the top the common scale of the weights does not change the ranking: print them as written.
      return this.belief(node, undefined, true);
    }
    return this.query(node, undefined);
  }

  /** `fields` is the restriction inherited from an enclosing Lucene `f:( … )` group or Indri `[f]`. */
  query(node: QueryNode, fields: string[] | undefined): DslQuery | null {
    switch (node.kind) {
      case 'term':
        return this.term(node, fields);
      case 'wildcard': {
        const value = node.pattern.toLowerCase();
        const trailingStar = /^[^*?]*\*$/.test(node.pattern);
        if (value !== node.pattern) this.approximated(node.range, `The pattern is not analysed by the cluster; it is sent lower-cased as '${value}'.`);
        return this.onFields(this.fieldsOf(node, fields), (f) =>
          trailingStar ? { prefix: { [f]: { value: value.slice(0, -1) } } } : { wildcard: { [f]: { value } } },
        );
      }
      case 'fuzzy':
        return this.onFields(this.fieldsOf(node, fields), (f) => ({ fuzzy: { [f]: { value: node.text.toLowerCase(), fuzziness: node.maxEdits } } }));
      case 'regex':
        return this.onFields(this.fieldsOf(node, fields), (f) => ({ regexp: { [f]: { value: node.pattern, flags: 'ALL' as const } } }));
      case 'range': {
        const params: DslRangeBounds<string> = {};
        if (node.lower !== null) params[node.includeLower ? 'gte' : 'gt'] = node.lower;
        if (node.upper !== null) params[node.includeUpper ? 'lte' : 'lt'] = node.upper;
        return this.onFields(this.fieldsOf(node, fields), (f) => ({ range: { [f]: { ...params } } }));
      }
      case 'matchAll':
        return { match_all: {} };
      case 'phrase': {
        const text = node.terms.map((t) => t.text).join(' ');
        return this.onFields(this.fieldsOf(node, fields), (f) => ({
          match_phrase: { [f]: node.slop ? { query: text, slop: node.slop } : { query: text } },
        }));
      }
      case 'window':
        return this.window(node, fields);
      case 'synonym': {
        this.approximated(
          node.range,
          "The query DSL has no synonym operator: the alternatives are scored on their own and added up (Indri pools their counts as one term; Lucene's SynonymQuery takes the largest df).",
        );
        const should: DslQuery[] = [];
        for (const item of node.items) {
          if (item.weight !== undefined && !(item.weight > 0)) {
            this.dropped(item.weightRange ?? item.node.range, `Weight ${item.weight} is not positive; the alternative is left out.`);
            continue;
          }
          const q = this.query(item.node, node.fields ?? fields);
          if (q) should.push(withBoost(q, item.weight ?? 1));
        }
        return should.length === 0 ? null : should.length === 1 ? should[0] : { bool: { should } };
      }
      case 'band': {
        this.approximated(node.range, '#band becomes required clauses, which the cluster scores (Indri counts one extent, tf = 1).');
        const must = node.children.map((c) => this.query(c, node.fields ?? fields)).filter((q): q is DslQuery => q !== null);
        return must.length ? { bool: { must } } : null;
      }
      case 'filter': {
        const filter = this.query(node.filter, fields);
        const scored = this.query(node.scored, fields);
        if (!scored) return null;
        if (!filter) return scored;
        return { bool: node.mode === 'require' ? { must: [scored], filter: [filter] } : { must: [scored], must_not: [filter] } };
      }
      case 'belief':
        return this.belief(node, fields, false);
      case 'boolean':
        return this.boolean(node, fields);
      case 'boost': {
        const child = this.query(node.child, fields);
        if (!child) return null;
        if (!(node.boost > 0)) {
          this.dropped(node.range, `Boost ${node.boost} is not positive; the clause is left out.`);
          return null;
        }
        return withBoost(child, node.boost);
      }
      case 'numericCompare': {
        const [a, b] = node.values;
        if (node.op === 'equals') return { term: { [node.field]: { value: a } } };
        const params: DslRangeBounds<number> =
          node.op === 'less' ? { lt: a } : node.op === 'greater' ? { gt: a } : { gte: a, lte: b };
        return { range: { [node.field]: params } };
      }
      case 'dateCompare': {
        this.approximated(node.range, `#date${node.op} compares the cluster's 'date' field; dates are sent as written, so its mapping must parse them.`);
        const [a, b] = node.dates;
        if (node.op === 'equals') return { term: { date: { value: a } } };
        const params: DslRangeBounds<string> = node.op === 'before' ? { lt: a } : node.op === 'after' ? { gt: a } : { gte: a, lte: b };
        return { range: { date: params } };
      }
      case 'any':
        this.dropped(node.range, `#any:${node.field} (every extent of a field) has no query DSL form; it is left out.`);
        return null;
      case 'prior':
        this.dropped(node.range, `#prior(${node.name}) has no query DSL form (a function_score over a field would be needed); it is left out.`);
        return null;
      case 'error':
        this.dropped(node.range, 'A part of the query that did not parse is left out.');
        return null;
    }
  }

  term(node: TermNode, fields: string[] | undefined): DslQuery {
    if (node.raw) this.approximated(node.range, `The query DSL cannot ask for an unstemmed term; '${node.text}' goes through the field's analyzer.`);
    if (node.context?.length) {
      this.approximated(node.range, `Context .(${node.context.join(',')}) becomes a search in ${node.context.join(', ')}, scored with that field's statistics.`);
    }
    const f = node.context?.length ? node.context : this.fieldsOf(node, fields);
    if (f.length > 1) return { multi_match: { query: node.text, fields: [...f], type: 'most_fields' } };
    return { match: { [f[0]]: { query: node.text } } };
  }

  window(node: WindowNode, fields: string[] | undefined): DslQuery | null {
    const k = node.children.length;
    const words = node.children.every((c) => c.kind === 'term') ? (node.children as TermNode[]).map((t) => t.text).join(' ') : null;
    let maxGaps: number | undefined;
    if (node.size !== null) {
      if (node.ordered) {
        maxGaps = node.size - 1;
        if (k > 2 && node.size > 1) {
          this.approximated(node.range, `#od${node.size} limits every gap to ${node.size - 1} words; the cluster's max_gaps ${maxGaps} limits their total, so fewer documents match.`);
        }
      } else {
        maxGaps = Math.max(0, node.size - k);
        if (node.size < k) this.approximated(node.range, `#uw${node.size} is narrower than its ${k} terms; it becomes terms next to each other in any order.`);
      }
    }
    this.approximated(node.range, 'The cluster scores an interval query by how narrow each match is, not as a term with its own tf and df as querylens scores a window.');
    let rule: DslIntervalsRule | null;
    if (words !== null) {
      rule = { match: { query: words, ordered: node.ordered, ...(maxGaps !== undefined ? { max_gaps: maxGaps } : {}) } };
    } else {
      const parts = node.children.map((c) => this.intervalRule(c)).filter((r): r is DslIntervalsRule => r !== null);
      rule = parts.length ? { all_of: { intervals: parts, ordered: node.ordered, ...(maxGaps !== undefined ? { max_gaps: maxGaps } : {}) } } : null;
    }
    if (!rule) {
      this.dropped(node.range, 'This window has nothing the cluster can match in an interval; it is left out.');
      return null;
    }
    const r = rule;
    return this.onFields(this.fieldsOf(node, fields), (f) => ({ intervals: { [f]: structuredClone(r) } }));
  }

  /** A window's child as an interval rule (terms, nested windows, synonyms, prefixes). */
  intervalRule(node: QueryNode): DslIntervalsRule | null {
    switch (node.kind) {
      case 'term':
        return { match: { query: node.text } };
      case 'wildcard':
        return /^[^*?]*\*$/.test(node.pattern) ? { prefix: { prefix: node.pattern.slice(0, -1).toLowerCase() } } : { wildcard: { pattern: node.pattern.toLowerCase() } };
      case 'fuzzy':
        return { fuzzy: { term: node.text.toLowerCase(), fuzziness: node.maxEdits } };
      case 'synonym': {
        const any = node.items.map((i) => this.intervalRule(i.node)).filter((r): r is DslIntervalsRule => r !== null);
        return any.length ? { any_of: { intervals: any } } : null;
      }
      case 'window': {
        const parts = node.children.map((c) => this.intervalRule(c)).filter((r): r is DslIntervalsRule => r !== null);
        if (!parts.length) return null;
        const maxGaps = node.size === null ? undefined : node.ordered ? node.size - 1 : Math.max(0, node.size - node.children.length);
        return { all_of: { intervals: parts, ordered: node.ordered, ...(maxGaps !== undefined ? { max_gaps: maxGaps } : {}) } };
      }
      case 'phrase':
        return { match: { query: node.terms.map((t) => t.text).join(' '), ordered: true, max_gaps: node.slop } };
      default:
        this.dropped(node.range, `A ${node.kind} inside a window has no interval form; it is left out of the window.`);
        return null;
    }
  }

  belief(node: BeliefNode, fields: string[] | undefined, atRoot: boolean): DslQuery | null {
    const restricted = node.restriction;
    let inner = fields;
    if (restricted?.kind === 'field') {
      this.approximated(restricted.range, `[${restricted.field}] (score only within ${restricted.field} extents) becomes a search in the field ${restricted.field}.`);
      inner = [restricted.field];
    } else if (restricted) {
      this.dropped(restricted.range, 'Passage and path restrictions have no query DSL form; the whole document is scored.');
    }
    if (this.scorer === 'ql') {
      this.approximated(node.range, `#${node.op} has no query DSL form under query likelihood: the cluster adds its children's scores (Indri averages their log beliefs).`);
    }
    const weighted = node.op === 'weight' || node.op === 'wand' || node.op === 'wsum' || node.op === 'combine';
    const weights = node.items.map((i) => (node.op === 'weight' || node.op === 'wand' || node.op === 'wsum' ? (i.weight ?? 1) : 1));
    // Scaled by the largest weight first, so that weights near the float limit neither overflow the sum nor print as Infinity.
    const largest = Math.max(0, ...weights.filter((w) => w > 0 && Number.isFinite(w)));
    const scaled = weights.map((w) => (largest > 0 ? w / largest : w));
    const total = scaled.reduce((s, w) => s + (w > 0 ? w : 0), 0);
    const asWritten = weights.every((w) => !(w > 0) || Number.isFinite(roundBoost(w)));
    const parts: DslQuery[] = [];
    node.items.forEach((item, i) => {
      const w = weights[i];
      if (!(w > 0) || !Number.isFinite(w)) {
        this.dropped(item.weightRange ?? item.node.range, `Weight ${w} is not a positive number; cluster boosts must be positive, so the item is left out.`);
        return;
      }
      const q = this.query(item.node, inner);
      if (!q) return;
      if (!weighted || (node.op === 'combine' && atRoot)) {
        parts.push(q);
        return;
      }
      parts.push(withBoost(q, roundBoost(atRoot ? (asWritten ? w : scaled[i]) : scaled[i] / total)));
    });
    if (parts.length === 0) return null;
    switch (node.op) {
      case 'not':
        this.approximated(node.range, '#not (the complement of a belief) becomes an exclusion, which removes documents instead of scoring them.');
        return { bool: { must: [{ match_all: {} }], must_not: parts } };
      case 'max':
        return parts.length === 1 ? parts[0] : { dis_max: { queries: parts, tie_breaker: 0 } };
      case 'or':
        this.approximated(node.range, '#or has no query DSL form; its items are added up like optional clauses.');
        return parts.length === 1 ? parts[0] : { bool: { should: parts } };
      default:
        return parts.length === 1 ? parts[0] : { bool: { should: parts } };
    }
  }

  boolean(node: BooleanNode, fields: string[] | undefined): DslQuery | null {
    const inner = node.field ? [node.field] : fields;
    const must: DslQuery[] = [];
    const should: DslQuery[] = [];
    const mustNot: DslQuery[] = [];
    for (const clause of node.clauses) {
      const q = this.query(clause.node, inner);
      if (!q) continue;
      (clause.occur === 'must' ? must : clause.occur === 'should' ? should : mustNot).push(q);
    }
    if (!must.length && !should.length) {
      if (mustNot.length) {
        this.dropped(node.range, 'A query with only exclusions matches nothing in Lucene (a cluster would match every other document); it becomes match_none.');
        return { match_none: {} };
      }
      return null;
    }
    if (!mustNot.length && !must.length && should.length === 1) return should[0];
    if (!mustNot.length && !should.length && must.length === 1) return must[0];
    const bool: DslBoolParams = {};
    if (must.length) bool.must = must;
    if (should.length) bool.should = should;
    if (mustNot.length) bool.must_not = mustNot;
    return { bool };
  }

  fieldsOf(node: { fields?: string[]; range: SourceRange }, inherited: string[] | undefined): string[] {
    if (node.fields?.length) {
      if (node.fields.length > 1) {
        this.approximated(node.range, `Indri requires a match inside every one of ${node.fields.join(', ')}; the cluster accepts a match in any of them.`);
      }
      return node.fields;
    }
    return inherited ?? this.defaultFields;
  }

  /** One query per field, as alternatives when there are several. */
  onFields(fields: string[], make: (field: string) => DslQuery): DslQuery {
    if (fields.length === 1) return make(fields[0]);
    return { bool: { should: fields.map(make) } };
  }
}
