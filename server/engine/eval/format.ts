/**
 * trec_eval's relational output (SEMANTICS.md §6.3): `%-22s\t%s\t%6.4f` for measures, and
 * `%-22s\t%s\t%ld` for counts (num_ret, num_rel, num_rel_ret), whose "all" is a sum.
 */
import { isCountMeasure, type EvalResult } from './measures.js';

/**
 * C's `%.Nf`: rounds the exact binary value, ties to even (glibc in the default rounding
 * mode). `Number.prototype.toFixed` rounds ties up instead (0.03125 → "0.0313" where
 * trec_eval prints 0.0312); a tie needs the value to be exactly representable, which
 * `toFixed(40)` (an exact expansion for the dyadic values that can tie) reveals.
 */
export function formatFixed(value: number, digits: number): string {
  if (!Number.isFinite(value)) return String(value);
  const plain = value.toFixed(digits);
  const exact = Math.abs(value).toFixed(Math.min(100, digits + 40));
  const tail = exact.slice(exact.indexOf('.') + 1 + digits);
  if (!/^50*$/.test(tail)) return plain;
  // An exact tie: toFixed rounded away from zero; step back if that made the last digit odd.
  const lastDigit = Number(plain[plain.length - 1]);
  if (lastDigit % 2 === 0) return plain;
  const down = (Math.sign(value) * (Math.abs(value) - 0.5 * 10 ** -digits)).toFixed(digits);
  return down;
}

/** `%6.4f` */
export function formatMeasureValue(name: string, value: number): string {
  return isCountMeasure(name) ? String(Math.round(value)) : formatFixed(value, 4).padStart(6);
}

/** One trec_eval output line. */
export function trecEvalLine(measure: string, qid: string, value: string): string {
  return `${measure.padEnd(22)}\t${qid}\t${value}`;
}

export interface TrecEvalFormatOptions {
  /** Print per-query lines before the summary (trec_eval `-q`). */
  perQuery?: boolean;
  /** Print the `runid` line first, as trec_eval does in its default measure set. */
  runId?: boolean;
}

/** The whole trec_eval report for one run: per query (optional), then "all". */
export function formatTrecEval(result: EvalResult, options: TrecEvalFormatOptions = {}): string {
  const lines: string[] = [];
  if (options.runId) lines.push(trecEvalLine('runid', 'all', result.runId));
  if (options.perQuery) {
    for (const qid of result.queries) {
      const values = result.perQuery.get(qid)!;
      for (const m of result.measures) lines.push(trecEvalLine(m, qid, formatMeasureValue(m, values[m])));
    }
  }
  for (const m of result.measures) lines.push(trecEvalLine(m, 'all', formatMeasureValue(m, result.mean[m])));
  return lines.join('\n') + '\n';
}
