/**
 * An OpenSearch / Elasticsearch cluster as a SearchBackend (search-backend.ts), over the remote backend
 * (server/backends/remote): the cluster ranks and explains with its own similarity; statistics come from
 * `_termvectors` (one shard's: ClusterTermStatistics) and `_count` (every shard); Bo1 reads the feedback
 * documents' term vectors (cluster-expansion.ts). Failures are the remote backend's ClusterErrors.
 */
import { parseIndri, walk, type QueryAst } from '../../grammar/index.js';
import type { ClusterBackend, ClusterHit } from '../backends/remote/cluster-backend.js';
import { clusterExpandedQuery, expandOnCluster } from '../backends/remote/cluster-expansion.js';
import type { StoredDocument } from '../engine/index/reader.js';
import type { ExplainNode, SearchOptions } from '../engine/search.js';
import { snippetOf, type Snippet } from './snippets.js';
import type {
  BackendCollectionStatistics,
  BackendExpansion,
  BackendExpansionOptions,
  BackendRanking,
  BackendSearchOptions,
  BackendTermStatistics,
  BackendWindow,
  SearchBackend,
} from './search-backend.js';
import { windowOperator } from './search-backend.js';

/** Lower-cased words, for highlighting a hit's `_source` text (the cluster's analyser is not known here). */
const wordAnalyzer = {
  analyze(text: string): { term: string; start: number; end: number }[] {
    return [...text.matchAll(/[\p{L}\p{N}]+/gu)].map((m) => ({ term: m[0].toLowerCase(), start: m.index!, end: m.index! + m[0].length }));
  },
};

/** The query's words as the snippets of cluster hits highlight them. */
export function clusterQueryWords(ast: QueryAst): Set<string> {
  const out = new Set<string>();
  walk(ast.root, (n) => {
    if (n.kind === 'term') for (const w of wordAnalyzer.analyze(n.text)) out.add(w.term);
  });
  return out;
}

/** A cluster hit's snippet: the passage of its `_source` text with the most of `words`, highlighted. */
export function clusterHitSnippet(backend: ClusterBackend, hit: ClusterHit, words: ReadonlySet<string>): Snippet {
  return snippetOf(wordAnalyzer, backend.hitText(hit).text, words);
}

export class ClusterSearchBackend implements SearchBackend {
  readonly kind: 'opensearch' | 'elasticsearch';
  readonly location: string;
  // `options.scorer` is the scorer the query is written for: it decides the translation's diagnostics (the cluster
  // scores with its own similarity).

  constructor(readonly cluster: ClusterBackend) {
    this.kind = cluster.config.type;
    this.location = cluster.location;
  }

  async collectionStatistics(): Promise<BackendCollectionStatistics> {
    return { numDocs: (await this.cluster.probe()).numDocs, totalTokens: null };
  }

  async termStatistics(text: string): Promise<BackendTermStatistics[]> {
    const stats = await this.cluster.termStatistics(text);
    return [...stats.terms].map(([term, s]) => ({ term, df: s.df, cf: s.cf }));
  }

  async windowStatistics(words: readonly string[], window: BackendWindow): Promise<{ df: number; cf: number | null }> {
    const operator = windowOperator(words, window);
    const { query } = this.cluster.translate(parseIndri(`${operator}( ${words.join(' ')} )`).ast);
    if (!query) throw new RangeError(`the window ${operator}( ${words.join(' ')} ) has no form in the query DSL`);
    // `_count` counts the documents on every shard; the cluster does not count a window's occurrences.
    return { df: await this.cluster.count(query), cf: null };
  }

  async vocabulary(prefix: string, size: number): Promise<{ terms: string[]; complete: boolean }> {
    // Ask for one more than wanted: a full answer of size + 1 says there are more.
    const listed = await this.cluster.termsEnum(prefix, size + 1);
    return { terms: listed.terms.slice(0, size), complete: listed.complete && listed.terms.length <= size };
  }

  async search(ast: QueryAst, options: BackendSearchOptions = {}): Promise<BackendRanking> {
    const { describe = 10 } = options;
    const result = await this.cluster.search(ast, { k: options.k ?? 1000, scorer: options.scorer });
    const words = clusterQueryWords(ast);
    const hits = result.hits.map((h, i) => {
      if (i >= describe) return { docno: h.docno, score: h.score };
      return { docno: h.docno, score: h.score, title: this.cluster.hitText(h).title || h.docno, snippet: clusterHitSnippet(this.cluster, h, words) };
    });
    return { hits, matchedDocs: result.matchedDocs, diagnostics: result.diagnostics };
  }

  async explain(ast: QueryAst, docno: string, options: SearchOptions = {}): Promise<ExplainNode> {
    // A missing id is the cluster's 404, a ClusterError 'document-missing' (not "not matched").
    const { diagnostics: _translation, ...tree } = await this.cluster.explain(ast, docno, { scorer: options.scorer });
    return tree;
  }

  async feedbackDocuments(ast: QueryAst, fbDocs: number, options: SearchOptions = {}): Promise<string[]> {
    const first = await this.cluster.search(ast, { k: Math.max(fbDocs, 1), scorer: options.scorer });
    return first.hits.slice(0, fbDocs).map((h) => h.docno);
  }

  async expand(ast: QueryAst, feedbackDocnos: readonly string[], options: BackendExpansionOptions): Promise<BackendExpansion> {
    if (options.method !== 'bo1') throw new RangeError(`on a cluster querylens expands with bo1 only, not ${options.method}`);
    const expansion = await expandOnCluster(this.cluster, ast, feedbackDocnos, { fbTerms: options.fbTerms ?? 10 });
    return { ast: clusterExpandedQuery(expansion, ast), terms: expansion.terms, feedbackDocnos: expansion.feedbackDocnos };
  }

  document(docno: string): Promise<StoredDocument> {
    return this.cluster.document(docno);
  }

  close(): Promise<void> {
    return this.cluster.close();
  }
}
