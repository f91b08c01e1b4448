/**
 * A query compiled against one index with one scorer: collection statistics, concept
 * weights and posting lists are computed once; then any number of documents can be scored,
 * explained or searched. search.ts is the public face of this module.
 */
import type { QueryAst, SourceRange } from '../../../grammar/ast.js';
import type { QueryDiagnostic } from '../../../grammar/diagnostics.js';
import type { IndexReader } from '../index/reader.js';
import { compileQuery, type CompiledConcept, type Plan, type PlanItem, type ScorerName } from './compile.js';
import { ANSERINI_DEFAULTS, DEFAULT_SCORER, isScorerName, SCORER_NAMES, SCORERS, type ScorerParameter } from './scorers.js';
import { indexOfDoc, isWindowLike, unionAll, type ConceptPostings, type ConceptSpec } from './concepts.js';
import {
  bm25fTfn,
  bm25fWeight,
  conceptInField,
  explainBm25f,
  fieldLength,
  resolveBm25fFields,
  validateBm25fParams,
  type Bm25fField,
} from './bm25f.js';
import {
  collectionProbability,
  combineBeliefs,
  finiteScore,
  describeBeliefOp,
  DIRICHLET_DEFAULT_MU,
  dirichletBelief,
  explainDirichlet,
  validateDirichletMu,
} from './dirichlet.js';
import { explainNode, fmt, type ExplainNode } from './explain.js';
import {
  explainLuceneIdf,
  explainLuceneTerm,
  intToByte4,
  luceneAvgdl,
  luceneBm25Score,
  luceneIdf,
  luceneNormCache,
  lucenePhraseIdf,
  validateLuceneBm25Params,
} from './lucene-bm25.js';
import { compareRanked, TopK, type RankedDoc } from './ranking.js';
import { maxScoreSearch, impactTermScore, type PrunableTerm } from './pruning.js';
import { checkPositionsAvailable, checkScorerFitsIndex, explainImpactTerm, impactContribution, withIndexParameters } from './impact.js';
import {
  explainTerrierIdf,
  explainTerrierQtw,
  explainTerrierTf,
  TERRIER_BM25_DEFAULTS,
  terrierBm25,
  terrierIdf,
  terrierQtwFactor,
  terrierTfComponent,
  validateTerrierBm25Params,
} from './terrier-bm25.js';

export type WindowStats = 'exact' | 'terrier-heuristic';

export interface SearchOptions {
  scorer?: ScorerName;
  /** BM25 k1 (Terrier default 1.2; Lucene 1.2, or 0.9 with `anserini`). */
  k1?: number;
  /** BM25 b (Terrier default 0.75; Lucene 0.75, or 0.4 with `anserini`). */
  b?: number;
  /** Terrier BM25 k3 (default 8). */
  k3?: number;
  /** Dirichlet mu (default 2500). */
  mu?: number;
  /** bm25f: per-field weights and normalisations, `w.<field>` and `c.<field>` (default 1 each, as Terrier). */
  fieldParams?: Readonly<Record<string, number>>;
  /** Hits to return (default 1000). */
  k?: number;
  /** Collection statistics of #1/#uw/phrases: exact counts (default) or Terrier's df = N/100, cf = 2·df (SEMANTICS.md §2.2). */
  windowStats?: WindowStats;
  /** bm25-lucene with Anserini's k1 = 0.9, b = 0.4 (SEMANTICS.md §4.3) unless k1/b are given. */
  anserini?: boolean;
  /** Cap on wildcard/regex/range expansions (default 100, Indri's maxWildcardTerms). */
  maxExpansions?: number;
  /** Cap on fuzzy expansions (default 50, Lucene's). */
  maxFuzzyExpansions?: number;
  /**
   * true: score every matching document. false: prune every query pruning can evaluate. Unset
   * (default): prune a bm25 or bm25-lucene query that is a weighted sum of plain terms when its
   * posting lists hold many more documents than k (scoring/pruning.ts). A pruned search returns the
   * same top k, but its `matchedDocs` counts only the documents scored.
   */
  exhaustive?: boolean;
}

