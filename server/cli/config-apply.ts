/**
 * Writing settings into a querylens.json for the CLI (`sweep --apply`): only the given values
 * change (server/lsp/config-edit.ts), through server/engine/io/safe-write.ts (atomic, through
 * symlinks, redone from the new contents when the file changes meanwhile). A file whose other
 * contents could not be kept is a CliError with the reason, and nothing is written.
 */
import { existsSync } from 'node:fs';
import { ConfigEditRefused, setConfigValues, type ConfigValue } from '../lsp/config-edit.js';
import { FileChangedError, rewriteFileSafely, SafeWriteError } from '../engine/io/safe-write.js';
import { CliError } from './errors.js';
import { writeOutputFile } from './output-file.js';

export function applyConfigValues(path: string, values: readonly ConfigValue[]): void {
  if (!existsSync(path)) {
    writeOutputFile(path, setConfigValues('', values).text);
    return;
  }
  try {
    rewriteFileSafely(path, (current) => {
      const text = current.toString('utf8');
      if (Buffer.compare(Buffer.from(text, 'utf8'), current) !== 0) throw new ConfigEditRefused('the file is not valid UTF-8');
      return setConfigValues(text, values).text;
    });
  } catch (err) {
    if (err instanceof ConfigEditRefused) throw new CliError(`${path}: not changed: ${err.message}. Fix the file (querylens.json is plain JSON) or set the values by hand`, 1);
    if (err instanceof FileChangedError) throw new CliError(`${path}: the file kept changing while querylens was writing it; nothing written (run again)`, 1);
    if (err instanceof SafeWriteError) throw new CliError(err.message, 1);
    throw err;
  }
}
