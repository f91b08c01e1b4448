/**
 * The term-weighting model (TW-BERT, server/model) as the engine features use it: which
 * queries it weighs, the text it is given, the weighed query, and its weights mapped back onto
 * the query's terms. Weights are cached per query text for the loaded model.
 *
 * The rule is the CLI's (`weigh`, `search --weights`): server/model/structured-weights.ts. A flat
 * bag of words becomes the model's `#weight( w t … w #1(a b) … )`; a structured query keeps its
 * fields, `#syn`, windows, phrases and the user's own weights with the model's weights inside; what
 * cannot be weighed (patterns, `#or`/`#not`/`#max`, filters) is refused with the rule's message,
 * located at its node (weighableQuery).
 *
 * One exception, so that weighing twice neither compounds nor is a silent no-op: a query in the
 * model's own output shape (modelShapedWords: a `#weight` of plain words and two-word `#1`
 * pairs, at least one pair; Lucene `t^w … "a b"^w`, every clause boosted) is read as the output
 * of its words, which are re-weighed into that shape (with the same model that is the query as
 * it is, and the action says the weights are current). Which words, in which order (modelQuery):
 * the loose terms in source order; a word inside a pair only when it is not there already, next
 * to its neighbour in the pair. So
 *   #weight( 0.5 boundary 0.6 layer 0.4 flow 0.1 #1(boundary layer) 0.1 #1(layer flow) )
 * is read as "boundary layer flow", and `#weight( 2.0 #1(flat plate) 1.0 shock )` as
 * "flat plate shock". A user's `#weight( 2 heart 1 attack )` has no pair: it follows the rule.
 */
import { printIndri, printLucene, translate, walk, type QueryAst, type QueryNode, type TermNode } from '../../../grammar/index.js';
import { WeighBatcher } from '../../model/batcher.js';
import { WeightModelError, type NgramWeights, type WeightModel } from '../../model/runtime.js';
import type { CollectionSource } from '../../service/weigh.js';
export type { CollectionSource } from '../../service/weigh.js';
import type { EngineSession } from './session.js';
import { planWeighing, weighInsideStructure, type WeighPlan, type WeighRefusal } from '../../model/structured-weights.js';
import { applyWeights, buildWeightedQueryAst } from '../../model/weighted-query.js';
import { describeWeightInputs } from '../../model/weight-reasons.js';

export interface LoadedModel {
  model: WeightModel;
  /** Folder and name it was loaded from (to reuse it across configurations). */
  key: string;
  cache: Map<string, Promise<NgramWeights>>;
}

export interface ModelQuery {
  /** The words given to the model, joined by single spaces. */
  text: string;
  /** The term node of each word and the word's start in `text`. */
  words: { node: TermNode; start: number }[];
}

const PLAIN_CONTAINERS = new Set(['belief', 'boolean', 'boost', 'window', 'phrase']);

/**
 * The query's words (see the header: loose terms, then phrase words not already there), or null
 * when the query is not a plain-term query (leaves unrestricted plain terms, no #not or
 * prohibited clause). It reads a query in the model's own output shape (weighableQuery).
 */