export interface ResolvedParameters {
  scorer: ScorerName;
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

export interface SearchHit {
  doc: number;
  docno: string;
  score: number;
}

export interface SearchResult {
  hits: SearchHit[];
  warnings: QueryDiagnostic[];
  concepts: ConceptInfo[];
  parameters: ResolvedParameters;
  /** Documents that matched the query (before the top-k cut); with `pruned`, those scored (a lower bound). */
  matchedDocs: number;
  /** True when dynamic pruning skipped documents that could not enter the top k. */
  pruned: boolean;
}

/** Resolves defaults and validates parameters; throws RangeError with a clear message. */
export function resolveParameters(options: SearchOptions = {}): ResolvedParameters {
  const scorer = options.scorer ?? DEFAULT_SCORER;
  if (!isScorerName(scorer)) throw new RangeError(`unknown scorer "${String(scorer)}" (expected ${SCORER_NAMES.slice(0, -1).join(', ')} or ${SCORER_NAMES[SCORER_NAMES.length - 1]})`);
  // Parameters a scorer does not read keep the other scorers' defaults, so every field is a number.
  const own: Partial<Record<ScorerParameter, number>> = scorer === 'bm25-lucene' && options.anserini ? ANSERINI_DEFAULTS : SCORERS[scorer].defaults;
  const base = { ...TERRIER_BM25_DEFAULTS, mu: DIRICHLET_DEFAULT_MU, ...own };
  const p: ResolvedParameters = {
    scorer,
    k1: options.k1 ?? base.k1,
    b: options.b ?? base.b,
    k3: options.k3 ?? base.k3,
    mu: options.mu ?? base.mu,
    fieldParams: scorer === 'bm25f' ? { ...options.fieldParams } : {},
    windowStats: options.windowStats ?? 'exact',
  };
  if (p.windowStats !== 'exact' && p.windowStats !== 'terrier-heuristic') throw new RangeError(`windowStats must be "exact" or "terrier-heuristic" (got "${String(p.windowStats)}")`);
  if (scorer === 'bm25') validateTerrierBm25Params(p);
  if (scorer === 'bm25-lucene') validateLuceneBm25Params(p);
  if (scorer === 'ql') validateDirichletMu(p.mu);
  if (scorer === 'bm25f') validateBm25fParams(p);
  if (options.k !== undefined && (!Number.isInteger(options.k) || options.k < 0)) throw new RangeError(`k must be a non-negative integer (got ${options.k})`);
  return p;
}

type TfOf = (concept: number) => number;

/** A term of a query pruning can evaluate, before its block postings are read. */
interface PrunableQueryTerm {
  concept: number;
  term: string;
  /** Its document frequency (the lexicon's). */
  df: number;
  score: PrunableTerm['score'];
  neverPositive?: boolean;
  boundKey?: string;
}

interface Evaluation {
  matched: boolean;
  score: number;
  node?: ExplainNode;
}

interface ConceptRuntime {
  info: ConceptInfo;
  /**
   * Materialized when a search needs it (a pruned search of plain terms reads block postings
   * instead), from the evaluator: kept only until the operation ends (concepts.ts, Memory).
   */
  postings: () => ConceptPostings;
  /** bm25: idf · ... factors that do not depend on the document. */
  idf: number;
  qtwFactor: number;
  /** ql: P(c|C). */
  pc: number;
  missing: boolean;
  /** bm25-lucene phrases: the terms' idfs, whose float sum is the phrase idf. */
  termIdfs?: { term: string; idf: number }[];
  /** bm25f: the concept restricted to each field, in `bm25fFields` order (its per-field tf comes from these). */
  fieldSpecs?: ConceptSpec[];
}

export class PreparedQuery {
  readonly parameters: ResolvedParameters;
  readonly warnings: QueryDiagnostic[];
  readonly concepts: ConceptInfo[];
  private readonly root: Plan | null;
  private readonly rt: ConceptRuntime[];
  private readonly compiled: CompiledConcept[];
  private readonly numDocs: number;
  private readonly totalTokens: number;
  private readonly avgdl: number;
  private readonly maxWeight: number;
  // bm25-lucene
  private readonly docCount: number;
  private readonly luceneAvg: number;
  private readonly normCache: Float32Array | null;
  private readonly hasMatchAll: boolean;
  private readonly positiveForQl: boolean[];
  private readonly positiveConcepts: number[];
  private readonly qlNeedsEligibility: boolean;
  private readonly qlFast: ((tfOf: TfOf, dl: number) => number) | null;
  /** No Lucene booleans, filters or *:*: a document matches when some scored concept occurs. */
  private readonly pureBag: boolean;
  private readonly evaluator;
  /** bm25f: the index's fields with their w, c and average length. */
  private readonly bm25fFields: Bm25fField[] | null;
  private readonly pruning: 'auto' | 'always' | 'never';
  /** The terms of a query dynamic pruning can evaluate, or null (scoring/pruning.ts). */
  private prunable: PrunableQueryTerm[] | null | undefined;
  /** ql: the part of a pruned query's score that depends only on the document length (scoring/pruning.ts). */
  private qlLengthPart: ((dl: number) => number) | undefined;

  constructor(
    readonly reader: IndexReader,
    readonly ast: QueryAst,
    options: SearchOptions = {},
  ) {
    this.parameters = resolveParameters(withIndexParameters(reader, options));
    this.pruning = options.exhaustive === undefined ? 'auto' : options.exhaustive ? 'never' : 'always';
    const p = this.parameters;
    checkScorerFitsIndex(reader, p.scorer);
    const plan = compileQuery(reader, ast, { scorer: p.scorer, maxExpansions: options.maxExpansions, maxFuzzyExpansions: options.maxFuzzyExpansions });
    checkPositionsAvailable(reader, plan.concepts.map((c) => c.spec));
    this.evaluator = plan.evaluator;
    this.root = plan.root;
    this.warnings = plan.warnings;
    this.compiled = plan.concepts;
    const stats = reader.stats();
    this.numDocs = stats.numDocs;
    this.totalTokens = stats.totalTokens;
    // Terrier: averageDocumentLength = tokens / documents (SEMANTICS.md §4.1).
    this.avgdl = stats.numDocs > 0 ? stats.totalTokens / stats.numDocs : 0;
    // Lucene counts only documents that have the field (a non-empty one).
    this.docCount = p.scorer === 'bm25-lucene' ? countNonEmpty(reader) : stats.numDocs;
    this.luceneAvg = p.scorer === 'bm25-lucene' && this.docCount > 0 ? luceneAvgdl(stats.totalTokens, this.docCount) : 0;
    this.normCache = p.scorer === 'bm25-lucene' ? luceneNormCache(this.luceneAvg, p.k1, p.b) : null;
    this.bm25fFields = p.scorer === 'bm25f' ? resolveBm25fFields(reader, p.fieldParams) : null;

    // Terrier's normaliseTermWeights: divide by the largest weight. Stopwords never reach the
    // query in Terrier (the pipeline drops them), so they do not count; OOV terms do.
    let maxWeight = -Infinity;
    for (const c of plan.concepts) if (c.scored && c.spec.kind !== 'missing' && c.weight > maxWeight) maxWeight = c.weight;
    if (!(maxWeight > 0)) {
      maxWeight = 0;
      for (const c of plan.concepts) if (c.scored && c.spec.kind !== 'missing') maxWeight = Math.max(maxWeight, Math.abs(c.weight));
    }
    this.maxWeight = maxWeight;

    this.rt = plan.concepts.map((c) => this.runtime(c));
    this.concepts = this.rt.map((r) => r.info);
    this.hasMatchAll = this.root !== null && planHas(this.root, (n) => n.kind === 'all');
    this.positiveForQl = plan.concepts.map(() => false);
    if (this.root) markPositive(this.root, this.positiveForQl, true);
    this.positiveConcepts = this.positiveForQl.flatMap((pos, c) => (pos && !this.rt[c]!.missing ? [c] : []));
    this.qlNeedsEligibility = this.root !== null && planHas(this.root, (n) => n.kind === 'filter' || (n.kind === 'group' && n.items.some((it) => it.occur !== 'should')));
    this.qlFast = p.scorer === 'ql' && this.root ? this.compileQlFast(this.root) : null;
    this.pureBag = this.root !== null && !planHas(this.root, (n) => n.kind === 'filter' || n.kind === 'all' || (n.kind === 'group' && n.op === 'bool'));
    // The statistics are numbers now: the lists read for them are not kept with the query.
    this.evaluator.release();
  }

  /** Runs one public operation, then lets go of the lists it decoded (concepts.ts, Memory). */
  private released<T>(operation: () => T): T {
    try {
      return operation();
    } finally {
      this.evaluator.release();
    }
  }

  /** Bytes of decoded posting lists this compiled query keeps alive between operations (0: it keeps none). */
  retainedBytes(): number {
    return this.evaluator.retainedBytes();
  }

