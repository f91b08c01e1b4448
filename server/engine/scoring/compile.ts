/**
 * Compiles a query AST (any dialect) into concepts and a match/score plan.
 *
 * Semantics by scorer:
 * - `bm25` (Terrier): the query is a weighted bag of concepts (Terrier matchop semantics,
 *   SEMANTICS.md §2.2). Weights multiply down the tree: `#weight`/`#wand`/`#wsum` items by their
 *   weights, `#combine` items by 1, Lucene `^` boosts by the boost. We deliberately do NOT
 *   normalise `#weight` by Σ|w| as Indri does (SEMANTICS.md §1.5): under Terrier nested weights are
 *   plain multipliers, and since every concept weight is finally divided by the largest one
 *   (normaliseTermWeights, SEMANTICS.md §2.1), a single top-level #weight ranks the same either way.
 *   A concept met twice accumulates its weights (query term frequency). The plan tree only
 *   decides WHICH documents match (Lucene must/should/mustNot; #filreq/#filrej filter the
 *   documents wherever they stand); every present scored concept contributes its full BM25
 *   weight.
 * - `bm25f` (Terrier BM25F, SEMANTICS.md §4.6): the same bag of concepts as `bm25`; only the weight
 *   of a present concept differs (per-field frequencies and lengths).
 * - `bm25-lucene`: the plan is scored as Lucene scores a BooleanQuery: the sum of the matching
 *   clauses' scores, boosts multiplying the term weight (SEMANTICS.md §3, §4.2). Indri belief
 *   operators act as all-SHOULD groups whose item weights are boosts.
 * - `ql`: Indri's inference network (SEMANTICS.md §1.5, §1.6): the plan's groups are belief operators.
 *   A Lucene boolean reads as #weight over its scored clauses (boosts as weights), its MUST
 *   and MUST_NOT clauses filtering documents; a filter anywhere in the tree excludes the
 *   document from the ranking (Indri's #filreq inside other operators is not modelled). A word the
 *   analyser removes is no child of any operator (SEMANTICS.md §1.6).
 *
 * Known departures, each reported as a warning where it applies: `#not`, `#or`, `#max` have no
 * BM25 meaning (#not is dropped, #or/#max sum); `#prior`, numeric/date fields, extent
 * restrictions `[field]` and context evaluation `.(field)` are not supported by the index.
 * Lucene fuzzy queries are one synonym concept (Lucene blends per-term scores); wildcard,
 * prefix, regex and range queries score a constant under bm25-lucene (the classic parser's
 * constant-score rewrite) and are synonym concepts otherwise. Field restrictions (`title:x`,
 * `x.title`) select occurrences but lengths stay document lengths, as in Indri.
 */
import type { BeliefOp, Occur, QueryAst, QueryNode, SourceRange, TermNode } from '../../../grammar/ast.js';
import type { QueryDiagnostic } from '../../../grammar/diagnostics.js';
import type { IndexReader } from '../index/reader.js';
import { ConceptEvaluator, conceptKey, conceptLabel, isWindowLike, type ConceptSpec } from './concepts.js';
import {
  DEFAULT_MAX_EXPANSIONS,
  DEFAULT_MAX_FUZZY_EXPANSIONS,
  matchFuzzy,
  matchRange,
  matchRegex,
  matchWildcard,
  InvalidRegexpError,
  MAX_EXPANSION_WORK,
  type VocabularyMatch,
} from './vocabulary-match.js';
import { ExpansionLimitError } from './regexp-automaton.js';