export function modelQuery(ast: QueryAst): ModelQuery | null {
  if (!ast.root) return null;
  const terms: TermNode[] = [];
  /** The innermost phrase/window of each term inside one. */
  const groupOf = new Map<TermNode, QueryNode>();
  let plain = true;
  walk(ast.root, (node, parents) => {
    if (node.kind === 'term') {
      if (node.fields?.length || node.context?.length || node.raw) plain = false;
      else {
        terms.push(node);
        const group = parents.findLast((p) => p.kind === 'window' || p.kind === 'phrase');
        if (group) groupOf.set(node, group);
      }
      return false;
    }
    if (!PLAIN_CONTAINERS.has(node.kind)) plain = false;
    if (node.kind === 'belief' && (node.op === 'not' || node.restriction)) plain = false;
    if (node.kind === 'boolean' && node.clauses.some((c) => c.occur === 'mustNot')) plain = false;
    if ('fields' in node && node.fields?.length) plain = false;
    return plain;
  });
  if (!plain || terms.length === 0) return null;
  terms.sort((a, b) => a.range.start - b.range.start);
  const key = (t: TermNode) => t.text.toLowerCase();
  const sequence = terms.filter((t) => !groupOf.has(t));
  const members = new Map<QueryNode, TermNode[]>();
  for (const t of terms) {
    const group = groupOf.get(t);
    if (!group) continue;
    const list = members.get(group);
    if (list) list.push(t);
    else members.set(group, [t]);
  }
  const indexOf = (t: TermNode | undefined) => (t ? sequence.findIndex((s) => key(s) === key(t)) : -1);
  for (const t of terms) {
    const group = groupOf.get(t);
    if (!group || indexOf(t) >= 0) continue;
    const siblings = members.get(group)!;
    const i = siblings.indexOf(t);
    const before = indexOf(siblings[i - 1]);
    const after = indexOf(siblings[i + 1]);
    let at: number;
    if (before >= 0) at = before + 1;
    else if (after >= 0) at = after;
    else {
      // No neighbour placed yet: keep source order with the loose words.
      at = sequence.findIndex((s) => s.range.start > t.range.start);
      if (at < 0) at = sequence.length;
    }
    sequence.splice(at, 0, t);
  }
  const words: ModelQuery['words'] = [];
  let text = '';
  for (const node of sequence) {
    if (text) text += ' ';
    words.push({ node, start: text.length });
    text += node.text;
  }
  return { text, words };
}

/** Word `i` of the model's text: the term it came from and its UTF-16 range in that text. */
export interface WeighedWord {
  node: TermNode;
  start: number;
  end: number;
}

export interface WeighableQuery {
  /** What the model reads, and whether the result is the flat uni-gram + bi-gram `#weight`. */
  plan: WeighPlan;
  /** The words the model reads, for titles and inlay hints. */
  words: WeighedWord[];
  /** True when the query is in the model's own output shape and is re-weighed from its words (header). */
  reweigh: boolean;
}

export type WeighableResult = { ok: true; query: WeighableQuery } | { ok: false; refusal: WeighRefusal };

function isPlainTerm(node: QueryNode): node is TermNode {
  return node.kind === 'term' && !node.fields?.length && !node.context?.length && !node.raw;
}

function isPair(node: QueryNode): boolean {
  if (node.kind === 'window') return node.ordered && node.size === 1 && !node.fields?.length && node.children.length === 2 && node.children.every(isPlainTerm);
  if (node.kind === 'phrase') return node.slop === 0 && !node.fields?.length && node.terms.length === 2 && node.terms.every(isPlainTerm);
  return false;
}

/** True for a query in the model's own output shape (header): it is re-weighed from its words. */
export function modelShaped(ast: QueryAst): boolean {
  const root = ast.root;
  if (!root) return false;
  let items: QueryNode[];
  if (root.kind === 'belief') {
    if (root.op !== 'weight' || root.restriction) return false;
    items = root.items.map((i) => i.node);
  } else if (root.kind === 'boolean') {
    if (root.field || !root.clauses.every((c) => c.occur === 'should' && c.node.kind === 'boost')) return false;
    items = root.clauses.map((c) => (c.node.kind === 'boost' ? c.node.child : c.node));
  } else return false;
  return items.every((n) => isPlainTerm(n) || isPair(n)) && items.some(isPair);
}

/** The query under the CLI's rule (header), or the rule's refusal. */
export function weighableQuery(ast: QueryAst, text: string): WeighableResult {
  const shaped = modelShaped(ast) ? modelQuery(ast) : null;
  if (shaped) {
    const words = shaped.words.map((w) => ({ node: w.node, start: w.start, end: w.start + w.node.text.length }));
    return { ok: true, query: { plan: { text: shaped.text, flat: true, words: [] }, words, reweigh: true } };
  }
  const planned = planWeighing(ast, text);
  if (!planned.ok) return planned;
  const { plan } = planned;
  if (!plan.flat) return { ok: true, query: { plan, words: plan.words, reweigh: false } };
  const terms: TermNode[] = [];
  if (ast.root) walk(ast.root, (n) => void (n.kind === 'term' && terms.push(n)));
  terms.sort((a, b) => a.range.start - b.range.start);
  let words: WeighedWord[];
  if (ast.dialect === 'text' || !ast.root) words = terms.map((node) => ({ node, start: node.range.start, end: node.range.end }));
  else {
    // planWeighing joins a flat query's terms with single spaces, in source order.
    let at = 0;
    words = terms.map((node) => {
      const w = { node, start: at, end: at + node.text.length };
      at = w.end + 1;
      return w;
    });
  }
  return { ok: true, query: { plan, words, reweigh: false } };
}

