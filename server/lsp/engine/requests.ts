/**
 * The engine's custom requests (types in protocol.ts, documented in docs/LSP_EXTENSIONS.md):
 * - `querylens/preview`: the ranked list of one query with snippets, scores, explanations,
 *   relevance and metrics;
 * - `querylens/explain`: why one document (retrieved or not) scores what it does;
 * - `querylens/compare`: the original query against its Bo1 expansion, side by side;
 * - `querylens/runFile`: every query of a document ranked into TREC run lines (what
 *   `querylens search` prints for the same file, scorer and expansion), with trec_eval means;
 * - `querylens/weighFile`: one edit weighing every query the model can weigh, each exactly the
 *   single-query "Apply … weights" action's edit, and the reason for every other query;
 * - `querylens/buildIndex`: the configured corpus built into the configured index folder, with
 *   work-done progress and cancellation; the previous index survives a failed or cancelled build.
 *
 * The requests are registered at `initialized`, before the first configuration: while the index
 * is being built or loaded and none is open yet, the index-backed ones fail with InvalidRequest
 * "the index is being built from … / being loaded" (`data: { index: 'building' | 'loading' }`),
 * `querylens/buildIndex` joins a running build of the same corpus and folder, and weighFile
 * says that the model is not loaded yet.
 *
 * Each request names the document version it was made for; an edit makes it stale: it fails
 * with ContentModified before or between its steps, and with RequestCancelled when the client
 * cancels it. Steps yield to the event loop so those messages are seen.
 */
import { existsSync } from 'node:fs';
import { ErrorCodes, LSPErrorCodes, ResponseError, type CancellationToken, type Connection } from 'vscode-languageserver';
import { printIndri, printLucene, translate, type QueryAst, type QueryEntry } from '../../../grammar/index.js';
import type { ScorerName, SearchHit } from '../../engine/search.js';
import { explainDocument as explainInBackend } from '../../service/explain.js';
import { rankQuery } from '../../service/ranking.js';
import { matchedTerms } from '../../service/snippets.js';
import { isVerbatim, rangeInFile, type QueryDocument } from '../documents.js';
import type { FeatureHost, FeatureModule } from '../features.js';
import type { LiveDocuments } from './live-documents.js';
import { throwIfCancelled, yieldToEventLoop } from './live-documents.js';
import {
  BUILD_INDEX_REQUEST,
  COMPARE_REQUEST,
  EXPLAIN_REQUEST,
  PREVIEW_REQUEST,
  RUN_FILE_REQUEST,
  WEIGH_FILE_REQUEST,
  type BuildIndexParams,
  type BuildIndexResult,
  type CompareParams,
  type CompareResult,
  type ExplainParams,
  type ExplainResult,
  type PreviewHit,
  type PreviewParams,
  type PreviewResult,
  type QueryMetrics,
  type RankedVariant,
  type DocumentRef,
  type RunFileParams,
  type RunFileResult,
  type TextEditLike,
  type WeighFileResult,
} from './protocol.js';
import type { EngineContext } from './context.js';
import { clusterExplain, clusterPreview } from './cluster-features.js';
import { clusterCompare, clusterRunFile } from './cluster-requests.js';
import { bo1Expansion, expandedQueryText, runnable, runQueryAst } from './ranking.js';
import { judgedQid, type EngineSession } from './session.js';
import { judgedTopic, relevantNotShown } from './not-shown.js';
import { clusterFailureReason, weightsRewrite, type WeightsRewrite } from './weights-action.js';
import { indexCollection, weighableQuery, weighCached, weighedQueryAst } from './weights.js';
import { RunFileBuilder } from './run-file.js';
import { compareRows } from './compare-rows.js';
import { learnedFor, nothingSuggested } from './learned-expansion.js';
import type { LoadedLearnedExpansion } from './learned-model.js';
import { expandLearnedText } from '../../service/surface-expansion.js';
import { collectionOf } from './collection.js';

/** Ranking depth for metrics and ranks (trec_eval's usual cut). */
const DEPTH = 1000;

