/**
 * What the whole-file commands say and where they write, from the server's answers
 * (docs/LSP_EXTENSIONS.md, `querylens/runFile`, `querylens/weighFile`, `querylens/buildIndex`).
 * Pure (no vscode import) so the messages users read are tested directly.
 */

/** The parts of server/lsp/engine/protocol.ts RunFileResult the client uses. */
export interface RunFileResult {
  text: string;
  queries: number;
  lines: number;
  skipped: { qid: string; reason: string }[];
  metrics: { mean: Record<string, number>; judged: number } | null;
}

/** The parts of server/lsp/engine/protocol.ts WeighFileResult the client uses. */
export interface WeighFileResult {
  model: string;
  device: string;
  edit: { changes: Record<string, { range: { start: { line: number; character: number }; end: { line: number; character: number } }; newText: string }[]> };
  weighed: { qid: string; text: string }[];
  notWeighed: { qid: string; reason: string }[];
  notices: string[];
}

export interface BuildIndexResult {
  corpus: string;
  index: string;
  docs: number;
  terms: number;
  seconds: number;
}

const count = (n: number, one: string, many = `${one}s`): string => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

function lastSegment(path: string): string {
  return path.split('/').filter(Boolean).pop() ?? path;
}

/** Default save path of "Export Run File": the query file's path with `.run` appended (queries.indri → queries.indri.run). */
export function defaultRunPath(queryFilePath: string): string {
  return `${queryFilePath}.run`;
}

/** Run tag (last column) named after the query file, one word: queries.indri → queries.indri. */
export function runTag(queryFilePath: string): string {
  const tag = lastSegment(queryFilePath).replace(/[^\w.-]+/g, '_');
  return tag || 'querylens';
}

function listed(items: { qid: string; reason: string }[], max = 5): string {
  const shown = items.slice(0, max).map((i) => `${i.qid}: ${i.reason}`);
  return shown.join('; ') + (items.length > max ? `; and ${items.length - max} more` : '');
}

/** The message after "Export Run File" wrote `target`. */
export function runSummary(result: RunFileResult, target: string): string {
  let out = `querylens: wrote ${count(result.lines, 'line')} for ${count(result.queries, 'query', 'queries')} to ${lastSegment(target)}.`;
  if (result.metrics) {
    const m = result.metrics.mean;
    const shown = ['map', 'ndcg_cut_10', 'P_10'].filter((k) => k in m).map((k) => `${k} ${m[k]!.toFixed(4)}`);
    out += ` ${shown.join(' · ')} over ${count(result.metrics.judged, 'judged query', 'judged queries')}.`;
  }
  if (result.skipped.length) out += ` Not ranked: ${listed(result.skipped)}.`;
  return out;
}

/** The message after "Apply Weights to Every Query in the File". */
export function weighSummary(result: WeighFileResult): string {
  const label = result.model === 'twbert' ? 'TW-BERT' : result.model === 'deepct' ? 'DeepCT' : result.model;
  let out = result.weighed.length
    ? `querylens: applied ${label} weights (${result.device}) to ${count(result.weighed.length, 'query', 'queries')}.`
    : `querylens: no query in this file can be weighed by ${label}.`;
  if (result.notWeighed.length) out += ` Not weighed: ${listed(result.notWeighed)}.`;
  return out;
}

/** The message after "Build Index from the Corpus". */
export function buildSummary(result: BuildIndexResult): string {
  return `querylens: built ${result.index} from ${lastSegment(result.corpus)}: ${count(result.docs, 'document')}, ${count(result.terms, 'term')} in ${result.seconds.toFixed(1)} s.`;
}
