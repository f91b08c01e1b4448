/**
 * The scorer registry: every scorer's name mapped to its definition (scorer-definition.ts), listed
 * once: what it is, its parameters and their defaults, their checks, how it reads the plan, and its
 * per-query preparation, per-concept constants, evaluation with explanation, pruning and "why not".
 * The engine resolves parameters and scores through it (prepared.ts: PreparedQuery looks the
 * definition up once and never asks which scorer it holds), the CLI builds its option help and
 * checks from it (server/cli/commands/search-options.ts), the language server checks
 * querylens.json's `scorer` against it (server/lsp/config.ts). Formulas: SEMANTICS.md §4.
 */
import type { DslOptions } from '../../../grammar/print/query-dsl.js';
import { LUCENE_BM25 } from './scorer-bm25-lucene.js';
import { TERRIER_BM25, TERRIER_BM25F } from './scorer-bm25.js';
import type { ScorerDefinition, ScorerParameter } from './scorer-definition.js';
import { IMPACT } from './scorer-impact.js';
import { QUERY_LIKELIHOOD } from './scorer-ql.js';

export type { ScorerDefinition, ScorerParameter } from './scorer-definition.js';

export const SCORERS = {
  bm25: TERRIER_BM25,
  'bm25-lucene': LUCENE_BM25,
  ql: QUERY_LIKELIHOOD,
  bm25f: TERRIER_BM25F,
  impact: IMPACT,
} as const satisfies Record<string, ScorerDefinition>;

export type ScorerName = keyof typeof SCORERS;
export const SCORER_NAMES = Object.keys(SCORERS) as ScorerName[];
export const DEFAULT_SCORER: ScorerName = 'bm25';
/** `bm25-lucene` with Anserini's defaults (SEMANTICS.md §4.3). */
export const ANSERINI_DEFAULTS = LUCENE_BM25.anseriniDefaults;

export function isScorerName(name: unknown): name is ScorerName {
  return typeof name === 'string' && Object.hasOwn(SCORERS, name);
}

/** The definition of a scorer, typed as the interface (what PreparedQuery calls). */
export function scorerDefinition(name: ScorerName): ScorerDefinition {
  return SCORERS[name];
}

/** "bm25 (Terrier BM25), bm25-lucene (Lucene BM25, float32), ql (…) or bm25f (…)", for help texts. */
export function describeScorers(): string {
  const items = SCORER_NAMES.map((n) => `${n} (${SCORERS[n].description})`);
  return `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

/** Does `name` read parameter `p`? (k3 is Terrier's only; mu is query likelihood's; bm25f has no b but c.<field>.) */
export function scorerReads(name: ScorerName, p: ScorerParameter): boolean {
  return p in SCORERS[name].defaults;
}

// The grammar cannot import the engine, so its DSL translation names the scorers itself; this
// line fails to compile when the two lists differ.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const grammarNamesTheSameScorers: Same<NonNullable<DslOptions['scorer']>, ScorerName> = true;
void grammarNamesTheSameScorers;
