/**
 * The index for the commands that read the index itself (sweep, the index browser): the folder
 * given, else the "index" of the nearest querylens.json; a missing or damaged index is one
 * CliError line that says how to build it. The engine is loaded on first use, as in the other
 * command modules, so that `querylens --help` stays fast.
 */
import type { IndexReader } from '../engine/index/reader.js';
import { CliError } from './errors.js';
import { indexFromConfig } from './commands/search-options.js';

export async function openIndexReader(dir: string | undefined): Promise<IndexReader> {
  const { IndexError, openIndex } = await import('../engine/index/disk.js');
  try {
    return openIndex(dir ?? indexFromConfig());
  } catch (err) {
    if (err instanceof IndexError) throw new CliError(err.message);
    throw err;
  }
}
