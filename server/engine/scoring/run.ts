/**
 * TREC run lines (SEMANTICS.md §1.7 output format, §6.1 reader). Ranking a query for a run, with
 * or without pseudo-relevance feedback, is server/service/ranking.ts (rankQuery).
 */
import type { SearchHit } from './prepared.js';

/** `qid Q0 docno rank score runid` lines; the score in full (shortest round-trip) precision. */
export function formatRunLines(qid: string, hits: readonly SearchHit[], runId: string): string {
  let out = '';
  for (let i = 0; i < hits.length; i++) out += `${qid} Q0 ${hits[i]!.docno} ${i + 1} ${hits[i]!.score} ${runId}\n`;
  return out;
}
