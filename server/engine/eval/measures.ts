/**
 * trec_eval measures (SEMANTICS.md §6.4), computed per query from the judged ranking and
 * averaged as trec_eval v9 does (SEMANTICS.md §6.3). Names are the ones trec_eval prints
 * (`map`, `P_10`, `recall_100`, `ndcg_cut_10`, `recip_rank`, ...); `P.10` and `P@10`
 * are accepted as spellings of `P_10`.
 */
import { compareBytewise, rankEntries } from './ranking.js';
import type { Qrels, Run, RunEntry } from './trec-files.js';

/** What a measure sees of one query: the judged ranking and the qrels' totals. */
export interface JudgedRanking {
  /** rel value at each rank (index 0 = rank 1); -1 when the document is not in the qrels. */
  rels: number[];
  /** Number of qrels documents with rel ≥ the relevance level, retrieved or not (R). */
  numRel: number;
  /** Positive rel values of all qrels documents, highest first (the ideal ranking's gains). */
  idealGains: number[];
  relevanceLevel: number;
}

interface MeasureDef {
  name: string;
  /** 'mean' measures are averaged over queries; 'sum' measures (counts) are summed, as trec_eval does. */
  summary: 'mean' | 'sum';
  compute(j: JudgedRanking): number;
}

/** trec_eval's default cutoffs for P, recall and ndcg_cut (SEMANTICS.md §6.4). */
export const DEFAULT_CUTOFFS = [5, 10, 15, 20, 30, 100, 200, 500, 1000];

/** Measures `evaluate` computes when none are asked for. */
export const DEFAULT_MEASURES = ['num_ret', 'num_rel', 'num_rel_ret', 'map', 'recip_rank', 'P_10', 'recall_100', 'ndcg_cut_10'];

const isRel = (j: JudgedRanking, rel: number) => rel >= j.relevanceLevel;

function relRetrievedUpTo(j: JudgedRanking, k: number): number {
  const n = Math.min(k, j.rels.length);
  let count = 0;
  for (let i = 0; i < n; i++) if (isRel(j, j.rels[i])) count++;
  return count;
}

/** Σ gain/log2(rank+1) over the first k gains, skipping non-positive ones (`m_ndcg_cut.c`). */
function dcg(gains: readonly number[], k: number): number {
  const n = Math.min(k, gains.length);
  let sum = 0;
  for (let i = 0; i < n; i++) if (gains[i] > 0) sum += gains[i] / Math.log2(i + 2);
  return sum;
}

function averagePrecision(j: JudgedRanking): number {
  if (j.numRel === 0) return 0;
  let found = 0;
  let sum = 0;
  j.rels.forEach((rel, i) => {
    if (isRel(j, rel)) {
      found++;
      sum += found / (i + 1);
    }
  });
  return sum / j.numRel;
}

function reciprocalRank(j: JudgedRanking): number {
  const i = j.rels.findIndex((rel) => isRel(j, rel));
  return i < 0 ? 0 : 1 / (i + 1);
}

function rPrecision(j: JudgedRanking): number {
  return j.numRel === 0 ? 0 : relRetrievedUpTo(j, j.numRel) / j.numRel;
}

const FIXED: Record<string, MeasureDef> = {
  map: { name: 'map', summary: 'mean', compute: averagePrecision },
  recip_rank: { name: 'recip_rank', summary: 'mean', compute: reciprocalRank },
  Rprec: { name: 'Rprec', summary: 'mean', compute: rPrecision },
  ndcg: {
    name: 'ndcg',
    summary: 'mean',
    compute: (j) => {
      const ideal = dcg(j.idealGains, Infinity);
      return ideal === 0 ? 0 : dcg(j.rels, Infinity) / ideal;
    },
  },
  num_ret: { name: 'num_ret', summary: 'sum', compute: (j) => j.rels.length },
  num_rel: { name: 'num_rel', summary: 'sum', compute: (j) => j.numRel },
  num_rel_ret: { name: 'num_rel_ret', summary: 'sum', compute: (j) => relRetrievedUpTo(j, Infinity) },
};

const CUTOFF_FAMILIES: Record<string, (k: number) => MeasureDef> = {
  // SEMANTICS.md §6.4: the denominator is always k, even when fewer than k documents were retrieved.
  P: (k) => ({ name: `P_${k}`, summary: 'mean', compute: (j) => relRetrievedUpTo(j, k) / k }),
  recall: (k) => ({
    name: `recall_${k}`,
    summary: 'mean',
    compute: (j) => (j.numRel === 0 ? 0 : relRetrievedUpTo(j, k) / j.numRel),
  }),
  ndcg_cut: (k) => ({
    name: `ndcg_cut_${k}`,
    summary: 'mean',
    compute: (j) => {
      const ideal = dcg(j.idealGains, k);
      return ideal === 0 ? 0 : dcg(j.rels, k) / ideal;
    },
  }),
};

export class UnknownMeasureError extends Error {
  constructor(readonly measure: string) {
    super(
      `unknown measure "${measure}" (known: ${Object.keys(FIXED).join(', ')}, ` +
        `and P_k, recall_k, ndcg_cut_k for a cutoff k, or P, recall, ndcg_cut for trec_eval's default cutoffs)`,
    );
    this.name = 'UnknownMeasureError';
  }
}

