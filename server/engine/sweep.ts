/**
 * Parameter sweeps: one query file ranked under every setting of a grid of scorer parameters (BM25
 * k1 and b, Dirichlet mu) and Bo1 feedback sizes (fbDocs, fbTerms), each run evaluated with the
 * qrels by trec_eval's rules (SEMANTICS.md §6). A setting's metrics are exactly what `querylens
 * search` with those parameters followed by `querylens eval` prints: the same runQuery per query
 * and the same evaluate() over the run (queries that retrieve nothing have no run lines, as in a
 * run file).
 */
import type { QueryAst } from '../../grammar/ast.js';
import { evaluate, resolveMeasureNames, type Qrels, type RunEntry } from './eval/index.js';
import type { IndexReader } from './index/reader.js';
import { expandQuery, selectFeedbackDocs } from './expansion/index.js';
import { resolveParameters, search, type SearchHit, type SearchOptions } from './search.js';

/** The settings one sweep may run: each is a whole pass over the query file. */
export const MAX_SWEEP_SETTINGS = 200;

export type SweepScorer = 'bm25' | 'ql';
export const SWEEP_PARAMETERS = ['k1', 'b', 'mu', 'fbDocs', 'fbTerms'] as const;
export type SweepParameter = (typeof SWEEP_PARAMETERS)[number];

/** A bad grid (malformed values, parameters of another scorer, too many settings): one line for the user. */
export class SweepGridError extends Error {}

/** One point of the grid: the scorer with its parameters, and Bo1 feedback or none. */
export interface SweepSetting {
  scorer: SweepScorer;
  /** BM25 only. */
  k1?: number;
  b?: number;
  /** Query likelihood only. */
  mu?: number;
  /** Bo1 pseudo-relevance feedback before the final ranking; null: the query as written. */
  bo1: { fbDocs: number; fbTerms: number } | null;
}

export interface SweepGrid {
  scorer: SweepScorer;
  /** Values per swept parameter, in the order given. */
  values: Partial<Record<SweepParameter, number[]>>;
  /** The value of every parameter the grid does not list (the current configuration). */
  base: { k1: number; b: number; mu: number; fbDocs: number; fbTerms: number; bo1: boolean };
}

const INTEGER_PARAMETERS: ReadonlySet<SweepParameter> = new Set(['fbDocs', 'fbTerms']);
/** Ranges give at most this many values per parameter, before the product is checked. */
const MAX_VALUES_PER_PARAMETER = 1000;

/** Rounds away binary noise of `start + i·step` (0.6 + 2·0.2 = 1.0000000000000002 → 1). */
function clean(x: number): number {
  return Number(x.toPrecision(12));
}

/**
 * Values of one parameter: a comma-separated list (`0.3,0.5,0.75`) or an inclusive range
 * `start:end:step` (`0.6:1.6:0.2` → 0.6, 0.8, …, 1.6). Throws SweepGridError with the reason.
 */
export function parseSweepValues(name: SweepParameter, text: string): number[] {
  const label = `--${name === 'fbDocs' ? 'fb-docs' : name === 'fbTerms' ? 'fb-terms' : name}`;
  const num = (s: string): number => {
    const n = Number(s);
    if (s.trim() === '' || !Number.isFinite(n)) throw new SweepGridError(`${label}: '${s}' is not a number (give a list like 0.3,0.5 or a range start:end:step)`);
    return n;
  };
  let values: number[];
  const range = text.split(':');
  if (range.length === 3) {
    const [start, end, step] = range.map(num) as [number, number, number];
    if (!(step > 0)) throw new SweepGridError(`${label}: the step of ${text} must be positive`);
    if (end < start) throw new SweepGridError(`${label}: the range ${text} ends before it starts`);
    const count = Math.floor((end - start) / step + 1e-9) + 1;
    if (count > MAX_VALUES_PER_PARAMETER) throw new SweepGridError(`${label}: the range ${text} has ${count} values; a sweep runs at most ${MAX_SWEEP_SETTINGS} settings`);
    values = Array.from({ length: count }, (_, i) => clean(start + i * step));
  } else if (range.length === 1) {
    values = text.split(',').map((s) => num(s));
  } else {
    throw new SweepGridError(`${label}: '${text}' is neither a list (0.3,0.5) nor a range (start:end:step)`);
  }
  return checkSweepValues(name, values, label);
}

