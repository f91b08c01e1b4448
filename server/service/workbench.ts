/**
 * The workbench's index browser and parameter sweeps (`querylens/indexTerms`, `postings`, `document`,
 * `analyze`, `sweep`; the CLI's `terms`, `postings`, `doc`, `analyze`, `sweep`) over a search backend.
 * They read postings, term vectors and field extents, which only an index on this machine has: a
 * backend of another kind is refused with a typed NotLocalIndexError that says so.
 */
import { analyzeForDisplay, documentView, termPostings, topTermsByDf } from '../engine/index/browse.js';
import type { IndexReader } from '../engine/index/reader.js';
import { runSweep } from '../engine/sweep.js';
import { LocalIndexBackend, type LocalBackend } from './backend.js';

export { BrowseError, analyzeForDisplay as analyzeWithoutIndex } from '../engine/index/browse.js';

export class NotLocalIndexError extends Error {
  constructor() {
    super('the index browser and sweeps need a local index (built with `querylens index`)');
    this.name = 'NotLocalIndexError';
  }
}

function localReader(backend: LocalBackend): IndexReader {
  if (backend instanceof LocalIndexBackend) return backend.reader;
  throw new NotLocalIndexError();
}

type Rest<F> = F extends (reader: IndexReader, ...rest: infer R) => unknown ? R : never;

export const topTerms = (backend: LocalBackend, ...rest: Rest<typeof topTermsByDf>) => topTermsByDf(localReader(backend), ...rest);
export const postingsOf = (backend: LocalBackend, ...rest: Rest<typeof termPostings>) => termPostings(localReader(backend), ...rest);
export const documentOf = (backend: LocalBackend, ...rest: Rest<typeof documentView>) => documentView(localReader(backend), ...rest);
export const sweepQueries = (backend: LocalBackend, ...rest: Rest<typeof runSweep>) => runSweep(localReader(backend), ...rest);
/** Each word of `text` as the backend's analyser reads it, with its statistics in the local index. */
export function analyzeInIndex(backend: LocalBackend, text: string) {
  const reader = localReader(backend);
  return analyzeForDisplay(reader.analyzer, text, reader);
}
