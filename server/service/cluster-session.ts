/**
 * A search cluster as both front ends use it (the editor when querylens.json has a `backend` section,
 * the CLI with `--backend-config`): the cluster (server/backends/remote: every call a network round
 * trip, so everything here is asynchronous), the qrels, what the probe learnt of the index, and
 * per-session caches of promises (a query's ranking, a word's statistics), so that the lens, the
 * results panel and explain share one request per query text. A rejected request is dropped from its
 * cache: the next lens or request asks the cluster again (a 429 or a timeout passes).
 *
 * The editor makes a new `ClusterSession` for every (re)configuration and closes the previous one's
 * client; a CLI command makes one per run.
 */
import type { Qrels } from '../engine/eval/index.js';
import type { ExplainNode } from '../engine/search.js';
import type { QueryAst, QueryDiagnostic } from '../../grammar/index.js';
import type { ClusterBackend, ClusterIndexSummary, ClusterSearchResult, ClusterSimilarity, ClusterTermStatistics } from '../backends/remote/cluster-backend.js';
import { ClusterError } from '../backends/remote/errors.js';
import type { ScorerName } from '../engine/scoring/scorers.js';
import { queryMetrics } from './evaluation.js';
import { clusterExpandedQuery, expandOnCluster, type ClusterExpansion } from '../backends/remote/cluster-expansion.js';
export { clusterExpansionWords } from '../backends/remote/cluster-expansion.js';
import type { CollectionSource } from './weigh.js';
import type { WeightModel } from '../model/runtime.js';
import { createAnalyzer } from '../engine/analysis/index.js';
import { clusterNgramStatistics, type ClusterNgramStatistics } from '../backends/remote/cluster-statistics.js';

/** What a cluster session reads of the configuration (querylens.json's, or the CLI's options). */
export interface ClusterSessionSettings {
  /** The scorer the queries are written for (the translation's diagnostics depend on it). */
  scorer: { name: ScorerName; k1: number; b: number; mu: number };
  /** Bo1's sizes when none are given. */
  expansion: { method: string; fbDocs: number; fbTerms: number };
  /** The formatter's width, for rewrites (the weighing's CollectionSource). */
  formatting: { width: number };
}

/** Ranking depth of a query on the cluster: the depth metrics are computed at (trec_eval's usual cut). */
export const CLUSTER_DEPTH = 1000;

export class ClusterSession<Config extends ClusterSessionSettings = ClusterSessionSettings> {
  private readonly caches = new Map<string, Map<string, Promise<unknown>>>();
  private readonly translations = new Map<string, QueryDiagnostic[]>();
  /** The index's size and shards, once the probe (or a search) has answered. */
  summary: ClusterIndexSummary | null = null;

  constructor(
    readonly backend: ClusterBackend,
    readonly config: Config,
    readonly qrels: Qrels | null,
    /** The measures `metrics` computes unless told others (the editor's preview measures). */
    private readonly measures: readonly string[],
  ) {}

  /** `fetch()` once per key while it succeeds; a failure is not kept, so the next call retries. */
  private cached<T>(name: string, key: string, fetch: () => Promise<T>): Promise<T> {
    let cache = this.caches.get(name);
    if (!cache) this.caches.set(name, (cache = new Map()));
    let p = cache.get(key) as Promise<T> | undefined;
    if (!p) {
      p = fetch();
      cache.set(key, p);
      p.catch(() => cache.delete(key));
    }
    return p;
  }

  /** The query's top CLUSTER_DEPTH on the cluster, cached by dialect + text (the panel, explain and Bo1 share it). */
  ranking(dialect: string, text: string, ast: QueryAst): Promise<ClusterSearchResult> {
    return this.cached('ranking', `${dialect}\0${text}`, () => this.search(ast, CLUSTER_DEPTH));
  }

  /**
   * The query's top 10 (the preview lens): the full ranking when one is cached, else a search of 10 hits,
   * so a file of queries does not fetch 1000 documents' `_source` per query just for its lenses.
   */
  topTen(dialect: string, text: string, ast: QueryAst): Promise<ClusterSearchResult> {
    const key = `${dialect}\0${text}`;
    const full = this.caches.get('ranking')?.get(key) as Promise<ClusterSearchResult> | undefined;
    return full ?? this.cached('top-ten', key, () => this.search(ast, 10));
  }

  /**
   * The query's top k: the cached CLUSTER_DEPTH ranking cut to k when k is at most that, else a search
   * of its own (not cached: a deeper run is asked for once, by runFile).
   */
  async rankingAt(dialect: string, text: string, ast: QueryAst, k: number): Promise<ClusterSearchResult> {
    if (k > CLUSTER_DEPTH) return this.search(ast, k);
    const full = await this.ranking(dialect, text, ast);
    return { ...full, hits: full.hits.slice(0, k) };
  }