export function requireSession(context: EngineContext): EngineSession {
  const session = context.session();
  if (session) return session;
  const cluster = context.cluster();
  if (cluster) {
    throw new ResponseError(
      ErrorCodes.InvalidRequest,
      `querylens: this request is not available on a cluster backend yet (this workspace ranks on ${cluster.backend.location}); the other engine features and requests are. Remove "backend" from querylens.json to use the local index`,
      { backend: 'cluster' },
    );
  }
  // The first-use build (or a load) is under way: say so, rather than "no index".
  const activity = context.indexActivity();
  if (activity) {
    throw new ResponseError(ErrorCodes.InvalidRequest, `querylens: ${activity.message}; try again when it is ready (querylens/status says "ready")`, {
      index: activity.kind,
    });
  }
  throw new ResponseError(ErrorCodes.InvalidRequest, 'querylens: no index is loaded; see querylens/status for the reason and the fix');
}

function requireRunnable(entry: QueryEntry): QueryAst {
  if (!runnable(entry)) throw new ResponseError(ErrorCodes.InvalidParams, `querylens: query ${entry.qid} has syntax errors or is empty`);
  return entry.result.ast;
}

function checkK(k: unknown, fallback: number): number {
  if (k === undefined) return fallback;
  if (!Number.isInteger(k) || (k as number) < 1 || (k as number) > DEPTH) throw new ResponseError(ErrorCodes.InvalidParams, `querylens: k must be an integer in 1..${DEPTH}`);
  return k as number;
}

export async function step(documents: LiveDocuments, doc: QueryDocument, token: CancellationToken): Promise<void> {
  await yieldToEventLoop();
  documents.checkFresh(doc, token);
}

export async function preview(context: EngineContext, params: PreviewParams, token: CancellationToken): Promise<PreviewResult> {
  const cluster = context.cluster();
  const session = cluster ? null : requireSession(context);
  const k = checkK(params.k, 10);
  const offset = params.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0 || offset + k > DEPTH)
    throw new ResponseError(ErrorCodes.InvalidParams, `querylens: offset must be an integer ≥ 0 with offset + k at most ${DEPTH}`);
  const { doc, entry } = await context.documents.resolve(params.uri, params.qid, params.version, token);
  const ast = requireRunnable(entry);
  if (cluster) return clusterPreview(cluster, entry, ast, doc.version, { k, offset, explain: params.explain !== false }, () => step(context.documents, doc, token));
  if (!session) throw new Error('unreachable: requireSession returned a session');
  const result = runQueryAst(session, ast, DEPTH);
  await step(context.documents, doc, token);
  const terms = matchedTerms(result.concepts);
  const hits: PreviewHit[] = [];
  for (const [i, h] of result.hits.slice(offset, offset + k).entries()) {
    hits.push({
      rank: offset + i + 1,
      docno: h.docno,
      title: session.title(h.doc),
      snippet: session.backend.snippet(h.doc, terms),
      score: h.score,
      ...(params.explain === false ? {} : { explanation: session.backend.explain(ast, h.doc, session.options) }),
      relevance: session.relevance(judgedQid(entry), h.docno),
    });
  }
  await step(context.documents, doc, token);
  const s = session.config.scorer;
  return {
    qid: entry.qid,
    query: entry.text,
    version: doc.version,
    matchedDocs: result.matchedDocs,
    hits,
    metrics: session.metrics(judgedQid(entry), result.hits),
    offset,
    relevantNotShown: relevantNotShown(judgedTopic(session.qrels, judgedQid(entry)), result.hits, offset + k, (docno) => {
      const d = session.backend.docByDocno(docno);
      return d === undefined ? '' : session.title(d);
    }),
    warnings: result.warnings.map((w) => ({ code: w.code, message: w.message })),
    scorer: { name: s.name, k1: s.k1, b: s.b, mu: s.mu },
  };
}

export async function explainDocument(context: EngineContext, params: ExplainParams, token: CancellationToken): Promise<ExplainResult> {
  const cluster = context.cluster();
  const session = cluster ? null : requireSession(context);
  const { doc, entry } = await context.documents.resolve(params.uri, params.qid, params.version, token);
  const ast = requireRunnable(entry);
  if (cluster) {
    if (typeof params.docno !== 'string' || params.docno === '') throw new ResponseError(ErrorCodes.InvalidParams, 'querylens: "docno" must be a document id');
    return clusterExplain(cluster, entry, ast, params.docno, () => step(context.documents, doc, token));
  }
  if (!session) throw new Error('unreachable: requireSession returned a session');
  const d = typeof params.docno === 'string' ? session.backend.docByDocno(params.docno) : undefined;
  if (d === undefined) throw new ResponseError(ErrorCodes.InvalidParams, `querylens: no document "${String(params.docno)}" in the index`);
  const { explanation, rank } = explainInBackend(session.backend, ast, d, session.options, DEPTH);
  await step(context.documents, doc, token);
  return {
    qid: entry.qid,
    docno: params.docno,
    title: session.title(d),
    rank,
    score: explanation.matched === false ? null : explanation.value,
    explanation,
    relevance: session.relevance(judgedQid(entry), params.docno),
  };
}

