/**
 * Several runs side by side against the first (the baseline), with a paired significance
 * test per measure. Paired tests need one value per query for every run, so every run is
 * scored on the same query set: the qrels queries that at least one run answered (all
 * qrels queries with `complete`), a run without results for one of them scoring 0 there,
 * as trec_eval -c does. With several tests (runs after the first × measures), Holm's correction
 * spans all of them: the table's markers then hold for the whole family of claims at once.
 */
import { evaluate, isCountMeasure, perQueryValues, resolveMeasureNames, type EvalResult } from './measures.js';
import { compareBytewise } from './ranking.js';
import { formatFixed } from './format.js';
import {
  holmAdjust,
  pairedRandomizationTest,
  pairedTTest,
  RANDOMIZATION_PERMUTATIONS,
  RANDOMIZATION_SEED,
} from './significance.js';
import type { Qrels, Run } from './trec-files.js';

export type SignificanceTest = 't' | 'randomization';

export const SIGNIFICANCE_LEVEL = 0.05;

export interface CompareOptions {
  measures?: string[];
  test?: SignificanceTest;
  relevanceLevel?: number;
  complete?: boolean;
  /** trec_eval -M: keep the first n documents of each ranking. */
  maxDocs?: number;
  permutations?: number;
  seed?: number;
}

export interface ComparisonCell {
  mean: number;
  /** Relative change against the baseline in percent; null for the baseline itself or a zero baseline. */
  changePercent: number | null;
  /** p-value against the baseline; null for the baseline column. */
  p: number | null;
  /** p < SIGNIFICANCE_LEVEL, unadjusted. */
  significant: boolean;
  /** p Holm-adjusted across every (run × measure) test of the comparison; null for the baseline column. */
  pHolm: number | null;
}

export interface Comparison {
  test: SignificanceTest;
  /** Human description of the test, for the table's header. */
  testDescription: string;
  measures: string[];
  runIds: string[];
  /** The query set the means and tests are over. */
  queries: string[];
  /** cells[measureIndex][runIndex] */
  cells: ComparisonCell[][];
  /** Per run, the qrels queries it has no results for (scored 0). */
  missing: string[][];
  /** Tests the Holm correction spans (the defined p-values of all cells). */
  comparisons: number;
}

/** Compares runs (the first is the baseline) on the chosen measures. */
export function compareRuns(runs: readonly Run[], qrels: Qrels, options: CompareOptions = {}): Comparison {
  if (runs.length === 0) throw new Error('compare needs at least one run');
  const test = options.test ?? 't';
  // Counts (num_ret, ...) are sums, not per-query means: a test on them says nothing useful.
  const measures = resolveMeasureNames(options.measures ?? ['map', 'P_10', 'ndcg_cut_10', 'recall_100', 'recip_rank']).filter(
    (m) => !isCountMeasure(m),
  );
  const results: EvalResult[] = runs.map((run) =>
    evaluate(run, qrels, { measures, relevanceLevel: options.relevanceLevel, maxDocs: options.maxDocs, complete: false }),
  );
  const answered = new Set<string>();
  if (options.complete) for (const qid of qrels.keys()) answered.add(qid);
  else for (const r of results) for (const qid of r.queries) answered.add(qid);
  const queries = [...answered].sort(compareBytewise);

  const cells = measures.map((m) => {
    const baseline = perQueryValues(results[0], m, queries);
    const baseMean = mean(baseline);
    return results.map((result, i): ComparisonCell => {
      const values = perQueryValues(result, m, queries);
      const runMean = mean(values);
      if (i === 0) return { mean: runMean, changePercent: null, p: null, significant: false, pHolm: null };
      const p =
        test === 't'
          ? pairedTTest(baseline, values).p
          : pairedRandomizationTest(baseline, values, { permutations: options.permutations, seed: options.seed }).p;
      return {
        mean: runMean,
        changePercent: baseMean === 0 ? null : ((runMean - baseMean) / baseMean) * 100,
        p,
        significant: p < SIGNIFICANCE_LEVEL,
        pHolm: NaN,
      };
    });
  });
  const tested = cells.flatMap((row) => row.slice(1));
  const adjusted = holmAdjust(tested.map((cell) => cell.p!));
  tested.forEach((cell, i) => (cell.pHolm = adjusted[i]!));

  const permutations = options.permutations ?? RANDOMIZATION_PERMUTATIONS;
  const testDescription =
    test === 't'
      ? 'two-sided paired t-test'
      : queries.length > 0 && 2 ** queries.length <= permutations
        ? `two-sided paired randomisation test (exact, all ${2 ** queries.length} sign assignments)`
        : `two-sided paired randomisation test (${permutations} permutations, seed ${options.seed ?? RANDOMIZATION_SEED})`;
  return {
    test,
    testDescription,
    measures,
    runIds: runs.map((r) => r.runId),
    queries,
    cells,
    missing: results.map((r) => queries.filter((q) => !r.perQuery.has(q))),
    comparisons: adjusted.filter((p) => !Number.isNaN(p)).length,
  };
}

function mean(values: readonly number[]): number {
  return values.length ? values.reduce((s, x) => s + x, 0) / values.length : 0;
}

function formatP(p: number | null): string {
  if (p === null) return '';
  if (Number.isNaN(p)) return 'p=n/a';
  return p < 0.0001 ? 'p<0.0001' : `p=${formatFixed(p, 4)}`;
}

/** With one test the adjusted p is the p; with several the cell shows both and † follows the adjusted one. */
function formatCell(cell: ComparisonCell, baseline: boolean, several: boolean): string {
  const value = formatFixed(cell.mean, 4);
  if (baseline) return value;
  const change = cell.changePercent === null ? 'n/a' : `${cell.changePercent >= 0 ? '+' : ''}${cell.changePercent.toFixed(1)}%`;
  const significant = several ? cell.pHolm !== null && cell.pHolm < SIGNIFICANCE_LEVEL : cell.significant;
  return `${value}${significant ? '†' : ''} (${change}, ${formatP(cell.p)}${several ? `, Holm ${formatP(cell.pHolm)}` : ''})`;
}

/** The comparison as a text table: rows = measures, columns = runs, the baseline first. */
export function formatComparison(c: Comparison): string {
  const header = ['measure', ...c.runIds.map((id, i) => (i === 0 ? `${id} (baseline)` : id))];
  const several = c.comparisons > 1;
  const rows = c.measures.map((m, mi) => [m, ...c.cells[mi].map((cell, ri) => formatCell(cell, ri === 0, several))]);
  const widths = header.map((h, col) => Math.max(h.length, ...rows.map((r) => r[col].length)));
  const line = (cols: string[]) => cols.map((x, i) => x.padEnd(widths[i])).join('  ').trimEnd();
  const out = [
    several
      ? `Significance: ${c.testDescription} against the baseline (first run), over ${c.queries.length} queries; † = Holm-adjusted p < ${SIGNIFICANCE_LEVEL} across all ${c.comparisons} tests (runs × measures).`
      : `Significance: ${c.testDescription} against the baseline (first run), over ${c.queries.length} queries; † = p < ${SIGNIFICANCE_LEVEL}.`,
    line(header),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
  ];
  c.missing.forEach((missing, i) => {
    if (missing.length) {
      out.push(`note: ${c.runIds[i]} has no results for ${missing.length} judged quer${missing.length === 1 ? 'y' : 'ies'} (scored 0): ${missing.slice(0, 10).join(' ')}${missing.length > 10 ? ' …' : ''}`);
    }
  });
  return out.join('\n') + '\n';
}
