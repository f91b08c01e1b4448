/**
 * A `querylens/runFile` answer built query by query, the same for the local engine (requests.ts) and a
 * cluster (cluster-requests.ts): run lines as `querylens search` writes them, the queries left out with
 * their reason, and trec_eval means over the queries the qrels judge.
 */
import type { QueryEntry } from '../../../grammar/index.js';
import type { Qrels } from '../../engine/eval/index.js';
import { formatRunLines, type SearchHit } from '../../engine/search.js';
import { evaluateRuns } from '../../service/evaluation.js';
import type { RunFileResult } from './protocol.js';
import { judgedQid, PREVIEW_MEASURES } from './session.js';

export class RunFileBuilder {
  private text = '';
  private lines = 0;
  private queries = 0;
  private readonly skipped: RunFileResult['skipped'] = [];
  private readonly run = new Map<string, { docno: string; score: number }[]>();

  constructor(private readonly tag: string) {}

  skip(entry: QueryEntry, reason: string): void {
    this.skipped.push({ qid: entry.qid, reason });
  }

  add(entry: QueryEntry, hits: readonly SearchHit[]): void {
    this.text += formatRunLines(entry.qid, hits, this.tag);
    this.lines += hits.length;
    this.queries++;
    // A run file has no line for a query that retrieves nothing; trec_eval then ignores the query.
    // Only queries with a written id are evaluated (an implied id is a line number, not a topic).
    if (hits.length && judgedQid(entry) !== null) this.run.set(entry.qid, hits.map((h) => ({ docno: h.docno, score: h.score })));
  }

  result(version: number, qrels: Qrels | null, ranking: Pick<RunFileResult, 'scorer' | 'scorers' | 'expansion'>): RunFileResult {
    let metrics: RunFileResult['metrics'] = null;
    if (qrels) {
      const [evaluated] = evaluateRuns([{ runId: this.tag, queries: this.run }], qrels, { measures: PREVIEW_MEASURES });
      if (evaluated.queries.length) metrics = { mean: evaluated.mean, perQuery: Object.fromEntries(evaluated.perQuery), judged: evaluated.queries.length };
    }
    return { version, text: this.text, queries: this.queries, lines: this.lines, skipped: this.skipped, metrics, ...ranking };
  }
}
