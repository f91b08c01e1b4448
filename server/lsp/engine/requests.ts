/**
 * The engine's custom requests (types in protocol.ts, documented in docs/LSP_EXTENSIONS.md):
 * - `querylens/preview`: the ranked list of one query with snippets, scores, explanations,
 *   relevance and metrics;
 * - `querylens/explain`: why one document (retrieved or not) scores what it does;
 * - `querylens/compare`: the original query against its Bo1 expansion, side by side.
 *
 * Each request names the document version it was made for; an edit makes it stale: it fails
 * with ContentModified before or between its steps, and with RequestCancelled when the client
 * cancels it. Steps yield to the event loop so those messages are seen.
 */
import { ErrorCodes, ResponseError, type CancellationToken, type Connection } from 'vscode-languageserver';
import { printIndri, translate, type QueryAst, type QueryEntry } from '../../../grammar/index.js';
import { buildWeightedQueryAst } from '../../model/weighted-query.js';
import { explain, type SearchHit } from '../../engine/search.js';
import type { QueryDocument } from '../documents.js';
import type { FeatureModule } from '../features.js';
import type { LiveDocuments } from './live-documents.js';
import { yieldToEventLoop } from './live-documents.js';
import {
  COMPARE_REQUEST,
  EXPLAIN_REQUEST,
  PREVIEW_REQUEST,
  type CompareParams,
  type CompareResult,
  type CompareRow,
  type ExplainParams,
  type ExplainResult,
  type PreviewHit,
  type PreviewParams,
  type PreviewResult,
  type QueryMetrics,
  type RankedVariant,
} from './protocol.js';
import type { EngineContext } from './provider.js';
import { bo1Expansion, documentText, expandedQueryText, matchedTerms, runnable, runQueryAst, snippetOf } from './ranking.js';
import type { EngineSession } from './session.js';
import { modelQuery, weighCached } from './weights.js';

/** Ranking depth for metrics and ranks (trec_eval's usual cut). */
const DEPTH = 1000;

