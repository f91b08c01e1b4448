/**
 * Judging in place (the results panel's relevant / not relevant buttons): one qrels line set for a
 * (qid, docno), and the paired comparison of two tries' per-query metrics. The qrels file is the
 * user's: every other line (comments, blank lines, order, line endings) is kept byte for byte, the
 * judgement replaces exactly the one line that held it or is appended, and the file is replaced
 * atomically and never over a change made meanwhile (server/engine/io/safe-write.ts).
 */
import { holmAdjust, pairedRandomizationTest, pairedTTest, parseQrels, TrecFormatError } from '../engine/eval/index.js';
import { FileChangedError, rewriteFileSafely, SafeWriteError } from '../engine/io/safe-write.js';

export class JudgementRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JudgementRefused';
  }
}

export interface JudgementEdit {
  text: string;
  /** 1-based line of the judgement in the new text. */
  line: number;
  action: 'appended' | 'replaced' | 'unchanged';
  /** The grade the line held before; null when it was not judged. */
  previous: number | null;
}

/** A qid or docno that a qrels line can hold: one word. */
const WORD = /^\S+$/;

/**
 * The qrels text with (qid, docno) judged `grade` (SEMANTICS.md §6.1 format `qid iter docno rel`).
 * Refuses, naming file:line, when the text is not a qrels file; the judgement's line keeps its own
 * qid, iteration and spacing, only the grade changes.
 */
export function setJudgement(text: string, qid: string, docno: string, grade: number, file = '<qrels>'): JudgementEdit {
  if (!Number.isInteger(grade) || Math.abs(grade) > 1000) throw new JudgementRefused(`the grade must be an integer (got ${grade})`);
  if (!WORD.test(qid) || !WORD.test(docno)) throw new JudgementRefused('a qrels line holds one-word query ids and docnos');
  let qrels;
  try {
    qrels = parseQrels(text, file);
  } catch (err) {
    if (err instanceof TrecFormatError) throw new JudgementRefused(`${err.message}; it is not a qrels file ("qid iter docno rel"), so nothing was written`);
    throw err;
  }
  const previous = qrels.get(qid)?.get(docno) ?? null;
  if (previous === grade) {
    return { text, line: lineOf(text, qid, docno), action: 'unchanged', previous };
  }
  if (previous !== null) {
    const line = lineOf(text, qid, docno);
    const lines = text.split('\n');
    // Keep a CR ending, the leading space and the first three columns as written.
    const original = lines[line - 1]!;
    lines[line - 1] = original.replace(/^(\s*\S+\s+\S+\s+\S+\s+)\S+/, `$1${grade}`);
    return { text: lines.join('\n'), line, action: 'replaced', previous };
  }
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const base = text === '' || text.endsWith('\n') ? text : text + eol;
  const line = base === '' ? 1 : base.split('\n').length;
  return { text: `${base}${qid} 0 ${docno} ${grade}${eol}`, line, action: 'appended', previous };
}

function lineOf(text: string, qid: string, docno: string): number {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const fields = lines[i]!.trim().split(/\s+/);
    if (fields.length === 4 && fields[0] === qid && fields[2] === docno && !lines[i]!.trim().startsWith('#')) return i + 1;
  }
  throw new Error(`no qrels line for ${qid} ${docno}`);
}

/** Writes the judgement into the qrels file atomically; returns what was done. */
export function judgeInFile(path: string, qid: string, docno: string, grade: number): JudgementEdit {
  let edit: JudgementEdit | undefined;
  try {
    rewriteFileSafely(path, (current) => {
      const text = current.toString('utf8');
      if (Buffer.from(text, 'utf8').compare(current) !== 0) throw new JudgementRefused(`${path} is not UTF-8 text; it is not a qrels file, so nothing was written`);
      edit = setJudgement(text, qid, docno, grade, path);
      return edit.action === 'unchanged' ? undefined : edit.text;
    });
  } catch (err) {
    // A file that cannot be written, or that kept changing while we wrote: nothing was written.
    if (err instanceof SafeWriteError || err instanceof FileChangedError) throw new JudgementRefused(err.message);
    throw err;
  }
  return edit!;
}

