/**
 * The results panel's workbench requests (types in workbench-protocol.ts, documented in
 * docs/LSP_EXTENSIONS.md):
 * - `querylens/judge`: one judgement written into the configured qrels file (one line replaced or
 *   appended, atomically; server/service/judgements.ts), then used at once by previews, lenses and sweeps;
 * - `querylens/compareTries`: two tries' per-query metrics compared, one paired test per measure with
 *   Holm's correction across the measures; or two or more tries side by side, each against a baseline,
 *   Holm across every (try × measure) test.
 * Restricted mode never registers them (no engine), so an untrusted workspace's qrels are never written.
 */
import { ErrorCodes, ResponseError, type CancellationToken, type Connection } from 'vscode-languageserver';
import { compareTries, compareTryList, judgeInFile, JudgementRefused, type PerQueryMetrics } from '../../service/judgements.js';
import type { FeatureHost, FeatureModule } from '../features.js';
import { UNJUDGED_CACHE } from './unjudged-diagnostics.js';
import type { EngineContext } from './context.js';
import { requireSession, step } from './requests.js';
import { EngineSession, judgedQid } from './session.js';
import { clusterFailure } from './cluster-features.js';
import { COMPARE_TRIES_REQUEST, JUDGE_REQUEST, type CompareTriesParams, type CompareTriesResult, type CompareTryListResult, type JudgeParams, type JudgeResult } from './workbench-protocol.js';

function invalidRequest(message: string): ResponseError<void> {
  return new ResponseError(ErrorCodes.InvalidRequest, `querylens: ${message}`);
}

export async function judge(context: EngineContext, host: FeatureHost, params: JudgeParams, token: CancellationToken): Promise<JudgeResult> {
  // On a cluster the judgement is written to the same local qrels file; the cluster is only asked whether the document exists.
  const cluster = context.cluster();
  const session = cluster ?? requireSession(context);
  if (typeof params?.docno !== 'string') throw new ResponseError(ErrorCodes.InvalidParams, 'querylens: docno must be a string');
  if (!Number.isInteger(params.grade)) throw new ResponseError(ErrorCodes.InvalidParams, 'querylens: grade must be an integer');
  const { doc, entry } = await context.documents.resolve(params.uri, params.qid, params.version, token);
  const qid = judgedQid(entry);
  // An implied id is a line number, not a topic: a judgement under it would judge some other topic.
  if (qid === null) throw invalidRequest(`query ${entry.qid} has no written id (its id is its line number); write "qid<TAB>query" before judging it`);
  const path = session.config.qrels;
  if (!path) throw invalidRequest('no qrels file is configured; set "qrels" in querylens.json to the file judgements are written to');
  if (!session.qrels) throw invalidRequest(`the qrels file ${path} could not be read when the index loaded (see querylens/status); nothing was written`);
  const noDocument = () => new ResponseError(ErrorCodes.InvalidParams, `querylens: no document "${params.docno}" in the index`);
  if (cluster) {
    try {
      await cluster.backend.document(params.docno);
    } catch (err) {
      if ((err as { code?: unknown }).code === 'cluster/document-missing') throw noDocument();
      clusterFailure(err);
    }
  } else if (session instanceof EngineSession && session.backend.docByDocno(params.docno) === undefined) throw noDocument();
  await step(context.documents, doc, token);
  let edit;
  try {
    edit = judgeInFile(path, qid, params.docno, params.grade);
  } catch (err) {
    if (err instanceof JudgementRefused) throw invalidRequest(err.message);
    throw err;
  }
  // The loaded judgements follow the file, so the preview, the lenses and sweeps see the grade at once.
  let judged = session.qrels.get(qid);
  if (!judged) session.qrels.set(qid, (judged = new Map()));
  judged.set(params.docno, params.grade);
  if (session instanceof EngineSession) {
    session.caches.delete('lens');
    session.caches.delete(UNJUDGED_CACHE);
  }
  host.refreshCodeLenses();
  host.refreshDiagnostics();
  return { qrels: path, line: edit.line, action: edit.action, previous: edit.previous };
}

