/**
 * What a collection-aware weighting model reads (server/model/collection-statistics.ts: idf, ictf, `#1`
 * pair ratio, share of the first-pass top k, Bo1 informativeness per n-gram), read from a search cluster
 * instead of a local index. The n-grams are the model's own (segmentQuery with the model's analyser, so the
 * model gets one record per n-gram it reads); each n-gram is asked of the cluster as the words the user
 * wrote (its surface text), so the cluster's analyser decides its terms, as for a search.
 *
 * Where each statistic comes from:
 * - df of a word or a pair: `_count` of its surface text as a phrase in any search field (a bool of
 *   `match_phrase` clauses: exact, every shard); N is the index's document count (the probe's);
 * - cf of a word and the collection's tokens T: `_termvectors` (`ttf`, `sum_ttf` summed over the search
 *   fields), which the cluster computes on one shard;
 * - cf of a pair: the cluster counts the documents that hold a phrase, not its occurrences, so a pair's cf is
 *   its df scaled to that shard (df · shard documents / N), a lower bound of the local `#1` window's cf;
 * - the first pass: the cluster's top k of the uni-grams as one bag of words (the cluster's similarity, as
 *   uniform BM25 ranks them locally); tf of a word in each of those documents from its term vectors, of a pair
 *   from the positions there (the second word at the distance the cluster's analyser puts it from the first
 *   in the pair's own text: a removed stopword may leave a gap);
 * - Bo1 as SEMANTICS.md §4.5 with the one-shard cf and document count (as cluster-expansion.ts);
 * - the feedback statistics of TW-BERT + Bo1 (`fbShare`, `fbCooccur`, `fbGap`, `fbCoverage`) as the local index
 *   computes them without an expansion: the first pass's top FEEDBACK_DOCS as feedback documents, its scores for
 *   the gap; `expansion` and `bo1Weight` are 0 (the editor weighs the user's query on a cluster, never Bo1 words).
 * So with more than one shard, `ictf` and `bo1` are one shard's (`oneShard`), and the hover and the model's
 * notes say so.
 */
import { parseText, type DslQuery } from '../../../grammar/index.js';
import { bo1Weight } from '../../engine/expansion/bo1.js';
import { segmentQuery, type WordAnalyzer } from '../../model/segment.js';
import { FEEDBACK_DOCS, STATISTICS_TOP_K, type NgramStatistics, type StatisticName } from '../../model/collection-statistics.js';
import type { ClusterBackend, ClusterTermStatistics } from './cluster-backend.js';

export interface ClusterNgramStatistics {
  /** One record per n-gram of the model's segmentation, in its order. */
  ngrams: NgramStatistics[];
  /** The first-pass documents (the cluster's top k of the uni-grams). */
  topDocnos: string[];
  /** The statistics read on one shard (`_termvectors`): empty when the index has one shard. */
  oneShard: StatisticName[];
  /** What differs from a local index's statistics, in words. */
  notes: string[];
}

export interface ClusterStatisticsOptions {
  /** The model's analyser (its words and n-grams). */
  analyzer: WordAnalyzer;
  /** Whether the model reads bi-grams (config.json `bigrams`). */
  bigrams: boolean;
  /** The index's documents and shards (the probe's). */
  summary: { numDocs: number; shards: number };
  topK?: number;
}

/** The documents holding `text` as a phrase in any of `fields` (one clause must match). */
export function phraseInAnyField(text: string, fields: readonly string[]): DslQuery {
  return { bool: { should: fields.map((f) => ({ match_phrase: { [f]: { query: text } } })) } };
}

/** Requests in flight at once for one query's statistics. */
const CONCURRENCY = 4;

async function inGroups<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += CONCURRENCY) out.push(...(await Promise.all(items.slice(i, i + CONCURRENCY).map(fn))));
  return out;
}

