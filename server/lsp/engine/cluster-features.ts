/**
 * The editor on a search cluster (querylens.json `backend`; cluster-session.ts), asynchronously:
 * - the preview lens: `▶ N results · nDCG@10 … · top: <title>` from the cluster's top 10, metrics
 *   computed by querylens's trec_eval-exact code; a failure is a lens that says what failed;
 * - hover statistics of a word: df / cf of each analysed term from `_termvectors` (the cluster's own
 *   analyser), said to be one shard's statistics;
 * - diagnostics: each construct the query DSL approximates or cannot express (grammar/print/query-dsl.ts),
 *   at the construct, with codes of their own (`cluster/approximated`, `cluster/dropped`,
 *   `cluster/untranslatable`), and once per query `cluster/per-shard-statistics` when the index has
 *   more than one shard and the searches do not use dfs_query_then_fetch;
 * - `clusterPreview` and `clusterExplain`, what `querylens/preview` and `querylens/explain` answer
 *   on a cluster (requests.ts): the top k with snippets from `_source`, and `_explain` as the
 *   ExplanationNode tree.
 * Every cluster failure reaches the user as the ClusterError's one-line message (and its code).
 */
import { ErrorCodes, MarkupKind, ResponseError, type CancellationToken, type CodeLens, type Diagnostic, type MarkupContent } from 'vscode-languageserver';
import { walk, type QueryAst, type QueryDiagnostic, type QueryEntry } from '../../../grammar/index.js';
// Types only: the clients load when a cluster is configured (provider.ts imports the backend lazily).
import { clusterHitSnippet, clusterQueryWords } from '../../service/cluster-search-backend.js';
import { toLspDiagnostic } from '../diagnostics.js';
import { nodesAt, rangeInFile, type QueryDocument } from '../documents.js';
import type { FeatureHost, FeatureModule, QueryPosition } from '../features.js';
import type { ClusterSession } from './cluster-session.js';
import { explainOnCluster, perShardNote } from '../../service/cluster-session.js';
import type { EngineContext } from './context.js';
import { formatNumber } from './hover-stats.js';
import { MAX_PREVIEW_LENSES } from './preview-lens.js';
import type { ExplainResult, PreviewHit, PreviewResult } from './protocol.js';
import { SHOW_RESULTS_COMMAND } from './protocol.js';
import { runnable } from './ranking.js';
import { judgedQid } from './session.js';
import { judgedTopic, relevantNotShown } from './not-shown.js';

/** The translation's codes, as the editor shows them on a cluster session. */
const DSL_CODES: Record<string, string> = {
  'translate/approximated': 'cluster/approximated',
  'translate/dropped': 'cluster/dropped',
  'translate/failed': 'cluster/untranslatable',
  'translate/too-deep': 'cluster/untranslatable',
};

export const PER_SHARD_CODE = 'cluster/per-shard-statistics';

/** `_explain` requests in flight at once for one results page. */
const EXPLAIN_CONCURRENCY = 4;

/** A ClusterError (or anything else) as one line with its code. */
function failureText(err: unknown): string {
  const e = err as { message?: string; code?: string };
  const message = e?.message ?? String(err);
  return typeof e?.code === 'string' && e.code.startsWith('cluster/') ? `${message} (${e.code})` : message;
}

function shorten(text: string, n: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > n ? `${flat.slice(0, n - 1)}…` : flat;
}

// ---------------------------------------------------------------- lens

async function lensTitle(session: ClusterSession, entry: QueryEntry): Promise<string> {
  const result = await session.topTen(entry.dialect, entry.text, entry.result.ast);
  const top = result.hits.slice(0, 10);
  const parts = [`▶ ${result.matchedDocs.toLocaleString('en-US')} result${result.matchedDocs === 1 ? '' : 's'}`];
  const qid = judgedQid(entry);
  const metrics = session.metrics(qid, top, ['ndcg_cut_10']);
  if (metrics) {
    parts.push(`nDCG@10 ${metrics.ndcg_cut_10!.toFixed(2)}`);
    const unjudged = top.filter((h) => session.relevance(qid, h.docno) === null).length;
    if (unjudged) parts.push(`${unjudged} of the top ${top.length} unjudged`);
  }
  if (top.length > 0) {
    const title = session.backend.hitText(top[0]!).title || top[0]!.docno;
    parts.push(`top: ${shorten(title, 60)}`);
  }
  parts.push(session.backend.config.type);
  return parts.join(' · ');
}