function variant(session: EngineSession, qid: string | null, name: string, query: string, hits: readonly SearchHit[], k: number): RankedVariant {
  return {
    name,
    query,
    hits: hits.slice(0, k).map((h, i) => ({ rank: i + 1, docno: h.docno, title: session.title(h.doc), score: h.score, relevance: session.relevance(qid, h.docno) })),
    metrics: session.metrics(qid, hits),
  };
}

function delta(a: QueryMetrics | null, b: QueryMetrics | null): QueryMetrics | null {
  if (!a || !b) return null;
  return Object.fromEntries(Object.keys(a).map((m) => [m, (b[m] ?? 0) - (a[m] ?? 0)]));
}

export async function compare(context: EngineContext, params: CompareParams, token: CancellationToken): Promise<CompareResult> {
  const cluster = context.cluster();
  const session = cluster ? null : requireSession(context);
  const k = checkK(params.k, 10);
  const { doc, entry } = await context.documents.resolve(params.uri, params.qid, params.version, token);
  const ast = requireRunnable(entry);
  if (cluster) return clusterCompare(cluster, entry, ast, doc.version, k, context.model(), () => step(context.documents, doc, token));
  if (!session) throw new Error('unreachable: requireSession returned a session');
  const original = runQueryAst(session, ast, DEPTH);
  await step(context.documents, doc, token);
  const expansion = bo1Expansion(session, ast);
  await step(context.documents, doc, token);
  const expanded = runQueryAst(session, expansion.ast, DEPTH);
  await step(context.documents, doc, token);

  const lists: ComparedList[] = [
    { name: 'original', query: entry.text, hits: original.hits },
    { name: 'bo1', query: expandedQueryText(session, ast, expansion, entry.dialect), hits: expanded.hits },
  ];
  const notes: string[] = [];
  const loaded = context.model();
  // The one rule of `querylens weigh` and the weights action (weighableQuery, structured-weights.ts).
  const weighable = loaded ? weighableQuery(ast, entry.text) : null;
  if (!loaded) notes.push('No weighted variant: no term-weighting model is loaded (set "model" in querylens.json).');
  else if (!weighable!.ok) notes.push(`No weighted variant: ${weighable!.refusal.message}.`);
  else {
    const { query } = weighable!;
    const weightedAst = weighedQueryAst(ast, query, await weighCached(loaded, query.plan.text, undefined, indexCollection(session)));
    await step(context.documents, doc, token);
    if (weightedAst.root) {
      const weighted = runQueryAst(session, weightedAst, DEPTH);
      const text = entry.dialect === 'lucene' ? (query.plan.flat ? translate(weightedAst, 'lucene').text : printLucene(weightedAst)) : printIndri(weightedAst);
      lists.push({ name: 'weighted', query: text, hits: weighted.hits });
    }
  }
  const learned = await learnedVariants(context, session, entry, lists.find((l) => l.name === 'weighted')?.query ?? null, notes);
  await step(context.documents, doc, token);
  if (learned) {
    lists.splice(2, 0, learned.learned);
    lists.push(learned.combined);
  }
  const variants = lists.map((l) => variant(session, judgedQid(entry), l.name, l.query, l.hits, k));

  const rows = compareRows(lists, k, (docno, h) => ({ title: session.title(h.doc), relevance: session.relevance(judgedQid(entry), docno) }));

  const judged = judgedQid(entry);
  const deltas = judged !== null && session.qrels?.has(judged)
    ? Object.fromEntries(variants.slice(1).map((v) => [v.name, delta(variants[0]!.metrics, v.metrics)!]))
    : null;
  return {
    qid: entry.qid,
    version: doc.version,
    variants,
    rows,
    expansionTerms: expansion.terms.map((t) => ({ term: t.term, weight: t.weight, isOriginal: t.isOriginal })),
    deltas,
    notes,
    ...(learned ? { learned: learned.suggestions } : {}),
  };
}

/**
 * compare's learned columns: `learned` (the query as written with the learned expansion, as the action writes
 * it) and the best combination a user can build in the editor, `learned+bo1+weighted` (TW-BERT's query, its
 * learned expansion, then Bo1 on that: weigh, accept the suggestions, add Bo1's terms), or `learned+bo1`
 * without a weighting model. When the model suggests nothing the columns stay, and a note says why.
 */
