/** Evaluation public API: trec_eval-exact measures (SEMANTICS.md §6), run comparison and significance tests. */
export {
  parseRun,
  parseQrels,
  readRunFile,
  readQrelsFile,
  formatRun,
  TrecFormatError,
  type Run,
  type RunEntry,
  type Qrels,
  type RankedList,
} from './trec-files.js';
export { rankEntries, compareBytewise } from './ranking.js';
export {
  evaluate,
  judgeQuery,
  perQueryValues,
  resolveMeasureNames,
  isCountMeasure,
  UnknownMeasureError,
  DEFAULT_MEASURES,
  DEFAULT_CUTOFFS,
  type EvalOptions,
  type EvalResult,
  type JudgedRanking,
} from './measures.js';
export { formatTrecEval, formatFixed, formatMeasureValue, trecEvalLine, type TrecEvalFormatOptions } from './format.js';
export {
  pairedTTest,
  pairedRandomizationTest,
  holmAdjust,
  studentTCdf,
  studentTTwoSidedP,
  regularizedIncompleteBeta,
  logGamma,
  RANDOMIZATION_PERMUTATIONS,
  RANDOMIZATION_SEED,
  type TTestResult,
  type RandomizationResult,
} from './significance.js';
export {
  compareRuns,
  formatComparison,
  SIGNIFICANCE_LEVEL,
  type Comparison,
  type ComparisonCell,
  type CompareOptions,
  type SignificanceTest,
} from './compare.js';
