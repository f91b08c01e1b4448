/**
 * The workbench's custom requests (types in workbench-protocol.ts, documented in
 * docs/LSP_EXTENSIONS.md): `querylens/sweep` (a document's queries over a parameter grid, each
 * setting evaluated with the qrels, and the edit that writes the best one into querylens.json) and
 * the index browser (`querylens/indexTerms`, `querylens/postings`, `querylens/document`,
 * `querylens/analyze`); on a cluster, clusterSweep below (fbDocs/fbTerms) and cluster-browser.ts. They delegate to server/engine/sweep.ts and server/engine/index/browse.ts,
 * what `querylens sweep`, `terms`, `postings`, `doc` and `analyze` print. Like the other engine
 * requests: no index loaded is InvalidRequest with the reason (analyze answers without one, saying
 * so), bad parameters are InvalidParams, and the sweep is stale-checked and cancellable between settings.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ErrorCodes, ResponseError, type CancellationToken, type Connection } from 'vscode-languageserver';
import { createAnalyzer } from '../../engine/analysis/index.js';
import { resolveMeasureNames, UnknownMeasureError } from '../../engine/eval/index.js';
import { analyzeInIndex, analyzeWithoutIndex, BrowseError, documentOf, NotLocalIndexError, postingsOf, sweepQueries, topTerms } from '../../service/workbench.js';
import { checkSweepValues, gridSettings, SweepGridError, SWEEP_PARAMETERS, type SweepGrid, type SweepQuery, type SweepSetting } from '../../engine/sweep.js';
import { CONFIG_FILE_NAME } from '../config.js';
import { ConfigEditRefused, lineColumnAt, setConfigValues, sweepSettingValues, type ConfigValue } from '../config-edit.js';
import type { FeatureModule } from '../features.js';
import type { EngineContext } from './context.js';
import type { TextEditLike } from './protocol.js';
import { runnable } from './ranking.js';
import { notRunnableReason, requireSession, resolveDocument, step } from './requests.js';
import { PREVIEW_MEASURES } from './session.js';
import type { QueryEntry } from '../../../grammar/index.js';
import { clusterFailure } from './cluster-features.js';
import type { ClusterSession } from './cluster-session.js';
import { clusterSweepNote, clusterSweepSettings, clusterSweepValues, NOTHING_TO_SWEEP, similaritySweepRefusal, sweepOnCluster } from '../../service/cluster-sweep.js';
import { clusterAnalyze, clusterDocument, clusterIndexTerms, clusterPostings } from './cluster-browser.js';
import {
  ANALYZE_REQUEST,
  DOCUMENT_REQUEST,
  INDEX_TERMS_REQUEST,
  POSTINGS_REQUEST,
  SWEEP_REQUEST,
  type AnalyzeParams,
  type AnalyzeResult,
  type DocumentParams,
  type DocumentResult,
  type IndexTermsParams,
  type IndexTermsResult,
  type PostingsParams,
  type PostingsResult,
  type SweepParams,
  type SweepResult,
} from './workbench-protocol.js';

/** Runs a browser or sweep call; a backend without a local index is an InvalidRequest that says why. */
function local<T>(run: () => T): T {
  try {
    return run();
  } catch (err) {
    if (err instanceof NotLocalIndexError) throw new ResponseError(ErrorCodes.InvalidRequest, `querylens: ${err.message}`);
    throw err;
  }
}

function invalidParams(message: string): ResponseError<void> {
  return new ResponseError(ErrorCodes.InvalidParams, `querylens: ${message}`);
}

/** An optional count parameter: the default when absent, else the value as given (the browser checks its range). */
function count(value: unknown, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number') throw invalidParams(`${name} must be a number`);
  return value;
}

function browse<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof BrowseError) throw invalidParams(err.message);
    throw err;
  }
}

/** The WorkspaceEdit that writes the setting into `<root>/querylens.json`, or why there is none. */
function configEditFor(root: string | null, setting: SweepSetting, values: ConfigValue[] = sweepSettingValues(setting)): Pick<SweepResult, 'configEdit' | 'configEditRefused'> {
  if (!root) return { configEdit: null, configEditRefused: 'no workspace folder, so no querylens.json to write' };
  const path = join(root, CONFIG_FILE_NAME);
  if (!existsSync(path)) return { configEdit: null, configEditRefused: `there is no ${CONFIG_FILE_NAME} in ${root}` };
  const text = readFileSync(path, 'utf8');
  try {
    const { edits } = setConfigValues(text, values);
    const position = (offset: number) => {
      const { line, column } = lineColumnAt(text, offset);
      return { line: line - 1, character: column - 1 };
    };
    const lspEdits: TextEditLike[] = edits.map((e) => ({ range: { start: position(e.offset), end: position(e.offset + e.length) }, newText: e.content }));
    return { configEdit: { changes: { [pathToFileURL(path).toString()]: lspEdits } }, configEditRefused: null };
  } catch (err) {
    if (err instanceof ConfigEditRefused) return { configEdit: null, configEditRefused: `${path}: ${err.message}` };
    throw err;
  }
}

