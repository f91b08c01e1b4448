/**
 * TREC run and qrels files (SEMANTICS.md §6.1), read strictly: trec_eval aborts on a duplicate
 * docno, and we also refuse lines it would silently misread (a missing column, a score
 * that is not a number), each with `file:line` so the user can jump to it.
 */
import { readFileSync } from 'node:fs';

/** One retrieved document of one query, as written in the run file. */
export interface RunEntry {
  docno: string;
  score: number;
}

export interface Run {
  /** The run tag (6th column of the first line), or the file name when empty. */
  runId: string;
  /** Per query id, the documents in file order (ranking happens in evaluation). */
  queries: Map<string, RunEntry[]>;
}

/** Per query id, per docno, the relevance value (SEMANTICS.md §6.1: integer, may be negative). */
export type Qrels = Map<string, Map<string, number>>;

/** A malformed line in a run or qrels file; `message` already starts with `file:line:`. */
export class TrecFormatError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly reason: string,
  ) {
    // Line 0 means the file as a whole (cannot be read).
    super(line > 0 ? `${file}:${line}: ${reason}` : `${file}: ${reason}`);
    this.name = 'TrecFormatError';
  }
}

/** Lines with their 1-based numbers, skipping blank lines and `#` comments (v10 behaviour, SEMANTICS.md §6.1). */
function* contentLines(text: string): Generator<{ fields: string[]; lineNo: number }> {
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const trimmed = lines[i].trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    yield { fields: trimmed.split(/\s+/), lineNo: i + 1 };
  }
}

/** A decimal or exponent number, the shapes `atof` reads fully; `Number()` alone would accept "0x1f" or "". */
const NUMBER_RE = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const INTEGER_RE = /^[+-]?\d+$/;

/** Parses run text `qid Q0 docno rank score runid`; `iter` and `rank` are ignored (SEMANTICS.md §6.1). */
export function parseRun(text: string, file = '<run>'): Run {
  const queries = new Map<string, RunEntry[]>();
  const seen = new Map<string, Map<string, number>>();
  let runId = '';
  for (const { fields, lineNo } of contentLines(text)) {
    if (fields.length !== 6) {
      throw new TrecFormatError(file, lineNo, `expected 6 columns "qid Q0 docno rank score runid", found ${fields.length}`);
    }
    const [qid, , docno, , scoreText, tag] = fields;
    if (!NUMBER_RE.test(scoreText)) {
      throw new TrecFormatError(file, lineNo, `score "${scoreText}" is not a number`);
    }
    if (runId === '') runId = tag;
    let docs = queries.get(qid);
    let lines = seen.get(qid);
    if (!docs || !lines) {
      docs = [];
      lines = new Map();
      queries.set(qid, docs);
      seen.set(qid, lines);
    }
    const previous = lines.get(docno);
    if (previous !== undefined) {
      throw new TrecFormatError(file, lineNo, `duplicate docno "${docno}" for query ${qid} (first at line ${previous})`);
    }
    lines.set(docno, lineNo);
    docs.push({ docno, score: Number(scoreText) });
  }
  return { runId: runId || file, queries };
}

/** Parses qrels text `qid iter docno rel` (SEMANTICS.md §6.1). */
export function parseQrels(text: string, file = '<qrels>'): Qrels {
  const qrels: Qrels = new Map();
  const seen = new Map<string, number>();
  for (const { fields, lineNo } of contentLines(text)) {
    if (fields.length !== 4) {
      throw new TrecFormatError(file, lineNo, `expected 4 columns "qid iter docno rel", found ${fields.length}`);
    }
    const [qid, , docno, relText] = fields;
    if (!INTEGER_RE.test(relText)) {
      throw new TrecFormatError(file, lineNo, `relevance "${relText}" is not an integer`);
    }
    let judged = qrels.get(qid);
    if (!judged) {
      judged = new Map();
      qrels.set(qid, judged);
    }
    const key = `${qid}\u0000${docno}`;
    const previous = seen.get(key);
    if (previous !== undefined) {
      throw new TrecFormatError(file, lineNo, `duplicate docno "${docno}" for query ${qid} (first at line ${previous})`);
    }
    seen.set(key, lineNo);
    judged.set(docno, Number(relText));
  }
  return qrels;
}

function readText(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (err as Error).message;
    throw new TrecFormatError(file, 0, `cannot read ${what}: ${why}`);
  }
}

export function readRunFile(file: string): Run {
  return parseRun(readText(file, 'run file'), file);
}

export function readQrelsFile(file: string): Qrels {
  return parseQrels(readText(file, 'qrels file'), file);
}

/** A ranked list to write: documents in rank order, ranks 1..n. */
export interface RankedList {
  qid: string;
  docs: { docno: string; score: number }[];
}

/**
 * Writes TREC run lines `qid Q0 docno rank score runid` (SEMANTICS.md §1.7 output). Scores keep
 * full precision: trec_eval v9 reads them into a float32, so rounding here would only
 * add ties the ranking did not have.
 */
export function formatRun(lists: Iterable<RankedList>, runId: string): string {
  const out: string[] = [];
  for (const { qid, docs } of lists) {
    docs.forEach((d, i) => out.push(`${qid} Q0 ${d.docno} ${i + 1} ${d.score} ${runId}`));
  }
  return out.length ? out.join('\n') + '\n' : '';
}
