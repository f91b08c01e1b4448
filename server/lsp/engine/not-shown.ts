/**
 * "Why not": the judged-relevant documents a results page does not show (PreviewResult.relevantNotShown),
 * for the local engine and for a cluster alike; only the way to a document's title differs.
 */
import type { PreviewResult } from './protocol.js';

/** The judgements of a topic; none without qrels or without a written query id (qid null). */
export function judgedTopic(qrels: ReadonlyMap<string, ReadonlyMap<string, number>> | null, qid: string | null): ReadonlyMap<string, number> | undefined {
  return qid === null ? undefined : qrels?.get(qid);
}

/** How many judged-relevant documents "why not" lists at most. */
const MAX_NOT_SHOWN = 50;

/**
 * Judged-relevant documents outside the top `shown` of `hits`: most relevant first, then by rank
 * (unretrieved last), then docno. `titleOf` gets the document's rank in `hits` (null when not retrieved).
 */
export function relevantNotShown(
  judged: ReadonlyMap<string, number> | undefined,
  hits: readonly { docno: string }[],
  shown: number,
  titleOf: (docno: string, rank: number | null) => string,
): PreviewResult['relevantNotShown'] {
  if (!judged) return [];
  const rankOf = new Map(hits.map((h, i) => [h.docno, i + 1]));
  const out: PreviewResult['relevantNotShown'] = [];
  for (const [docno, relevance] of judged) {
    if (relevance <= 0) continue;
    const rank = rankOf.get(docno) ?? null;
    if (rank !== null && rank <= shown) continue;
    out.push({ docno, title: titleOf(docno, rank), relevance, rank });
  }
  out.sort((a, b) => b.relevance - a.relevance || (a.rank ?? Infinity) - (b.rank ?? Infinity) || (a.docno < b.docno ? -1 : a.docno > b.docno ? 1 : 0));
  return out.slice(0, MAX_NOT_SHOWN);
}