  /**
   * The query expanded by Bo1 on the cluster (`expansion`), ranked to depth k: the query the Bo1
   * action writes (the user's words, a cluster term for each added one), with the weights unrounded.
   */
  async expandedRanking(
    dialect: string,
    text: string,
    ast: QueryAst,
    k: number,
    parameters: { fbDocs: number; fbTerms: number } = this.config.expansion,
  ): Promise<{ expansion: ClusterExpansion; ast: QueryAst; result: ClusterSearchResult }> {
    const expansion = await this.expansion(dialect, text, ast, parameters);
    const expanded = clusterExpandedQuery(expansion, ast);
    const key = `${dialect}\0${text}\0${k}\0${parameters.fbDocs}\0${parameters.fbTerms}`;
    const result = await this.cached('bo1-ranking', key, () => this.search(expanded, k));
    return { expansion, ast: expanded, result };
  }

  private async search(ast: QueryAst, k: number): Promise<ClusterSearchResult> {
    const result = await this.backend.search(ast, { k, scorer: this.config.scorer.name });
    if (result.shards !== null && this.summary) this.summary = { ...this.summary, shards: result.shards };
    return result;
  }

  /** The translation-fidelity diagnostics of a query (no request: the translation is local), cached by dialect + text. */
  translation(dialect: string, text: string, ast: QueryAst): QueryDiagnostic[] {
    const key = `${dialect}\0${text}`;
    let found = this.translations.get(key);
    if (!found) this.translations.set(key, (found = this.backend.translate(ast, this.config.scorer.name).diagnostics));
    return found;
  }

  /** `_termvectors` statistics of the words of `text` in `field` (one shard's; see ClusterTermStatistics). */
  termStatistics(text: string, field: string): Promise<ClusterTermStatistics> {
    return this.cached('terms', `${field}\0${text}`, () => this.backend.termStatistics(text, field));
  }

  /**
   * Bo1 of the query from its top fbDocs on the cluster (cluster-expansion.ts), cached by dialect + text and the
   * parameters (querylens.json `expansion` unless a sweep gives others).
   */
  expansion(dialect: string, text: string, ast: QueryAst, parameters: { fbDocs: number; fbTerms: number } = this.config.expansion): Promise<ClusterExpansion> {
    const { fbDocs, fbTerms } = parameters;
    return this.cached('bo1', `${dialect}\0${text}\0${fbDocs}\0${fbTerms}`, async () => {
      const ranking = await this.ranking(dialect, text, ast);
      return expandOnCluster(this.backend, ast, ranking.hits.slice(0, fbDocs).map((h) => h.docno), { fbTerms });
    });
  }

  /**
   * What a collection-aware model reads of `text` (cluster-statistics.ts), for the n-grams of `model`'s own
   * segmentation, cached per text and model analyser.
   */
  ngramStatistics(text: string, model: WeightModel): Promise<ClusterNgramStatistics> {
    const profile = model.config.profile;
    const bigrams = model.name === 'phrase' ? true : (model.config.models[model.name]?.bigrams ?? true);
    return this.cached('ngram-statistics', `${profile}\0${bigrams}\0${text}`, async () => {
      const summary = this.summary ?? (this.summary = await this.backend.probe());
      return clusterNgramStatistics(this.backend, text, { analyzer: createAnalyzer(profile), bigrams, summary });
    });
  }

  /**
   * How the index's similarity differs from the configured scorer's (similarityDifference), or null; an account
   * that may not read the index's settings (403) gets a note that says so instead. Other failures are thrown.
   */
  async similarityNote(): Promise<string | null> {
    let similarity: ClusterSimilarity;
    try {
      similarity = await this.cached('similarity', '', () => this.backend.similarity());
    } catch (err) {
      if (err instanceof ClusterError && err.kind === 'forbidden') return `cannot read the index's similarity settings to compare them with the ${this.config.scorer.name} scorer's: ${err.message}`;
      throw err;
    }
    return similarityDifference(similarity, this.config.scorer);
  }

  /** The cluster as the weighing's CollectionSource (weights.ts). */
  collection(): CollectionSource {
    return { key: this, width: this.config.formatting.width, ngramStatistics: async (text, model) => (await this.ngramStatistics(text, model)).ngrams };
  }

  /**
   * Called when an `_explain` tree shows a term's document frequency differing from one seen before for the
   * same query (another shard's statistics): the engine features republish the diagnostics.
   */
  onShardEvidence: (() => void) | undefined;