/** The sweep's measures and the one that picks the best setting (InvalidParams for an unknown name). */
function sweepMeasures(params: SweepParams): { measures: string[]; by: string } {
  try {
    const measures = resolveMeasureNames(params.measures ?? PREVIEW_MEASURES);
    return { measures, by: resolveMeasureNames([params.by ?? measures[0]!])[0]! };
  } catch (err) {
    if (err instanceof UnknownMeasureError) throw invalidParams(err.message);
    throw err;
  }
}

function noQrels(): ResponseError<void> {
  return new ResponseError(ErrorCodes.InvalidRequest, 'querylens: no qrels are configured, so a sweep has nothing to evaluate with; set "qrels" in querylens.json');
}

/** The grid's values as given (InvalidParams for a value that is not a list of numbers in range). */
function sweepValues(params: SweepParams): SweepGrid['values'] {
  const values: SweepGrid['values'] = {};
  try {
    for (const name of SWEEP_PARAMETERS) {
      const given = params[name];
      if (given === undefined) continue;
      if (!Array.isArray(given)) throw new SweepGridError(`${name} must be an array of numbers`);
      values[name] = checkSweepValues(name, given);
    }
  } catch (err) {
    if (err instanceof SweepGridError) throw invalidParams(err.message);
    throw err;
  }
  return values;
}

/** A sweep on a cluster (server/service/cluster-sweep.ts): fbDocs and fbTerms; k1, b and mu refused with the reason. */
async function clusterSweep(context: EngineContext, cluster: ClusterSession, params: SweepParams, token: CancellationToken): Promise<SweepResult> {
  const similarity = (['k1', 'b', 'mu'] as const).filter((p) => params[p] !== undefined);
  if (similarity.length || params.scorer !== undefined) {
    const named = similarity.length ? similarity.join(' and ') : `the scorer ("${String(params.scorer)}")`;
    throw new ResponseError(ErrorCodes.InvalidRequest, `querylens: ${similaritySweepRefusal(cluster.backend.location, named)}`, { backend: 'cluster', refused: similarity.length ? similarity : ['scorer'] });
  }
  const doc = await resolveDocument(context.documents, params, token);
  const { measures, by } = sweepMeasures(params);
  if (!cluster.qrels) throw noQrels();
  const qrels = cluster.qrels;
  const values = sweepValues(params);
  if (!values.fbDocs && !values.fbTerms) throw invalidParams(NOTHING_TO_SWEEP);
  let settings: SweepSetting[];
  try {
    settings = clusterSweepSettings(cluster, values);
  } catch (err) {
    if (err instanceof SweepGridError) throw invalidParams(err.message);
    throw err;
  }
  const skipped: SweepResult['skipped'] = [];
  const judged: QueryEntry[] = [];
  for (const entry of doc.source.entries) {
    if (!runnable(entry)) skipped.push({ qid: entry.qid, reason: notRunnableReason(entry) });
    else if (!entry.implicitQid && qrels.has(entry.qid)) judged.push(entry);
  }
  if (judged.length === 0) throw new ResponseError(ErrorCodes.InvalidRequest, 'querylens: the qrels judge none of the queries with a written id, so no setting can be evaluated');
  let swept;
  try {
    const queries = judged.map((e) => ({ qid: e.qid, dialect: e.dialect, text: e.text, ast: e.result.ast }));
    swept = await sweepOnCluster(cluster, queries, qrels, settings, { measures, by }, () => step(context.documents, doc, token));
  } catch (err) {
    clusterFailure(err);
  }
  const { rows, best } = swept;
  return {
    version: doc.version,
    measures,
    by,
    rows,
    best,
    skipped,
    note: clusterSweepNote(cluster),
    ...configEditFor(cluster.config.root, rows[best]!.setting, clusterSweepValues(rows[best]!.setting)),
  };
}

export async function sweep(context: EngineContext, params: SweepParams, token: CancellationToken): Promise<SweepResult> {
  const cluster = context.cluster();
  if (cluster) return clusterSweep(context, cluster, params, token);
  const session = requireSession(context);
  const backend = session.backend;
  const doc = await resolveDocument(context.documents, params, token);
  const { scorer: configured, expansion } = session.config;
  const scorer = params.scorer ?? (params.mu ? 'ql' : params.k1 || params.b ? 'bm25' : configured.name);
  if (scorer !== 'bm25' && scorer !== 'ql') throw invalidParams(`scorer must be "bm25" or "ql"`);
  const { measures, by } = sweepMeasures(params);
  const qrels = session.qrels;
  if (!qrels) throw noQrels();
  const values = sweepValues(params);
  let settings: SweepSetting[];
  try {
    settings = gridSettings({
      scorer,
      values,
      base: { k1: configured.k1, b: configured.b, mu: configured.mu, fbDocs: expansion.fbDocs, fbTerms: expansion.fbTerms, bo1: expansion.method === 'bo1' },
    });
  } catch (err) {
    if (err instanceof SweepGridError) throw invalidParams(err.message);
    throw err;
  }
  const skipped: SweepResult['skipped'] = [];
  const queries: SweepQuery[] = [];
  for (const entry of doc.source.entries) {
    if (runnable(entry)) queries.push({ qid: entry.qid, ast: entry.result.ast, judged: !entry.implicitQid });
    else skipped.push({ qid: entry.qid, reason: notRunnableReason(entry) });
  }
  let result;
  try {
    result = await local(() => sweepQueries(backend, queries, qrels, settings, { measures, by, afterSetting: () => step(context.documents, doc, token) }));
  } catch (err) {
    if (err instanceof SweepGridError) throw new ResponseError(ErrorCodes.InvalidRequest, `querylens: ${err.message}`);
    throw err;
  }
  return {
    version: doc.version,
    measures: result.measures,
    by: result.by,
    rows: result.rows,
    best: result.best,
    skipped,
    ...configEditFor(session.config.root, result.rows[result.best]!.setting),
  };
}

