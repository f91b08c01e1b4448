/**
 * The `npm start` main job (scripts/start.mjs calls it after building), end to end on the
 * samples:
 *   1. check each sample file (diagnostics as `querylens check` prints them);
 *   2. translate it to the other dialects and to Terrier MatchOpQL, with the warnings;
 *   3. open the Cranfield sample index (samples/.index), building it once when it is missing
 *      or unreadable;
 *   4. rank every sample query with several scorers and show the top documents;
 *   5. evaluate the runs against the Cranfield qrels: one table per sample file, with a
 *      paired significance test against the first run;
 *   6. print a one-line summary.
 * Returns the exit code: 1 when a sample has errors, 0 otherwise.
 */
import { join, relative } from 'node:path';
import { readQuerySource, sourceDiagnostics, TRANSLATE_TARGETS, type QuerySourceResult, type TranslateTarget } from '../../grammar/index.js';
import { formatDiagnostic } from './commands/check.js';
import { convertSource } from './commands/convert.js';
import { buildIndex, IndexError, openIndex } from '../engine/index/index.js';
import type { IndexReader } from '../engine/index/reader.js';
import { LocalIndexBackend } from '../service/backend.js';
import { buildProgressBar } from './progress-bar.js';
import { rankQuery, type RankQueryOptions } from '../service/ranking.js';
import { compareRuns, formatComparison, readQrelsFile, type Run } from '../engine/eval/index.js';

export interface MainJobOptions {
  root: string;
  /** Where the report goes; stdout by default. */
  write?: (line: string) => void;
  /** The sample index folder; `samples/.index` under root by default. */
  indexDir?: string;
}

export const SAMPLE_FILES = ['samples/queries.indri', 'samples/queries.lucene'];
export const SAMPLE_CORPUS = 'samples/cranfield/corpus.jsonl';
export const SAMPLE_QRELS = 'samples/cranfield/qrels.txt';
export const SAMPLE_INDEX = 'samples/.index';

/** The runs made for each sample file: a name and the options of `querylens search`. */
const RUNS_BY_DIALECT: Record<string, { id: string; options: RankQueryOptions }[]> = {
  indri: [
    { id: 'bm25', options: { scorer: 'bm25' } },
    { id: 'bm25+bo1', options: { scorer: 'bm25', expand: { method: 'bo1' } } },
    { id: 'ql', options: { scorer: 'ql' } },
  ],
  lucene: [
    { id: 'bm25', options: { scorer: 'bm25' } },
    { id: 'bm25-lucene', options: { scorer: 'bm25-lucene' } },
    { id: 'bm25+bo1', options: { scorer: 'bm25', expand: { method: 'bo1' } } },
  ],
};
/** Documents shown per query in the report (the runs themselves keep 1000). */
const SHOWN = 3;

interface Tally {
  queries: number;
  errors: number;
  warnings: number;
  translations: number;
  translationWarnings: number;
}

export async function runMainJob(opts: MainJobOptions): Promise<number> {
  const write = opts.write ?? ((line: string) => process.stdout.write(line + '\n'));
  const tally: Tally = { queries: 0, errors: 0, warnings: 0, translations: 0, translationWarnings: 0 };

  const sources: { name: string; source: QuerySourceResult }[] = [];
  for (const rel of SAMPLE_FILES) {
    const path = join(opts.root, rel);
    const name = relative(opts.root, path);
    const source = readQuerySource(path);
    checkStep(name, source, tally, write);
    translateStep(name, source, tally, write);
    sources.push({ name, source });
  }

  const reader = await indexStep(opts.root, opts.indexDir ?? join(opts.root, SAMPLE_INDEX), write);
  const qrels = readQrelsFile(join(opts.root, SAMPLE_QRELS));
  let runs = 0;
  for (const { name, source } of sources) runs += searchAndEvaluateStep(name, source, reader, qrels, write);

  write(
    `querylens: ${SAMPLE_FILES.length} files, ${tally.queries} queries, ${tally.errors} errors, ${tally.warnings} warnings; ` +
      `${tally.translations} translations with ${tally.translationWarnings} approximation warnings; ` +
      `${runs} runs over ${reader.stats().numDocs} Cranfield documents`,
  );
  return tally.errors > 0 ? 1 : 0;
}

