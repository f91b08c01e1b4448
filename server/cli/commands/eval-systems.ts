/**
 * What eval-model's tables share, whichever systems they rank (eval-model.ts: BM25, the phrase rule, Bo1 and the
 * weighting model; eval-deepct-index.ts: BM25, the phrase rule and DeepCT-Index): the queries of a collection to
 * rank, and each system's means and paired comparisons against uniform BM25 (the first run) and the phrase rule
 * (the second).
 */
import type { Qrels, Run } from '../../engine/eval/trec-files.js';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { IndexReader } from '../../engine/index/reader.js';
import type { QueryToRank } from '../../service/ranking.js';
import { writeOutputFile } from '../output-file.js';

/** One system against one baseline on one measure. */
export interface PairedResult {
  /** Relative change of the mean in percent; null when the baseline's mean is 0. */
  changePercent: number | null;
  p: number;
  significant: boolean;
  /** Queries where the system scores above / below / the same as the baseline. */
  wins: number;
  losses: number;
  ties: number;
}

export interface SystemResult<Id extends string = string> {
  id: Id;
  label: string;
  /** Mean over the collection's judged queries, per measure. */
  means: Record<string, number>;
  /** Against uniform BM25 (null for BM25 itself) and against the phrase rule (null for BM25 and the rule). */
  vsBm25: Record<string, PairedResult> | null;
  vsPhrase: Record<string, PairedResult> | null;
}

/** The queries of a query file (the first `limit` when given), as ranking reads them. */
export async function queriesToRank(queryFile: string, limit: number | undefined): Promise<QueryToRank[]> {
  const { readQuerySource } = await import('../../../grammar/sources/index.js');
  const source = readQuerySource(queryFile);
  const entries = limit === undefined ? source.entries : source.entries.slice(0, limit);
  return entries.map((e) => ({ qid: e.qid, ast: e.result.ast, text: e.text }));
}

/**
 * The rows of `systems` (in the order of `runs`, whose run ids are the systems' ids; the first is uniform BM25,
 * the second the phrase rule): means per measure, and each system's paired test, change and wins/losses against
 * the two baselines.
 */
export async function compareSystems<Id extends string>(
  runs: readonly Run[],
  systems: readonly { id: Id; label: string }[],
  qrels: Qrels,
  measures: readonly string[],
  test: 't' | 'randomization',
): Promise<{ systems: SystemResult<Id>[]; queries: number; testDescription: string }> {
  const { compareRuns, evaluate, perQueryValues } = await import('../../engine/eval/index.js');
  type Comparison = ReturnType<typeof compareRuns>;
  const compare = (baseline: number) => compareRuns([runs[baseline]!, ...runs.filter((_r, i) => i !== baseline)], qrels, { measures: [...measures], test });
  const byBm25 = compare(0);
  const byPhrase = compare(1);
  const qids = byBm25.queries;
  const evaluated = runs.map((run) => evaluate(run, qrels, { measures: [...measures] }));
  const paired = (c: Comparison, baseline: number, system: number): Record<string, PairedResult> => {
    const col = c.runIds.indexOf(systems[system]!.id);
    return Object.fromEntries(
      measures.map((m, mi) => {
        const base = perQueryValues(evaluated[baseline]!, m, qids);
        const mine = perQueryValues(evaluated[system]!, m, qids);
        let wins = 0;
        let losses = 0;
        mine.forEach((v, q) => (v > base[q]! ? wins++ : v < base[q]! ? losses++ : 0));
        const cell = c.cells[mi]![col]!;
        return [m, { changePercent: cell.changePercent, p: cell.p!, significant: cell.significant, wins, losses, ties: qids.length - wins - losses }];
      }),
    );
  };
  return {
    systems: systems.map((system, si) => ({
      id: system.id,
      label: system.label,
      means: Object.fromEntries(measures.map((m, mi) => [m, byBm25.cells[mi]![byBm25.runIds.indexOf(system.id)]!.mean])),
      vsBm25: si === 0 ? null : paired(byBm25, 0, si),
      vsPhrase: si <= 1 ? null : paired(byPhrase, 1, si),
    })),
    queries: qids.length,
    testDescription: byBm25.testDescription,
  };
}

/**
 * The index at `dir` when `stamp` says it was built from `source` (and it opens), else `build` writes it
 * there and the stamp is rewritten: one rule for every index the evaluation caches.
 */
export async function openStampedIndex(dir: string, stamp: string, source: string, build: () => Promise<void>, log: (s: string) => void): Promise<IndexReader> {
  const { openIndex, IndexError } = await import('../../engine/index/disk.js');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === source) {
    try {
      return openIndex(dir);
    } catch (err) {
      if (!(err instanceof IndexError)) throw err;
      log(`${dir}: ${err.message}; rebuilding`);
    }
  }
  mkdirSync(dirname(dir), { recursive: true });
  await build();
  writeOutputFile(stamp, source);
  return openIndex(dir);
}
