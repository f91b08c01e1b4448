/**
 * Inlay hints with the weighting model's predicted weight after each word the model reads
 * (`boundary ·1.16`; in Lucene after the word's phrase and `^boost`, never between them; none where
 * the same weight is already written on the word), under the same rule and from the same cached weights as the weights action
 * (weights.ts): a flat query's words, a structured query's terms (inside fields, `#syn`, windows);
 * a query the rule refuses gets no hints (the action, disabled, says why). The server answers
 * textDocument/inlayHint with every feature module's hints (features.ts `inlayHints`), these and
 * the implied query ids (qid-hints.ts). No model loaded: no weight hints.
 */
import { type CancellationToken, type Connection, type InlayHint, type InlayHintParams, type MarkupContent } from 'vscode-languageserver';
import { walk, type QueryNode, type TermNode } from '../../../grammar/index.js';
import { rangeInFile } from '../documents.js';
import type { FeatureModule, QueryPosition } from '../features.js';
import type { EngineContext } from './context.js';
import { runnable } from './ranking.js';
import { modelLabel } from './weights-action.js';
import type { BatcherStats } from '../../model/batcher.js';
import type { WeightModelStats } from '../../model/runtime.js';
import { collectionOf } from './collection.js';
import { batcherOf, weighableQuery, weighCached, weighedWordInputs, weighedWordWeights } from './weights.js';

/**
 * `querylens/modelStats` (request, client → server, no params): counters of the loaded
 * weighting model, for tests and benchmarks that check batching and dropped stale requests
 * by counting rather than timing. Null when no model is loaded.
 */
export const MODEL_STATS_REQUEST = 'querylens/modelStats';
export interface ModelStatsResult {
  /** ONNX session runs and queries weighed, as the model counts them. */
  model: WeightModelStats | null;
  /** Model calls the LSP batcher made, distinct queries sent, stale requests dropped, requests joined to a running call. */
  batcher: BatcherStats;
  /** True when inference runs in a worker thread, off the request thread. */
  offThread: boolean;
}

export async function weightHints(context: EngineContext, params: InlayHintParams, token: CancellationToken): Promise<InlayHint[]> {
  const loaded = context.model();
  const doc = context.documents.current(params.textDocument.uri);
  if (!loaded || !doc) return [];
  const wanted = doc.source.entries.flatMap((entry) => {
    if (entry.line < params.range.start.line || entry.line > params.range.end.line || !runnable(entry)) return [];
    const weighable = weighableQuery(entry.result.ast, entry.text);
    return weighable.ok ? [{ entry, query: weighable.query }] : [];
  });
  // Every query of the range at once: the batcher turns them into one model run (weights.ts).
  // A request made stale by an edit or a $/cancelRequest is dropped before inference and answers
  // ContentModified / RequestCancelled (issue 4 §1), never hints placed on an older text.
  const isStale = () => token.isCancellationRequested || context.documents.isStale(doc);
  const settled = await Promise.allSettled(wanted.map(({ query }) => weighCached(loaded, query.plan.text, isStale, collectionOf(context))));
  context.documents.checkFresh(doc, token);
  const hints: InlayHint[] = [];
  wanted.forEach(({ entry, query }, k) => {
    const result = settled[k]!;
    // A query the model failed on gets no hints; the others still do.
    if (result.status === 'rejected') return;
    const perWord = weighedWordWeights(query, result.value);
    // A collection-aware model's inputs for each word, said in the tooltip (why the weight is what it is).
    const reasons = weighedWordInputs(query, result.value);
    const parents = parentsOf(entry.result.ast.root);
    // Words whose hint goes to the same place (the words of one Lucene phrase) share one hint.
    const byAnchor = new Map<number, { words: string[]; labels: string[]; reasons: string[] }>();
    query.words.forEach((w, i) => {
      const weight = perWord[i];
      if (weight === undefined) return;
      const shown = weight.toFixed(2);
      // `0.5571 supersonic ·0.56`: the weight is already written there.
      const literal = literalWeight(w.node, parents);
      if (literal !== undefined && literal.toFixed(2) === shown) return;
      const anchor = hintAnchor(w.node, parents, entry.dialect).range.end;
      let group = byAnchor.get(anchor);
      if (!group) byAnchor.set(anchor, (group = { words: [], labels: [], reasons: [] }));
      group.words.push(w.node.text);
      group.labels.push(`·${shown}`);
      if (reasons[i]) group.reasons.push(`"${w.node.text}" ${shown}: ${reasons[i]}`);
    });
    for (const [anchor, group] of byAnchor) {
      const named = group.words.map((word) => `"${word}"`).join(', ');
      hints.push({
        position: rangeInFile(doc, entry, anchor, anchor).end,
        label: group.labels.join(' '),
        paddingLeft: true,
        tooltip:
          (query.plan.flat
            ? `${modelLabel(loaded)} weight of ${named} (uni-gram; bi-gram weights appear in the "Apply ${modelLabel(loaded)} weights" action).`
            : `${modelLabel(loaded)} weight of ${named} (uni-gram), read in the query's own structure; the "Apply ${modelLabel(loaded)} weights" action puts the model's weights inside the query's structure.`) +
          (group.reasons.length ? `\nWhat the model read in this index, with the query's words: ${group.reasons.join('; ')}.` : ''),
      });
    }
  });
  return hints;
}

