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

/** Two tries of a query file compared query by query, one paired test per measure, Holm across measures. */
export function compareTries(baseline: PerQueryMetrics, treatment: PerQueryMetrics, measures: readonly string[], test: 't' | 'randomization' = 't'): TryComparison {
  const qids = Object.keys(baseline)
    .filter((q) => Object.hasOwn(treatment, q))
    .sort();
  const rows = measures.map((measure) => {
    const pairs = qids.filter((q) => typeof baseline[q]![measure] === 'number' && typeof treatment[q]![measure] === 'number');
    const a = pairs.map((q) => baseline[q]![measure]!);
    const b = pairs.map((q) => treatment[q]![measure]!);
    const mean = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : NaN);
    const result = test === 't' ? pairedTTest(a, b) : pairedRandomizationTest(a, b);
    return { measure, baselineMean: mean(a), treatmentMean: mean(b), meanDifference: result.meanDifference, p: result.p, pHolm: NaN };
  });
  const adjusted = holmAdjust(rows.map((r) => r.p));
  rows.forEach((r, i) => (r.pHolm = adjusted[i]!));
  return { test, queries: qids.length, rows };
}