/** A pattern in a message, cut to a readable length (a 2 MB regex must not make a 2 MB line). */
function excerpt(text: string, max = 80): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}… (${text.length.toLocaleString('en-US')} characters)`;
}

export type PlanGroupOp = BeliefOp | 'bool';

export interface PlanItem {
  /** Local weight of the item (Indri weight, Lucene boost); 1 when none. */
  weight: number;
  occur: Occur;
  plan: Plan;
}

export type Plan =
  /** A scored concept. */
  | { kind: 'leaf'; concept: number }
  /** Lucene constant-score multi-term query (wildcard/prefix/regex/range rewrite, SEMANTICS.md §3). */
  | { kind: 'constant'; concept: number }
  /** Lucene `*:*`. */
  | { kind: 'all' }
  | { kind: 'group'; op: PlanGroupOp; items: PlanItem[]; label: string }
  | { kind: 'filter'; mode: 'require' | 'reject'; filter: Plan; scored: Plan; label: string };

export interface CompiledConcept {
  index: number;
  key: string;
  label: string;
  spec: ConceptSpec;
  /** Every source range where the query names this concept. */
  ranges: SourceRange[];
  /** True when some occurrence is scored (not only inside a filter or a prohibited clause). */
  scored: boolean;
  /** bm25: accumulated weight, Σ of the weight products of its scored occurrences. */
  weight: number;
}

/**
 * How a scorer reads the plan (its registry entry's `plan`, scorer-definition.ts): `bag` (Terrier's
 * weighted bag of concepts: bm25, bm25f, impact), `lucene` (a BooleanQuery: bm25-lucene), `belief`
 * (Indri's inference network: ql). The semantics by scorer above are these.
 */
export type PlanSemantics = 'bag' | 'lucene' | 'belief';

export interface CompileOptions {
  /** The scorer's name, for the warnings. */
  scorer: string;
  semantics: PlanSemantics;
  maxExpansions?: number;
  maxFuzzyExpansions?: number;
}

export interface CompiledPlan {
  root: Plan | null;
  concepts: CompiledConcept[];
  warnings: QueryDiagnostic[];
  evaluator: ConceptEvaluator;
}

interface Ctx {
  reader: IndexReader;
  ast: QueryAst;
  options: CompileOptions;
  concepts: CompiledConcept[];
  byKey: Map<string, number>;
  warnings: QueryDiagnostic[];
  warned: Set<string>;
}

export function compileQuery(reader: IndexReader, ast: QueryAst, options: CompileOptions, evaluator = new ConceptEvaluator(reader)): CompiledPlan {
  const ctx: Ctx = { reader, ast, options, concepts: [], byKey: new Map(), warnings: [], warned: new Set() };
  const items = ast.root ? compileNode(ast.root, ctx, undefined) : [];
  let root: Plan | null = null;
  if (items.length === 1 && items[0]!.weight === 1) root = items[0]!.plan;
  else if (items.length > 0) root = { kind: 'group', op: 'combine', items, label: '#combine' };
  if (root && ast.dialect === 'text' && options.semantics === 'lucene') root = mergeRepeatedLeaves(root);
  if (!root) warn(ctx, 'engine/empty-query', 'The query has nothing to score.', ast.range);
  if (root) accumulateWeights(root, ctx.concepts, 1, true);
  return { root, concepts: ctx.concepts, warnings: ctx.warnings, evaluator };
}

function warn(ctx: Ctx, code: string, message: string, range: SourceRange): void {
  const id = `${code}@${range.start}:${range.end}`;
  if (ctx.warned.has(id)) return;
  ctx.warned.add(id);
  ctx.warnings.push({ code, severity: 'warning', message, range });
}

function conceptIndex(ctx: Ctx, spec: ConceptSpec, range: SourceRange): number {
  const key = conceptKey(spec);
  let i = ctx.byKey.get(key);
  if (i === undefined) {
    i = ctx.concepts.length;
    ctx.byKey.set(key, i);
    ctx.concepts.push({ index: i, key, label: conceptLabel(spec), spec, ranges: [], scored: false, weight: 0 });
  }
  ctx.concepts[i]!.ranges.push(range);
  return i;
}

const one = (plan: Plan, weight = 1): PlanItem => ({ plan, weight, occur: 'should' });

/** Compiles a node in scoring position; a node may yield several items (text multi-token words) or none. */
function compileNode(node: QueryNode, ctx: Ctx, fields: string[] | undefined): PlanItem[] {
  const lucene = ctx.options.semantics === 'lucene';
  switch (node.kind) {
    case 'term': {
      const tokens = analyzeTerm(node, ctx);
      // ql: a word the index's analyser removes leaves the query; it is no child of the belief
      // operator around it (SEMANTICS.md §1.6). A word the index lacks stays, scored as unseen.
      if (tokens.length === 0 && ctx.options.semantics === 'belief') return [];
      const f = node.fields ?? fields;
      if (node.context?.length) warn(ctx, 'engine/unsupported', `Context evaluation .(${node.context.join(',')}) is not supported; the term is scored over the whole document.`, node.range);
      if (ctx.ast.dialect === 'text' && tokens.length > 1)
        return tokens.map((t) => one({ kind: 'leaf', concept: conceptIndex(ctx, withFields({ kind: 'term', term: t }, f), node.range) }));
      return [one({ kind: 'leaf', concept: conceptIndex(ctx, termSpec(tokens, node, f), node.range) })];
    }
    case 'wildcard':
    case 'regex':
    case 'range': {
      const spec = specOf(node, ctx, fields);
      const c = conceptIndex(ctx, spec, node.range);
      return [one(lucene ? { kind: 'constant', concept: c } : { kind: 'leaf', concept: c })];
    }
    case 'phrase':
    case 'window':
    case 'band': {
      const spec = specOf(node, ctx, fields);
      // ql: a phrase or window of stopwords only leaves the query like a stopword (SEMANTICS.md §1.6).
      if (spec.kind === 'missing' && spec.stopped && ctx.options.semantics === 'belief') return [];
      return [one({ kind: 'leaf', concept: conceptIndex(ctx, spec, node.range) })];
    }
    case 'fuzzy':
    case 'synonym':
    case 'any':
    case 'numericCompare':
    case 'dateCompare':
      return [one({ kind: 'leaf', concept: conceptIndex(ctx, specOf(node, ctx, fields), node.range) })];
    case 'matchAll':
      return [one({ kind: 'all' })];
    case 'belief': {
      if (node.restriction) warn(ctx, 'engine/unsupported', `Extent restriction on #${node.op} is not supported; it is scored over the whole document.`, node.range);
      if (node.op === 'not' && ctx.options.semantics !== 'belief') {
        warn(ctx, 'engine/unsupported', `#not has no meaning under ${ctx.options.scorer}: it is ignored (use a Lucene NOT or #filrej to exclude documents).`, node.range);
        return [];
      }
      if ((node.op === 'or' || node.op === 'max') && ctx.options.semantics !== 'belief')
        warn(ctx, 'engine/approximate', `#${node.op} is scored as a sum of its items under ${ctx.options.scorer}.`, node.range);
      const items: PlanItem[] = [];
      for (const it of node.items)
        for (const sub of compileNode(it.node, ctx, fields)) items.push({ plan: sub.plan, weight: sub.weight * (it.weight ?? 1), occur: 'should' });
      if (items.length === 0) return [];
      return [one({ kind: 'group', op: node.op, items, label: `#${node.op}` })];
    }
    case 'filter': {
      const filter = compileNode(node.filter, ctx, fields);
      const scored = compileNode(node.scored, ctx, fields);
      if (scored.length === 0) return [];
      const filterPlan: Plan = filter.length === 1 ? filter[0]!.plan : { kind: 'group', op: 'combine', items: filter, label: '#combine' };
      const scoredPlan: Plan = scored.length === 1 ? scored[0]!.plan : { kind: 'group', op: 'combine', items: scored, label: '#combine' };
      return [{ plan: { kind: 'filter', mode: node.mode, filter: filterPlan, scored: scoredPlan, label: `#${node.form}` }, weight: scored.length === 1 ? scored[0]!.weight : 1, occur: 'should' }];
    }
    case 'prior':
      warn(ctx, 'engine/unsupported', `#prior(${node.name}): the index has no priors; it is ignored.`, node.range);
      return [];
    case 'boolean': {
      const groupFields = node.field ? [node.field] : fields;
      const items: PlanItem[] = [];
      for (const clause of node.clauses)
        for (const sub of compileNode(clause.node, ctx, groupFields)) items.push({ plan: sub.plan, weight: sub.weight, occur: clause.occur });
      if (items.length === 0) return [];
      if (items.length === 1 && items[0]!.occur !== 'mustNot') return [{ plan: items[0]!.plan, weight: items[0]!.weight, occur: 'should' }];
      return [one({ kind: 'group', op: 'bool', items, label: 'boolean' })];
    }
    case 'boost':
      return compileNode(node.child, ctx, fields).map((it) => ({ ...it, weight: it.weight * node.boost }));
    case 'error':
      return [];
  }
}

