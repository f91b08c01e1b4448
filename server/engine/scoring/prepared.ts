/**
 * A query compiled against one index with one scorer: collection statistics, concept
 * weights and posting lists are computed once; then any number of documents can be scored,
 * explained or searched. search.ts is the public face of this module. What depends on the
 * scorer is its registry entry's (scorers.ts, scorer-definition.ts), looked up once per query.
 */
import type { QueryAst } from '../../../grammar/ast.js';
import type { QueryDiagnostic } from '../../../grammar/diagnostics.js';
import { averageLength, ListBlockPostings } from '../index/postings-codec.js';
import type { BlockPostings, IndexReader } from '../index/reader.js';
import { compileQuery, type CompiledConcept, type Plan } from './compile.js';
import { isWindowLike, unionAll, type ConceptPostings } from './concepts.js';
import { DIRICHLET_DEFAULT_MU, finiteScore } from './dirichlet.js';
import { explainNode, type ExplainNode } from './explain.js';
import { checkPositionsAvailable, checkScorerFitsIndex, withIndexParameters } from './impact.js';
import { PlanMatcher, planHas, type TfOf } from './plan-match.js';
import { maxScoreSearch, type PrunableQuery, type PrunableQueryTerm, type PrunableTerm } from './pruning.js';
import { compareRanked, rankMatched, TopK, type RankedDoc } from './ranking.js';
import { TERRIER_BM25_DEFAULTS } from './terrier-bm25.js';
import type { ConceptInfo, Evaluation, QueryConcept, QueryScorer, ScoringParameters, WindowStats } from './scorer-definition.js';
import { DEFAULT_SCORER, isScorerName, scorerDefinition, SCORER_NAMES, type ScorerName, type ScorerParameter } from './scorers.js';

export type { ConceptInfo, WindowStats } from './scorer-definition.js';

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

export interface ResolvedParameters extends ScoringParameters {
  scorer: ScorerName;
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
  const definition = scorerDefinition(scorer);
  // Parameters a scorer does not read keep the other scorers' defaults, so every field is a number.
  const own: Partial<Record<ScorerParameter, number>> = (options.anserini && definition.anseriniDefaults) || definition.defaults;
  const base = { ...TERRIER_BM25_DEFAULTS, mu: DIRICHLET_DEFAULT_MU, ...own };
  const p: ResolvedParameters = {
    scorer,
    k1: options.k1 ?? base.k1,
    b: options.b ?? base.b,
    k3: options.k3 ?? base.k3,
    mu: options.mu ?? base.mu,
    fieldParams: definition.readsFieldParams ? { ...options.fieldParams } : {},
    windowStats: options.windowStats ?? 'exact',
  };
  if (p.windowStats !== 'exact' && p.windowStats !== 'terrier-heuristic') throw new RangeError(`windowStats must be "exact" or "terrier-heuristic" (got "${String(p.windowStats)}")`);
  definition.validate(p);
  if (options.k !== undefined && (!Number.isInteger(options.k) || options.k < 0)) throw new RangeError(`k must be a non-negative integer (got ${options.k})`);
  return p;
}

/**
 * Collections up to this size add up plain term sums term at a time (two arrays of this many
 * entries per query: 2.3 MB at most); larger ones go document at a time or prune.
 */
const TERM_AT_A_TIME_MAX_DOCS = 1 << 18;

/** A computed list's positions: pruning reads documents and tfs only. */
const NO_POSITIONS = new Int32Array(0);

/**
 * The term-at-a-time sums, held flags and matched list, reused by every query (a search runs to its end
 * before the next starts: JavaScript runs one at a time); the query that used them zeroes the sums and
 * flags it touched, so a query on a small collection does not allocate and clear collection-sized arrays.
 */
let scratch = { sums: new Float64Array(0), held: new Uint8Array(0), matched: new Int32Array(0) };
function accumulators(numDocs: number): typeof scratch {
  if (scratch.sums.length < numDocs) scratch = { sums: new Float64Array(numDocs), held: new Uint8Array(numDocs), matched: new Int32Array(numDocs) };
  return scratch;
}

interface ConceptRuntime extends QueryConcept {
  /**
   * Materialized when a search needs it (a pruned search of plain terms reads block postings
   * instead), from the evaluator: kept only until the operation ends (concepts.ts, Memory).
   */
  postings: () => ConceptPostings;
}

export class PreparedQuery {
  readonly parameters: ResolvedParameters;
  readonly warnings: QueryDiagnostic[];
  readonly concepts: ConceptInfo[];
  private readonly root: Plan | null;
  private readonly rt: ConceptRuntime[];
  private readonly numDocs: number;
  private readonly hasMatchAll: boolean;
  private readonly evaluator;
  /** The query under its scorer: evaluation, pruning and "why not" (scorer-definition.ts). */
  private readonly scorer: QueryScorer;
  private readonly pruning: 'auto' | 'always' | 'never';
  /** The query as dynamic pruning evaluates it, or null (scoring/pruning.ts); undefined until a search asks. */
  private prunable: PrunableQuery | null | undefined;