export function indexTerms(context: EngineContext, params: IndexTermsParams | null): IndexTermsResult | Promise<IndexTermsResult> {
  const prefix = params?.prefix;
  if (prefix !== undefined && typeof prefix !== 'string') throw invalidParams('prefix must be a string');
  const cluster = context.cluster();
  if (cluster) return clusterIndexTerms(cluster, count(params?.top, 25, 'top'), prefix);
  const backend = requireSession(context).backend;
  const result = browse(() => local(() => topTerms(backend, { top: count(params?.top, 25, 'top'), prefix })));
  return { numDocs: backend.collectionStatistics().numDocs, ...result };
}

export function postings(context: EngineContext, params: PostingsParams): PostingsResult | Promise<PostingsResult> {
  if (typeof params?.term !== 'string') throw invalidParams('term must be a string');
  const cluster = context.cluster();
  if (cluster) return clusterPostings(cluster, params.term);
  const backend = requireSession(context).backend;
  const { analyzer, profile } = backend;
  const terms = analyzer.analyzeTerm(params.term, { raw: params.raw === true });
  if (terms.length === 0)
    throw invalidParams(analyzer.isStopword(params.term) ? `'${params.term}' is a stopword of the ${profile} analyser: it is not indexed` : `'${params.term}' has no letters or digits: it is not a term`);
  if (terms.length > 1) throw invalidParams(`'${params.term}' analyses to ${terms.length} terms (${terms.join(', ')}); give one`);
  const term = terms[0]!;
  const found = browse(() => local(() => postingsOf(backend, term, { maxDocs: count(params.maxDocs, 20, 'maxDocs'), maxPositions: count(params.maxPositions, 10, 'maxPositions') })));
  return found ? { ...found, found: true } : { term, found: false, df: 0, cf: 0, postings: [], cut: false };
}

export function documentRequest(context: EngineContext, params: DocumentParams): DocumentResult | Promise<DocumentResult> {
  if (typeof params?.docno !== 'string') throw invalidParams('docno must be a string');
  const cluster = context.cluster();
  if (cluster) return clusterDocument(cluster, params.docno, count(params.maxTerms, 50, 'maxTerms'));
  const backend = requireSession(context).backend;
  const view = browse(() => local(() => documentOf(backend, params.docno, { maxTerms: count(params.maxTerms, 50, 'maxTerms') })));
  if (!view) throw invalidParams(`no document "${params.docno}" in the index`);
  return view;
}

/** Without an index the terrier analyser still answers (the default profile), and says that no statistics are shown. */
export function analyze(context: EngineContext, params: AnalyzeParams): AnalyzeResult | Promise<AnalyzeResult> {
  if (typeof params?.text !== 'string') throw invalidParams('text must be a string');
  const cluster = context.cluster();
  if (cluster) return clusterAnalyze(cluster, params.text);
  const session = context.session();
  if (session) {
    const backend = session.backend;
    return { profile: backend.profile, indexed: true, note: null, words: local(() => analyzeInIndex(backend, params.text)) };
  }
  const activity = context.indexActivity();
  const why = activity ? activity.message : 'no index is loaded (see querylens/status)';
  return {
    profile: 'terrier',
    indexed: false,
    note: `${why}: the terrier profile's analysis, without document frequencies`,
    words: analyzeWithoutIndex(createAnalyzer('terrier'), params.text),
  };
}

export function workbenchRequestsModule(context: EngineContext): FeatureModule {
  return {
    id: 'engine/workbench-requests',
    register(connection: Connection) {
      const disposables = [
        connection.onRequest(SWEEP_REQUEST, (params: SweepParams, token) => sweep(context, params, token)),
        connection.onRequest(INDEX_TERMS_REQUEST, (params: IndexTermsParams | null) => indexTerms(context, params)),
        connection.onRequest(POSTINGS_REQUEST, (params: PostingsParams) => postings(context, params)),
        connection.onRequest(DOCUMENT_REQUEST, (params: DocumentParams) => documentRequest(context, params)),
        connection.onRequest(ANALYZE_REQUEST, (params: AnalyzeParams) => analyze(context, params)),
      ];
      return { dispose: () => disposables.forEach((d) => d.dispose()) };
    },
  };
}
