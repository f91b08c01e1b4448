/**
 * Do a weighting model's weights carry information (issue 16: "within a query, topic words outweigh generic words on
 * most queries, and the same word's weight differs between queries and between collections")? Two readings of the
 * uni-gram weights a model gives a set of judged queries, both independent of any ranking:
 *
 * 1. Topic over generic. A word's topicality for its query is its Robertson–Spärck Jones relevance weight, read
 *    from the judgements: log of the odds that a relevant document holds it over the odds that another does
 *    (r of R relevant documents hold it, n of N documents in all; the usual 0.5 corrections). A pair of words of
 *    one query whose topicalities differ by at least `margin` (natural log: e^1 ≈ 2.7 times the odds) has a clear
 *    topic word and a clear generic word; the model agrees on the pair when it weighs the topic word more (a tie
 *    counts half). Per query: whether the query's most topical word outweighs its least topical one. The same is
 *    read for idf (the collection statistic every BM25 weight already has), so a model's figure can be read against
 *    what the index alone says.
 * 2. Variation. The same analysed word in several queries of a collection: the range (max − min) of its weights;
 *    in several collections: the range of its mean weight per collection. Each against the spread of all the
 *    collection's word weights (their interquartile range): a word whose range is a small part of it is weighed
 *    as the same word whatever the query.
 */

/** One uni-gram of a weighed query. */
export interface WeighedWord {
  /** The analysed term (once per query). */
  term: string;
  /** The model's weight for one occurrence of it. */
  weight: number;
  /** Relevance weight from the judgements (`relevanceWeight`). */
  topicality: number;
  /** The collection's idf of the term, log(N / df). */
  idf: number;
}

export interface WeighedQuery {
  qid: string;
  words: WeighedWord[];
}

/** Robertson–Spärck Jones relevance weight: r of R relevant documents hold the term, n of N documents in all. */
export function relevanceWeight(r: number, bigR: number, n: number, bigN: number): number {
  return Math.log(((r + 0.5) / (bigR - r + 0.5)) / ((n - r + 0.5) / (bigN - n - bigR + r + 0.5)));
}

/** How weights order a query's clear topic words against its clear generic ones. */
export interface TopicOrder {
  /** Pairs of words of one query whose topicalities differ by at least the margin. */
  pairs: number;
  /** Share of those pairs where the weight is higher on the more topical word (ties half). */
  agree: number;
  /** The same share for idf. */
  idfAgree: number;
  /** Queries with two words or more whose topicalities differ by at least the margin. */
  queries: number;
  /** Share of those queries whose most topical word weighs more than its least topical one (ties half). */
  queriesAgree: number;
  /** The same share for idf. */
  queriesIdfAgree: number;
}

const TIE = 1e-9;

function order(higher: number, lower: number): number {
  if (Math.abs(higher - lower) <= TIE) return 0.5;
  return higher > lower ? 1 : 0;
}

export function topicOrder(queries: readonly WeighedQuery[], margin = 1): TopicOrder {
  let pairs = 0;
  let agree = 0;
  let idfAgree = 0;
  let judgedQueries = 0;
  let queriesAgree = 0;
  let queriesIdfAgree = 0;
  for (const q of queries) {
    const w = q.words;
    for (let i = 0; i < w.length; i++) {
      for (let j = 0; j < w.length; j++) {
        if (w[i]!.topicality - w[j]!.topicality < margin) continue;
        pairs++;
        agree += order(w[i]!.weight, w[j]!.weight);
        idfAgree += order(w[i]!.idf, w[j]!.idf);
      }
    }
    if (w.length < 2) continue;
    let most = w[0]!;
    let least = w[0]!;
    for (const x of w) {
      if (x.topicality > most.topicality) most = x;
      if (x.topicality < least.topicality) least = x;
    }
    if (most.topicality - least.topicality < margin) continue;
    judgedQueries++;
    queriesAgree += order(most.weight, least.weight);
    queriesIdfAgree += order(most.idf, least.idf);
  }
  return {
    pairs,
    agree: pairs ? agree / pairs : NaN,
    idfAgree: pairs ? idfAgree / pairs : NaN,
    queries: judgedQueries,
    queriesAgree: judgedQueries ? queriesAgree / judgedQueries : NaN,
    queriesIdfAgree: judgedQueries ? queriesIdfAgree / judgedQueries : NaN,
  };
}

/** How much the same word's weight moves between the queries of one collection. */
export interface WeightVariation {
  /** Words met in two queries or more. */
  repeatedWords: number;
  /** Median over those words of the range of their weights. */
  medianRange: number;
  /** Interquartile range of every word weight of the collection (one per word and query). */
  weightIqr: number;
}

function quantile(sorted: readonly number[], q: number): number {
  if (!sorted.length) return NaN;
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
}

const ascending = (a: number, b: number) => a - b;

function weightsByTerm(queries: readonly WeighedQuery[]): Map<string, number[]> {
  const byTerm = new Map<string, number[]>();
  for (const q of queries) for (const x of q.words) (byTerm.get(x.term) ?? byTerm.set(x.term, []).get(x.term)!).push(x.weight);
  return byTerm;
}

function range(values: readonly number[]): number {
  return Math.max(...values) - Math.min(...values);
}

export function weightVariation(queries: readonly WeighedQuery[]): WeightVariation {
  const ranges: number[] = [];
  for (const weights of weightsByTerm(queries).values()) if (weights.length >= 2) ranges.push(range(weights));
  const all = queries.flatMap((q) => q.words.map((x) => x.weight)).sort(ascending);
  return { repeatedWords: ranges.length, medianRange: quantile(ranges.sort(ascending), 0.5), weightIqr: quantile(all, 0.75) - quantile(all, 0.25) };
}

/** How much a word's mean weight moves between collections. */
export interface CrossCollectionVariation {
  /** Words met in two collections or more. */
  sharedWords: number;
  /** Median over those words of the range of their mean weight per collection. */
  medianRange: number;
}

export function crossCollectionVariation(collections: readonly (readonly WeighedQuery[])[]): CrossCollectionVariation {
  const means = new Map<string, number[]>();
  for (const queries of collections) {
    for (const [term, weights] of weightsByTerm(queries)) {
      (means.get(term) ?? means.set(term, []).get(term)!).push(weights.reduce((a, b) => a + b, 0) / weights.length);
    }
  }
  const ranges: number[] = [];
  for (const m of means.values()) if (m.length >= 2) ranges.push(range(m));
  return { sharedWords: ranges.length, medianRange: quantile(ranges.sort(ascending), 0.5) };
}