function withFields<T extends ConceptSpec>(spec: T, fields: string[] | undefined): T {
  return fields?.length && spec.kind !== 'missing' && spec.kind !== 'any' ? { ...spec, fields } : spec;
}

function analyzeTerm(node: TermNode, ctx: Ctx): string[] {
  const tokens = ctx.reader.analyzer.analyzeTerm(node.text, { raw: node.raw });
  if (tokens.length === 0) {
    if (ctx.reader.analyzer.isStopword(node.text.toLowerCase()))
      warn(
        ctx,
        'engine/stopword',
        ctx.options.semantics === 'belief'
          ? `"${node.text}" is a stopword for the ${ctx.reader.profile} profile; it is removed from the query (it is not one of the operator's children).`
          : `"${node.text}" is a stopword for the ${ctx.reader.profile} profile; it contributes nothing under BM25.`,
        node.range,
      );
    else warn(ctx, 'engine/empty-term', `"${node.text}" has no indexable characters; it is ignored.`, node.range);
  } else {
    for (const t of tokens)
      if (!ctx.reader.termStats(t)) warn(ctx, 'engine/oov', `"${t}" does not occur in the index.`, node.range);
  }
  return tokens;
}

/** A term as a concept: one token, an exact phrase of several (e.g. "U.S." → #1(u s)), or nothing. */
function termSpec(tokens: string[], node: TermNode, fields: string[] | undefined): ConceptSpec {
  if (tokens.length === 0) return { kind: 'missing', text: node.text, stopped: true };
  if (tokens.length === 1) return withFields({ kind: 'term', term: tokens[0]! }, fields);
  return withFields({ kind: 'window', ordered: true, size: 1, children: tokens.map((t) => ({ kind: 'term', term: t }) as ConceptSpec) }, fields);
}

