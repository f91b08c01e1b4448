/**
 * A parameter sweep on a search cluster, for both front ends (the editor's `querylens/sweep`, the CLI's
 * `sweep --backend-config`): Bo1's fbDocs and fbTerms (Bo1 on the cluster, then the expanded query ranked
 * there, each setting evaluated by querylens's trec_eval-exact code, never `_rank_eval`). k1, b and mu are
 * the index's similarity settings on a cluster: sweeping them would mean closing the index, changing its
 * settings and reopening it for every setting, which querylens never does to a user's cluster, so such a
 * sweep is refused with that reason and what to do (similaritySweepRefusal).
 */
import type { QueryAst } from '../../grammar/index.js';
import type { Qrels } from '../engine/eval/index.js';
import { gridSettings, type SweepGrid, type SweepResult, type SweepRow, type SweepSetting } from '../engine/sweep.js';
import { CLUSTER_DEPTH, type ClusterSession } from './cluster-session.js';
import { evaluateRuns } from './evaluation.js';

/** Why `named` (e.g. "k1 and b", or the scorer) cannot be swept on the cluster at `location`, and what to do instead. */
export function similaritySweepRefusal(location: string, named: string): string {
  return (
    `cannot sweep ${named} on ${location}: on a cluster they are the index's similarity settings, and changing them means closing the index, ` +
    "updating its settings and reopening it for every setting, which querylens never does to a user's cluster. Sweep fbDocs and fbTerms here, " +
    'or sweep k1 and b on a local index of the same documents (remove "backend" from querylens.json, set "corpus" and "index")'
  );
}

/** Said when a cluster sweep has no fbDocs or fbTerms values. */
export const NOTHING_TO_SWEEP = "nothing to sweep on a cluster: give values for fbDocs or fbTerms (k1, b and mu are the index's own similarity settings there)";

/**
 * The settings of a cluster sweep: the grid of fbDocs × fbTerms (the local grid's size and range checks;
 * SweepGridError), the other of the two from the session's settings; the similarity is the cluster's, so no
 * k1/b/mu is reported.
 */
export function clusterSweepSettings(session: ClusterSession, values: SweepGrid['values']): SweepSetting[] {
  const { scorer, expansion } = session.config;
  const base = { k1: scorer.k1, b: scorer.b, mu: scorer.mu, fbDocs: expansion.fbDocs, fbTerms: expansion.fbTerms, bo1: true };
  return gridSettings({ scorer: 'bm25', values, base }).map((s) => ({ scorer: scorer.name === 'ql' ? 'ql' : 'bm25', bo1: s.bo1 }));
}

/** What a cluster sweep's result says it varied and what scored it. */
export function clusterSweepNote(session: ClusterSession): string {
  return `Ranked on ${session.backend.location}, whose own similarity scores every setting; only Bo1's fbDocs and fbTerms vary (feedback documents and term statistics from the cluster).`;
}

/**
 * Every setting: each judged query expanded by Bo1 on the cluster and ranked there to CLUSTER_DEPTH, the run
 * evaluated with `qrels`; the best row has the highest mean of `by` (the first in grid order on a tie).
 * `between` runs after each query (the editor's cancellation checks). A cluster failure is its ClusterError.
 */
export async function sweepOnCluster(
  session: ClusterSession,
  judged: readonly { qid: string; dialect: string; text: string; ast: QueryAst }[],
  qrels: Qrels,
  settings: readonly SweepSetting[],
  options: { measures: string[]; by: string },
  between: () => Promise<void> = async () => undefined,
): Promise<SweepResult> {
  const rows: SweepRow[] = [];
  for (const setting of settings) {
    const run = new Map<string, { docno: string; score: number }[]>();
    for (const q of judged) {
      const { result } = await session.expandedRanking(q.dialect, q.text, q.ast, CLUSTER_DEPTH, setting.bo1!);
      if (result.hits.length) run.set(q.qid, [...(run.get(q.qid) ?? []), ...result.hits.map((h) => ({ docno: h.docno, score: h.score }))]);
      await between();
    }
    const [evaluated] = evaluateRuns([{ runId: 'sweep', queries: run }], qrels, { measures: options.measures });
    rows.push({ setting, mean: evaluated!.mean, queries: evaluated!.queries.length });
  }
  let best = 0;
  rows.forEach((r, i) => {
    if ((r.mean[options.by] ?? -Infinity) > (rows[best]!.mean[options.by] ?? -Infinity)) best = i;
  });
  return { measures: options.measures, by: options.by, rows, best };
}

/** The querylens.json values that make a cluster sweep's setting the configuration: Bo1 with its sizes. */
export function clusterSweepValues(setting: SweepSetting): { path: [string, string]; value: string | number }[] {
  return [
    { path: ['expansion', 'method'], value: 'bo1' },
    { path: ['expansion', 'fbDocs'], value: setting.bo1!.fbDocs },
    { path: ['expansion', 'fbTerms'], value: setting.bo1!.fbTerms },
  ];
}