function requireSession(context: EngineContext): EngineSession {
  const session = context.session();
  if (!session) throw new ResponseError(ErrorCodes.InvalidRequest, 'querylens: no index is loaded; see querylens/status for the reason and the fix');
  return session;
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

async function step(documents: LiveDocuments, doc: QueryDocument, token: CancellationToken): Promise<void> {
  await yieldToEventLoop();
  documents.checkFresh(doc, token);
}

export async function preview(context: EngineContext, params: PreviewParams, token: CancellationToken): Promise<PreviewResult> {
  const session = requireSession(context);
  const k = checkK(params.k, 10);
  const { doc, entry } = await context.documents.resolve(params.uri, params.qid, params.version, token);
  const ast = requireRunnable(entry);
  const result = runQueryAst(session, ast, DEPTH);
  await step(context.documents, doc, token);
  const terms = matchedTerms(result.concepts);
  const hits: PreviewHit[] = [];
  for (const [i, h] of result.hits.slice(0, k).entries()) {
    hits.push({
      rank: i + 1,
      docno: h.docno,
      title: session.title(h.doc),
      snippet: snippetOf(session, documentText(session, h.doc), terms),
      score: h.score,
      ...(params.explain === false ? {} : { explanation: explain(session.reader, ast, h.doc, session.options) }),
      relevance: session.relevance(entry.qid, h.docno),
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
    metrics: session.metrics(entry.qid, result.hits),
    warnings: result.warnings.map((w) => ({ code: w.code, message: w.message })),
    scorer: { name: s.name, k1: s.k1, b: s.b, mu: s.mu },
  };
}

export async function explainDocument(context: EngineContext, params: ExplainParams, token: CancellationToken): Promise<ExplainResult> {
  const session = requireSession(context);
  const { doc, entry } = await context.documents.resolve(params.uri, params.qid, params.version, token);
  const ast = requireRunnable(entry);
  const d = typeof params.docno === 'string' ? session.reader.docByDocno(params.docno) : undefined;
  if (d === undefined) throw new ResponseError(ErrorCodes.InvalidParams, `querylens: no document "${String(params.docno)}" in the index`);
  const result = runQueryAst(session, ast, DEPTH);
  await step(context.documents, doc, token);
  const at = result.hits.findIndex((h) => h.doc === d);
  const explanation = explain(session.reader, ast, d, session.options);
  return {
    qid: entry.qid,
    docno: params.docno,
    title: session.title(d),
    rank: at >= 0 ? at + 1 : null,
    score: explanation.matched === false ? null : explanation.value,
    explanation,
    relevance: session.relevance(entry.qid, params.docno),
  };
}

function variant(session: EngineSession, qid: string, name: string, query: string, hits: readonly SearchHit[], k: number): RankedVariant {
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
  const session = requireSession(context);
  const k = checkK(params.k, 10);
  const { doc, entry } = await context.documents.resolve(params.uri, params.qid, params.version, token);
  const ast = requireRunnable(entry);
  const original = runQueryAst(session, ast, DEPTH);
  await step(context.documents, doc, token);
  const expansion = bo1Expansion(session, ast);
  await step(context.documents, doc, token);
  const expanded = runQueryAst(session, expansion.ast, DEPTH);
  await step(context.documents, doc, token);

  const lists: { name: string; query: string; hits: SearchHit[] }[] = [
    { name: 'original', query: entry.text, hits: original.hits },
    { name: 'bo1', query: expandedQueryText(expansion, entry.dialect), hits: expanded.hits },
  ];
  const notes: string[] = [];
  const loaded = context.model();
  const plain = loaded ? modelQuery(ast) : null;
  if (!loaded) notes.push('No weighted variant: no term-weighting model is loaded (set "model" in querylens.json).');
  else if (!plain) notes.push('No weighted variant: the model weighs plain-term queries only (no fields, wildcards, filters or quoted terms).');
  else {
    const weightedAst = buildWeightedQueryAst(await weighCached(loaded, plain.text));
    await step(context.documents, doc, token);
    if (weightedAst.root) {
      const weighted = runQueryAst(session, weightedAst, DEPTH);
      const text = entry.dialect === 'lucene' ? translate(weightedAst, 'lucene').text : printIndri(weightedAst);
      lists.push({ name: 'weighted', query: text, hits: weighted.hits });
      if (loaded.model.notices.length) notes.push(...loaded.model.notices);
    }
  }
  const variants = lists.map((l) => variant(session, entry.qid, l.name, l.query, l.hits, k));

  const rankMaps = lists.map((l) => new Map(l.hits.map((h, i) => [h.docno, i + 1])));
  const docOf = new Map<string, number>();
  for (const l of lists) for (const h of l.hits.slice(0, k)) if (!docOf.has(h.docno)) docOf.set(h.docno, h.doc);
  const rows: CompareRow[] = [...docOf].map(([docno, d]) => {
    const ranks: Record<string, number | null> = {};
    const change: Record<string, number | null> = {};
    lists.forEach((l, i) => (ranks[l.name] = rankMaps[i]!.get(docno) ?? null));
    for (const l of lists.slice(1)) {
      const before = ranks.original;
      const after = ranks[l.name];
      change[l.name] = before != null && after != null ? before - after : null;
    }
    return { docno, title: session.title(d), relevance: session.relevance(entry.qid, docno), ranks, change };
  });
  const best = (r: CompareRow) => Math.min(...Object.values(r.ranks).map((x) => x ?? Infinity));
  rows.sort((a, b) => best(a) - best(b) || (a.ranks.original ?? Infinity) - (b.ranks.original ?? Infinity));

  const deltas = session.qrels?.has(entry.qid)
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
  };
}

export function requestsModule(context: EngineContext): FeatureModule {
  return {
    id: 'engine/requests',
    register(connection: Connection) {
      const disposables = [
        connection.onRequest(PREVIEW_REQUEST, (params: PreviewParams, token) => preview(context, params, token)),
        connection.onRequest(EXPLAIN_REQUEST, (params: ExplainParams, token) => explainDocument(context, params, token)),
        connection.onRequest(COMPARE_REQUEST, (params: CompareParams, token) => compare(context, params, token)),
      ];
      return { dispose: () => disposables.forEach((d) => d.dispose()) };
    },
  };
}
