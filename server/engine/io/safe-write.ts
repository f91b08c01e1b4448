/**
 * Safe replacement of a file the user owns (an in-place rewrite or an output file):
 *
 * - through symlinks: the link's real target is written, the link stays a link;
 * - atomically: a temp file beside the real target, fsynced, renamed over it, the folder fsynced;
 * - never losing a concurrent change: the target's identity, size and times (and, for a rewrite,
 *   its bytes) are taken before and checked again just before the rename; a change means nothing
 *   is written (FileChangedError), so the caller can read again and retry. A change that slips in
 *   between that last check and the rename lands in the replaced file, which is still open here:
 *   its bytes are then put back at the path, and FileChangedError is thrown all the same.
 */
import {
  closeSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  readlinkSync,
  readSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
  type BigIntStats,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join, resolve } from 'node:path';

/** The file changed while the new contents were being made or written; nothing was written. */
export class FileChangedError extends Error {
  constructor(readonly path: string) {
    super(`${path}: the file changed while it was being written; nothing written`);
    this.name = 'FileChangedError';
  }
}

/** Any other failure to write (permissions, disk full, a folder in the way), with the path. */
export class SafeWriteError extends Error {
  constructor(
    readonly path: string,
    reason: string,
    readonly code?: string,
  ) {
    super(`${path}: cannot write (${reason})`);
    this.name = 'SafeWriteError';
  }
}

export interface SafeWriteOptions {
  /**
   * For an in-place rewrite: the bytes the new contents were made from. Nothing is written unless
   * the file still holds exactly these bytes just before the rename.
   */
  expected?: Uint8Array;
}

const MAX_LINKS = 40;

/**
 * The path a write to `path` must replace: symlinks followed (also a link whose target does not
 * exist yet), so that renaming over it never turns a link into a plain file.
 */
export function resolveWriteTarget(path: string): string {
  let current = resolve(path);
  for (let hops = 0; hops <= MAX_LINKS; hops++) {
    try {
      return realpathSync(current);
    } catch {
      // Missing: a dangling link is followed by hand; a plain missing file resolves its folder.
    }
    let info;
    try {
      info = lstatSync(current);
    } catch {
      try {
        return join(realpathSync(dirname(current)), basename(current));
      } catch {
        return current;
      }
    }
    if (!info.isSymbolicLink()) return current;
    current = resolve(dirname(current), readlinkSync(current));
  }
  throw new SafeWriteError(path, 'too many levels of symbolic links', 'ELOOP');
}

function sameState(a: BigIntStats, b: BigIntStats): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;
}

function readAll(fd: number, size: number): Buffer {
  const out = Buffer.alloc(size);
  let got = 0;
  while (got < size) {
    const n = readSync(fd, out, got, size - got, got);
    if (n === 0) break;
    got += n;
  }
  return out.subarray(0, got);
}

function writeAllTo(fd: number, data: Uint8Array): void {
  let done = 0;
  while (done < data.length) done += writeSync(fd, data, done, data.length - done);
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Never created, or already gone.
  }
}

function fsyncFolder(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some file systems cannot fsync a folder; the rename has still happened.
  }
}

function statOrUndefined(path: string): BigIntStats | undefined {
  try {
    return statSync(path, { bigint: true });
  } catch {
    return undefined;
  }
}

/**
 * Replaces the contents of `path` (followed through symlinks) with `data`, or throws
 * FileChangedError (nothing written) or SafeWriteError. See the module comment.
 */
export function writeFileSafely(path: string, data: string | Uint8Array, options: SafeWriteOptions = {}): void {
  const file = new SafeFileWriter(path, options);
  try {
    file.write(data);
    file.commit();
  } finally {
    file.abort();
  }
}

/**
 * The same replacement, written piece by piece (a long export): nothing appears at the path
 * until commit(); abort() (or a failed commit) leaves the path as it was.
 */
export class SafeFileWriter {
  readonly realPath: string;
  private fd: number | undefined;
  private before: BigIntStats | undefined;
  private tmp: string | undefined;
  private tmpFd: number | undefined;