/** Step 3: the sample index, built once (atomically) and reused by later runs. */
async function indexStep(root: string, dir: string, write: (line: string) => void): Promise<IndexReader> {
  try {
    const reader = openIndex(dir);
    write(`== index ${SAMPLE_INDEX}: ${reader.stats().numDocs} documents (built earlier; delete the folder to rebuild)`);
    return reader;
  } catch (err) {
    if (!(err instanceof IndexError)) throw err;
    write(`== index ${SAMPLE_INDEX}: ${err.message.split('\n')[0]} -> building it from ${SAMPLE_CORPUS}`);
  }
  const bar = buildProgressBar();
  let summary;
  try {
    summary = await buildIndex([join(root, SAMPLE_CORPUS)], dir, { profile: 'terrier', onProgress: bar?.onProgress });
  } finally {
    bar?.stop();
  }
  write(
    `== index ${SAMPLE_INDEX}: ${summary.docs} documents, ${summary.terms} terms, ${summary.tokens} tokens in ${summary.seconds.toFixed(2)} s`,
  );
  return openIndex(dir);
}

/** Steps 4 and 5: rank the file's queries with each run's options, show the top, compare the runs. */
function searchAndEvaluateStep(
  name: string,
  source: QuerySourceResult,
  reader: IndexReader,
  qrels: ReturnType<typeof readQrelsFile>,
  write: (line: string) => void,
): number {
  const configs = RUNS_BY_DIALECT[source.dialect] ?? RUNS_BY_DIALECT.indri!;
  const runs: Run[] = configs.map((c) => ({ runId: c.id, queries: new Map() }));
  const backend = new LocalIndexBackend(reader, SAMPLE_INDEX);
  write(`== search ${name}: ${configs.map((c) => c.id).join(', ')} (top ${SHOWN} of 1000 shown, first run)`);
  for (const entry of source.entries) {
    if (entry.result.diagnostics.some((d) => d.severity === 'error')) continue;
    configs.forEach((config, i) => {
      const { hits } = rankQuery(backend, entry.result.ast, { ...config.options, k: 1000 });
      runs[i]!.queries.set(
        entry.qid,
        hits.map((h) => ({ docno: h.docno, score: h.score })),
      );
      if (i === 0) {
        write(`${entry.qid}\t${entry.text}`);
        hits.slice(0, SHOWN).forEach((h, rank) => {
          const title = reader.document(h.doc).title.replace(/\s+/g, ' ').trim();
          const rel = qrels.get(entry.qid)?.get(h.docno);
          write(`  ${rank + 1}. ${h.docno.padEnd(5)} ${h.score.toFixed(4)}  ${rel !== undefined && rel > 0 ? `[rel ${rel}] ` : ''}${title.slice(0, 70)}`);
        });
      }
    });
  }
  write(`== evaluate ${name} against ${SAMPLE_QRELS}`);
  const comparison = compareRuns(runs, qrels, { measures: ['map', 'P_10', 'ndcg_cut_10', 'recall_100'], test: 't' });
  for (const line of formatComparison(comparison).split('\n')) write(line);
  return runs.length;
}

/** Step 1: the file's diagnostics, as `querylens check` prints them. */
function checkStep(name: string, source: QuerySourceResult, tally: Tally, write: (line: string) => void): void {
  const diagnostics = sourceDiagnostics(source);
  tally.queries += source.entries.length;
  tally.errors += diagnostics.filter((d) => d.severity === 'error').length;
  tally.warnings += diagnostics.filter((d) => d.severity === 'warning').length;
  write(`== check ${name} (${source.dialect}, ${source.entries.length} queries): ${diagnostics.length ? `${diagnostics.length} diagnostics` : 'clean'}`);
  for (const d of diagnostics) write(formatDiagnostic(name, d));
}

/** Step 2: the file translated to every other dialect and to Terrier, with warnings. */
function translateStep(name: string, source: QuerySourceResult, tally: Tally, write: (line: string) => void): void {
  const targets = TRANSLATE_TARGETS.filter((t: TranslateTarget) => t !== source.dialect);
  for (const to of targets) {
    const converted = convertSource(source, to);
    const warnings = converted.diagnostics.filter((d) => d.severity !== 'error');
    tally.translations += converted.lines.length;
    tally.translationWarnings += warnings.length;
    write(`== convert ${name} --to ${to}`);
    for (const line of converted.lines) write(line);
    for (const d of warnings) write(formatDiagnostic(name, d));
  }
}