export async function clusterLenses(session: ClusterSession, doc: QueryDocument, token: CancellationToken): Promise<CodeLens[]> {
  const lenses: CodeLens[] = [];
  for (const entry of doc.source.entries) {
    if (token.isCancellationRequested) return [];
    if (!runnable(entry)) continue;
    if (lenses.length === MAX_PREVIEW_LENSES) break;
    const start = rangeInFile(doc, entry, 0, 0).start;
    try {
      const title = await lensTitle(session, entry);
      lenses.push({ range: { start, end: start }, command: { title, command: SHOW_RESULTS_COMMAND, arguments: [entry.qid, doc.uri] } });
    } catch (err) {
      // No command: nothing to open. The next lens request asks the cluster again.
      lenses.push({ range: { start, end: start }, command: { title: `▷ cluster: ${failureText(err)}`, command: '' } });
    }
  }
  return lenses;
}

// ---------------------------------------------------------------- hover

/** df / cf of the word under the cursor from `_termvectors`, in the term's field, else in each search field. */
export async function clusterHover(session: ClusterSession, at: QueryPosition): Promise<MarkupContent | null> {
  const root = at.entry.result.ast.root;
  const node = nodesAt(root, at.offset).at(-1);
  if (!node || node.kind !== 'term') return null;
  const fields = node.fields?.length ? node.fields : session.backend.config.fields;
  let value: string;
  try {
    const rows: string[] = [];
    const empty: string[] = [];
    let shardDocs = 0;
    for (const field of fields) {
      const stats = await session.termStatistics(node.text, field);
      shardDocs = Math.max(shardDocs, stats.collection.numDocs);
      if (stats.terms.size === 0) empty.push(`\`${field}\``);
      for (const [term, s] of stats.terms) rows.push(`| ${field} | \`${term}\` | ${formatNumber(s.df)} | ${formatNumber(s.cf)} |`);
    }
    value = [
      `**${node.text}**, analysed by the cluster`,
      '',
      ...(rows.length ? [['| field | term | df | cf |', '|---|---|--:|--:|', ...rows].join('\n'), ''] : []),
      ...(empty.length ? [`No term of it in ${empty.join(', ')} (a stopword, punctuation, or a field the index lacks).`, ''] : []),
      `From \`_termvectors\`: the statistics of **one shard** (${formatNumber(shardDocs)} documents), not of the whole index` +
        (session.perShardStatistics() ? `; the index has ${session.summary!.shards} shards, and each scores with its own statistics.` : '.'),
    ].join('\n');
  } catch (err) {
    value = `Statistics of **${node.text}** are unavailable: ${failureText(err)}`;
  }
  return { kind: MarkupKind.Markdown, value };
}

// ---------------------------------------------------------------- diagnostics

/** The translation-fidelity diagnostics of one query, with their cluster codes (query-relative ranges). */
function translationProblems(session: ClusterSession, entry: QueryEntry): QueryDiagnostic[] {
  return session.translation(entry.dialect, entry.text, entry.result.ast).map((d) => ({ ...d, code: DSL_CODES[d.code] ?? `cluster/${d.code.replace(/^translate\//, '')}`, message: `On the cluster: ${d.message}` }));
}

export function clusterDiagnostics(session: ClusterSession, doc: QueryDocument): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const entry of doc.source.entries) {
    if (!runnable(entry)) continue;
    for (const d of translationProblems(session, entry)) out.push(toLspDiagnostic(doc, entry, d));
    const note = perShardNote(session, entry.dialect, entry.text);
    if (note) {
      // Once per query, on its first operator or word.
      const root = entry.result.ast.root!;
      let first = root.range;
      walk(root, (n) => {
        if (n.range.start < first.start || (n.range.start === first.start && n.range.end < first.end)) first = n.range;
      });
      out.push(toLspDiagnostic(doc, entry, { code: PER_SHARD_CODE, severity: 'info', message: note, range: first }));
    }
  }
  return out;
}

// ---------------------------------------------------------------- requests

/** Rethrows a cluster failure as the request's error: its one line, `data.cluster` = its code. */
export function clusterFailure(err: unknown): never {
  if (err instanceof ResponseError) throw err;
  const e = err as { code?: unknown };
  if (typeof e?.code === 'string' && e.code.startsWith('cluster/'))
    throw new ResponseError(ErrorCodes.InternalError, `querylens: ${failureText(err)}`, { cluster: e.code });
  throw err;
}