/** Resolves one user-written measure name to its definitions (a family name gives all default cutoffs). */
function resolveMeasure(spec: string): MeasureDef[] {
  const fixed = FIXED[spec];
  if (fixed) return [fixed];
  if (CUTOFF_FAMILIES[spec]) return DEFAULT_CUTOFFS.map((k) => CUTOFF_FAMILIES[spec](k));
  const m = /^(P|recall|ndcg_cut)[_.@](\d+)$/.exec(spec);
  if (m) {
    const k = Number(m[2]);
    if (k >= 1 && Number.isSafeInteger(k)) return [CUTOFF_FAMILIES[m[1]](k)];
  }
  throw new UnknownMeasureError(spec);
}

/** Canonical (trec_eval) names for the given specs, duplicates removed, order kept. */
export function resolveMeasureNames(specs: readonly string[]): string[] {
  return resolveMeasures(specs).map((d) => d.name);
}

function resolveMeasures(specs: readonly string[]): MeasureDef[] {
  const out: MeasureDef[] = [];
  const seen = new Set<string>();
  for (const spec of specs) {
    for (const def of resolveMeasure(spec.trim())) {
      if (!seen.has(def.name)) {
        seen.add(def.name);
        out.push(def);
      }
    }
  }
  return out;
}

/** True for measures whose "all" value is a sum of the per-query values (printed as integers). */
export function isCountMeasure(name: string): boolean {
  return FIXED[name]?.summary === 'sum';
}

export interface EvalOptions {
  /** Measure names (default DEFAULT_MEASURES). */
  measures?: string[];
  /** rel ≥ this counts as relevant (trec_eval `-l`, default 1). */
  relevanceLevel?: number;
  /**
   * trec_eval `-c`: average over every qrels query; a query without results counts 0.
   * Default (v9): average over the queries in both the qrels and the run.
   */
  complete?: boolean;
  /** trec_eval `-M`: keep only the first n documents of each ranking (e.g. 10 for MRR@10). */
  maxDocs?: number;
}

export interface EvalResult {
  runId: string;
  /** Canonical measure names, in output order. */
  measures: string[];
  /** Evaluated query ids (in qrels and in the run), in byte order as trec_eval prints them. */
  queries: string[];
  perQuery: Map<string, Record<string, number>>;
  /** The "all" line: mean over `numQueries` (or the sum, for counts such as num_ret). */
  mean: Record<string, number>;
  /** The divisor of the means: |qrels ∩ run|, or |qrels| when `complete`. */
  numQueries: number;
  /** Qrels queries with no results in the run (they count as 0 only when `complete`). */
  missing: string[];
  complete: boolean;
}

/** The judged ranking of one query (exported for tests and for `compare`). */
export function judgeQuery(
  entries: readonly RunEntry[],
  judged: ReadonlyMap<string, number>,
  relevanceLevel = 1,
  maxDocs = Infinity,
): JudgedRanking {
  // SEMANTICS.md §6.2: sort, then truncate to -M, then rank.
  const ranked = rankEntries(entries).slice(0, maxDocs);
  const rels = ranked.map((e) => judged.get(e.docno) ?? -1);
  let numRel = 0;
  const idealGains: number[] = [];
  for (const rel of judged.values()) {
    // form_res_rels.c counts only judged values (rel ≥ 0) towards R, whatever the level.
    if (rel >= 0 && rel >= relevanceLevel) numRel++;
    if (rel > 0) idealGains.push(rel);
  }
  idealGains.sort((a, b) => b - a);
  return { rels, numRel, idealGains, relevanceLevel };
}

/** Evaluates a run against qrels the way trec_eval v9 does (SEMANTICS.md §6). */
export function evaluate(run: Run, qrels: Qrels, options: EvalOptions = {}): EvalResult {
  const defs = resolveMeasures(options.measures ?? DEFAULT_MEASURES);
  const relevanceLevel = options.relevanceLevel ?? 1;
  const complete = options.complete ?? false;
  const maxDocs = options.maxDocs ?? Infinity;
  if (!(maxDocs >= 0)) throw new RangeError(`maxDocs must be a non-negative number, got ${maxDocs}`);

  const queries = [...run.queries.keys()].filter((qid) => qrels.has(qid)).sort(compareBytewise);
  const missing = [...qrels.keys()].filter((qid) => !run.queries.has(qid)).sort(compareBytewise);

  const perQuery = new Map<string, Record<string, number>>();
  const totals: Record<string, number> = Object.fromEntries(defs.map((d) => [d.name, 0]));
  for (const qid of queries) {
    const j = judgeQuery(run.queries.get(qid)!, qrels.get(qid)!, relevanceLevel, maxDocs);
    const values: Record<string, number> = {};
    for (const d of defs) {
      values[d.name] = d.compute(j);
      totals[d.name] += values[d.name];
    }
    perQuery.set(qid, values);
  }

  // SEMANTICS.md §6.3: with -c the divisor is the number of qrels queries; missing ones add 0.
  const numQueries = complete ? qrels.size : queries.length;
  const mean: Record<string, number> = {};
  for (const d of defs) {
    mean[d.name] = d.summary === 'sum' ? totals[d.name] : numQueries === 0 ? 0 : totals[d.name] / numQueries;
  }
  return { runId: run.runId, measures: defs.map((d) => d.name), queries, perQuery, mean, numQueries, missing, complete };
}

/**
 * Per-query values of one measure over `qids`, with 0 for a query the run has no
 * results for (what `-c` assumes); the input of the paired significance tests.
 */
export function perQueryValues(result: EvalResult, measure: string, qids: readonly string[]): number[] {
  return qids.map((qid) => result.perQuery.get(qid)?.[measure] ?? 0);
}
