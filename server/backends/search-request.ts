/**
 * Search request bodies for OpenSearch and Elasticsearch, built from a translated query
 * (grammar/print/query-dsl.ts). The return types are the official clients' own request types,
 * so a query shape the cluster would not accept fails `tsc`, not a user's search.
 */
import type { estypes } from '@elastic/elasticsearch';
import type { API } from '@opensearch-project/opensearch';
import type { DslQuery } from '../../grammar/index.js';

export type ClusterKind = 'opensearch' | 'elasticsearch';

export interface SearchRequestOptions {
  /** How many hits to return. */
  size: number;
  /** Document fields to return in `_source` (none when empty). */
  sourceFields?: string[];
}

/** The body of an OpenSearch `_search` request. */
export function openSearchBody(query: DslQuery, options: SearchRequestOptions): API.Search_RequestBody {
  return { query, size: options.size, _source: options.sourceFields?.length ? options.sourceFields : false, track_total_hits: true };
}

/** The body of an Elasticsearch `_search` request. */
export function elasticsearchBody(query: DslQuery, options: SearchRequestOptions): estypes.SearchRequest {
  return { query, size: options.size, _source: options.sourceFields?.length ? options.sourceFields : false, track_total_hits: true };
}

/** The request body for either kind of cluster (the two agree on every construct querylens emits). */
export function searchBody(kind: ClusterKind, query: DslQuery, options: SearchRequestOptions): API.Search_RequestBody | estypes.SearchRequest {
  return kind === 'opensearch' ? openSearchBody(query, options) : elasticsearchBody(query, options);
}
