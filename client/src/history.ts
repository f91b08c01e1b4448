/**
 * The history of tries (issue 14 §4): each run of a query in the results panel and each scoreboard
 * run of a whole file is a try, with its query text (or file), its settings and its metrics. The
 * extension keeps them per workspace (workspaceState, never a file of the user's); this module is the
 * pure part: recording, a query's history, and the whole-file scoreboard with changes since the last try.
 */

export interface QueryTry {
  kind: 'query';
  id: string;
  /** ISO time of the try. */
  at: string;
  uri: string;
  qid: string;
  query: string;
  /** The scorer and expansion, as a label (`BM25 k1=1.2 b=0.75`). */
  settings: string;
  metrics: Record<string, number> | null;
}

export interface FileTry {
  kind: 'file';
  id: string;
  at: string;
  uri: string;
  settings: string;
  /** trec_eval means over the judged queries. */
  mean: Record<string, number>;
  perQuery: Record<string, Record<string, number>>;
}

export type Try = QueryTry | FileTry;

/** Tries kept per workspace, oldest dropped first. */
export const MAX_TRIES = 200;

/** The scorer and expansion of a preview or run, as the scoreboard shows it. */
export function settingsLabel(scorer: { name: string; k1: number; b: number; mu: number }, expansion?: { method: string; fbDocs: number; fbTerms: number } | null): string {
  const base =
    scorer.name === 'ql'
      ? `QL μ=${scorer.mu}`
      : scorer.name === 'impact'
        ? 'impact'
        : scorer.name === 'bm25f'
          ? `BM25F k1=${scorer.k1}`
          : `${scorer.name === 'bm25-lucene' ? 'Lucene BM25' : 'BM25'} k1=${scorer.k1} b=${scorer.b}`;
  return expansion ? `${base} + ${expansion.method} ${expansion.fbDocs}×${expansion.fbTerms}` : base;
}

function sameRun(a: Try, b: Try): boolean {
  if (a.kind !== b.kind || a.uri !== b.uri || a.settings !== b.settings) return false;
  if (a.kind === 'query' && b.kind === 'query') return a.qid === b.qid && a.query === b.query && JSON.stringify(a.metrics) === JSON.stringify(b.metrics);
  return JSON.stringify((a as FileTry).perQuery) === JSON.stringify((b as FileTry).perQuery);
}

/**
 * The tries with `next` recorded: a run identical to the latest try of the same query (or file) —
 * the same text, settings and metrics, e.g. paging through the same results — is not a new try.
 */
export function addTry(tries: readonly Try[], next: Try, max = MAX_TRIES): Try[] {
  const previous = [...tries].reverse().find((t) => t.kind === next.kind && t.uri === next.uri && (t.kind === 'file' || (next.kind === 'query' && t.qid === next.qid)));
  if (previous && sameRun(previous, next)) return [...tries];
  const out = [...tries, next];
  return out.length > max ? out.slice(out.length - max) : out;
}

/** One query's tries, oldest first. */
export function queryHistory(tries: readonly Try[], uri: string, qid: string): QueryTry[] {
  return tries.filter((t): t is QueryTry => t.kind === 'query' && t.uri === uri && t.qid === qid);
}

/** A file's whole-file tries, oldest first. */
export function fileTries(tries: readonly Try[], uri: string): FileTry[] {
  return tries.filter((t): t is FileTry => t.kind === 'file' && t.uri === uri);
}

export interface ScoreboardRow {
  qid: string;
  metrics: Record<string, number>;
  /** Change of each measure since the previous try (null: the query was not evaluated then). */
  change: Record<string, number> | null;
}

export interface Scoreboard {
  measures: string[];
  rows: ScoreboardRow[];
  mean: Record<string, number>;
  meanChange: Record<string, number> | null;
  /** The column and direction the rows are sorted by. */
  sort: { column: string; descending: boolean };
}

const compareQids = (a: string, b: string): number => {
  const x = Number(a);
  const y = Number(b);
  return Number.isFinite(x) && Number.isFinite(y) ? x - y : a < b ? -1 : a > b ? 1 : 0;
};

/**
 * The scoreboard of `latest` against `previous` (the try before it): per-query metrics with their
 * change, sorted by `column` ('qid', a measure, or 'change:<measure>'), and the means.
 */
export function scoreboard(latest: FileTry, previous: FileTry | null, sort: { column: string; descending: boolean } = { column: 'qid', descending: false }): Scoreboard {
  const measures = Object.keys(latest.mean);
  const rows = Object.entries(latest.perQuery).map(([qid, metrics]): ScoreboardRow => {
    const before = previous?.perQuery[qid];
    return { qid, metrics, change: before ? Object.fromEntries(measures.map((m) => [m, (metrics[m] ?? 0) - (before[m] ?? 0)])) : null };
  });
  const key = (r: ScoreboardRow): number => {
    if (sort.column.startsWith('change:')) return r.change?.[sort.column.slice(7)] ?? -Infinity;
    return r.metrics[sort.column] ?? -Infinity;
  };
  rows.sort((a, b) => {
    const order = sort.column === 'qid' ? compareQids(a.qid, b.qid) : key(a) - key(b) || compareQids(a.qid, b.qid);
    return sort.descending ? -order : order;
  });
  const meanChange = previous ? Object.fromEntries(measures.map((m) => [m, (latest.mean[m] ?? 0) - (previous.mean[m] ?? 0)])) : null;
  return { measures, rows, mean: latest.mean, meanChange, sort };
}

/** The next sort after a click on `column`: the same column flips, another starts descending (best first), qid ascending. */
export function nextSort(current: { column: string; descending: boolean }, column: string): { column: string; descending: boolean } {
  if (current.column === column) return { column, descending: !current.descending };
  return { column, descending: column !== 'qid' };
}

/** The tries ticked on the scoreboard for a side-by-side comparison, and the one the others are tested against. */
export interface TryPick {
  ticked: string[];
  /** One of `ticked`; null when none is ticked. */
  baseline: string | null;
}

/** Ticks or unticks a try; the baseline stays the user's pick while it is ticked, else the first ticked. */
export function toggleTick(pick: TryPick, id: string): TryPick {
  const ticked = pick.ticked.includes(id) ? pick.ticked.filter((x) => x !== id) : [...pick.ticked, id];
  const baseline = pick.baseline !== null && ticked.includes(pick.baseline) ? pick.baseline : (ticked[0] ?? null);
  return { ticked, baseline };
}

/** Makes a try the baseline, ticking it when it was not. */
export function pickBaseline(pick: TryPick, id: string): TryPick {
  return { ticked: pick.ticked.includes(id) ? pick.ticked : [...pick.ticked, id], baseline: id };
}

/** Keeps only the tries that still exist (the store drops the oldest past MAX_TRIES). */
export function prunePick(pick: TryPick, existing: readonly { id: string }[]): TryPick {
  const ids = new Set(existing.map((t) => t.id));
  const ticked = pick.ticked.filter((x) => ids.has(x));
  return { ticked, baseline: pick.baseline !== null && ticked.includes(pick.baseline) ? pick.baseline : (ticked[0] ?? null) };
}