/** The weighed query as the CLI's `weigh` builds it (server/model/weighted-query.ts applyWeights), for ranking. */
export function weighedQueryAst(ast: QueryAst, query: WeighableQuery, weights: NgramWeights): QueryAst {
  return applyWeights(ast, query.plan, weights);
}

/** Significant digits of the weights the weights action writes (`querylens weigh --digits 3`). */
export const WEIGHED_DIGITS = 3;

/**
 * The weighed query as the CLI's `weigh --digits 3` builds it, in the query's own dialect; null when
 * nothing is left to weigh. One difference, so that no structure the user wrote is lost: a query
 * re-weighed from the model's own shape keeps its `#1( … )` pairs even where the model now gives
 * them 0 (the CLI leaves out what weighs 0; it could not tell the user's pairs from its own).
 */
export function weighedQueryText(ast: QueryAst, query: WeighableQuery, weights: NgramWeights, digits = WEIGHED_DIGITS): string | null {
  if (query.plan.flat) {
    let flat = buildWeightedQueryAst(weights, { digits, dropZero: !query.reweigh });
    if (query.reweigh) flat = keepWrittenZeros(flat, ast);
    if (!flat.root) return null;
    return ast.dialect === 'lucene' ? luceneWithZeros(flat) : printIndri(flat);
  }
  const inside = weighInsideStructure(ast, query.plan, weights, digits);
  return ast.dialect === 'lucene' ? printLucene(inside) : printIndri(inside);
}

/**
 * A flat weighed `#weight` in Lucene. The translation leaves out a weight-0 item (it reads 0 as "no
 * boost to give"); a kept pair of the user's is written `"a b"^0` instead: the item is translated
 * with a stand-in boost, which is then set to 0.
 */
function luceneWithZeros(flat: QueryAst): string {
  const root = flat.root;
  if (root?.kind !== 'belief' || !root.items.some((i) => i.weight === 0)) return translate(flat, 'lucene').text;
  const STAND_IN = 2;
  const standIn: QueryAst = { ...flat, root: { ...root, items: root.items.map((i) => (i.weight === 0 ? { ...i, weight: STAND_IN } : i)) } };
  const translated = translate(standIn, 'lucene').ast?.root;
  if (translated?.kind !== 'boolean' || translated.clauses.length !== root.items.length) return translate(flat, 'lucene').text;
  const clauses = translated.clauses.map((c, i) => (root.items[i]!.weight === 0 && c.node.kind === 'boost' ? { ...c, node: { ...c.node, boost: 0 } } : c));
  return printLucene({ dialect: 'lucene', root: { ...translated, clauses }, range: flat.range });
}

/** `weighed` without its 0-weight items, except those the user's query (`written`) has at its top level. */
function keepWrittenZeros(weighed: QueryAst, written: QueryAst): QueryAst {
  const root = weighed.root;
  if (!root || root.kind !== 'belief') return weighed;
  const label = (node: QueryNode) => printIndri({ dialect: 'indri', root: node, range: weighed.range });
  const top = written.root?.kind === 'belief' ? written.root.items.map((i) => i.node) : written.root?.kind === 'boolean' ? written.root.clauses.map((c) => (c.node.kind === 'boost' ? c.node.child : c.node)) : [];
  // The user's Lucene "a b" is the model's #1(a b): compare them as Indri.
  const writtenLabels = new Set(top.map((n) => (written.dialect === 'lucene' ? translate({ dialect: 'lucene', root: n, range: written.range }, 'indri').text : label(n))));
  const items = root.items.filter((i) => (i.weight ?? 0) > 0 || writtenLabels.has(label(i.node)));
  return { ...weighed, root: items.length ? { ...root, items } : null };
}

/**
 * The top-level items of the rewritten query with the weights the rewrite gives them (a word, or a
 * window, phrase or #syn as a whole), as Indri text: what the action's title promises.
 */
