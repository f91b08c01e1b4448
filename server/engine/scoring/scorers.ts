/**
 * The scorer registry: every scorer's name, what it is, its parameters and their defaults, listed
 * once. The engine resolves parameters from it (prepared.ts resolveParameters), the CLI builds its
 * option help and checks from it (server/cli/commands/search-options.ts), the language server
 * checks querylens.json's `scorer` against it (server/lsp/config.ts). Formulas: SEMANTICS.md §4.
 */
import type { DslOptions } from '../../../grammar/print/query-dsl.js';
import { BM25F_DEFAULTS } from './bm25f.js';
import { DIRICHLET_DEFAULT_MU } from './dirichlet.js';
import { ANSERINI_BM25, LUCENE_BM25_DEFAULTS } from './lucene-bm25.js';
import { TERRIER_BM25_DEFAULTS } from './terrier-bm25.js';

export type ScorerParameter = 'k1' | 'b' | 'k3' | 'mu';

export interface ScorerSpec {
  /** What the scorer is, for help texts and messages. */
  description: string;
  /** The parameters it reads, with their defaults. */
  defaults: Readonly<Partial<Record<ScorerParameter, number>>>;
}

export const SCORERS = {
  bm25: { description: 'Terrier BM25', defaults: TERRIER_BM25_DEFAULTS },
  'bm25-lucene': { description: 'Lucene BM25, float32', defaults: LUCENE_BM25_DEFAULTS },
  ql: { description: 'Indri query likelihood, Dirichlet smoothing', defaults: { mu: DIRICHLET_DEFAULT_MU } },
  // Its per-field parameters (w.<field>, c.<field>) depend on the index: SearchOptions.fieldParams.
  bm25f: { description: 'Terrier BM25F, per-field length normalisation', defaults: BM25F_DEFAULTS },
  // For impact indexes only (JSON vectors, CIFF imports of them): Σ weight × impact, no parameters.
  impact: { description: 'sum of query weight × impact, for impact indexes', defaults: {} },
} as const satisfies Record<string, ScorerSpec>;

export type ScorerName = keyof typeof SCORERS;
export const SCORER_NAMES = Object.keys(SCORERS) as ScorerName[];
export const DEFAULT_SCORER: ScorerName = 'bm25';
/** `bm25-lucene` with Anserini's defaults (SEMANTICS.md §4.3). */
export const ANSERINI_DEFAULTS = ANSERINI_BM25;

export function isScorerName(name: unknown): name is ScorerName {
  return typeof name === 'string' && Object.hasOwn(SCORERS, name);
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