async function learnedVariants(
  context: EngineContext,
  session: EngineSession,
  entry: QueryEntry,
  weightedText: string | null,
  notes: string[],
): Promise<{ learned: ComparedList; combined: ComparedList; suggestions: NonNullable<CompareResult['learned']> } | null> {
  const loaded = context.learnedExpansion();
  if (!loaded) {
    notes.push('No learned variants: no learned-expansion model is loaded (surface.json in the "model" folder; querylens/status says why).');
    return null;
  }
  const dialect = entry.dialect === 'lucene' ? 'lucene' : 'indri';
  try {
    return await learnedLists(session, loaded, entry, dialect, weightedText, notes);
  } catch (err) {
    notes.push(`No learned variants: the learned-expansion model failed on this query: ${err instanceof Error ? err.message : String(err)}`);
    return null;
  }
}

async function learnedLists(
  session: EngineSession,
  loaded: LoadedLearnedExpansion,
  entry: QueryEntry,
  dialect: 'indri' | 'lucene',
  weightedText: string | null,
  notes: string[],
): Promise<{ learned: ComparedList; combined: ComparedList; suggestions: NonNullable<CompareResult['learned']> }> {
  const x = await learnedFor(session, loaded, entry);
  const suggested = x.suggestions.filter((w) => w.alternatives.length);
  if (!suggested.length) notes.push(`${nothingSuggested(loaded, x)} The learned column ranks the query as written.`);
  const base = weightedText ?? entry.text;
  if (weightedText === null) notes.push('No learned + Bo1 + TW-BERT variant without a weighted query; learned + Bo1 is shown instead.');
  const onBase = weightedText === null ? x : await expandLearnedText(session.backend, base, dialect, loaded.tools);
  const expansion = bo1Expansion(session, onBase.ast);
  return {
    learned: { name: 'learned', query: x.text, hits: runQueryAst(session, x.ast, DEPTH).hits },
    combined: {
      name: weightedText === null ? 'learned+bo1' : 'learned+bo1+weighted',
      query: expandedQueryText(session, onBase.ast, expansion, dialect),
      hits: runQueryAst(session, expansion.ast, DEPTH).hits,
    },
    suggestions: suggested.map((w) => ({ word: w.word, alternatives: w.alternatives.map((a) => ({ word: a.word, weight: a.weight })) })),
  };
}

type ComparedList = { name: string; query: string; hits: SearchHit[] };

/** Deepest run `querylens/runFile` writes per query. */
const MAX_RUN_DEPTH = 10_000;

/**
 * The parsed document of the requested version (the whole-file counterpart of
 * LiveDocuments.resolve, same rules: wait up to 2 s for a version not yet seen, ContentModified
 * for one the document moved past).
 */
export async function resolveDocument(documents: LiveDocuments, params: DocumentRef, token: CancellationToken): Promise<QueryDocument> {
  const { uri, version } = params;
  if (typeof uri !== 'string') throw new ResponseError(ErrorCodes.InvalidParams, 'querylens: uri must be a string');
  const deadline = Date.now() + 2000;
  let doc = documents.current(uri);
  while ((!doc || (version !== undefined && doc.version < version)) && Date.now() < deadline) {
    throwIfCancelled(token);
    await new Promise((r) => setTimeout(r, 10));
    doc = documents.current(uri);
  }
  if (!doc) throw new ResponseError(ErrorCodes.InvalidParams, `querylens: ${uri} is not open (or not an Indri/Lucene document)`);
  if (version !== undefined && doc.version < version)
    throw new ResponseError(ErrorCodes.InvalidParams, `querylens: version ${version} of ${uri} never arrived (the server has version ${doc.version})`);
  if (version !== undefined && doc.version !== version)
    throw new ResponseError(LSPErrorCodes.ContentModified, `querylens: ${uri} changed (version ${version} → ${doc.version}); ask again`);
  return doc;
}

export function notRunnableReason(entry: QueryEntry): string {
  return entry.result.ast.root === null ? 'the query is empty' : 'the query has syntax errors';
}