/** `querylens/preview` on a cluster: the query's top k (after offset) with snippets from `_source` and `_explain` trees. */
export async function clusterPreview(
  session: ClusterSession,
  entry: QueryEntry,
  ast: QueryAst,
  version: number,
  window: { k: number; offset: number; explain: boolean },
  step: () => Promise<void>,
): Promise<PreviewResult> {
  try {
    const result = await session.ranking(entry.dialect, entry.text, ast);
    await step();
    const words = clusterQueryWords(ast);
    const qid = judgedQid(entry);
    const hits: PreviewHit[] = [];
    const shown = result.hits.slice(window.offset, window.offset + window.k);
    const explanations: (Awaited<ReturnType<ClusterSession['backend']['explain']>> | undefined)[] = [];
    if (window.explain) {
      // A few `_explain` requests at a time: one round trip per group instead of per hit, without flooding the cluster.
      for (let i = 0; i < shown.length; i += EXPLAIN_CONCURRENCY) {
        const group = shown.slice(i, i + EXPLAIN_CONCURRENCY);
        explanations.push(...(await Promise.all(group.map((h) => session.backend.explain(ast, h.docno, { scorer: session.config.scorer.name })))));
        await step();
      }
    }
    let evidence = false;
    for (const [i, h] of shown.entries()) {
      const explanation = explanations[i];
      if (explanation && session.observeExplanation(entry.dialect, entry.text, h.docno, explanation)) evidence = true;
      hits.push({
        rank: window.offset + i + 1,
        docno: h.docno,
        title: session.backend.hitText(h).title,
        snippet: clusterHitSnippet(session.backend, h, words),
        score: h.score,
        ...(explanation ? { explanation: { value: explanation.value, description: explanation.description, children: explanation.children, matched: explanation.matched } } : {}),
        relevance: session.relevance(qid, h.docno),
      });
    }
    if (evidence) session.onShardEvidence?.();
    const s = session.config.scorer;
    return {
      qid: entry.qid,
      query: entry.text,
      version,
      matchedDocs: result.matchedDocs,
      hits,
      metrics: session.metrics(qid, result.hits),
      offset: window.offset,
      // Titles of documents outside the ranking would cost one request each: the docno stands for them.
      relevantNotShown: relevantNotShown(judgedTopic(session.qrels, qid), result.hits, window.offset + window.k, (_, rank) =>
        rank === null ? '' : session.backend.hitText(result.hits[rank - 1]!).title,
      ),
      warnings: result.diagnostics.map((d) => ({ code: DSL_CODES[d.code] ?? d.code, message: `On the cluster: ${d.message}` })),
      scorer: { name: s.name, k1: s.k1, b: s.b, mu: s.mu },
    };
  } catch (err) {
    clusterFailure(err);
  }
}

/** `querylens/explain` on a cluster: `_explain` of the document, its rank in the query's top CLUSTER_DEPTH, its title from `get`. */
export async function clusterExplain(session: ClusterSession, entry: QueryEntry, ast: QueryAst, docno: string, step: () => Promise<void>): Promise<ExplainResult> {
  try {
    const explained = await explainOnCluster(session, { dialect: entry.dialect, text: entry.text, ast }, docno, step);
    const { explanation } = explained;
    return {
      qid: entry.qid,
      docno,
      title: explained.title,
      rank: explained.rank,
      score: explained.score,
      explanation: { value: explanation.value, description: explanation.description, children: explanation.children, matched: explanation.matched },
      relevance: session.relevance(judgedQid(entry), docno),
    };
  } catch (err) {
    clusterFailure(err);
  }
}

export function clusterFeaturesModule(context: EngineContext): FeatureModule {
  // The server's host once registered: shards' differing statistics seen in an explanation republish the diagnostics.
  let host: FeatureHost | null = null;
  return {
    id: 'engine/cluster',
    codeLenses: (doc, token) => {
      const session = context.cluster();
      if (!session) return [];
      context.documents.see(doc);
      return clusterLenses(session, doc, token);
    },
    hover: (at) => {
      const session = context.cluster();
      return session ? clusterHover(session, at) : null;
    },
    diagnostics: (doc) => {
      const session = context.cluster();
      if (!session) return [];
      session.onShardEvidence ??= () => host?.refreshDiagnostics();
      return clusterDiagnostics(session, doc);
    },
    register(_connection, registered) {
      host = registered;
      return { dispose: () => (host = null) };
    },
  };
}