function expansionSpec(ctx: Ctx, node: QueryNode, pattern: string, m: VocabularyMatch, cap: number, fields: string[] | undefined): ConceptSpec {
  const what = excerpt(pattern);
  if (m.capped)
    warn(ctx, 'engine/expansion-cap', `${what} matches more than ${cap} index terms; only the first ${cap} are used.`, node.range);
  if (m.workLimited)
    warn(ctx, 'engine/expansion-limit', `${what} stopped after examining ${MAX_EXPANSION_WORK.toLocaleString('en-US')} characters of index terms; only the terms found until then are used.`, node.range);
  if (m.terms.length === 0) {
    warn(ctx, 'engine/no-expansion', `${what} matches no index term.`, node.range);
    return { kind: 'missing', text: what };
  }
  if (m.terms.length === 1) return withFields({ kind: 'term', term: m.terms[0]! }, fields);
  return withFields({ kind: 'syn', items: m.terms.map((term) => ({ kind: 'term', term }) as ConceptSpec), form: 'expansion' }, fields);
}

/**
 * A window's or #band's children without the words the analyser removed: the index keeps no
 * positions for them, so `#1(flow of air)` matches "flow of air" as `#1(flow air)` does, as a
 * phrase does (Indri likewise drops stopped words from #uw and #band, and widens #od around them).
 */
function withoutStopped(children: ConceptSpec[]): ConceptSpec[] {
  return children.filter((c) => !(c.kind === 'missing' && c.stopped));
}