/** The first position of each of the (first) terms the cluster made of `a` and `b` in `text`, as their distance. */
function pairGap(stats: ClusterTermStatistics, aTerm: string | undefined, bTerm: string | undefined): number {
  const a = aTerm === undefined ? undefined : stats.terms.get(aTerm)?.positions[0];
  const b = bTerm === undefined ? undefined : stats.terms.get(bTerm)?.positions.find((p) => a === undefined || p > a);
  return a !== undefined && b !== undefined ? b - a : 1;
}

/** The model's n-gram statistics of `text` on the cluster (see the header). */
export async function clusterNgramStatistics(backend: ClusterBackend, text: string, options: ClusterStatisticsOptions): Promise<ClusterNgramStatistics> {
  const topK = options.topK ?? STATISTICS_TOP_K;
  const fields = backend.config.fields;
  const seg = segmentQuery(text, options.analyzer, { bigrams: options.bigrams });
  const surface = (wordIndices: number[]) => text.slice(seg.words[wordIndices[0]!]!.start, seg.words[wordIndices.at(-1)!]!.end);
  const N = options.summary.numDocs;

  // Each word as the cluster analyses it, per search field: its term, cf (ttf), and the fields' sizes.
  const words = [...new Set(seg.words.map((_, i) => surface([i])))];
  const wordStats = new Map<string, ClusterTermStatistics[]>();
  await inGroups(words, async (w) => void wordStats.set(w, await Promise.all(fields.map((f) => backend.termStatistics(w, f)))));
  const termOf = (w: string) => [...(wordStats.get(w)?.[0]?.terms.keys() ?? [])][0];
  let T = 0;
  let shardDocs = 0;
  const anyWord = wordStats.get(words[0]!);
  for (const s of anyWord ?? []) {
    T += s.collection.totalTokens;
    shardDocs = Math.max(shardDocs, s.collection.numDocs);
  }
  const wordCf = (w: string) => {
    const term = termOf(w);
    return term === undefined ? 0 : (wordStats.get(w) ?? []).reduce((sum, s) => sum + (s.terms.get(term)?.cf ?? 0), 0);
  };

  // df of every n-gram: `_count` of its phrase in any search field.
  const surfaces = [...new Set(seg.ngrams.map((g) => surface(g.wordIndices)))];
  const df = new Map<string, number>();
  await inGroups(surfaces, async (s) => void df.set(s, await backend.count(phraseInAnyField(s, fields))));

  // The distance between a pair's two terms as the cluster's analyser places them.
  const pairs = seg.ngrams.filter((g) => g.wordIndices.length === 2);
  const gaps = new Map<string, number>();
  await inGroups(pairs, async (g) => {
    const s = surface(g.wordIndices);
    if (gaps.has(s)) return;
    const analysed = await backend.termStatistics(s, fields[0], { positions: true });
    gaps.set(s, pairGap(analysed, termOf(surface([g.wordIndices[0]!])), termOf(surface([g.wordIndices[1]!]))));
  });

  // The first pass and the term vectors (with positions) of its documents.
  const unigramText = seg.ngrams.filter((g) => g.wordIndices.length === 1).map((g) => surface(g.wordIndices)).join(' ');
  const first = parseText(unigramText).ast;
  const firstHits = first.root && topK > 0 ? (await backend.search(first, { k: topK, scorer: 'bm25' })).hits : [];
  const topDocnos = firstHits.map((h) => h.docno);
  const vectors = await inGroups(topDocnos, (d) => Promise.all(fields.map((f) => backend.documentTermStatistics(d, f, { positions: true }))));

  const tfIn = (doc: ClusterTermStatistics[], wordIndices: number[]): number => {
    const a = termOf(surface([wordIndices[0]!]));
    if (a === undefined) return 0;
    if (wordIndices.length === 1) return doc.reduce((sum, f) => sum + (f.terms.get(a)?.tf ?? 0), 0);
    const b = termOf(surface([wordIndices[1]!]));
    if (b === undefined) return 0;
    const gap = gaps.get(surface(wordIndices)) ?? 1;
    let tf = 0;
    for (const f of doc) {
      const bs = new Set(f.terms.get(b)?.positions ?? []);
      for (const p of f.terms.get(a)?.positions ?? []) if (bs.has(p + gap)) tf++;
    }
    return tf;
  };

  // The feedback documents (the first pass's top FEEDBACK_DOCS), the query's distinct words each holds, the gap.
  const fb = vectors.slice(0, FEEDBACK_DOCS);
  const queryWordIndices = [...new Map(seg.ngrams.filter((g) => g.wordIndices.length === 1).map((g) => [termOf(surface(g.wordIndices)) ?? surface(g.wordIndices), g.wordIndices[0]!])).values()];
  const wordsIn = fb.map((doc) => new Set(queryWordIndices.filter((w) => tfIn(doc, [w]) > 0).map((w) => surface([w]))));
  const fbGap = firstHits.length >= 2 && firstHits[0]!.score > 0 ? Math.min(1, Math.max(0, 1 - firstHits[firstHits.length - 1]!.score / firstHits[0]!.score)) : 0;
  const fbCoverage = fb.length && queryWordIndices.length ? wordsIn.reduce((sum, w) => sum + w.size, 0) / (fb.length * queryWordIndices.length) : 0;

  const raw = seg.ngrams.map((g) => {
    const s = surface(g.wordIndices);
    const d = df.get(s) ?? 0;
    const cf = g.wordIndices.length === 1 ? wordCf(s) : N > 0 ? (d * shardDocs) / N : 0;
    let inTop = 0;
    let tfx = 0;
    for (const doc of vectors) {
      const tf = tfIn(doc, g.wordIndices);
      if (tf > 0) {
        inTop++;
        tfx += tf;
      }
    }
    const pairRatio = g.wordIndices.length === 2 ? d / Math.max(1, Math.min(df.get(surface([g.wordIndices[0]!])) ?? 0, df.get(surface([g.wordIndices[1]!])) ?? 0)) : 0;
    const mine = new Set(g.wordIndices.map((w) => surface([w])));
    const others = queryWordIndices.map((w) => surface([w])).filter((w) => !mine.has(w));
    let inFb = 0;
    let cooccur = 0;
    fb.forEach((doc, j) => {
      if (tfIn(doc, g.wordIndices) === 0) return;
      inFb++;
      if (others.length) cooccur += others.filter((w) => wordsIn[j]!.has(w)).length / others.length;
    });
    return {
      idf: Math.log(1 + (N - d + 0.5) / (d + 0.5)),
      ictf: T > 0 ? Math.log(T / Math.max(cf, 0.5)) : 0,
      pairRatio,
      topShare: topDocnos.length ? inTop / topDocnos.length : 0,
      bo1: tfx > 0 && cf > 0 && shardDocs > 0 ? bo1Weight(tfx, cf, shardDocs) : 0,
      expansion: 0,
      bo1Weight: 0,
      fbShare: fb.length ? inFb / fb.length : 0,
      fbCooccur: inFb ? cooccur / inFb : 0,
      fbGap,
      fbCoverage,
    };
  });
  const maxBo1 = Math.max(0, ...raw.map((r) => r.bo1));
  const oneShard: StatisticName[] = options.summary.shards > 1 ? ['ictf', 'bo1'] : [];
  const notes = [
    ...(pairs.length ? ["a `#1` pair's cf is its document count (the cluster counts the documents that hold a phrase, not its occurrences)"] : []),
    ...(oneShard.length ? [`ictf and bo1 use one shard's term statistics (\`_termvectors\`; the index has ${options.summary.shards} shards)`] : []),
  ];
  return { ngrams: raw.map((r) => ({ ...r, bo1: maxBo1 > 0 ? r.bo1 / maxBo1 : 0 })), topDocnos, oneShard, notes };
}