/** Checks a list of values of one parameter (finite, positive integers for Bo1 sizes, none twice); returns it. */
export function checkSweepValues(name: SweepParameter, values: readonly unknown[], label: string = name): number[] {
  if (values.length === 0) throw new SweepGridError(`${label}: no values`);
  if (values.length > MAX_VALUES_PER_PARAMETER) throw new SweepGridError(`${label}: ${values.length} values; a sweep runs at most ${MAX_SWEEP_SETTINGS} settings`);
  const bad = values.find((v) => typeof v !== 'number' || !Number.isFinite(v));
  if (bad !== undefined) throw new SweepGridError(`${label}: ${JSON.stringify(bad)} is not a number`);
  const numbers = values as number[];
  if (INTEGER_PARAMETERS.has(name)) {
    const notInt = numbers.find((v) => !Number.isInteger(v) || v < 1);
    if (notInt !== undefined) throw new SweepGridError(`${label}: ${notInt} is not a positive integer`);
  }
  const seen = new Set<number>();
  for (const v of numbers) {
    if (seen.has(v)) throw new SweepGridError(`${label}: ${v} is listed twice`);
    seen.add(v);
  }
  return [...numbers];
}

/** Every setting of the grid (the cartesian product, the first parameter varying slowest), checked. */
export function gridSettings(grid: SweepGrid): SweepSetting[] {
  const own: readonly SweepParameter[] = grid.scorer === 'bm25' ? ['k1', 'b'] : ['mu'];
  const other = grid.scorer === 'bm25' ? 'mu' : 'k1 and b';
  for (const p of ['k1', 'b', 'mu'] as const) {
    if (grid.values[p] && !own.includes(p)) throw new SweepGridError(`--${p} is a parameter of ${p === 'mu' ? 'ql' : 'bm25'}, not of ${grid.scorer} (which sweeps ${own.join(' and ')}, not ${other})`);
  }
  const swept = SWEEP_PARAMETERS.filter((p) => grid.values[p]?.length);
  if (swept.length === 0) throw new SweepGridError(`nothing to sweep: give values for ${grid.scorer === 'bm25' ? '--k1, --b' : '--mu'}, --fb-docs or --fb-terms`);
  const total = swept.reduce((n, p) => n * grid.values[p]!.length, 1);
  if (total > MAX_SWEEP_SETTINGS)
    throw new SweepGridError(
      `the grid has ${total} settings (${swept.map((p) => `${grid.values[p]!.length} ${p}`).join(' × ')}); a sweep runs at most ${MAX_SWEEP_SETTINGS}: use fewer values or a coarser step`,
    );
  const bo1 = grid.base.bo1 || !!grid.values.fbDocs || !!grid.values.fbTerms;
  let points: Record<string, number>[] = [{}];
  for (const p of swept) points = points.flatMap((pt) => grid.values[p]!.map((v) => ({ ...pt, [p]: v })));
  const settings = points.map((pt): SweepSetting => {
    const value = (p: SweepParameter) => pt[p] ?? grid.base[p];
    const setting: SweepSetting =
      grid.scorer === 'bm25' ? { scorer: 'bm25', k1: value('k1'), b: value('b'), bo1: null } : { scorer: 'ql', mu: value('mu'), bo1: null };
    if (bo1) setting.bo1 = { fbDocs: value('fbDocs'), fbTerms: value('fbTerms') };
    return setting;
  });
  // The scorer's own range checks (k1 ≥ 0, b in [0, 1], mu > 0 …), before any query runs.
  for (const s of settings) {
    try {
      resolveParameters(searchOptionsOf(s));
    } catch (err) {
      if (err instanceof RangeError) throw new SweepGridError(err.message);
      throw err;
    }
  }
  return settings;
}

