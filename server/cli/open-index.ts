/**
 * The index for the commands that read the index itself (sweep, the index browser): the folder
 * given, else the "index" of the nearest querylens.json; a missing or damaged index is one
 * CliError line that says how to build it (openBackendForCli). The engine is loaded on first use,
 * as in the other command modules, so that `querylens --help` stays fast.
 */
import type { IndexReader } from '../engine/index/reader.js';
import { openBackendForCli } from './commands/search-options.js';

export async function openIndexReader(dir: string | undefined): Promise<IndexReader> {
  return (await openBackendForCli(dir)).reader;
}