  /** Per query (dialect + text): per weighed term (`text:boundari`), the (n, N) its explanations show → a docno showing it. */
  private readonly explained = new Map<string, Map<string, Map<string, { n: number; N: number; docno: string }>>>();

  /**
   * Records what an `_explain` tree of the query says of each term's statistics on the document's shard
   * (Lucene's BM25 explanation: "n, number of documents containing term", "N, total number of documents with
   * field"); returns true when a term now shows two different values, i.e. shards that differ.
   */
  observeExplanation(dialect: string, text: string, docno: string, tree: ExplainNode): boolean {
    const key = `${dialect}\0${text}`;
    let byTerm = this.explained.get(key);
    if (!byTerm) this.explained.set(key, (byTerm = new Map()));
    let differs = false;
    for (const seen of termStatisticsIn(tree)) {
      let values = byTerm.get(seen.term);
      if (!values) byTerm.set(seen.term, (values = new Map()));
      const id = `${seen.n}/${seen.N}`;
      if (values.has(id)) continue;
      values.set(id, { n: seen.n, N: seen.N, docno });
      if (values.size === 2) differs = true;
    }
    return differs;
  }

  /** The terms of a query whose explanations showed different statistics, with each value seen and a document showing it. */
  shardDifferences(dialect: string, text: string): { term: string; values: { n: number; N: number; docno: string }[] }[] {
    const byTerm = this.explained.get(`${dialect}\0${text}`);
    if (!byTerm) return [];
    return [...byTerm].filter(([, values]) => values.size > 1).map(([term, values]) => ({ term, values: [...values.values()] }));
  }

  /** Whether scores use each shard's own statistics: more than one shard, searched without dfs_query_then_fetch. */
  perShardStatistics(): boolean {
    return !!this.summary && this.summary.shards > 1 && !this.backend.config.dfsQueryThenFetch;
  }

  relevance(qid: string | null, docno: string): number | null {
    if (qid === null) return null;
    return this.qrels?.get(qid)?.get(docno) ?? null;
  }

  /** trec_eval measures (querylens's own, never the cluster's `_rank_eval`) of the cluster's ranking. */
  metrics(qid: string | null, hits: readonly { docno: string; score: number }[], measures: readonly string[] = this.measures): Record<string, number> | null {
    if (qid === null || !this.qrels) return null;
    return queryMetrics(this.qrels, qid, hits, measures);
  }

  close(): Promise<void> {
    return this.backend.close();
  }
}

/**
 * The per-term statistics a Lucene BM25 explanation shows: under each `weight(<field>:<term> in <doc>)` node,
 * the values described "n, number of documents containing term" and "N, total number of documents with field".
 */
export function termStatisticsIn(tree: ExplainNode): { term: string; n: number; N: number }[] {
  const out: { term: string; n: number; N: number }[] = [];
  const find = (node: ExplainNode, prefix: string): number | undefined => {
    if (node.description.startsWith(prefix)) return node.value;
    for (const c of node.children) {
      const v = find(c, prefix);
      if (v !== undefined) return v;
    }
    return undefined;
  };
  const visit = (node: ExplainNode): void => {
    const weight = /^weight\((.+) in \d+\)/.exec(node.description);
    if (weight) {
      const n = find(node, 'n, number of documents containing term');
      const N = find(node, 'N, total number of documents with field');
      if (n !== undefined && N !== undefined) out.push({ term: weight[1]!, n, N });
      return;
    }
    node.children.forEach(visit);
  };
  visit(tree);
  return out;
}

/** What the query's `_explain` trees showed of shards' statistics, as a sentence ('' when nothing differed). */
function shardEvidence(session: ClusterSession, dialect: string, text: string): string {
  const differences = session.shardDifferences(dialect, text);
  if (!differences.length) return '';
  const count = (x: number) => x.toLocaleString('en-US');
  const shown = differences.slice(0, 3).map((d) => `\`${d.term}\` is in ${d.values.map((v) => `${count(v.n)} of ${count(v.N)} documents on the shard of ${v.docno}`).join(' but ')}`);
  return `The cluster's explanations show it: ${shown.join('; ')}${differences.length > 3 ? `; and ${differences.length - 3} more terms` : ''}.`;
}

/**
 * Why a query's scores on the cluster are per-shard ones, or null: the index has more than one shard and is
 * searched without dfs_query_then_fetch, or the query's `_explain` trees showed a term's n/N differing between
 * documents' shards (`_explain` has no dfs). The editor's `cluster/per-shard-statistics` diagnostic and the
 * CLI's explain note.
 */
