/**
 * Every file the CLI writes goes through server/engine/io/safe-write.ts (atomic, through
 * symlinks, never over a concurrent change); these wrap its errors as one-line CLI errors.
 */
import { CliError } from './errors.js';
import { FileChangedError, SafeFileWriter, SafeWriteError, writeFileSafely } from '../engine/io/safe-write.js';

function cliError(err: unknown): unknown {
  if (err instanceof FileChangedError) return new CliError(`${err.path}: the file changed while querylens was writing it; nothing written (run again)`, 1);
  if (err instanceof SafeWriteError) return new CliError(err.message, 1);
  return err;
}

/** Writes a whole output file (--out, --queries-out, …). */
export function writeOutputFile(path: string, text: string): void {
  try {
    writeFileSafely(path, text);
  } catch (err) {
    throw cliError(err);
  }
}

/** An output file written piece by piece; nothing is at the path until commit(). */
export class OutputFile {
  private readonly file: SafeFileWriter;

  constructor(readonly path: string) {
    try {
      this.file = new SafeFileWriter(path);
    } catch (err) {
      throw cliError(err);
    }
  }

  write(text: string | Uint8Array): void {
    try {
      this.file.write(text);
    } catch (err) {
      throw cliError(err);
    }
  }

  commit(): void {
    try {
      this.file.commit();
    } catch (err) {
      throw cliError(err);
    }
  }

  abort(): void {
    this.file.abort();
  }
}
