/**
 * server/engine/io/safe-write.ts: writes through symlinks, atomically, and never over a change
 * made since the contents were read (issue 11, item 7).
 */
import { appendFileSync, chmodSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileChangedError, rewriteFileSafely, SafeFileWriter, SafeWriteError, writeFileSafely } from '../../../server/engine/io/safe-write.js';

const dir = mkdtempSync(join(tmpdir(), 'querylens-safe-write-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = (name: string) => join(dir, `${n++}-${name}`);
/** Temp files left in the folder (there must be none). */
const leftovers = () => readdirSync(dir).filter((f) => f.endsWith('.tmp'));

describe('safe writes', () => {
  it('writes the real file through a symlink and keeps the link a link', () => {
    const real = fresh('real.txt');
    const link = fresh('link.txt');
    writeFileSync(real, 'old\n');
    symlinkSync(real, link);
    writeFileSafely(link, 'new\n');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).toBe('new\n');
  });

  it('follows a chain of relative links, also to a file that does not exist yet', () => {
    const real = fresh('target.txt');
    const a = fresh('a.txt');
    const b = fresh('b.txt');
    symlinkSync(real.slice(dir.length + 1), b);
    symlinkSync(b.slice(dir.length + 1), a);
    writeFileSafely(a, 'made\n');
    expect(lstatSync(a).isSymbolicLink()).toBe(true);
    expect(lstatSync(b).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).toBe('made\n');
  });

  it('keeps the file mode', () => {
    const path = fresh('mode.txt');
    writeFileSync(path, 'x');
    chmodSync(path, 0o600);
    writeFileSafely(path, 'y');
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('writes nothing when the file no longer holds the bytes the new contents were made from', () => {
    const path = fresh('changed.txt');
    writeFileSync(path, 'a\nb\n');
    expect(() => writeFileSafely(path, 'A\nB\n', { expected: Buffer.from('a\n') })).toThrow(FileChangedError);
    expect(readFileSync(path, 'utf8')).toBe('a\nb\n');
    expect(leftovers()).toEqual([]);
  });

  it('writes nothing when the file changes while it is being written', () => {
    const path = fresh('appended.txt');
    writeFileSync(path, 'one\n');
    const w = new SafeFileWriter(path, { expected: Buffer.from('one\n') });
    w.write('ONE\n');
    appendFileSync(path, 'two\n');
    expect(() => w.commit()).toThrow(/changed while it was being written; nothing written/);
    expect(readFileSync(path, 'utf8')).toBe('one\ntwo\n');
    expect(leftovers()).toEqual([]);
  });

  it('an output file that appears while it is being written is not overwritten', () => {
    const path = fresh('appeared.txt');
    const w = new SafeFileWriter(path);
    w.write('ours\n');
    writeFileSync(path, 'theirs\n');
    expect(() => w.commit()).toThrow(FileChangedError);
    expect(readFileSync(path, 'utf8')).toBe('theirs\n');
  });

  it('rewriteFileSafely transforms again from the new contents after a change', () => {
    const path = fresh('retry.txt');
    writeFileSync(path, 'a\n');
    let calls = 0;
    const wrote = rewriteFileSafely(path, (current) => {
      calls++;
      // A concurrent append between the read and the write, the first time only.
      if (calls === 1) appendFileSync(path, 'b\n');
      return current.toString('utf8').toUpperCase();
    });
    expect(wrote).toBe(true);
    expect(calls).toBe(2);
    expect(readFileSync(path, 'utf8')).toBe('A\nB\n');
  });

  it('reports other failures with the path and no temp file left', () => {
    const missingFolder = join(dir, 'no-such-folder', 'out.txt');
    expect(() => writeFileSafely(missingFolder, 'x')).toThrow(SafeWriteError);
    expect(() => writeFileSafely(missingFolder, 'x')).toThrow(`${missingFolder}: cannot write (its folder does not exist)`);
    expect(() => writeFileSafely(dir, 'x')).toThrow(/cannot write \(not a regular file\)/);
    expect(leftovers()).toEqual([]);
  });
});