  /**
   * The belief network as nested closures for scoring without explanations: the same
   * functions (dirichletBelief, combineBeliefs) in the same order as qlBelief, so the numbers
   * are identical, without per-document allocation.
   */
  private compileQlFast(plan: Plan): (tfOf: TfOf, dl: number) => number {
    const mu = this.parameters.mu;
    switch (plan.kind) {
      case 'leaf':
      case 'constant': {
        const c = plan.concept;
        const pc = this.rt[c]!.pc;
        return (tfOf, dl) => dirichletBelief(tfOf(c), dl, pc, mu);
      }
      case 'all':
        return () => 0;
      case 'filter':
        return this.compileQlFast(plan.scored);
      case 'group': {
        const items = plan.items.filter((it) => it.occur !== 'mustNot');
        const weights = items.map((it) => it.weight);
        const children = items.map((it) => this.compileQlFast(it.plan));
        const op = plan.op === 'bool' ? 'weight' : plan.op;
        const beliefs = new Array<number>(children.length).fill(0);
        return (tfOf, dl) => {
          for (let i = 0; i < children.length; i++) beliefs[i] = children[i]!(tfOf, dl);
          return combineBeliefs(op, weights, beliefs);
        };
      }
    }
  }

  private runtime(c: CompiledConcept): ConceptRuntime {
    const p = this.parameters;
    const missing = c.spec.kind === 'missing';
    // A plain term's statistics are the lexicon's (as materialize gives them): its posting list is
    // not read until a search needs it.
    const spec = c.spec;
    const plainTerm = spec.kind === 'term' && !spec.fields?.length ? this.reader.termStats(spec.term) ?? { df: 0, cf: 0 } : null;
    const postingsOf = () => this.evaluator.materialize(spec);
    const postings = plainTerm ?? postingsOf();
    const heuristic = p.windowStats === 'terrier-heuristic' && isWindowLike(c.spec);
    // Terrier's PhraseOp/UnorderedWindowOp statistics (after Ivory): df = N/100, cf = 2·df (SEMANTICS.md §2.2).
    const df = heuristic ? Math.floor(this.numDocs / 100) : postings.df;
    const cf = heuristic ? 2 * df : postings.cf;
    const info: ConceptInfo = {
      key: c.key,
      label: c.label,
      kind: c.spec.kind,
      spec: c.spec,
      ranges: c.ranges,
      scored: c.scored,
      df,
      cf,
      exactDf: postings.df,
      exactCf: postings.cf,
      statistics: heuristic ? 'terrier-heuristic' : 'exact',
      weight: c.weight,
    };
    let idf = 0;
    let qtwFactor = 0;
    let pc = 0;
    let termIdfs: { term: string; idf: number }[] | undefined;
    let fieldSpecs: ConceptSpec[] | undefined;
    if (p.scorer === 'bm25' || p.scorer === 'bm25f') {
      idf = terrierIdf(df, this.numDocs);
      if (this.bm25fFields) {
        fieldSpecs = this.bm25fFields.map((f) => conceptInField(c.spec, f.name));
        const fp = fieldSpecs.map((fs) => this.evaluator.materialize(fs));
        info.fieldStats = this.bm25fFields.map((f, i) => ({ field: f.name, w: f.w, c: f.c, avglen: f.avglen, df: fp[i]!.df, cf: fp[i]!.cf }));
      }
      const qtw = this.maxWeight > 0 ? c.weight / this.maxWeight : 0;
      qtwFactor = terrierQtwFactor(qtw, p.k3);
      info.idf = idf;
      info.qtw = qtw;
    } else if (p.scorer === 'bm25-lucene') {
      const spec = c.spec;
      // Lucene's PhraseQuery sums its terms' idfs (SEMANTICS.md §4.2).
      const phraseTerms =
        spec.kind === 'window' && spec.phrase ? spec.children.map((t) => (t.kind === 'term' ? t.term : '')) : spec.kind === 'sloppy' ? spec.terms : null;
      if (phraseTerms) {
        termIdfs = phraseTerms.map((term) => ({ term, idf: luceneIdf(this.reader.termStats(term)?.df ?? 0, this.docCount) }));
        idf = lucenePhraseIdf(termIdfs.map((t) => t.idf));
      } else idf = luceneIdf(df, this.docCount);
      info.idf = idf;
    } else {
      pc = collectionProbability(cf, this.totalTokens);
      info.collectionProbability = pc;
    }
    return { info, postings: postingsOf, idf, qtwFactor, pc, missing, termIdfs, fieldSpecs };
  }

  // ---- public operations --------------------------------------------------------------------

  /** Document-at-a-time over the concepts' posting lists with a top-k heap. */
  search(k = 1000): SearchResult {
    return this.released(() => this.searchTopK(k));
  }

  private searchTopK(k: number): SearchResult {
    const top = new TopK(k, (doc) => this.reader.docnoRank(doc));
    let matchedDocs = 0;
    const base = { warnings: this.warnings, concepts: this.concepts, parameters: this.parameters, pruned: false };
    if (!this.root) return { hits: [], matchedDocs, ...base };
    const n = this.rt.length;
    if (this.pruning !== 'never' && this.prunable === undefined) this.prunable = this.prunableTerms();
    if (this.prunable && this.pruning !== 'never' && (this.pruning === 'always' || this.worthPruning(this.prunable, k))) {
      // The block postings are read only now (the docs parts: no positions).
      const terms: PrunableTerm[] = this.prunable.map((t) => ({ concept: t.concept, score: t.score, neverPositive: t.neverPositive, boundKey: t.boundKey, postings: this.reader.postingBlocks(t.term)! }));
      const current = new Float64Array(n);
      const tfOf: TfOf = (c) => current[c]!;
      const consider = (doc: number) => {
        const e = this.evaluate(doc, tfOf, false);
        if (!e.matched) return;
        matchedDocs++;
        if (top.wouldEnter(e.score)) top.offer(doc, e.score);
      };
      maxScoreSearch(terms, current, top, this.reader.docLengthTable(), consider, undefined, this.qlLengthPart);
      return { hits: top.sorted((doc) => this.reader.docno(doc)), matchedDocs, ...base, pruned: true };
    }
    const lists = this.rt.map((r) => r.postings());
    const docs = lists.map((l) => l.docs);
    const tfs = lists.map((l) => l.tfs);
    const cursor = new Int32Array(n);
    const current = new Float64Array(n);
    const tfOf: TfOf = (c) => current[c]!;
    const consider = (doc: number) => {
      const e = this.evaluate(doc, tfOf, false);
      if (!e.matched) return;
      matchedDocs++;
      if (top.wouldEnter(e.score)) top.offer(doc, e.score);
    };
    if (this.hasMatchAll) {
      for (let doc = 0; doc < this.numDocs; doc++) {
        for (let c = 0; c < n; c++) {
          const i = cursor[c]!;
          if (i < docs[c]!.length && docs[c]![i] === doc) {
            current[c] = tfs[c]![i]!;
            cursor[c] = i + 1;
          } else current[c] = 0;
        }
        consider(doc);
      }
    } else {
      for (;;) {
        let doc = 2147483647;
        for (let c = 0; c < n; c++) {
          const i = cursor[c]!;
          if (i < docs[c]!.length && docs[c]![i]! < doc) doc = docs[c]![i]!;
        }
        if (doc === 2147483647) break;
        for (let c = 0; c < n; c++) {
          const i = cursor[c]!;
          if (i < docs[c]!.length && docs[c]![i] === doc) {
            current[c] = tfs[c]![i]!;
            cursor[c] = i + 1;
          } else current[c] = 0;
        }
        consider(doc);
      }
    }
    return { hits: top.sorted((doc) => this.reader.docno(doc)), matchedDocs, ...base };
  }