/** Per-query metrics of one try: qid → measure → value. */
export type PerQueryMetrics = Record<string, Record<string, number>>;

export interface TryComparisonRow {
  measure: string;
  baselineMean: number;
  treatmentMean: number;
  meanDifference: number;
  /** Two-sided paired p-value over the queries both tries evaluated; NaN when undefined. */
  p: number;
  /** Holm-adjusted across the measures compared. */
  pHolm: number;
}

export interface TryComparison {
  test: 't' | 'randomization';
  /** Queries both tries evaluated (the pairs). */
  queries: number;
  rows: TryComparisonRow[];
}

/** One try's column of a several-try comparison, for one measure. */
export interface TryListCell {
  /** Mean over the queries every compared try evaluated with this measure (the pairs). */
  mean: number;
  /** Against the baseline; null in the baseline's own column. NaN where a test is undefined. */
  meanDifference: number | null;
  p: number | null;
  /** Holm-adjusted across every (try × measure) comparison against the baseline. */
  pHolm: number | null;
}

export interface TryListComparison {
  test: 't' | 'randomization';
  /** Index of the baseline among the tries. */
  baseline: number;
  /** Queries every try evaluated. */
  queries: number;
  /** Comparisons the Holm correction spans: (tries − 1) × measures, less the undefined ones. */
  comparisons: number;
  /** One row per measure; `cells[i]` is try i's column. */
  rows: { measure: string; pairs: number; cells: TryListCell[] }[];
}

const mean = (xs: readonly number[]): number => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : NaN);

/**
 * Two or more tries of a query file side by side: every try's mean per measure, and every try against
 * the baseline with one paired test per measure. Each measure is paired over the queries that every try
 * scored with it, so the columns of a row are means over the same queries. Holm's correction spans all
 * the (try × measure) tests at once: with several tries the family is every claim the table makes.
 */
export function compareTryList(tries: readonly PerQueryMetrics[], measures: readonly string[], test: 't' | 'randomization' = 't', baseline = 0): TryListComparison {
  if (tries.length < 2) throw new RangeError(`comparing tries needs at least two, got ${tries.length}`);
  if (!Number.isInteger(baseline) || baseline < 0 || baseline >= tries.length) throw new RangeError(`the baseline must be one of the tries (0..${tries.length - 1}), got ${baseline}`);
  const qids = Object.keys(tries[0]!)
    .filter((q) => tries.every((t) => Object.hasOwn(t, q)))
    .sort();
  const tested: { row: number; column: number; p: number }[] = [];
  const rows = measures.map((measure, row) => {
    const pairs = qids.filter((q) => tries.every((t) => typeof t[q]![measure] === 'number'));
    const values = tries.map((t) => pairs.map((q) => t[q]![measure]!));
    const base = values[baseline]!;
    const cells = values.map((v, column): TryListCell => {
      if (column === baseline) return { mean: mean(v), meanDifference: null, p: null, pHolm: null };
      const result = test === 't' ? pairedTTest(base, v) : pairedRandomizationTest(base, v);
      tested.push({ row, column, p: result.p });
      return { mean: mean(v), meanDifference: result.meanDifference, p: result.p, pHolm: NaN };
    });
    return { measure, pairs: pairs.length, cells };
  });
  const adjusted = holmAdjust(tested.map((x) => x.p));
  tested.forEach((x, i) => (rows[x.row]!.cells[x.column]!.pHolm = adjusted[i]!));
  return { test, baseline, queries: qids.length, comparisons: adjusted.filter((p) => !Number.isNaN(p)).length, rows };
}

/** Two tries of a query file compared query by query, one paired test per measure, Holm across measures (compareTryList of the two). */
export function compareTries(baseline: PerQueryMetrics, treatment: PerQueryMetrics, measures: readonly string[], test: 't' | 'randomization' = 't'): TryComparison {
  const list = compareTryList([baseline, treatment], measures, test);
  return {
    test,
    queries: list.queries,
    rows: list.rows.map(({ measure, cells: [b, t] }) => ({
      measure,
      baselineMean: b!.mean,
      treatmentMean: t!.mean,
      meanDifference: t!.meanDifference!,
      p: t!.p!,
      pHolm: t!.pHolm!,
    })),
  };
}