  constructor(
    readonly reader: IndexReader,
    readonly ast: QueryAst,
    options: SearchOptions = {},
  ) {
    const named = options.scorer ?? DEFAULT_SCORER;
    this.parameters = resolveParameters(withIndexParameters(reader, options, isScorerName(named) && scorerDefinition(named).ranksTfImpacts));
    this.pruning = options.exhaustive === undefined ? 'auto' : options.exhaustive ? 'never' : 'always';
    const p = this.parameters;
    const definition = scorerDefinition(p.scorer);
    checkScorerFitsIndex(reader, p.scorer, definition);
    const plan = compileQuery(reader, ast, { scorer: p.scorer, semantics: definition.plan, maxExpansions: options.maxExpansions, maxFuzzyExpansions: options.maxFuzzyExpansions });
    checkPositionsAvailable(reader, plan.concepts.map((c) => c.spec));
    this.evaluator = plan.evaluator;
    this.root = plan.root;
    this.warnings = plan.warnings;
    const stats = reader.stats();
    this.numDocs = stats.numDocs;
    this.rt = plan.concepts.map((c) => this.runtime(c));
    this.concepts = this.rt.map((r) => r.info);
    this.hasMatchAll = this.root !== null && planHas(this.root, (n) => n.kind === 'all');
    const root = this.root;
    const query = {
      reader,
      parameters: p,
      root,
      concepts: this.rt,
      evaluator: this.evaluator,
      numDocs: stats.numDocs,
      totalTokens: stats.totalTokens,
      // Terrier: averageDocumentLength = tokens / documents (SEMANTICS.md §4.1).
      avgdl: averageLength(stats.numDocs, stats.totalTokens),
      matcher: new PlanMatcher(this.rt.map((r) => r.info.label)),
      pureBag: root !== null && !planHas(root, (n) => n.kind === 'filter' || n.kind === 'all' || (n.kind === 'group' && n.op === 'bool')),
      hasMatchAll: this.hasMatchAll,
    };
    const constants = definition.prepare(query);
    this.scorer = definition.bind(
      constants,
      this.rt.map((c) => definition.concept(constants, c)),
    );
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

  /** The concept's statistics (the scorer adds its own constants and hover statistics: ScorerDefinition.concept). */
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
    return { info, postings: postingsOf, missing };
  }

  // ---- public operations --------------------------------------------------------------------

  /** Document-at-a-time over the concepts' posting lists with a top-k heap. */
  search(k = 1000): SearchResult {
    return this.released(() => this.searchTopK(k));
  }

  private searchTopK(k: number): SearchResult {
    let matchedDocs = 0;
    if (!this.root) return this.result([], matchedDocs, false);
    const n = this.rt.length;
    // The scorer's evaluation is called straight from the loop (one call per document), its score
    // clamped as `evaluate` clamps it.
    const scorer = this.scorer;
    if (this.pruning !== 'never' && this.prunable === undefined) this.prunable = this.scorer.prunable();
    const prunable = this.prunable;
    const terms = prunable && this.pruning !== 'never' && (this.pruning === 'always' || this.worthPruning(prunable.terms, k)) ? this.prunedTerms(prunable.terms) : null;
    if (!terms && this.pruning === 'auto' && prunable?.plainSum && this.numDocs <= TERM_AT_A_TIME_MAX_DOCS) {
      const { hits, matchedDocs } = this.addTermAtATime(prunable.terms, k);
      return this.result(hits, matchedDocs, false);
    }
    // Both document-at-a-time loops set `current` to each concept's tf at a document, then `consider` it.
    const top = new TopK(k, (doc) => this.reader.docnoRank(doc));
    const current = new Float64Array(n);
    const tfOf: TfOf = (c) => current[c]!;
    const consider = (doc: number) => {
      const e = scorer.evaluate(doc, tfOf, false);
      if (!e.matched) return;
      matchedDocs++;
      const score = finite(e.score);
      if (top.wouldEnter(score)) top.offer(doc, score);
    };
    if (prunable && terms) {
      maxScoreSearch(terms, current, top, this.reader.docLengthTable(), consider, undefined, prunable.lengthPart);
      return this.result(top.sorted((doc) => this.reader.docno(doc)), matchedDocs, true);
    }
    const lists = this.rt.map((r) => r.postings());
    const docs = lists.map((l) => l.docs);
    const tfs = lists.map((l) => l.tfs);
    const cursor = new Int32Array(n);
    /** Each concept's tf in `doc` (0 where absent), moving the cursors that hold it past it; then `consider`. */
    const visit = (doc: number) => {
      for (let c = 0; c < n; c++) {
        const i = cursor[c]!;
        if (i < docs[c]!.length && docs[c]![i] === doc) {
          current[c] = tfs[c]![i]!;
          cursor[c] = i + 1;
        } else current[c] = 0;
      }
      consider(doc);
    };
    if (this.hasMatchAll) {
      for (let doc = 0; doc < this.numDocs; doc++) visit(doc);
    } else {
      for (;;) {
        let doc = 2147483647;
        for (let c = 0; c < n; c++) {
          const i = cursor[c]!;
          if (i < docs[c]!.length && docs[c]![i]! < doc) doc = docs[c]![i]!;
        }
        if (doc === 2147483647) break;
        visit(doc);
      }
    }
    return this.result(top.sorted((doc) => this.reader.docno(doc)), matchedDocs, false);
  }