  /**
   * Pruning skips documents only once k are kept, and its bounds cost about one more scoring of
   * each document it does not skip: measured on Cranfield and SciFact (bench/disk-search.bench.ts)
   * it pays when the lists hold more than about 8 documents per hit wanted.
   */
  private worthPruning(terms: PrunableQueryTerm[], k: number): boolean {
    let postings = 0;
    for (const t of terms) postings += t.df;
    return postings > 8 * k;
  }

  /**
   * The terms of a bm25 / bm25-lucene query whose score is a sum of non-negative single-term
   * scores, each rising with tf and falling with the document length: a plain term, or a
   * #combine / #weight / Lucene OR of plain terms (stopwords and absent terms add nothing). Null
   * for anything else (windows, synonyms, fields, filters, required or prohibited clauses,
   * negative weights or idfs), which is evaluated exhaustively; ql has its own rule (prunableQlTerms).
   */
  private prunableTerms(): PrunableQueryTerm[] | null {
    const scorer = this.parameters.scorer;
    const root = this.root;
    if (scorer === 'ql') return this.prunableQlTerms();
    if (!root || (scorer !== 'bm25' && scorer !== 'bm25-lucene' && scorer !== 'impact')) return null;
    let items: PlanItem[];
    if (root.kind === 'leaf') items = [{ plan: root, weight: 1, occur: 'should' }];
    else if (root.kind === 'group' && root.items.every((it) => it.occur === 'should' && it.plan.kind === 'leaf')) items = scorer === 'bm25-lucene' ? luceneClauses(root) : root.items;
    else return null;
    const terms: PrunableQueryTerm[] = [];
    const p = this.parameters;
    const f = Math.fround;
    const seen = new Set<number>();
    for (const it of items) {
      const concept = (it.plan as { concept: number }).concept;
      const r = this.rt[concept]!;
      if (r.missing) continue;
      const spec = r.info.spec;
      if (spec.kind !== 'term' || spec.fields?.length || !r.info.scored) return null;
      if (seen.has(concept)) {
        // Terrier (and impact) sums each concept once, whatever the plan repeats (its weights accumulated).
        if (scorer === 'bm25' || scorer === 'impact') continue;
        return null;
      }
      seen.add(concept);
      const df = r.info.exactDf;
      if (df === 0) continue;
      const term = spec.term;
      if (scorer === 'impact') {
        const weight = r.info.weight;
        if (!(weight >= 0)) return null;
        terms.push({ concept, term, df, score: impactTermScore(weight), boundKey: `impact ${weight}` });
      } else if (scorer === 'bm25') {
        const { idf, qtwFactor } = r;
        if (!Number.isFinite(idf) || !(qtwFactor >= 0)) return null;
        const score = (tf: number, dl: number) => terrierBm25(idf, terrierTfComponent(tf, dl, this.avgdl, p.k1, p.b), qtwFactor);
        terms.push({ concept, term, df, score, boundKey: `bm25 ${idf} ${qtwFactor} ${this.avgdl} ${p.k1} ${p.b}`, ...(idf < 0 ? { neverPositive: true } : {}) });
      } else {
        // The clause's weight exactly as luceneScore forms it: f(f(1)·boost), then f(boost·idf).
        const weight = f(f(f(1) * (root.kind === 'leaf' ? 1 : it.weight)) * r.idf);
        if (!(weight >= 0)) return null;
        const normCache = this.normCache!;
        terms.push({ concept, term, df, score: (tf, dl) => luceneBm25Score(weight, tf, normCache[intToByte4(dl)]!), boundKey: `bm25-lucene ${weight} ${this.luceneAvg} ${p.k1} ${p.b}` });
      }
    }
    if (scorer === 'bm25' || scorer === 'impact') {
      // Every scored concept must be one of these terms (or missing): the score sums them all.
      for (let c = 0; c < this.rt.length; c++) if (this.rt[c]!.info.scored && !this.rt[c]!.missing && !seen.has(c)) return null;
    }
    return terms;
  }

