/**
 * What the engine features share once an index is loaded: the search backend (server/service),
 * the qrels, the search options derived from the configuration, and per-session caches. A new
 * `EngineSession` is made for every (re)load, so caches never outlive the index they describe.
 */
import type { Qrels } from '../../engine/eval/index.js';
import type { SearchHit, SearchOptions } from '../../engine/search.js';
import { documentTitle, type LocalBackend } from '../../service/backend.js';
import { queryMetrics } from '../../service/evaluation.js';
import { parseFieldParamName } from '../../engine/scoring/bm25f.js';
import { fieldParamsOf, type ResolvedConfig } from '../config.js';
import { scorerDefinition, scorerReads } from '../../engine/scoring/scorers.js';
import type { ScorerName } from '../../engine/search.js';

/** Measures shown in previews and comparisons (trec_eval names). */
export const PREVIEW_MEASURES = ['ndcg_cut_10', 'map', 'P_10', 'recall_100', 'recip_rank'];

/** The configured scorer with the configured values of the parameters it reads (the registry's defaults say which). */
export function searchOptionsOf(config: ResolvedConfig): SearchOptions {
  const s = config.scorer;
  // bm25f has no b: each field has its own normalisation (c.<field>); k3 is not configurable.
  return {
    scorer: s.name,
    ...(scorerReads(s.name, 'k1') ? { k1: s.k1 } : {}),
    ...(scorerReads(s.name, 'b') ? { b: s.b } : {}),
    ...(scorerReads(s.name, 'mu') ? { mu: s.mu } : {}),
    ...(scorerDefinition(s.name).readsFieldParams ? { fieldParams: fieldParamsOf(s) } : {}),
  };
}

export class EngineSession {
  readonly options: SearchOptions;
  /** Per-feature caches keyed by dialect + query text (cleared with the session). */
  readonly caches = new Map<string, Map<string, unknown>>();
  private readonly fieldSet: Set<string>;

  constructor(
    readonly backend: LocalBackend,
    readonly config: ResolvedConfig,
    readonly qrels: Qrels | null,
    readonly indexPath: string,
  ) {
    this.fieldSet = new Set(backend.fields());
    const options = searchOptionsOf(config);
    // A w.<field>/c.<field> for a field this index lacks is dropped and said once in the status,
    // rather than failing every ranking.
    const unknown = Object.keys(options.fieldParams ?? {}).filter((name) => !this.fieldSet.has(parseFieldParamName(name)!.field));
    if (unknown.length) {
      options.fieldParams = Object.fromEntries(Object.entries(options.fieldParams!).filter(([name]) => !unknown.includes(name)));
      this.settingsProblem = `scorer ${unknown.map((n) => `"${n}"`).join(', ')} ignored: the index has no such field (its fields: ${[...this.fieldSet].join(', ')})`;
    }
    this.options = options;
  }

  /**
   * The search options with another scorer of the registry in place of the configured one (the
   * scoreboard's "compare scorers"): querylens.json's k1, b, mu and per-field parameters carry over,
   * as they would if its `scorer.name` were changed.
   */
  optionsWithScorer(name: ScorerName): SearchOptions {
    if (name === this.config.scorer.name) return this.options;
    const options = searchOptionsOf({ ...this.config, scorer: { ...this.config.scorer, name } });
    // The per-field parameters this index cannot use were already dropped from this.options.
    if (options.fieldParams) options.fieldParams = { ...this.options.fieldParams };
    return options;
  }

  /** A scorer setting that could not be used with this index, for the status line. */
  readonly settingsProblem?: string;

  hasField(field: string): boolean {
    return this.fieldSet.has(field);
  }

  cache<T>(name: string): Map<string, T> {
    let c = this.caches.get(name);
    if (!c) this.caches.set(name, (c = new Map()));
    return c as Map<string, T>;
  }

  /** Qrels relevance of a document for a query; null when not judged, no qrels, or the query has no written id (qid null). */
  relevance(qid: string | null, docno: string): number | null {
    if (qid === null) return null;
    return this.qrels?.get(qid)?.get(docno) ?? null;
  }

  /** trec_eval measures of one ranked list; null when the qrels do not judge the query or it has no written id (qid null). */
  metrics(qid: string | null, hits: readonly SearchHit[], measures = PREVIEW_MEASURES): Record<string, number> | null {
    if (qid === null || !this.qrels) return null;
    return queryMetrics(this.qrels, qid, hits, measures);
  }

  title(doc: number): string {
    return documentTitle(this.backend.document(doc));
  }
}

/**
 * The topic a query is judged against: its written id. A query without one (its id implied by its
 * line) is never judged against the topic that happens to have that number.
 */
export function judgedQid(entry: { qid: string; implicitQid?: true }): string | null {
  return entry.implicitQid ? null : entry.qid;
}
