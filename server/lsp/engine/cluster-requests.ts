/**
 * The whole-query and whole-file requests on a search cluster (cluster-session.ts), asynchronously:
 * - `querylens/runFile`: every query of the file ranked on the cluster (Bo1 first when querylens.json's
 *   `expansion` says so), as TREC run lines, with trec_eval means computed by querylens
 *   (server/service/evaluation.ts, never the cluster's `_rank_eval`);
 * - `querylens/compare`: the original query, its Bo1 expansion on the cluster and the model's weighted
 *   query (a collection-aware model reads the cluster's statistics: cluster-statistics.ts), each ranked
 *   on the cluster, side by side.
 * A cluster failure fails the request with the ClusterError's one line and `data.cluster` = its code
 * (cluster-features.ts clusterFailure), as `querylens/preview` does.
 */
import type { CancellationToken } from 'vscode-languageserver';
import { printIndri, printLucene, translate, type QueryAst, type QueryEntry } from '../../../grammar/index.js';
import type { SearchHit } from '../../engine/search.js';
import type { ClusterHit } from '../../backends/remote/cluster-backend.js';
import type { QueryDocument } from '../documents.js';
import { clusterFailure } from './cluster-features.js';
import { CLUSTER_DEPTH, clusterExpansionWords, type ClusterSession } from './cluster-session.js';
import type { CompareResult, QueryMetrics, RankedVariant, RunFileResult } from './protocol.js';
import { printExpansion, runnable } from './ranking.js';
import { judgedQid } from './session.js';
import { RunFileBuilder } from './run-file.js';
import { compareRows } from './compare-rows.js';
import { weighableQuery, weighCached, weighedQueryAst, type LoadedModel } from './weights.js';

/** What runFile shares with the local path: the checked parameters and the per-query steps. */
export interface RunFileJob {
  doc: QueryDocument;
  k: number;
  tag: string;
  step: () => Promise<void>;
  notRunnableReason: (entry: QueryEntry) => string;
}

/** As SearchHit for the run lines (RunFileBuilder reads docno and score only). */
function runHits(hits: readonly ClusterHit[]): SearchHit[] {
  return hits.map((h, i) => ({ doc: i, docno: h.docno, score: h.score }) as SearchHit);
}

export async function clusterRunFile(session: ClusterSession, job: RunFileJob): Promise<RunFileResult> {
  const { doc, k, tag } = job;
  const { expansion: exp, scorer: s } = session.config;
  const expand = exp.method === 'bo1' ? { method: 'bo1' as const, fbDocs: exp.fbDocs, fbTerms: exp.fbTerms } : undefined;
  const built = new RunFileBuilder(tag);
  try {
    for (const entry of doc.source.entries) {
      if (!runnable(entry)) {
        built.skip(entry, job.notRunnableReason(entry));
        continue;
      }
      const ast = entry.result.ast;
      const result = expand ? (await session.expandedRanking(entry.dialect, entry.text, ast, k)).result : await session.rankingAt(entry.dialect, entry.text, ast, k);
      built.add(entry, runHits(result.hits));
      await job.step();
    }
  } catch (err) {
    clusterFailure(err);
  }
  return built.result(doc.version, session.qrels, {
    scorer: { name: s.name, k1: s.k1, b: s.b, mu: s.mu },
    // The cluster index's similarity ranks; no other scorer can be requested (requests.ts runFile).
    scorers: [],
    expansion: expand ? { method: expand.method, fbDocs: expand.fbDocs, fbTerms: expand.fbTerms } : null,
  });
}

function delta(a: QueryMetrics | null, b: QueryMetrics | null): QueryMetrics | null {
  if (!a || !b) return null;
  return Object.fromEntries(Object.keys(a).map((m) => [m, (b[m] ?? 0) - (a[m] ?? 0)]));
}

/** `querylens/compare` on a cluster: original · Bo1 · weighted, each ranked on the cluster to CLUSTER_DEPTH. */
export async function clusterCompare(
  session: ClusterSession,
  entry: QueryEntry,
  ast: QueryAst,
  version: number,
  k: number,
  loaded: LoadedModel | null,
  step: () => Promise<void>,
): Promise<CompareResult> {
  const qid = judgedQid(entry);
  const lists: { name: string; query: string; hits: ClusterHit[] }[] = [];
  const notes: string[] = [];
  let expansionTerms: CompareResult['expansionTerms'] = [];
  try {
    const original = await session.ranking(entry.dialect, entry.text, ast);
    await step();
    lists.push({ name: 'original', query: entry.text, hits: original.hits });
    const bo1 = await session.expandedRanking(entry.dialect, entry.text, ast, CLUSTER_DEPTH);
    await step();
    lists.push({ name: 'bo1', query: printExpansion(bo1.expansion, entry.dialect, clusterExpansionWords(bo1.expansion, ast)), hits: bo1.result.hits });
    expansionTerms = bo1.expansion.terms.map((t) => ({ term: t.term, weight: t.weight, isOriginal: t.isOriginal }));
    notes.push(
      `Bo1 ran on the cluster: feedback documents ${bo1.expansion.feedbackDocnos.join(', ') || '(none)'}, term statistics from _termvectors` +
        (session.summary && session.summary.shards > 1 ? ` (one shard's of ${session.summary.shards})` : '') +
        '.',
    );
    // The one rule of `querylens weigh` and the weights action (weighableQuery, structured-weights.ts).
    const weighable = loaded ? weighableQuery(ast, entry.text) : null;
    if (!loaded) notes.push('No weighted variant: no term-weighting model is loaded (set "model" in querylens.json).');
    else if (!weighable!.ok) notes.push(`No weighted variant: ${weighable!.refusal.message}.`);
    else {
      const { query } = weighable!;
      const weightedAst = weighedQueryAst(ast, query, await weighCached(loaded, query.plan.text, undefined, session.collection()));
      await step();
      if (weightedAst.root) {
        const text = entry.dialect === 'lucene' ? (query.plan.flat ? translate(weightedAst, 'lucene').text : printLucene(weightedAst)) : printIndri(weightedAst);
        const weighted = await session.rankingAt(entry.dialect, text, weightedAst, CLUSTER_DEPTH);
        await step();
        lists.push({ name: 'weighted', query: text, hits: weighted.hits });
        if (loaded.model.readsStatistics) {
          const statistics = await session.ngramStatistics(query.plan.text, loaded.model);
          notes.push(`The ${loaded.model.name} model read the cluster's statistics${statistics.notes.length ? `: ${statistics.notes.join('; ')}` : ''}.`);
        }
      }
    }
  } catch (err) {
    clusterFailure(err);
  }
  const title = (h: ClusterHit) => session.backend.hitText(h).title;
  const variants: RankedVariant[] = lists.map((l) => ({
    name: l.name,
    query: l.query,
    hits: l.hits.slice(0, k).map((h, i) => ({ rank: i + 1, docno: h.docno, title: title(h), score: h.score, relevance: session.relevance(qid, h.docno) })),
    metrics: session.metrics(qid, l.hits),
  }));
  const rows = compareRows(lists, k, (docno, h) => ({ title: title(h), relevance: session.relevance(qid, docno) }));
  const deltas = qid !== null && session.qrels?.has(qid) ? Object.fromEntries(variants.slice(1).map((v) => [v.name, delta(variants[0]!.metrics, v.metrics)!])) : null;
  return { qid: entry.qid, version, variants, rows, expansionTerms, deltas, notes };
}