  /**
   * ql on a plain term or a #combine / #weight / #wand (or Lucene OR) of plain terms with weights
   * ≥ 0 and mu > 0: the score splits into term gains w·log(1 + tf/(mu·P(t|C))) (the lists pruned)
   * and a length part Σ w·log(mu·P(t|C)) − Σ w·log(|D| + mu) over every item, absent and
   * stopped terms included (scoring/pruning.ts). Null for anything else (windows, fields, #or,
   * #wsum, #max, #not, filters, required or prohibited clauses, negative weights, mu = 0).
   * Documents without a query term stay unscored, as on the exhaustive path.
   */
  private prunableQlTerms(): PrunableQueryTerm[] | null {
    const root = this.root!;
    const mu = this.parameters.mu;
    if (!(mu > 0) || !Number.isFinite(mu)) return null;
    let items: PlanItem[];
    if (root.kind === 'leaf') items = [{ plan: root, weight: 1, occur: 'should' }];
    else if (
      root.kind === 'group' &&
      (root.op === 'combine' || root.op === 'weight' || root.op === 'wand' || root.op === 'bool') &&
      root.items.every((it) => it.occur === 'should' && it.plan.kind === 'leaf')
    )
      items = root.items;
    else return null;
    let norm = 0;
    for (const it of items) {
      if (!(it.weight >= 0) || !Number.isFinite(it.weight)) return null;
      norm += it.weight;
    }
    if (!(norm > 0)) return null;
    // Each concept's gain weight (an item repeated adds its weights), and the length part's constants.
    const gainWeight = new Map<number, number>();
    let constant = 0;
    let lengthWeight = 0;
    for (const it of items) {
      const concept = (it.plan as { concept: number }).concept;
      const r = this.rt[concept]!;
      const w = it.weight / norm;
      if (!r.missing) {
        const spec = r.info.spec;
        if (spec.kind !== 'term' || spec.fields?.length || !r.info.scored) return null;
        // A term of weight 0 adds nothing, but its list still brings its documents (their score is the length part's).
        if (r.info.exactDf > 0) gainWeight.set(concept, (gainWeight.get(concept) ?? 0) + w);
      }
      constant += w * Math.log(mu * r.pc);
      lengthWeight += w;
    }
    const terms: PrunableQueryTerm[] = [];
    for (const [concept, w] of gainWeight) {
      const r = this.rt[concept]!;
      const mup = mu * r.pc;
      terms.push({
        concept,
        term: (r.info.spec as { term: string }).term,
        df: r.info.exactDf,
        score: (tf) => w * Math.log1p(tf / mup),
        boundKey: `ql ${w} ${mup}`,
      });
    }
    if (!Number.isFinite(constant)) return null;
    this.qlLengthPart = (dl) => constant - lengthWeight * Math.log(dl + mu);
    return terms;
  }

  /** The document's score, or null when the query would not retrieve it. */
  scoreDocument(doc: number): number | null {
    this.checkDoc(doc);
    if (!this.root) return null;
    const e = this.released(() => this.evaluate(doc, this.directTf(doc), false));
    return e.matched ? e.score : null;
  }

  /** The explanation of any document's score; `matched` says whether search would return it. */
  explain(doc: number): ExplainNode {
    return this.released(() => this.explainDocument(doc));
  }

  private explainDocument(doc: number): ExplainNode {
    this.checkDoc(doc);
    if (!this.root) return { value: 0, description: 'empty query: nothing to score', children: [], matched: false };
    const e = this.evaluate(doc, this.directTf(doc), true);
    const node = e.node!;
    node.matched = e.matched;
    if (!e.matched) {
      const why = this.whyNot(doc, this.directTf(doc));
      node.description = `not retrieved: ${why}. ${node.description}`;
    }
    return node;
  }

  /**
   * The frequency of every concept (in `concepts` order) in one document: with each
   * concept's idf and qtw and the document length, the inputs of the Terrier BM25 sum
   * (score = Σ idf·tfn(tf, dl)·qtwf(qtw) over scored concepts with tf > 0), for training
   * query-term weights through the exact scorer.
   */
  conceptFrequencies(doc: number): Float64Array {
    this.checkDoc(doc);
    const tfOf = this.directTf(doc);
    return this.released(() => Float64Array.from(this.rt, (_, c) => (this.rt[c]!.missing ? 0 : tfOf(c))));
  }

  /** Every matching document scored one by one (the reference the differential tests use). */
  exhaustive(): RankedDoc[] {
    const out: RankedDoc[] = [];
    for (let d = 0; d < this.numDocs; d++) {
      const s = this.scoreDocument(d);
      if (s !== null) out.push({ doc: d, docno: this.reader.docno(d), score: s });
    }
    return out.sort(compareRanked);
  }

  // ---- evaluation ---------------------------------------------------------------------------

  private checkDoc(doc: number): void {
    if (!Number.isInteger(doc) || doc < 0 || doc >= this.numDocs) throw new RangeError(`no document ${doc} in this index (0..${this.numDocs - 1})`);
  }

  private directTf(doc: number): TfOf {
    const cache = new Map<number, number>();
    return (c) => {
      let v = cache.get(c);
      if (v === undefined) {
        v = this.evaluator.tfInDocument(this.rt[c]!.info.spec, doc);
        cache.set(c, v);
      }
      return v;
    };
  }

  private evaluate(doc: number, tfOf: TfOf, explain: boolean): Evaluation {
    let e: Evaluation;
    switch (this.parameters.scorer) {
      case 'bm25':
      case 'bm25f':
        e = this.evalTerrier(doc, tfOf, explain);
        break;
      case 'bm25-lucene':
        e = this.evalLucene(doc, tfOf, explain);
        break;
      case 'ql':
        e = this.evalQl(doc, tfOf, explain);
        break;
      case 'impact':
        e = this.evalImpact(doc, tfOf, explain);
        break;
    }
    // No scorer emits a non-finite score (huge weights overflow, log 0); search, scoreDocument
    // and explain all pass here, so they still agree.
    if (!Number.isFinite(e.score)) {
      const clamped = finiteScore(e.score);
      if (e.node) e.node = explainNode(clamped, `${e.node.value} is not a finite score; clamped to ${clamped}`, [e.node]);
      e.score = clamped;
    }
    return e;
  }

  private matches(plan: Plan, tfOf: TfOf): boolean {
    switch (plan.kind) {
      case 'leaf':
      case 'constant':
        return tfOf(plan.concept) > 0;
      case 'all':
        return true;
      case 'filter':
        return this.matches(plan.filter, tfOf) === (plan.mode === 'require') && this.matches(plan.scored, tfOf);
      case 'group': {
        if (plan.op !== 'bool') return plan.items.some((it) => this.matches(it.plan, tfOf));
        let hasMust = false;
        let anyShould = false;
        for (const it of plan.items) {
          if (it.occur === 'must') {
            hasMust = true;
            if (!this.matches(it.plan, tfOf)) return false;
          } else if (it.occur === 'mustNot') {
            if (this.matches(it.plan, tfOf)) return false;
          } else if (!anyShould && this.matches(it.plan, tfOf)) anyShould = true;
        }
        return hasMust || anyShould;
      }
    }
  }

