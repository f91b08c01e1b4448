/**
 * `querylens eval-model --information`: do the weighting model's weights carry information (issue 16's target)?
 * For every query of each collection of eval-model, the model's uni-gram weights as `querylens weigh` computes
 * them (with the index's statistics for a collection-aware model), each word's topicality from the collection's
 * judgements, and the readings of server/model/weight-information.ts: how often the weights put a clear topic word
 * above a clear generic word of the same query (beside idf), and how much the same word's weight moves between
 * queries and between collections. Nothing is ranked.
 */
import type { Qrels } from '../../engine/eval/trec-files.js';
import type { IndexReader } from '../../engine/index/reader.js';
import type { WeightModel } from '../../model/runtime.js';
import type { CrossCollectionVariation, TopicOrder, WeighedQuery, WeightVariation } from '../../model/weight-information.js';
import type { QueryToRank } from '../../service/ranking.js';

/** The collection's queries as the model weighs them, each uni-gram with its topicality and idf. */
export async function weighedQueries(model: WeightModel, reader: IndexReader, label: string, queries: readonly QueryToRank[], qrels: Qrels): Promise<WeighedQuery[]> {
  const { LocalIndexBackend } = await import('../../service/backend.js');
  const { weighQueries } = await import('../../service/weigh.js');
  const { mergeNgrams } = await import('../../model/weighted-ast.js');
  const { relevanceWeight } = await import('../../model/weight-information.js');
  const outcomes = await weighQueries(model, queries, 4, new LocalIndexBackend(reader, label));
  const numDocs = reader.stats().numDocs;
  const out: WeighedQuery[] = [];
  outcomes.forEach((o, i) => {
    if (!o.ok) return;
    const judged = qrels.get(queries[i]!.qid);
    const relevant = new Set<number>();
    for (const [docno, grade] of judged ?? []) {
      const doc = grade > 0 ? reader.docByDocno(docno) : undefined;
      if (doc !== undefined) relevant.add(doc);
    }
    // A query with no relevant document in the index says nothing about which of its words are topical.
    if (!relevant.size) return;
    const words = mergeNgrams(o.weights)
      .filter((g) => g.kind === 'unigram')
      .flatMap((g) => {
        const term = g.terms[0]!;
        const df = reader.termStats(term)?.df ?? 0;
        if (df === 0) return [];
        let r = 0;
        for (const doc of reader.postings(term)!.docs) if (relevant.has(doc)) r++;
        // The weight of one occurrence: a word written twice has its weights added in the query (query term
        // frequency), which is the query's doing, not the model's.
        return [{ term, weight: g.weight / g.occurrences, topicality: relevanceWeight(r, relevant.size, df, numDocs), idf: Math.log(numDocs / df) }];
      });
    out.push({ qid: queries[i]!.qid, words });
  });
  return out;
}

export interface InformationRow {
  label: string;
  queries: WeighedQuery[];
}

/** Every reading of the table, each computed once: per collection, over all of them, and between them. */
export interface InformationReadings {
  collections: { collection: string; queries: number; topicOrder: TopicOrder; variation: WeightVariation }[];
  all: { topicOrder: TopicOrder; acrossCollections: CrossCollectionVariation };
}

export async function readInformation(rows: readonly InformationRow[]): Promise<InformationReadings> {
  const { crossCollectionVariation, topicOrder, weightVariation } = await import('../../model/weight-information.js');
  return {
    collections: rows.map((r) => ({ collection: r.label, queries: r.queries.length, topicOrder: topicOrder(r.queries), variation: weightVariation(r.queries) })),
    all: { topicOrder: topicOrder(rows.flatMap((r) => r.queries)), acrossCollections: crossCollectionVariation(rows.map((r) => r.queries)) },
  };
}

/** The markdown table: one row per collection, then the words shared between collections. */
export function formatInformationTable(readings: InformationReadings, header: readonly string[]): string {
  const pct = (x: number) => (Number.isNaN(x) ? '–' : `${(100 * x).toFixed(0)} %`);
  const num = (x: number) => (Number.isNaN(x) ? '–' : x.toFixed(3));
  const lines = [
    ...header.map((h) => `${h}\n`),
    '| collection | queries | topic/generic pairs | model agrees | idf agrees | queries: top word over bottom word, model | idf | words in ≥ 2 queries | their median weight range | IQR of all word weights |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const { collection, queries, topicOrder: t, variation: v } of readings.collections) {
    lines.push(`| ${collection} | ${queries} | ${t.pairs} | ${pct(t.agree)} | ${pct(t.idfAgree)} | ${pct(t.queriesAgree)} (${t.queries}) | ${pct(t.queriesIdfAgree)} | ${v.repeatedWords} | ${num(v.medianRange)} | ${num(v.weightIqr)} |`);
  }
  const { topicOrder: t, acrossCollections: cross } = readings.all;
  lines.push(
    '',
    `All collections: ${t.pairs} pairs, the model agrees on ${pct(t.agree)} (idf ${pct(t.idfAgree)}); the top word outweighs the bottom word on ${pct(t.queriesAgree)} of ${t.queries} queries (idf ${pct(t.queriesIdfAgree)}).`,
    `Words in two collections or more: ${cross.sharedWords}; median range of their mean weight per collection ${num(cross.medianRange)}.`,
    '',
    'A pair is two words of one query whose relevance weights (Robertson–Spärck Jones, from the judgements) differ by at least 1 (natural log); the model agrees when it weighs the more topical word more (ties half). The top and bottom words of a query are its most and least topical; only queries where they differ by at least 1 count. The weight range of a word is max − min over the queries of the collection that hold it.',
  );
  return lines.join('\n') + '\n';
}