/** Each node's parent. */
function parentsOf(root: QueryNode | null): Map<QueryNode, QueryNode> {
  const out = new Map<QueryNode, QueryNode>();
  walk(root, (node, parents) => {
    const parent = parents[parents.length - 1];
    if (parent) out.set(node, parent);
  });
  return out;
}

/** The weight written on a term itself: its `#weight` item's weight, or its Lucene `^boost`. */
function literalWeight(term: TermNode, parents: ReadonlyMap<QueryNode, QueryNode>): number | undefined {
  const parent = parents.get(term);
  if (parent?.kind === 'boost') return parent.boost;
  if (parent?.kind === 'belief') {
    const item = parent.items.find((i) => i.node === term);
    return item?.weightRange ? item.weight : undefined;
  }
  return undefined;
}

/**
 * The node a word's hint follows: the word, or in Lucene the phrase it is in and the `^boost` after
 * either, so a hint never splits `term^2` or `"a b"` (issue 14 §3).
 */
function hintAnchor(term: TermNode, parents: ReadonlyMap<QueryNode, QueryNode>, dialect: string): QueryNode {
  let node: QueryNode = term;
  if (dialect !== 'lucene') return node;
  for (let parent = parents.get(node); parent && (parent.kind === 'phrase' || parent.kind === 'boost'); parent = parents.get(node)) node = parent;
  return node;
}

/**
 * The hover's section for a word the model weighs: its weight and, for a collection-aware model, what the model
 * read for it in this index (weight-reasons.ts), from the same cached weights as the hints. Null elsewhere, and
 * when the model cannot weigh the query (the action says why).
 */
export async function weightHover(context: EngineContext, at: QueryPosition, token: CancellationToken): Promise<MarkupContent | null> {
  const loaded = context.model();
  if (!loaded || !runnable(at.entry)) return null;
  const weighable = weighableQuery(at.entry.result.ast, at.entry.text);
  if (!weighable.ok) return null;
  const query = weighable.query;
  const k = query.words.findIndex((w) => w.node.range.start <= at.offset && at.offset <= w.node.range.end);
  if (k < 0) return null;
  let weights;
  try {
    weights = await weighCached(loaded, query.plan.text, () => token.isCancellationRequested, collectionOf(context));
  } catch {
    return null;
  }
  const weight = weighedWordWeights(query, weights)[k];
  if (weight === undefined) return null;
  const w = query.words[k]!;
  const reason = weighedWordInputs(query, weights)[k];
  const label = modelLabel(loaded);
  const value =
    `**${label} weight ${weight.toFixed(2)}** of \`${w.node.text}\`` +
    (reason ? ` — what the model read in this index: ${reason}.` : ` (this model reads no collection statistics: the weight comes from the query's words alone).`);
  return { kind: 'markdown', value };
}

export function weightHintsModule(context: EngineContext): FeatureModule {
  return {
    id: 'engine/weight-hints',
    // The server answers textDocument/inlayHint with every module's hints (features.ts).
    inlayHints: (doc, range, token) => weightHints(context, { textDocument: { uri: doc.uri }, range }, token),
    hover: (at, token) => weightHover(context, at, token),
    register(connection: Connection) {
      const stats = connection.onRequest(MODEL_STATS_REQUEST, (): ModelStatsResult | null => {
        const loaded = context.model();
        if (!loaded) return null;
        const model = loaded.model as typeof loaded.model & { offThread?: boolean };
        return { model: model.stats?.() ?? null, batcher: batcherOf(model).stats(), offThread: model.offThread === true };
      });
      return { dispose: () => stats.dispose() };
    },
  };
}
