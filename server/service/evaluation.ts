/**
 * Evaluation for both front ends: trec_eval-exact measures (SEMANTICS.md §6) of run files
 * (`querylens eval`, `compare`) and of one ranked list (the editor's preview and comparisons).
 */
import { basename } from 'node:path';
import { compareRuns, evaluate, readQrelsFile, readRunFile, type CompareOptions, type Comparison, type EvalOptions, type EvalResult, type Qrels, type Run } from '../engine/eval/index.js';
import type { SearchHit } from '../engine/search.js';

/** trec_eval measures of one query's ranked list; null when the qrels do not judge the query. */
export function queryMetrics(qrels: Qrels, qid: string, hits: readonly Pick<SearchHit, 'docno' | 'score'>[], measures: readonly string[]): Record<string, number> | null {
  const judged = qrels.get(qid);
  if (!judged) return null;
  const run = { runId: 'preview', queries: new Map([[qid, hits.map((h) => ({ docno: h.docno, score: h.score }))]]) };
  const result = evaluate(run, new Map([[qid, judged]]), { measures: [...measures] });
  return result.perQuery.get(qid) ?? Object.fromEntries(measures.map((m) => [m, 0]));
}

/**
 * Reads qrels and run files; throws the engine's TrecFormatError (file:line) for a malformed one.
 * Runs that share a tag (e.g. "indri") are told apart by their file names.
 */
export function readQrelsAndRuns(qrelsFile: string, runFiles: readonly string[]): { qrels: Qrels; runs: Run[] } {
  const qrels = readQrelsFile(qrelsFile);
  const runs = runFiles.map((f) => readRunFile(f));
  const tags = runs.map((r) => r.runId);
  runs.forEach((r, i) => {
    if (tags.indexOf(r.runId) !== tags.lastIndexOf(r.runId)) r.runId = basename(runFiles[i]!);
  });
  return { qrels, runs };
}

/** Each run's measures (`querylens eval`). */
export function evaluateRuns(runs: readonly Run[], qrels: Qrels, options: EvalOptions): EvalResult[] {
  return runs.map((run) => evaluate(run, qrels, options));
}

/** The runs against the first (`querylens compare`): means, changes and paired tests. */
export function compareRunList(runs: Run[], qrels: Qrels, options: CompareOptions): Comparison {
  return compareRuns(runs, qrels, options);
}
