/**
 * "Add Bo1 expansion terms": a refactor action on the query under the cursor. Its title
 * shows the terms and weights before anything is applied,
 *   Add Bo1 expansion terms: flow 0.41, transition 0.33, …
 * and its edit replaces the query with the expanded one (Indri `#weight( w t … )` for Indri
 * documents, Lucene `t^w …` for Lucene ones), written for a person (ranking.ts expandedQueryText):
 * the user's words as typed, a word of the feedback documents for each added stem, 3 significant
 * digits, laid out as the formatter lays out the query's place in the file (formatting.ts).
 *
 * It is not a quick fix: no diagnostic says a query needs expansion, so there is no
 * diagnostic code to hang it on (unlike server/lsp/code-actions.ts). It is computed when the
 * client asks (first-pass search + Bo1 over the top fbDocs documents, a few milliseconds) and
 * honours the request's cancellation.
 */
import { CodeActionKind, type CancellationToken, type CodeAction } from 'vscode-languageserver';
import { entryAt, isVerbatim, rangeInFile } from '../documents.js';
import type { CodeActionRequest, FeatureModule } from '../features.js';
import type { EngineContext } from './context.js';
import { layoutInDocument } from '../formatting.js';
import { bo1Expansion, expandedQueryText, expansionWords, printExpansion, runnable } from './ranking.js';
import type { EngineSession } from './session.js';
import { clusterExpansionWords, type ClusterSession } from './cluster-session.js';
import type { ClusterExpansion } from '../../backends/remote/cluster-expansion.js';

export const BO1_ACTION_KIND = `${CodeActionKind.RefactorRewrite}.bo1`;
/** Terms named in the title; the rest are summarised by "…". */
const TITLE_TERMS = 6;

function wants(only: string[] | undefined, kind: string): boolean {
  if (!only || only.length === 0) return true;
  return only.some((k) => kind === k || kind.startsWith(`${k}.`));
}

export function bo1Action(session: EngineSession, request: CodeActionRequest, token: CancellationToken): CodeAction | null {
  const { doc, range, context } = request;
  if (!wants(context.only, BO1_ACTION_KIND)) return null;
  const located = entryAt(doc, range.start);
  if (!located || !runnable(located.entry) || !isVerbatim(doc, located.entry)) return null;
  const { entry } = located;
  if (token.isCancellationRequested) return null;
  const expansion = bo1Expansion(session, entry.result.ast);
  if (token.isCancellationRequested) return null;
  const added = expansion.terms.filter((t) => !t.isOriginal);
  if (added.length === 0) return null;
  const words = expansionWords(session, entry.result.ast, expansion);
  const listed = added.slice(0, TITLE_TERMS).map((t) => `${words.get(t.term)?.text ?? t.term} ${t.weight.toFixed(2)}`);
  const title = `Add Bo1 expansion terms: ${listed.join(', ')}${added.length > TITLE_TERMS ? ', …' : ''}`;
  const text = expandedQueryText(session, entry.result.ast, expansion, entry.dialect, words);
  const newText = text ? layoutInDocument(doc, entry, text, session.config.formatting.width) : null;
  if (!newText) return null;
  return {
    title,
    kind: BO1_ACTION_KIND,
    edit: { changes: { [doc.uri]: [{ range: rangeInFile(doc, entry, 0, entry.text.length), newText }] } },
    data: { qid: entry.qid, terms: expansion.terms.map((t) => ({ term: t.term, weight: t.weight, isOriginal: t.isOriginal })) },
  };
}

/**
 * Bo1 on a cluster (cluster-session.ts `expansion`: feedback documents and every statistic from the
 * cluster). The user's words are kept for the original terms; an added term is written as the cluster's
 * term, unquoted: the query DSL cannot ask for an unstemmed term, so the cluster analyses it again.
 * A cluster failure is the action offered disabled with the failure, not a missing action.
 */
async function bo1OnCluster(cluster: ClusterSession, request: CodeActionRequest, token: CancellationToken): Promise<CodeAction[]> {
  const { doc, range, context } = request;
  if (!wants(context.only, BO1_ACTION_KIND)) return [];
  const located = entryAt(doc, range.start);
  if (!located || !runnable(located.entry) || !isVerbatim(doc, located.entry)) return [];
  const { entry } = located;
  let expansion: ClusterExpansion;
  try {
    expansion = await cluster.expansion(entry.dialect, entry.text, entry.result.ast);
  } catch (err) {
    const e = err as { message?: string; code?: unknown };
    if (typeof e?.code !== 'string' || !e.code.startsWith('cluster/')) throw err;
    return [{ title: 'Add Bo1 expansion terms', kind: BO1_ACTION_KIND, disabled: { reason: `Bo1 expansion needs the cluster: ${e.message} (${e.code})` } }];
  }
  if (token.isCancellationRequested) return [];
  const added = expansion.terms.filter((t) => !t.isOriginal);
  if (added.length === 0) return [];
  const words = clusterExpansionWords(expansion, entry.result.ast);
  const listed = added.slice(0, TITLE_TERMS).map((t) => `${t.term} ${t.weight.toFixed(2)}`);
  const title = `Add Bo1 expansion terms: ${listed.join(', ')}${added.length > TITLE_TERMS ? ', …' : ''}`;
  const text = printExpansion(expansion, entry.dialect, words);
  const newText = text ? layoutInDocument(doc, entry, text, cluster.config.formatting.width) : null;
  if (!newText) return [];
  return [
    {
      title,
      kind: BO1_ACTION_KIND,
      edit: { changes: { [doc.uri]: [{ range: rangeInFile(doc, entry, 0, entry.text.length), newText }] } },
      data: {
        qid: entry.qid,
        terms: expansion.terms.map((t) => ({ term: t.term, weight: t.weight, isOriginal: t.isOriginal })),
        feedbackDocnos: expansion.feedbackDocnos,
        statistics: expansion.scope,
      },
    },
  ];
}

export function expansionActionModule(context: EngineContext): FeatureModule {
  return {
    id: 'engine/bo1-action',
    codeActions: (request, token) => {
      context.documents.see(request.doc);
      const cluster = context.cluster();
      if (cluster) return bo1OnCluster(cluster, request, token);
      const session = context.session();
      const action = session ? bo1Action(session, request, token) : null;
      return action ? [action] : [];
    },
  };
}