export function perShardNote(session: ClusterSession, dialect: string, text: string): string | null {
  const perShard = session.perShardStatistics();
  const evidence = shardEvidence(session, dialect, text);
  if (!perShard && !evidence) return null;
  return perShard
    ? `The cluster's index has ${session.summary!.shards} shards, and each scores this query with its own term statistics (df, document count, average length), ` +
        'so scores differ from whole-index ones and between shards. Set "dfsQueryThenFetch": true in the "backend" section of querylens.json to search with search_type=dfs_query_then_fetch.' +
        (evidence ? ` ${evidence}` : '')
    : `_explain scores a document with its own shard's term statistics (it has no dfs_query_then_fetch), so an explanation's value can differ from the document's score in the ranking. ${evidence}`;
}

/** A document's explanation on the cluster, where it ranks, and its title. */
export interface ClusterExplanation {
  explanation: ExplainNode & { diagnostics: QueryDiagnostic[] };
  title: string;
  /** Its rank in the query's top CLUSTER_DEPTH; null when it is not there. */
  rank: number | null;
  /** Documents the query matches (the ranking's `hits.total`). */
  matchedDocs: number;
  /** The explanation's value; null when the query does not match the document. */
  score: number | null;
}

/**
 * `_explain` of the document for the query (its shard evidence recorded: observeExplanation, then
 * onShardEvidence), its title from `get`, its rank in the query's cached top CLUSTER_DEPTH. `between` runs
 * after each request (the editor's cancellation and staleness checks).
 */
export async function explainOnCluster(
  session: ClusterSession,
  query: { dialect: string; text: string; ast: QueryAst },
  docno: string,
  between: () => Promise<void> = async () => undefined,
): Promise<ClusterExplanation> {
  const { dialect, text, ast } = query;
  const explanation = await session.backend.explain(ast, docno, { scorer: session.config.scorer.name });
  if (session.observeExplanation(dialect, text, docno, explanation)) session.onShardEvidence?.();
  await between();
  const document = await session.backend.document(docno);
  await between();
  const ranking = await session.ranking(dialect, text, ast);
  const index = ranking.hits.findIndex((h) => h.docno === docno);
  return {
    explanation,
    title: document.title,
    rank: index >= 0 && index < CLUSTER_DEPTH ? index + 1 : null,
    matchedDocs: ranking.matchedDocs,
    score: explanation.matched === false ? null : explanation.value,
  };
}

/** The parameters of a similarity, as `k1 = 1.2, b = 0.75`. */
function parameters(values: Partial<Record<'k1' | 'b' | 'mu', number>>): string {
  return Object.entries(values)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k} = ${v}`)
    .join(', ');
}

/**
 * How the index's similarity (its settings) differs from the scorer the queries are written for, or null when it
 * does not: BM25's k1 and b for bm25 / bm25-lucene, Dirichlet's mu for ql (SEMANTICS.md: the cluster ranks with its
 * own similarity, never querylens's parameters). Other scorers have no similarity of the cluster to compare with.
 */
export function similarityDifference(similarity: ClusterSimilarity, scorer: ClusterSessionSettings['scorer']): string | null {
  const where = similarity.configured ? 'its "index.similarity.default" settings' : 'the cluster\'s default, as the index sets none';
  const fix = 'the cluster ranks with its own; to rank as the queries are written, change the index\'s similarity settings (they need the index closed) or querylens\'s scorer to match';
  const bm25 = scorer.name === 'bm25' || scorer.name === 'bm25-lucene';
  if (!bm25 && scorer.name !== 'ql') return null;
  const wanted = bm25 ? { type: 'BM25', values: { k1: scorer.k1, b: scorer.b } } : { type: 'LMDirichlet', values: { mu: scorer.mu } };
  const has = similarity.type === 'BM25' ? { k1: similarity.k1, b: similarity.b } : similarity.type === 'LMDirichlet' ? { mu: similarity.mu } : {};
  if (similarity.type !== wanted.type) {
    return `the index scores with ${similarity.type}${parameters(has) ? ` (${parameters(has)})` : ''} (${where}), not ${bm25 ? 'BM25' : 'Dirichlet query likelihood'} as the ${scorer.name} scorer the queries are written for: ${fix}`;
  }
  const differs = Object.entries(wanted.values).some(([k, v]) => has[k as keyof typeof has] !== v);
  if (!differs) return null;
  return `the index's ${similarity.type} has ${parameters(has)} (${where}), the queries are written for ${parameters(wanted.values)} (${scorer.name}): ${fix}`;
}