export function searchOptionsOf(setting: SweepSetting): SearchOptions {
  return setting.scorer === 'bm25' ? { scorer: 'bm25', k1: setting.k1, b: setting.b } : { scorer: 'ql', mu: setting.mu };
}

/** The setting in words, e.g. `bm25 k1=0.9 b=0.4 bo1 fbDocs=3 fbTerms=10`. */
export function describeSetting(s: SweepSetting): string {
  const scorer = s.scorer === 'bm25' ? `bm25 k1=${s.k1} b=${s.b}` : `ql mu=${s.mu}`;
  return s.bo1 ? `${scorer} bo1 fbDocs=${s.bo1.fbDocs} fbTerms=${s.bo1.fbTerms}` : scorer;
}

export interface SweepQuery {
  qid: string;
  ast: QueryAst;
  /** False for a query whose id is implied by its line: it is ranked but never judged. */
  judged: boolean;
}

export interface SweepRow {
  setting: SweepSetting;
  /** trec_eval means over the evaluated queries. */
  mean: Record<string, number>;
  /** Queries evaluated (judged by the qrels and retrieving something). */
  queries: number;
}

export interface SweepResult {
  measures: string[];
  /** The measure that picks the best setting. */
  by: string;
  rows: SweepRow[];
  /** Index into rows of the best setting: the highest mean of `by`, the first in grid order on a tie. */
  best: number;
}

export interface SweepOptions {
  measures: string[];
  /** Must be one of measures. */
  by: string;
  /** Documents ranked per query (default 1000, as `querylens search`). */
  k?: number;
  /** Called after each setting (progress, cancellation: throw to stop). */
  afterSetting?: (done: number, total: number) => void | Promise<void>;
}

/**
 * One query's ranking under a setting: with Bo1, the first pass's top fbDocs documents give the
 * expansion terms and the expanded query is ranked with the same scorer (SEMANTICS.md §4.5).
 */
function rankSetting(reader: IndexReader, ast: QueryAst, setting: SweepSetting, k: number): SearchHit[] {
  const options = searchOptionsOf(setting);
  if (!setting.bo1) return search(reader, ast, { ...options, k }).hits;
  const { fbDocs, fbTerms } = setting.bo1;
  const first = search(reader, ast, { ...options, k: fbDocs }).hits;
  const expansion = expandQuery(reader, ast, selectFeedbackDocs(first, fbDocs), { method: 'bo1', fbTerms });
  return search(reader, expansion.ast, { ...options, k }).hits;
}

/** Ranks and evaluates every query under every setting. */
export async function runSweep(reader: IndexReader, queries: readonly SweepQuery[], qrels: Qrels, settings: readonly SweepSetting[], options: SweepOptions): Promise<SweepResult> {
  const measures = resolveMeasureNames(options.measures);
  const [by] = resolveMeasureNames([options.by]);
  if (by === undefined || !measures.includes(by)) throw new SweepGridError(`the best setting is chosen by ${options.by}, which is not among the measures (${options.measures.join(', ')})`);
  const judged = queries.filter((q) => q.judged && qrels.has(q.qid));
  if (judged.length === 0) throw new SweepGridError('the qrels judge none of the queries with a written id, so no setting can be evaluated');
  const rows: SweepRow[] = [];
  for (const [i, setting] of settings.entries()) {
    const run = new Map<string, RunEntry[]>();
    for (const q of judged) {
      const hits = rankSetting(reader, q.ast, setting, options.k ?? 1000);
      // A query id written twice: its run lines are one ranking, as trec_eval reads a run file.
      if (hits.length) run.set(q.qid, [...(run.get(q.qid) ?? []), ...hits.map((h) => ({ docno: h.docno, score: h.score }))]);
    }
    const result = evaluate({ runId: 'sweep', queries: run }, qrels, { measures });
    rows.push({ setting, mean: result.mean, queries: result.queries.length });
    await options.afterSetting?.(i + 1, settings.length);
  }
  let best = 0;
  rows.forEach((r, i) => {
    if ((r.mean[by] ?? -Infinity) > (rows[best]!.mean[by] ?? -Infinity)) best = i;
  });
  return { measures, by, rows, best };
}