  /**
   * SEMANTICS.md §4.1: Σ over present scored concepts of idf·tfn·qtwf, in query order; bm25f
   * (§4.6) weighs each concept from its per-field frequencies instead, with the same matching.
   */
  private evalTerrier(doc: number, tfOf: TfOf, explain: boolean): Evaluation {
    const p = this.parameters;
    const dl = this.reader.docLength(doc);
    const fields = this.bm25fFields;
    const lens = fields ? fields.map((f) => fieldLength(this.reader, doc, f.name)) : null;
    let score = 0;
    const children: ExplainNode[] = [];
    let present = 0;
    for (let c = 0; c < this.rt.length; c++) {
      const r = this.rt[c]!;
      if (!r.info.scored || r.missing) continue;
      const tf = tfOf(c);
      if (tf <= 0) {
        if (explain) children.push(explainNode(0, `${r.info.label}: absent from this document (tf = 0)`));
        continue;
      }
      if (fields) {
        // As the field's materialised list would give it: documents where it is not positive are absent.
        const tfs = r.fieldSpecs!.map((fs) => {
          const t = this.evaluator.tfInDocument(fs, doc);
          return t > 0 ? t : 0;
        });
        const w = bm25fWeight(bm25fTfn(fields, tfs, lens!), r.idf, r.info.qtw!, p.k1, p.k3);
        score += w;
        present++;
        if (explain)
          children.push(
            explainBm25f(
              r.info.label,
              fields,
              tfs,
              lens!,
              explainTerrierIdf(r.info.df, this.numDocs, r.idf, r.info.statistics === 'terrier-heuristic' ? ` (df = N/100, Terrier's window heuristic; exact df = ${r.info.exactDf})` : ''),
              explainTerrierQtw(r.info.weight, this.maxWeight, r.info.qtw!, p.k3, r.qtwFactor),
              p,
              w,
            ),
          );
        continue;
      }
      const tfn = terrierTfComponent(tf, dl, this.avgdl, p.k1, p.b);
      const w = terrierBm25(r.idf, tfn, r.qtwFactor);
      score += w;
      present++;
      if (explain) {
        const heuristic = r.info.statistics === 'terrier-heuristic' ? ` (df = N/100, Terrier's window heuristic; exact df = ${r.info.exactDf})` : '';
        children.push(
          explainNode(w, `${r.info.label}: w = idf·tfn·qtwf = ${fmt(r.idf)}·${fmt(tfn)}·${fmt(r.qtwFactor)} = ${fmt(w)}`, [
            explainTerrierIdf(r.info.df, this.numDocs, r.idf, heuristic),
            explainTerrierTf(tf, dl, this.avgdl, p, tfn),
            explainTerrierQtw(r.info.weight, this.maxWeight, r.info.qtw!, p.k3, r.qtwFactor),
          ]),
        );
      }
    }
    // Bag semantics: a #filreq/#filrej filters documents wherever it stands, as under ql.
    const matched = this.pureBag ? present > 0 : this.matches(this.root!, tfOf) && this.filtersPass(this.root!, tfOf);
    if (!explain) return { matched, score };
    return {
      matched,
      score,
      node: explainNode(
        score,
        fields
          ? `BM25F (Terrier, k1 = ${p.k1}, k3 = ${p.k3}; ${fields.map((f, i) => `${f.name}: w = ${fmt(f.w)}, c = ${fmt(f.c)}, len = ${lens![i]}, avglen = ${fmt(f.avglen)}`).join('; ')}): sum over the ${present} concept${present === 1 ? '' : 's'} present of w = ${fmt(score)} (N = ${this.numDocs})`
          : `BM25 (Terrier, k1 = ${p.k1}, b = ${p.b}, k3 = ${p.k3}): sum over the ${present} concept${present === 1 ? '' : 's'} present of w = ${fmt(score)} (N = ${this.numDocs}, avgdl = ${fmt(this.avgdl)}, dl = ${dl})`,
        children,
      ),
    };
  }

  /**
   * SEMANTICS.md §4.7: Σ over present scored concepts of weight × impact, in query order (the
   * tf slot of an impact index holds the impact); matching as under bm25.
   */
  private evalImpact(doc: number, tfOf: TfOf, explain: boolean): Evaluation {
    let score = 0;
    let present = 0;
    const children: ExplainNode[] = [];
    for (let c = 0; c < this.rt.length; c++) {
      const r = this.rt[c]!;
      if (!r.info.scored || r.missing) continue;
      const impact = tfOf(c);
      if (impact <= 0) {
        if (explain) children.push(explainNode(0, `${r.info.label}: absent from this document (impact 0)`));
        continue;
      }
      const w = impactContribution(r.info.weight, impact);
      score += w;
      present++;
      if (explain) children.push(explainImpactTerm(r.info.label, r.info.weight, impact, w));
    }
    const matched = this.pureBag ? present > 0 : this.matches(this.root!, tfOf) && this.filtersPass(this.root!, tfOf);
    if (!explain) return { matched, score };
    return {
      matched,
      score,
      node: explainNode(score, `impact: sum over the ${present} concept${present === 1 ? '' : 's'} present of weight × impact = ${fmt(score)} (no idf, no length normalisation)`, children),
    };
  }

  /** SEMANTICS.md §3/§4.2: a BooleanQuery's score is the float sum of its matching clauses. */
  private evalLucene(doc: number, tfOf: TfOf, explain: boolean): Evaluation {
    const dl = this.reader.docLength(doc);
    const normInverse = this.normCache![intToByte4(dl)]!;
    const r = this.luceneScore(this.root!, Math.fround(1), tfOf, dl, normInverse, explain);
    const matched = r !== null;
    if (matched) return { matched, score: r.score, node: r.node };
    if (!explain) return { matched, score: 0 };
    return { matched, score: 0, node: explainNode(0, 'no matching clause', []) };
  }

