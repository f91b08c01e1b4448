/**
 * The term-weighting model (TW-BERT, server/model) as the engine features use it: which
 * queries it can weigh, the text it is given, and its weights mapped back onto the query's
 * terms. Weights are cached per query text for the loaded model.
 *
 * The model weighs a plain sequence of words (its uni-grams and adjacent bi-grams), so only
 * queries whose leaves are unrestricted plain terms are offered weights: anything else
 * (fields, wildcards, filters) would be lost in the rewrite.
 *
 * Which words, in which order: the query's loose terms (not inside a phrase or window) in
 * source order; a word inside a phrase/window is added only when it is not there already, next
 * to its neighbour in that phrase. So an already weighted query,
 *   #weight( 0.5 boundary 0.6 layer 0.4 flow 0.1 #1(boundary layer) 0.1 #1(layer flow) ),
 * is read as "boundary layer flow" — the words it was weighed from, not "boundary layer flow
 * boundary layer layer flow" — and weighing it again re-weighs those words into the same
 * structure (uni-grams and their #1 bi-grams). With the same model that is the same query, and
 * the action says so instead of offering a no-op (weights-action.ts); after a model change it
 * gets the new weights. A phrase whose words appear nowhere else (`#weight( 2.0 #1(flat plate)
 * 1.0 shock )`) gives its words in place: "flat plate shock".
 */
import { walk, type QueryAst, type QueryNode, type TermNode } from '../../../grammar/index.js';
import { WeighBatcher } from '../../model/batcher.js';
import type { NgramWeights, WeightModel } from '../../model/runtime.js';

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

/** The query's words (see the header: loose terms, then phrase words not already there), or null when the query is not a plain-term query. */
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
export function weighCached(loaded: LoadedModel, text: string, isStale?: () => boolean): Promise<NgramWeights> {
  const cached = loaded.cache.get(text);
  if (cached) return cached;
  const p = batcherOf(loaded.model).weigh(text, isStale);
  // Only answers are remembered: a failed or dropped request is asked again next time.
  void p.then(
    () => loaded.cache.set(text, p),
    () => undefined,
  );
  return p;
}

/** The uni-gram weight of each word of the query (undefined for words the model dropped, e.g. stopwords). */
export function wordWeights(query: ModelQuery, weights: NgramWeights): (number | undefined)[] {
  const out = new Array<number | undefined>(query.words.length).fill(undefined);
  for (const g of weights.ngrams) {
    if (g.kind !== 'unigram') continue;
    const i = query.words.findIndex((w) => w.start <= g.start && g.start < w.start + w.node.text.length);
    if (i >= 0) out[i] = (out[i] ?? 0) + g.weight;
  }
  return out;
}