/** Compiles an extent-producing node (a window child, a synonym item, a leaf). */
function specOf(node: QueryNode, ctx: Ctx, fields: string[] | undefined): ConceptSpec {
  const cap = ctx.options.maxExpansions ?? DEFAULT_MAX_EXPANSIONS;
  switch (node.kind) {
    case 'term':
      return termSpec(analyzeTerm(node, ctx), node, node.fields ?? fields);
    case 'wildcard':
      return expansionSpec(ctx, node, `Wildcard ${node.pattern}`, matchWildcard(ctx.reader, node.pattern, cap), cap, node.fields ?? fields);
    case 'regex': {
      const what = `Regex /${node.pattern}/`;
      try {
        return expansionSpec(ctx, node, what, matchRegex(ctx.reader, node.pattern, cap), cap, node.fields ?? fields);
      } catch (e) {
        if (e instanceof ExpansionLimitError)
          warn(ctx, 'engine/expansion-limit', `${excerpt(what)} is too complex to run: ${e.message}; it matches nothing. Simplify it (fewer nested repeats, complements or intersections).`, node.range);
        // A body Lucene's RegExp rejects matches nothing. It is not warned about here: regex nodes come
        // only from the Lucene parser, which already reports that body as a located `lucene/bad-regex`
        // error with the same parser (grammar/lucene/regexp.ts), and a second warning for the same
        // regex (seen with `--recover`) said the same thing twice.
        else if (!(e instanceof InvalidRegexpError)) throw e;
        return { kind: 'missing', text: excerpt(`/${node.pattern}/`) };
      }
    }
    case 'range': {
      const text = `${node.includeLower ? '[' : '{'}${node.lower ?? '*'} TO ${node.upper ?? '*'}${node.includeUpper ? ']' : '}'}`;
      return expansionSpec(ctx, node, `Range ${text}`, matchRange(ctx.reader, node.lower, node.upper, node.includeLower, node.includeUpper, cap), cap, node.fields ?? fields);
    }
    case 'fuzzy': {
      const fcap = ctx.options.maxFuzzyExpansions ?? DEFAULT_MAX_FUZZY_EXPANSIONS;
      return expansionSpec(ctx, node, `Fuzzy ${node.text}~${node.maxEdits}`, matchFuzzy(ctx.reader, node.text, node.maxEdits, fcap), fcap, node.fields ?? fields);
    }
    case 'window': {
      if (node.context?.length) warn(ctx, 'engine/unsupported', `Context evaluation is not supported; the window is scored over the whole document.`, node.range);
      const children = withoutStopped(node.children.map((c) => specOf(c, ctx, undefined)));
      if (children.length === 0 || children.some((c) => c.kind === 'missing')) return { kind: 'missing', text: textOf(node), stopped: children.length === 0 };
      if (children.length === 1) return withFields(children[0]!, node.fields ?? fields);
      return withFields({ kind: 'window', ordered: node.ordered, size: node.size, children }, node.fields ?? fields);
    }
    case 'phrase': {
      // Stopwords drop out of the phrase; the index keeps no positions for them either.
      const terms = node.terms.flatMap((t) => analyzeTerm(t, ctx));
      const f = node.fields ?? fields;
      if (terms.length === 0) return { kind: 'missing', text: textOf(node), stopped: true };
      if (terms.length === 1) return withFields({ kind: 'term', term: terms[0]! }, f);
      if (node.slop === 0)
        return withFields({ kind: 'window', ordered: true, size: 1, phrase: true, children: terms.map((term) => ({ kind: 'term', term }) as ConceptSpec) }, f);
      return withFields({ kind: 'sloppy', terms, slop: node.slop }, f);
    }
    case 'synonym': {
      // Items that analyse to nothing (stopwords) drop out of the synonym set.
      const kept = node.items.map((it) => ({ spec: specOf(it.node, ctx, undefined), weight: it.weight ?? 1 })).filter((x) => x.spec.kind !== 'missing');
      if (kept.length === 0) return { kind: 'missing', text: textOf(node) };
      const items = kept.map((x) => x.spec);
      const weights = node.form === 'wsyn' ? kept.map((x) => x.weight) : undefined;
      return withFields({ kind: 'syn', items, weights, form: node.form === 'wsyn' ? 'wsyn' : 'syn' }, node.fields ?? fields);
    }
    case 'band': {
      const children = withoutStopped(node.children.map((c) => specOf(c, ctx, undefined)));
      if (children.length === 0 || children.some((c) => c.kind === 'missing')) return { kind: 'missing', text: textOf(node), stopped: children.length === 0 };
      if (children.length === 1) return withFields(children[0]!, node.fields ?? fields);
      return withFields({ kind: 'band', children }, node.fields ?? fields);
    }
    case 'any':
      return { kind: 'any', field: node.field };
    case 'numericCompare':
    case 'dateCompare':
      warn(ctx, 'engine/unsupported', `The index has no numeric or date fields; ${textOf(node)} matches nothing.`, node.range);
      return { kind: 'missing', text: textOf(node) };
    default:
      warn(ctx, 'engine/unsupported', `A ${node.kind} cannot be used inside an extent operator; it matches nothing.`, node.range);
      return { kind: 'missing', text: textOf(node) };
  }
}