  private luceneScore(plan: Plan, boost: number, tfOf: TfOf, dl: number, normInverse: number, explain: boolean): { score: number; node?: ExplainNode } | null {
    const f = Math.fround;
    switch (plan.kind) {
      case 'leaf': {
        const tf = tfOf(plan.concept);
        if (tf <= 0) return null;
        const r = this.rt[plan.concept]!;
        const score = luceneBm25Score(f(boost * r.idf), tf, normInverse);
        if (!explain) return { score };
        const idfNode = r.termIdfs
          ? explainNode(
              r.idf,
              `idf = Σ idf(t) over the phrase's terms = ${r.termIdfs.map((t) => fmt(t.idf)).join(' + ')} = ${fmt(r.idf)}`,
              r.termIdfs.map((t) => {
                const n = explainLuceneIdf(this.reader.termStats(t.term)?.df ?? 0, this.docCount, t.idf);
                n.description = `${t.term}: ${n.description}`;
                return n;
              }),
            )
          : explainLuceneIdf(r.info.df, this.docCount, r.idf);
        const node = explainLuceneTerm(boost, idfNode, tf, dl, this.luceneAvg, this.parameters, normInverse, score);
        node.description = `${r.info.label}: ${node.description}`;
        return { score, node };
      }
      case 'constant': {
        if (tfOf(plan.concept) <= 0) return null;
        const score = f(boost);
        return { score, node: explain ? explainNode(score, `${this.rt[plan.concept]!.info.label}: constant score = boost = ${fmt(score)} (multi-term query rewrite)`) : undefined };
      }
      case 'all': {
        const score = f(boost);
        return { score, node: explain ? explainNode(score, `*:* constant score = boost = ${fmt(score)}`) : undefined };
      }
      case 'filter': {
        if (this.matches(plan.filter, tfOf) !== (plan.mode === 'require')) return null;
        const s = this.luceneScore(plan.scored, boost, tfOf, dl, normInverse, explain);
        if (s && explain) s.node = explainNode(s.score, `${plan.label}: filter ${plan.mode === 'require' ? 'matches' : 'does not match'}; score of the scored part`, [s.node!]);
        return s;
      }
      case 'group': {
        if (!this.matches(plan, tfOf)) return null;
        // Lucene 8's BooleanWeight: the required clauses are summed in double and cast to float
        // (ConjunctionScorer), so are the optional ones (DisjunctionSumScorer, BooleanScorer), and
        // when both kinds match ReqOptSumScorer adds the two floats.
        let required = 0;
        let optional = 0;
        let anyRequired = false;
        let anyOptional = false;
        const children: ExplainNode[] = [];
        for (const it of luceneClauses(plan)) {
          if (it.occur === 'mustNot') continue;
          const s = this.luceneScore(it.plan, f(boost * it.weight), tfOf, dl, normInverse, explain);
          if (!s) {
            if (explain) children.push(explainNode(0, `no match on ${it.occur === 'must' ? 'required' : 'optional'} clause ${this.describe(it.plan)}`));
            continue;
          }
          if (it.occur === 'must') {
            required += s.score;
            anyRequired = true;
          } else {
            optional += s.score;
            anyOptional = true;
          }
          if (explain) children.push(s.node!);
        }
        const score = anyRequired && anyOptional ? f(f(required) + f(optional)) : f(required + optional);
        const matching = children.filter((c) => !c.description.startsWith('no match on')).length;
        return { score, node: explain ? explainNode(score, `sum of ${matching} matching clause${matching === 1 ? '' : 's'} = ${fmt(score)}`, children) : undefined };
      }
    }
  }

  /** SEMANTICS.md §1.5–1.6: Indri's belief network over Dirichlet term beliefs. */
  private evalQl(doc: number, tfOf: TfOf, explain: boolean): Evaluation {
    const dl = this.reader.docLength(doc);
    let matched = this.hasMatchAll || this.positiveConcepts.some((c) => tfOf(c) > 0);
    if (matched && this.qlNeedsEligibility) matched = this.qlEligible(this.root!, tfOf);
    if (!explain) return { matched, score: this.qlFast!(tfOf, dl) };
    const r = this.qlBelief(this.root!, tfOf, dl, explain);
    return { matched, score: r.score, node: r.node };
  }

  private qlBelief(plan: Plan, tfOf: TfOf, dl: number, explain: boolean): { score: number; node?: ExplainNode } {
    const mu = this.parameters.mu;
    switch (plan.kind) {
      case 'leaf':
      case 'constant': {
        const r = this.rt[plan.concept]!;
        const tf = tfOf(plan.concept);
        const score = dirichletBelief(tf, dl, r.pc, mu);
        return { score, node: explain ? explainDirichlet(tf, dl, r.info.cf, this.totalTokens, r.pc, mu, score, r.missing ? `${r.info.label} (matches nothing: scored as unseen)` : r.info.label) : undefined };
      }
      case 'all':
        return { score: 0, node: explain ? explainNode(0, '*:* belief log(1) = 0') : undefined };
      case 'filter': {
        const s = this.qlBelief(plan.scored, tfOf, dl, explain);
        if (explain) s.node = explainNode(s.score, `${plan.label}: belief of the scored part`, [s.node!]);
        return s;
      }
      case 'group': {
        const items = plan.items.filter((it) => it.occur !== 'mustNot');
        const weights = items.map((it) => it.weight);
        const beliefs: number[] = [];
        const children: ExplainNode[] = [];
        for (const it of items) {
          const s = this.qlBelief(it.plan, tfOf, dl, explain);
          beliefs.push(s.score);
          if (explain) children.push(s.node!);
        }
        // A Lucene boolean is read as #weight over its scored clauses (= #combine without boosts).
        const op = plan.op === 'bool' ? 'weight' : plan.op;
        const score = combineBeliefs(op, weights, beliefs);
        return { score, node: explain ? explainNode(score, describeBeliefOp(op, weights, beliefs, score), children) : undefined };
      }
    }
  }

  /** Every #filreq/#filrej outside prohibited clauses accepts the document. */
  private filtersPass(plan: Plan, tfOf: TfOf): boolean {
    switch (plan.kind) {
      case 'filter':
        return this.matches(plan.filter, tfOf) === (plan.mode === 'require') && this.filtersPass(plan.scored, tfOf);
      case 'group':
        return plan.items.every((it) => it.occur === 'mustNot' || this.filtersPass(it.plan, tfOf));
      default:
        return true;
    }
  }

  /** The first filter that rejects the document, described. */
  private failingFilter(plan: Plan, tfOf: TfOf): string | null {
    switch (plan.kind) {
      case 'filter':
        if (this.matches(plan.filter, tfOf) !== (plan.mode === 'require'))
          return plan.mode === 'require'
            ? `the ${plan.label} filter ${this.describe(plan.filter)} does not match it`
            : `the ${plan.label} filter ${this.describe(plan.filter)} matches it, so it is rejected`;
        return this.failingFilter(plan.scored, tfOf);
      case 'group':
        for (const it of plan.items) {
          if (it.occur === 'mustNot') continue;
          const r = this.failingFilter(it.plan, tfOf);
          if (r) return r;
        }
        return null;
      default:
        return null;
    }
  }