export async function runFile(context: EngineContext, params: RunFileParams, token: CancellationToken): Promise<RunFileResult> {
  const cluster = context.cluster();
  const session = cluster ? null : requireSession(context);
  const k = params.k === undefined ? DEPTH : params.k;
  if (!Number.isInteger(k) || k < 1 || k > MAX_RUN_DEPTH) throw new ResponseError(ErrorCodes.InvalidParams, `querylens: k must be an integer in 1..${MAX_RUN_DEPTH}`);
  const tag = params.tag ?? 'querylens';
  // The tag is the last of six whitespace-separated columns (SEMANTICS.md §1.7 run format).
  if (typeof tag !== 'string' || !/^\S+$/.test(tag)) throw new ResponseError(ErrorCodes.InvalidParams, 'querylens: tag must be one word without spaces');
  if (cluster) {
    // The cluster index's own similarity ranks: no other scorer can be asked of it from here.
    if (params.scorer !== undefined)
      throw new ResponseError(ErrorCodes.InvalidParams, `querylens: scorer cannot be chosen on a cluster backend: the index's similarity on ${cluster.backend.location} ranks every query`);
    const doc = await resolveDocument(context.documents, params, token);
    return clusterRunFile(cluster, { doc, k, tag, step: () => step(context.documents, doc, token), notRunnableReason });
  }
  if (!session) throw new Error('unreachable: requireSession returned a session');
  const scorers = session.backend.scorers();
  if (params.scorer !== undefined && !(scorers as string[]).includes(params.scorer))
    throw new ResponseError(ErrorCodes.InvalidParams, `querylens: scorer must be one that can rank this index: ${scorers.join(', ')} (got ${JSON.stringify(params.scorer)})`);
  const doc = await resolveDocument(context.documents, params, token);
  const { expansion: exp } = session.config;
  const s = { ...session.config.scorer, name: (params.scorer as ScorerName | undefined) ?? session.config.scorer.name };
  const options = session.optionsWithScorer(s.name);
  const expand = exp.method === 'bo1' ? { method: 'bo1' as const, fbDocs: exp.fbDocs, fbTerms: exp.fbTerms } : undefined;

  const built = new RunFileBuilder(tag);
  for (const entry of doc.source.entries) {
    if (!runnable(entry)) {
      built.skip(entry, notRunnableReason(entry));
      continue;
    }
    // The same call and formatting as `querylens search` (server/cli/commands/search.ts).
    built.add(entry, rankQuery(session.backend, entry.result.ast, { ...options, k, expand }).hits);
    await step(context.documents, doc, token);
  }
  return built.result(doc.version, session.qrels, {
    scorer: { name: s.name, k1: s.k1, b: s.b, mu: s.mu },
    scorers,
    expansion: expand ? { method: expand.method, fbDocs: expand.fbDocs, fbTerms: expand.fbTerms } : null,
  });
}

export async function weighFile(context: EngineContext, host: FeatureHost, params: DocumentRef, token: CancellationToken): Promise<WeighFileResult> {
  const doc = await resolveDocument(context.documents, params, token);
  const loaded = context.model();
  if (!loaded) {
    const config = await host.configuration();
    const activity = context.indexActivity();
    // The model is loaded after the index: while that is being built or opened it is not there yet.
    if (config.model && activity) {
      throw new ResponseError(
        ErrorCodes.InvalidRequest,
        `querylens: the term-weighting model is not loaded yet (the server loads it after the index, and ${activity.message}); try again when querylens/status says the model is ready.`,
        { model: activity.kind },
      );
    }
    // Never fake weights: say why there is no model and how to get one.
    const status = context.modelStatus();
    const fix = status.fix ?? 'Set "model" in querylens.json (or the querylens.model setting) to the model folder, e.g. model/artifacts.';
    throw new ResponseError(ErrorCodes.InvalidRequest, `querylens: no term-weighting model is loaded: ${status.message} ${fix}`);
  }
  // Every weighable query is sent to the model before any answer is awaited, so the batcher
  // (server/model/batcher.ts) merges them into as few model runs as it can (32 queries a run);
  // awaiting query by query would cost one model run per query.
  const isStale = () => token.isCancellationRequested || context.documents.isStale(doc);
  const planned = doc.source.entries.map((entry): { entry: QueryEntry; reason?: string; action?: Promise<WeightsRewrite> } => {
    if (!runnable(entry)) return { entry, reason: notRunnableReason(entry) };
    if (!isVerbatim(doc, entry)) return { entry, reason: 'the query is not written verbatim in the file (escaped characters), so it cannot be rewritten in place' };
    // The single-query code action at the query's start: the file edit is, per query, exactly that action's edit.
    const at = rangeInFile(doc, entry, 0, 0).start;
    const action = weightsRewrite(loaded, { doc, range: { start: at, end: at }, context: { diagnostics: [] }, clientCapabilities: { resourceOperations: false } }, isStale, collectionOf(context));
    return { entry, action };
  });
  const settled = await Promise.allSettled(planned.map((p) => p.action ?? Promise.resolve(null)));
  // An edit or a cancel while the model ran: fail as stale (a dropped request rejected for the same reason).
  context.documents.checkFresh(doc, token);

  const edits: TextEditLike[] = [];
  const weighed: WeighFileResult['weighed'] = [];
  const notWeighed: WeighFileResult['notWeighed'] = [];
  planned.forEach(({ entry, reason }, i) => {
    if (reason) {
      notWeighed.push({ qid: entry.qid, reason });
      return;
    }
    const result = settled[i]!;
    if (result.status === 'rejected') {
      const cluster = clusterFailureReason(result.reason);
      notWeighed.push({
        qid: entry.qid,
        reason: cluster ? `the cluster's statistics the model reads are unavailable: ${cluster}` : `the model failed on it: ${result.reason instanceof Error ? result.reason.message : String(result.reason)}`,
      });
      return;
    }
    const outcome = result.value;
    if (outcome && 'unchanged' in outcome) notWeighed.push({ qid: entry.qid, reason: outcome.unchanged });
    else {
      const edit = outcome?.action.edit?.changes?.[doc.uri]?.[0];
      if (edit) {
        edits.push(edit);
        weighed.push({ qid: entry.qid, text: edit.newText });
      } else notWeighed.push({ qid: entry.qid, reason: 'the model gave none of its words a weight (stopwords only)' });
    }
  });
  return {
    version: doc.version,
    model: loaded.model.name,
    device: loaded.model.device,
    edit: { changes: edits.length ? { [doc.uri]: edits } : {} },
    weighed,
    notWeighed,
    notices: [...loaded.model.notices],
  };
}