export function weighedItems(ast: QueryAst, query: WeighableQuery, weights: NgramWeights): { label: string; weight: number }[] {
  const weighed = weighedQueryAst(ast, query, weights);
  const root = weighed.root;
  if (!root) return [];
  const label = (node: QueryNode): string => printIndri({ dialect: 'indri', root: node, range: weighed.range });
  if (root.kind === 'belief') return root.items.flatMap((i) => (i.weight === undefined ? [] : [{ label: label(i.node), weight: i.weight }]));
  if (root.kind === 'boolean') {
    return root.clauses.flatMap((c) => (c.occur !== 'mustNot' && c.node.kind === 'boost' ? [{ label: printLucene({ dialect: 'lucene', root: c.node.child, range: weighed.range }), weight: c.node.boost }] : []));
  }
  return [];
}

/**
 * The model's weight of each word (undefined for words it dropped, e.g. stopwords): a flat query's
 * word, the sum of its uni-grams (each is its own item of the #weight); a structured query's term,
 * their mean, as weighInsideStructure multiplies it.
 */
export function weighedWordWeights(query: WeighableQuery, weights: NgramWeights): (number | undefined)[] {
  return query.words.map((w) => {
    const grams = weights.ngrams.filter((g) => g.kind === 'unigram' && g.start >= w.start && g.end <= w.end);
    if (!grams.length) return undefined;
    const sum = grams.reduce((s, g) => s + g.weight, 0);
    return query.plan.flat ? sum : sum / grams.length;
  });
}

/**
 * Per word of `query`, what a collection-aware model read for it in the index, in words (weight-reasons.ts;
 * the word's first uni-gram); undefined for a model that reads no statistics.
 */
export function weighedWordInputs(query: WeighableQuery, weights: NgramWeights): (string | undefined)[] {
  return query.words.map((w) => {
    const gram = weights.ngrams.find((g) => g.kind === 'unigram' && g.start >= w.start && g.end <= w.end);
    return gram ? describeWeightInputs(gram, weights.ngrams) : undefined;
  });
}

/** One batcher per loaded model: every feature's requests of the moment share model runs. */
const batchers = new WeakMap<WeightModel, WeighBatcher>();

export function batcherOf(model: WeightModel): WeighBatcher {
  let batcher = batchers.get(model);
  if (!batcher) batchers.set(model, (batcher = new WeighBatcher(model)));
  return batcher;
}

/**
 * The weights of one query: from the cache, or from the model through the batcher (so the
 * inlay hints of a whole screen, a code action and a compare running together cost one model
 * run). `isStale` (the request's cancellation and document version) lets the batcher drop the
 * request before inference; a stale request rejects with StaleRequestError.
 */
export function weighCached(loaded: LoadedModel, text: string, isStale?: () => boolean, collection?: CollectionSource | null): Promise<NgramWeights> {
  // A collection-aware model weighs by the statistics of the collection the query runs on (the loaded index or
  // the cluster): its answers are remembered per session of that collection (a rebuilt or other index, a
  // reconfigured cluster, is a new session), and without one it cannot answer.
  let cache = loaded.cache;
  const model = loaded.model;
  if (model.readsStatistics) {
    if (!collection) {
      return Promise.reject(
        new WeightModelError(
          'needs-statistics',
          `The ${model.name} model weighs a query by the statistics of the collection it runs on: load an index (querylens.json "index") or name a cluster ("backend") to see its weights.`,
        ),
      );
    }
    let perSession = statisticsCaches.get(collection.key);
    if (!perSession) statisticsCaches.set(collection.key, (perSession = new Map()));
    cache = perSession;
  }
  const cached = cache.get(text);
  if (cached) return cached;
  const p = model.readsStatistics
    ? collection!.ngramStatistics(text, model).then((statistics) => batcherOf(model).weigh(text, isStale, statistics))
    : batcherOf(model).weigh(text, isStale, undefined);
  // Only answers are remembered: a failed or dropped request is asked again next time.
  void p.then(
    () => cache.set(text, p),
    () => undefined,
  );
  return p;
}

/** The local index session as a CollectionSource. */
export function indexCollection(session: EngineSession): CollectionSource {
  return { key: session, width: session.config.formatting.width, ngramStatistics: async (text) => session.backend.ngramStatistics(text) };
}

/** A collection-aware model's answers, per collection session. */
const statisticsCaches = new WeakMap<object, Map<string, Promise<NgramWeights>>>();