  constructor(
    readonly path: string,
    private readonly options: SafeWriteOptions = {},
  ) {
    this.realPath = resolveWriteTarget(path);
    this.guard(() => {
      try {
        this.fd = openSync(this.realPath, 'r');
        this.before = fstatSync(this.fd, { bigint: true });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
      if (this.before && !this.before.isFile()) throw new SafeWriteError(path, 'not a regular file', 'EISDIR');
      if (options.expected !== undefined && !this.holdsExpected(this.before)) throw new FileChangedError(path);
      this.tmp = join(dirname(this.realPath), `.${basename(this.realPath)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
      this.tmpFd = openSync(this.tmp, 'wx', this.before ? Number(this.before.mode & 0o7777n) : 0o666);
    });
  }

  write(data: string | Uint8Array): void {
    if (this.tmpFd === undefined) throw new SafeWriteError(this.path, 'already closed');
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    this.guard(() => writeAllTo(this.tmpFd!, bytes));
  }

  /** Puts the written contents at the path, unless the file changed since this writer was made. */
  commit(): void {
    if (this.tmpFd === undefined || this.tmp === undefined) throw new SafeWriteError(this.path, 'already closed');
    this.guard(() => {
      fsyncSync(this.tmpFd!);
      closeSync(this.tmpFd!);
      this.tmpFd = undefined;
      // Last check before the rename: the same file, untouched since it was read.
      const now = statOrUndefined(this.realPath);
      const before = this.before;
      if (before ? !now || !sameState(before, now) : now !== undefined) throw new FileChangedError(this.path);
      if (this.options.expected !== undefined && !this.holdsExpected(now)) throw new FileChangedError(this.path);
      renameSync(this.tmp!, this.realPath);
      this.tmp = undefined;
      fsyncFolder(dirname(this.realPath));
      if (this.fd !== undefined && before !== undefined) {
        // A writer that had the old file open may have written to it after the check: its bytes
        // are in the file just replaced. Put them back rather than lose them.
        const after = fstatSync(this.fd, { bigint: true });
        if (after.size !== before.size || after.mtimeNs !== before.mtimeNs) {
          const restore = join(dirname(this.realPath), `.${basename(this.realPath)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
          const rfd = openSync(restore, 'wx', Number(before.mode & 0o7777n));
          try {
            writeAllTo(rfd, readAll(this.fd, Number(after.size)));
            fsyncSync(rfd);
          } finally {
            closeSync(rfd);
          }
          renameSync(restore, this.realPath);
          fsyncFolder(dirname(this.realPath));
          throw new FileChangedError(this.path);
        }
      }
    });
    this.abort();
  }

  /** Drops the temp file (if not committed) and closes everything; safe to call twice. */
  abort(): void {
    if (this.tmpFd !== undefined) closeQuietly(this.tmpFd);
    this.tmpFd = undefined;
    if (this.tmp !== undefined) unlinkQuietly(this.tmp);
    this.tmp = undefined;
    if (this.fd !== undefined) closeQuietly(this.fd);
    this.fd = undefined;
  }

  private holdsExpected(state: BigIntStats | undefined): boolean {
    if (this.fd === undefined || state === undefined) return false;
    return Buffer.from(this.options.expected!).equals(readAll(this.fd, Number(state.size)));
  }

  /** Runs `fn`, turning system errors into SafeWriteError and cleaning up on any failure. */
  private guard(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.abort();
      if (err instanceof FileChangedError || err instanceof SafeWriteError) throw err;
      const e = err as NodeJS.ErrnoException;
      throw new SafeWriteError(this.path, describeErrno(e), e.code);
    }
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already closed.
  }
}

function describeErrno(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'ENOSPC':
      return 'no space left on device';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOENT':
      return 'its folder does not exist';
    case 'EISDIR':
      return 'it is a folder';
    case 'EROFS':
      return 'read-only file system';
    default:
      return err.message;
  }
}

/**
 * Rewrites a file in place from its current bytes: `transform` gets them and returns the new
 * contents (undefined: leave the file as it is). When the file changes meanwhile, it is read and
 * transformed again, up to `attempts` times; after that FileChangedError (nothing written).
 * Returns whether the file was written.
 */
export function rewriteFileSafely(
  path: string,
  transform: (current: Buffer) => string | Uint8Array | undefined,
  attempts = 3,
): boolean {
  for (let attempt = 1; ; attempt++) {
    let current: Buffer;
    try {
      current = readFileBytes(resolveWriteTarget(path));
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      throw new SafeWriteError(path, e.code === 'ENOENT' ? 'no such file' : describeErrno(e), e.code);
    }
    const next = transform(current);
    if (next === undefined) return false;
    try {
      writeFileSafely(path, next, { expected: current });
      return true;
    } catch (err) {
      if (!(err instanceof FileChangedError) || attempt >= attempts) throw err;
    }
  }
}

function readFileBytes(path: string): Buffer {
  const fd = openSync(path, 'r');
  try {
    return readAll(fd, Number(fstatSync(fd).size));
  } finally {
    closeSync(fd);
  }
}