export async function buildIndexNow(context: EngineContext, host: FeatureHost, connection: Connection, params: BuildIndexParams | null, token: CancellationToken): Promise<BuildIndexResult> {
  // Sent right after start-up, the request may arrive before querylens.json has been read.
  const config = await host.configuration();
  const hadIndex = !!config.index && existsSync(config.index);
  const reporter = params?.workDoneToken !== undefined ? connection.window.attachWorkDoneProgress(params.workDoneToken) : null;
  // Joins the first-use build when it is the same corpus and folder (provider.ts).
  const building = context.rebuildIndex(config, { reporter, token });
  // The preview lenses now say that the index is being rebuilt.
  host.refreshCodeLenses();
  const outcome = await building;
  if (outcome.cancelled) {
    const kept = hadIndex ? `the previous index at ${config.index} is unchanged` : `nothing was written at ${config.index}`;
    throw new ResponseError(LSPErrorCodes.RequestCancelled, `querylens: building the index was cancelled; ${kept}.`);
  }
  if (!outcome.summary) {
    const { message, fix } = outcome.status;
    const kept = hadIndex ? ` The previous index at ${config.index} is unchanged.` : '';
    throw new ResponseError(ErrorCodes.InvalidRequest, `querylens: ${message}${kept}${fix ? ` ${fix}` : ''}`);
  }
  // Reopen the new index, announce it in querylens/status and refresh the diagnostics.
  await host.reloadConfiguration();
  const { summary } = outcome;
  return { corpus: config.corpus!, index: summary.outDir, docs: summary.docs, terms: summary.terms, seconds: summary.seconds };
}

export function requestsModule(context: EngineContext): FeatureModule {
  return {
    id: 'engine/requests',
    register(connection: Connection, host: FeatureHost) {
      const disposables = [
        connection.onRequest(PREVIEW_REQUEST, (params: PreviewParams, token) => preview(context, params, token)),
        connection.onRequest(EXPLAIN_REQUEST, (params: ExplainParams, token) => explainDocument(context, params, token)),
        connection.onRequest(COMPARE_REQUEST, (params: CompareParams, token) => compare(context, params, token)),
        connection.onRequest(RUN_FILE_REQUEST, (params: RunFileParams, token) => runFile(context, params, token)),
        connection.onRequest(WEIGH_FILE_REQUEST, (params: DocumentRef, token) => weighFile(context, host, params, token)),
        connection.onRequest(BUILD_INDEX_REQUEST, (params: BuildIndexParams | null, token) => buildIndexNow(context, host, connection, params, token)),
      ];
      return { dispose: () => disposables.forEach((d) => d.dispose()) };
    },
  };
}