/** Indri-like text of a node, for labels of concepts that match nothing. */
function textOf(node: QueryNode): string {
  const list = (xs: QueryNode[]) => xs.map(textOf).join(' ');
  switch (node.kind) {
    case 'term':
      return node.text;
    case 'window':
      return `${node.ordered ? `#${node.size ?? 'od'}` : `#uw${node.size ?? ''}`}(${list(node.children)})`;
    case 'phrase':
      return `"${list(node.terms)}"${node.slop ? `~${node.slop}` : ''}`;
    case 'synonym':
      return `#syn(${list(node.items.map((i) => i.node))})`;
    case 'band':
      return `#band(${list(node.children)})`;
    case 'numericCompare':
      return `#${node.op}(${node.field} ${node.values.join(' ')})`;
    case 'dateCompare':
      return `#date${node.op}(${node.dates.join(' ')})`;
    case 'wildcard':
      return node.pattern;
    default:
      return node.kind;
  }
}

/**
 * Walks the plan with the product of weights along the path and adds it to each scored
 * concept (Terrier's query term frequency, SEMANTICS.md §2.1). Prohibited clauses, filters and
 * #not are not scored.
 */
function accumulateWeights(plan: Plan, concepts: CompiledConcept[], w: number, scored: boolean): void {
  switch (plan.kind) {
    case 'leaf':
    case 'constant':
      if (scored) {
        concepts[plan.concept]!.weight += w;
        concepts[plan.concept]!.scored = true;
      }
      return;
    case 'all':
      return;
    case 'group':
      for (const it of plan.items) accumulateWeights(it.plan, concepts, w * it.weight, scored && it.occur !== 'mustNot' && plan.op !== 'not');
      return;
    case 'filter':
      accumulateWeights(plan.filter, concepts, w, false);
      accumulateWeights(plan.scored, concepts, w, scored);
      return;
  }
}

/**
 * Anserini's bag-of-words query (BagOfWordsQueryGenerator): a word repeated in the topic is
 * one clause boosted by its count, not several clauses.
 */
function mergeRepeatedLeaves(root: Plan): Plan {
  if (root.kind !== 'group' || (root.op !== 'combine' && root.op !== 'bool')) return root;
  const items: PlanItem[] = [];
  const at = new Map<number, number>();
  for (const it of root.items) {
    if (it.plan.kind === 'leaf' && it.occur === 'should') {
      const i = at.get(it.plan.concept);
      if (i !== undefined) {
        items[i] = { ...items[i]!, weight: items[i]!.weight + it.weight };
        continue;
      }
      at.set(it.plan.concept, items.length);
    }
    items.push(it);
  }
  return { ...root, items };
}

export { isWindowLike };