  /** Filters and Lucene must/mustNot exclude documents anywhere in the tree. */
  private qlEligible(plan: Plan, tfOf: TfOf): boolean {
    switch (plan.kind) {
      case 'leaf':
      case 'constant':
      case 'all':
        return true;
      case 'filter':
        return this.matches(plan.filter, tfOf) === (plan.mode === 'require') && this.qlEligible(plan.scored, tfOf);
      case 'group':
        for (const it of plan.items) {
          if (it.occur === 'must' && !this.matches(it.plan, tfOf)) return false;
          if (it.occur === 'mustNot' && this.matches(it.plan, tfOf)) return false;
          if (it.occur !== 'mustNot' && !this.qlEligible(it.plan, tfOf)) return false;
        }
        return true;
    }
  }

  // ---- "why is this document not here?" -----------------------------------------------------

  private whyNot(doc: number, tfOf: TfOf): string {
    const root = this.root!;
    if (this.parameters.scorer === 'ql') {
      const r = this.reasonQl(root, tfOf);
      if (r) return r;
      return `document ${this.reader.docno(doc)} contains none of the query's concepts (Indri scores only documents containing at least one)`;
    }
    return this.reason(root, tfOf) ?? (this.parameters.scorer === 'bm25' || this.parameters.scorer === 'bm25f' ? this.failingFilter(root, tfOf) : null) ?? 'it does not match the query';
  }

  private describe(plan: Plan): string {
    switch (plan.kind) {
      case 'leaf':
      case 'constant':
        return this.rt[plan.concept]!.info.label;
      case 'all':
        return '*:*';
      case 'filter':
        return `${plan.label}(${this.describe(plan.filter)} ${this.describe(plan.scored)})`;
      case 'group': {
        const inner = plan.items
          .map((it) => `${it.occur === 'must' ? '+' : it.occur === 'mustNot' ? '-' : ''}${this.describe(it.plan)}`)
          .join(' ');
        return plan.op === 'bool' ? `(${inner})` : `${plan.label}(${inner})`;
      }
    }
  }

  private reason(plan: Plan, tfOf: TfOf): string | null {
    if (this.matches(plan, tfOf)) return null;
    switch (plan.kind) {
      case 'leaf':
      case 'constant':
        return `it lacks ${this.describe(plan)}`;
      case 'all':
        return null;
      case 'filter':
        if (this.matches(plan.filter, tfOf) !== (plan.mode === 'require'))
          return plan.mode === 'require'
            ? `the ${plan.label} filter ${this.describe(plan.filter)} does not match it`
            : `the ${plan.label} filter ${this.describe(plan.filter)} matches it, so it is rejected`;
        return this.reason(plan.scored, tfOf);
      case 'group': {
        if (plan.op === 'bool') {
          for (const it of plan.items) {
            if (it.occur === 'must' && !this.matches(it.plan, tfOf)) return `the required clause ${this.describe(it.plan)} does not match (${this.reason(it.plan, tfOf)})`;
            if (it.occur === 'mustNot' && this.matches(it.plan, tfOf)) return `the prohibited clause ${this.describe(it.plan)} matches`;
          }
          if (plan.items.every((it) => it.occur === 'mustNot')) return 'a query of only prohibited clauses matches no document';
        }
        const names = plan.items.filter((it) => it.occur === 'should').map((it) => this.describe(it.plan));
        return `it contains none of ${names.join(', ')}`;
      }
    }
  }

  private reasonQl(plan: Plan, tfOf: TfOf): string | null {
    switch (plan.kind) {
      case 'leaf':
      case 'constant':
      case 'all':
        return null;
      case 'filter':
        if (this.matches(plan.filter, tfOf) !== (plan.mode === 'require'))
          return plan.mode === 'require'
            ? `the ${plan.label} filter ${this.describe(plan.filter)} does not match it`
            : `the ${plan.label} filter ${this.describe(plan.filter)} matches it, so it is rejected`;
        return this.reasonQl(plan.scored, tfOf);
      case 'group':
        for (const it of plan.items) {
          if (it.occur === 'must' && !this.matches(it.plan, tfOf)) return `the required clause ${this.describe(it.plan)} does not match`;
          if (it.occur === 'mustNot' && this.matches(it.plan, tfOf)) return `the prohibited clause ${this.describe(it.plan)} matches`;
          if (it.occur !== 'mustNot') {
            const r = this.reasonQl(it.plan, tfOf);
            if (r) return r;
          }
        }
        return null;
    }
  }
}

function planHas(plan: Plan, pred: (p: Plan) => boolean): boolean {
  if (pred(plan)) return true;
  if (plan.kind === 'group') return plan.items.some((it) => planHas(it.plan, pred));
  if (plan.kind === 'filter') return planHas(plan.filter, pred) || planHas(plan.scored, pred);
  return false;
}

/** Concepts whose presence makes Indri consider a document: scored ones and #filreq filters. */
function markPositive(plan: Plan, out: boolean[], positive: boolean): void {
  switch (plan.kind) {
    case 'leaf':
    case 'constant':
      if (positive) out[plan.concept] = true;
      return;
    case 'all':
      return;
    case 'filter':
      markPositive(plan.filter, out, positive && plan.mode === 'require');
      markPositive(plan.scored, out, positive);
      return;
    case 'group':
      for (const it of plan.items) markPositive(it.plan, out, positive && it.occur !== 'mustNot');
      return;
  }
}

const nonEmptyCache = new WeakMap<IndexReader, number>();
function countNonEmpty(reader: IndexReader): number {
  let n = nonEmptyCache.get(reader);
  if (n === undefined) {
    n = 0;
    const N = reader.stats().numDocs;
    for (let d = 0; d < N; d++) if (reader.docLength(d) > 0) n++;
    nonEmptyCache.set(reader, n);
  }
  return n;
}

export { unionAll };

const luceneClauseCache = new WeakMap<Plan, PlanItem[]>();

/**
 * A boolean group's clauses as Lucene 8 scores them: BooleanQuery.rewrite merges optional
 * clauses on the same term into one whose boost is the sum of theirs (`a a^2` is `a^3`),
 * which rounds differently from two separate scores.
 */
function luceneClauses(plan: Extract<Plan, { kind: 'group' }>): PlanItem[] {
  let merged = luceneClauseCache.get(plan);
  if (merged) return merged;
  merged = [];
  const byConcept = new Map<number, PlanItem>();
  for (const it of plan.items) {
    if (it.occur !== 'should' || it.plan.kind !== 'leaf') {
      merged.push(it);
      continue;
    }
    const seen = byConcept.get(it.plan.concept);
    if (seen) seen.weight = Math.fround(seen.weight + it.weight);
    else {
      const copy = { ...it };
      byConcept.set(it.plan.concept, copy);
      merged.push(copy);
    }
  }
  luceneClauseCache.set(plan, merged);
  return merged;
}