  /** A search's result, written out field by field: an object spread here took 7 % of a small collection's query. */
  private result(hits: RankedDoc[], matchedDocs: number, pruned: boolean): SearchResult {
    return { hits, matchedDocs, warnings: this.warnings, concepts: this.concepts, parameters: this.parameters, pruned };
  }

  /**
   * A plain sum of term scores (PrunableQuery.plainSum) over a small collection, term at a time: each
   * list in concept order adds its terms' scores into one accumulator per document, so every
   * document's sum is built by the same additions in the same order as evaluate's, without visiting
   * every list per document or an evaluation object per document. Returns the documents matched.
   */
  private addTermAtATime(terms: readonly PrunableQueryTerm[], k: number): { hits: RankedDoc[]; matchedDocs: number } {
    const ordered = [...terms].sort((a, b) => a.concept - b.concept);
    const { sums, held, matched } = accumulators(this.numDocs);
    let count = 0;
    try {
      const lengths = this.reader.docLengthTable();
      for (const t of ordered) {
        const { docs, tfs } = this.rt[t.concept]!.postings();
        const score = t.score;
        for (let i = 0; i < docs.length; i++) {
          const doc = docs[i]!;
          if (held[doc] === 0) {
            held[doc] = 1;
            matched[count++] = doc;
          }
          sums[doc] += score(tfs[i]!, lengths[doc]!);
        }
      }
      const hits = rankMatched(
        matched,
        count,
        k,
        this.numDocs,
        (doc) => finite(sums[doc]!),
        (doc) => this.reader.docnoRank(doc),
        (doc) => this.reader.docno(doc),
      );
      return { hits, matchedDocs: count };
    } finally {
      // Left as found (all zero) for the next query, whatever happened: only the documents this one touched.
      for (let i = 0; i < count; i++) {
        sums[matched[i]!] = 0;
        held[matched[i]!] = 0;
      }
    }
  }

  /**
   * The terms with their block postings, read only now (the docs parts: no positions): the lexicon's
   * for a plain term, the materialised list for a computed concept (a window, a synonym). Null (the
   * search is then exhaustive) for a query of one computed concept, and when a computed list holds
   * a tf that is not a whole count (a weighted synonym), which the blocks' integer maxima cannot bound.
   */
  private prunedTerms(terms: readonly PrunableQueryTerm[]): PrunableTerm[] | null {
    // A lone computed list is materialised whole already: there is no decoding to skip, and
    // scoring it straight through is cheaper than building its blocks (measured on 1 M passages).
    if (terms.length === 1 && terms[0]!.term === undefined) return null;
    const out: PrunableTerm[] = [];
    for (const t of terms) {
      let postings: BlockPostings;
      if (t.term !== undefined) postings = this.reader.postingBlocks(t.term)!;
      else {
        const { docs, tfs } = this.rt[t.concept]!.postings();
        const counts = new Int32Array(tfs.length);
        for (let i = 0; i < tfs.length; i++) {
          const tf = tfs[i]!;
          if (!Number.isInteger(tf) || tf > 0x7fffffff) return null;
          counts[i] = tf;
        }
        const stats = this.reader.stats();
        postings = new ListBlockPostings({ docs, tfs: counts, posStart: NO_POSITIONS, positions: NO_POSITIONS }, this.reader.docLengthTable(), averageLength(stats.numDocs, stats.totalTokens));
      }
      // A computed list is built afresh each search: caching its bounds would only hold it longer.
      out.push({ concept: t.concept, score: t.score, neverPositive: t.neverPositive, boundKey: t.term !== undefined ? t.boundKey : undefined, saturation: t.saturation, postings });
    }
    return out;
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
      const why = this.scorer.whyNot(doc, this.directTf(doc));
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

  /** The document's evaluation under the scorer, its score made finite (search's loop does the same in line). */
  private evaluate(doc: number, tfOf: TfOf, explain: boolean): Evaluation {
    const e = this.scorer.evaluate(doc, tfOf, explain);
    // No scorer emits a non-finite score (huge weights overflow, log 0); scoreDocument and explain
    // pass here and search's loop clamps with `finite` alike, so they still agree.
    if (!Number.isFinite(e.score)) {
      const clamped = finiteScore(e.score);
      if (e.node) e.node = explainNode(clamped, `${e.node.value} is not a finite score; clamped to ${clamped}`, [e.node]);
      e.score = clamped;
    }
    return e;
  }
}

export { unionAll };

/** A score as every operation reports it: finite (dirichlet.ts finiteScore). */
function finite(score: number): number {
  return Number.isFinite(score) ? score : finiteScore(score);
}