const isMetrics = (x: unknown): x is PerQueryMetrics =>
  typeof x === 'object' && x !== null && Object.values(x).every((m) => typeof m === 'object' && m !== null && Object.values(m).every((v) => typeof v === 'number'));

const orNull = (x: number): number | null => (Number.isFinite(x) ? x : null);

const invalidParams = (message: string) => new ResponseError(ErrorCodes.InvalidParams, `querylens: ${message}`);

/** The two-try form (`baseline`, `treatment`) as before, or the several-try form (`tries`, `baselineIndex`). */
export function compareTriesRequest(params: CompareTriesParams): CompareTriesResult | CompareTryListResult {
  const test = params?.test ?? 't';
  if (test !== 't' && test !== 'randomization') throw invalidParams('test must be "t" or "randomization"');
  if (params?.tries !== undefined) {
    if (params.baseline !== undefined || params.treatment !== undefined) throw invalidParams('give either tries or baseline and treatment, not both');
    if (!Array.isArray(params.tries) || params.tries.length < 2) throw invalidParams('tries must be an array of two or more tries');
    const bad = params.tries.findIndex((t) => !isMetrics(t));
    if (bad >= 0) throw invalidParams(`tries[${bad}] must map each qid to its measures (numbers)`);
    const baselineIndex = params.baselineIndex ?? 0;
    if (!Number.isInteger(baselineIndex) || baselineIndex < 0 || baselineIndex >= params.tries.length)
      throw invalidParams(`baselineIndex must be an index of tries (0..${params.tries.length - 1}), got ${JSON.stringify(baselineIndex)}`);
    const measures = params.measures ?? Object.keys(Object.values(params.tries[baselineIndex]!)[0] ?? {});
    if (!Array.isArray(measures) || !measures.every((m) => typeof m === 'string')) throw invalidParams('measures must be an array of names');
    const result = compareTryList(params.tries, measures, test, baselineIndex);
    return {
      test,
      baselineIndex,
      queries: result.queries,
      comparisons: result.comparisons,
      rows: result.rows.map((r) => ({
        measure: r.measure,
        pairs: r.pairs,
        cells: r.cells.map((c) => ({ mean: orNull(c.mean), meanDifference: c.meanDifference === null ? null : orNull(c.meanDifference), p: c.p === null ? null : orNull(c.p), pHolm: c.pHolm === null ? null : orNull(c.pHolm) })),
      })),
    };
  }
  if (!isMetrics(params?.baseline) || !isMetrics(params?.treatment)) throw invalidParams('baseline and treatment must map each qid to its measures (numbers)');
  const measures = params.measures ?? Object.keys(Object.values(params.baseline)[0] ?? {});
  if (!Array.isArray(measures) || !measures.every((m) => typeof m === 'string')) throw invalidParams('measures must be an array of names');
  const result = compareTries(params.baseline, params.treatment, measures, test);
  return {
    test,
    queries: result.queries,
    rows: result.rows.map((r) => ({
      measure: r.measure,
      baselineMean: orNull(r.baselineMean),
      treatmentMean: orNull(r.treatmentMean),
      meanDifference: orNull(r.meanDifference),
      p: orNull(r.p),
      pHolm: orNull(r.pHolm),
    })),
  };
}

export function panelRequestsModule(context: EngineContext): FeatureModule {
  return {
    id: 'engine/panel-requests',
    register(connection: Connection, host: FeatureHost) {
      const disposables = [
        connection.onRequest(JUDGE_REQUEST, (params: JudgeParams, token) => judge(context, host, params, token)),
        connection.onRequest(COMPARE_TRIES_REQUEST, (params: CompareTriesParams): unknown => compareTriesRequest(params)),
      ];
      return { dispose: () => disposables.forEach((d) => d.dispose()) };
    },
  };
}
