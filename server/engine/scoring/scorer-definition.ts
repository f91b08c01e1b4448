/**
 * What a scorer is to the engine (the registry, scorers.ts, maps each name to one): its parameters
 * and their checks, how it reads the query plan, and three steps that PreparedQuery (prepared.ts)
 * runs once per query, never asking which scorer it holds:
 *   prepare(query) → the per-query constants (Lucene's docCount and norm cache, BM25F's fields, …);
 *   concept(constants, concept) → one concept's scoring constants, writing its hover statistics
 *     (idf, qtw, P(c|C)) onto the concept's `ConceptInfo`;
 *   bind(constants, concepts) → a `QueryScorer`: the document evaluation with its explanation, the
 *     query as dynamic pruning evaluates it (or null: this query cannot be pruned), and why a
 *     document is not retrieved.
 * The formulas are the pure functions of terrier-bm25.ts, bm25f.ts, lucene-bm25.ts, dirichlet.ts
 * and impact.ts (SEMANTICS.md §4); the scorer modules (scorer-*.ts) only wire them to the plan.
 */
import type { SourceRange } from '../../../grammar/ast.js';
import type { IndexReader } from '../index/reader.js';
import type { Plan, PlanSemantics } from './compile.js';
import type { ConceptEvaluator, ConceptSpec } from './concepts.js';
import type { ExplainNode } from './explain.js';
import type { PlanMatcher, TfOf } from './plan-match.js';
import type { PrunableQuery } from './pruning.js';

export type ScorerParameter = 'k1' | 'b' | 'k3' | 'mu';

export type WindowStats = 'exact' | 'terrier-heuristic';

/** The resolved parameters a scorer reads (every field a number: those it does not read keep the others' defaults). */
export interface ScoringParameters {
  k1: number;
  b: number;
  k3: number;
  mu: number;
  /** bm25f's `w.<field>`/`c.<field>` as given (fields not named keep Terrier's defaults); {} for other scorers. */
  fieldParams: Record<string, number>;
  windowStats: WindowStats;
}

/** A compiled concept with the statistics and weights the scorer uses (hover, model training). */
export interface ConceptInfo {
  key: string;
  label: string;
  kind: ConceptSpec['kind'];
  spec: ConceptSpec;
  ranges: SourceRange[];
  /** False when the concept only filters (#filreq filter, prohibited clause). */
  scored: boolean;
  /** Statistics used for scoring (exact, or Terrier's heuristic for windows). */
  df: number;
  cf: number;
  /** Exact statistics counted from the index. */
  exactDf: number;
  exactCf: number;
  statistics: WindowStats;
  /** bm25: the accumulated weight (Σ weight products of its occurrences). */
  weight: number;
  /** bm25: weight / max weight (Terrier's normaliseTermWeights). */
  qtw?: number;
  /** bm25 and bm25-lucene: the concept's idf under that scorer. */
  idf?: number;
  /** ql: P(c|C). */
  collectionProbability?: number;
  /** bm25f: each field's parameters, average length and the concept's statistics inside it. */
  fieldStats?: { field: string; w: number; c: number; avglen: number; df: number; cf: number }[];
}

/** A concept of the query before the scorer has seen it. */
export interface QueryConcept {
  info: ConceptInfo;
  /** It matches nothing (a stopword, an unknown word): never present in a document. */
  missing: boolean;
}

/** What a scorer is prepared from: the query compiled against one index. */
export interface QueryContext {
  reader: IndexReader;
  parameters: ScoringParameters;
  /** The plan; null for an empty query (nothing is then evaluated). */
  root: Plan | null;
  concepts: readonly QueryConcept[];
  /** Reads per-document frequencies of concepts (BM25F's per-field ones). */
  evaluator: ConceptEvaluator;
  numDocs: number;
  totalTokens: number;
  /** Terrier's average document length, tokens / documents (SEMANTICS.md §4.1). */
  avgdl: number;
  matcher: PlanMatcher;
  /** No Lucene booleans, filters or *:*: a document matches when some scored concept occurs. */
  pureBag: boolean;
  /** The plan holds Lucene's `*:*`. */
  hasMatchAll: boolean;
}

export interface Evaluation {
  matched: boolean;
  score: number;
  node?: ExplainNode;
}

/** One query under one scorer: chosen once per query, called once per document scored. */
export interface QueryScorer {
  /** The document's score, whether the query retrieves it, and with `explain` how the score is formed. */
  evaluate(doc: number, tfOf: TfOf, explain: boolean): Evaluation;
  /** The query as dynamic pruning evaluates it (scoring/pruning.ts), or null when it cannot be pruned. */
  prunable(): PrunableQuery | null;
  /** Why a document the query does not retrieve is not retrieved. */
  whyNot(doc: number, tfOf: TfOf): string;
}

/** A scorer; `Q` its per-query constants, `C` its per-concept ones. */
export interface ScorerDefinition<Q = unknown, C = unknown> {
  /** What the scorer is, for help texts and messages. */
  readonly description: string;
  /** The parameters it reads, with their defaults. */
  readonly defaults: Readonly<Partial<Record<ScorerParameter, number>>>;
  /** Its defaults under `anserini` (bm25-lucene: Anserini's k1 and b, SEMANTICS.md §4.3), if it has such. */
  readonly anseriniDefaults?: Readonly<Partial<Record<ScorerParameter, number>>>;
  /** It reads per-field parameters `w.<field>`/`c.<field>` (bm25f). */
  readonly readsFieldParams: boolean;
  /** The per-concept statistic it puts on ConceptInfo for the hover: `idf`, or `collectionProbability` P(c|C). */
  readonly conceptStatistic: 'idf' | 'collectionProbability';
  /** How the query plan is read: a bag of concepts, Lucene's BooleanQuery, or Indri's belief network (compile.ts). */
  readonly plan: PlanSemantics;
  /** The postings it scores: term counts, or impacts (impact indexes). */
  readonly postings: 'counts' | 'impacts';
  /** It also ranks an impact index whose impacts are term frequencies (DeepCT-Index tf′, impact.ts). */
  readonly ranksTfImpacts: boolean;
  /** Some of its queries can be pruned (QueryScorer.prunable); false: every query is scored exhaustively. */
  readonly prunable: boolean;
  /** Throws RangeError, with a clear message, for parameters it cannot use. */
  validate(p: ScoringParameters): void;
  prepare(query: QueryContext): Q;
  /**
   * Build the result as an object literal, not a spread of `concept`: the scoring loop reads it for
   * every document, and spread copies measured markedly slower to read there.
   */
  concept(constants: Q, concept: QueryConcept): C;
  bind(constants: Q, concepts: readonly C[]): QueryScorer;
}
