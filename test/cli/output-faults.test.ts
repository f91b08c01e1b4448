/**
 * Output faults of the real CLI through real pipes and /dev/full (issue 11, item 8):
 * EPIPE ends quietly with status 0, ENOSPC is one line and a non-zero status, never a stack trace.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../support/build.js';
import { runChecked } from '../support/process.js';
import { dataPath } from '../support/data.js';

const work = mkdtempSync(join(tmpdir(), 'querylens-output-faults-'));
const index = join(work, 'cran');
const BIN = join(ROOT, 'bin/querylens.js');
afterAll(() => rmSync(work, { recursive: true, force: true }));

beforeAll(async () => {
  ensureBuilt();
  await runChecked(process.execPath, [BIN, 'index', dataPath('cranfield/corpus.jsonl'), '--out', index]);
}, 120_000);

/** Runs a shell line; resolves with the shell's stdout, stderr and status. */
function sh(line: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', line], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

const search = () => `"${process.execPath}" "${BIN}" search --index "${index}" samples/queries.indri`;

describe('querylens output faults', () => {
  it('ends quietly with status 0 when the reader of its output goes away (EPIPE)', async () => {
    // 1,000 lines a query: far more than a pipe holds, so the writer meets the closed pipe.
    const r = await sh(`${search()} | head -1; echo "status=\${PIPESTATUS[0]}" >&2`);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toContain('EPIPE');
    expect(r.stderr).not.toContain('    at ');
    expect(r.stderr.trim()).toBe('status=0');
  });

  it.skipIf(!existsSync('/dev/full'))('says in one line that the disk is full (ENOSPC) and exits non-zero', async () => {
    const r = await sh(`${search()} > /dev/full`);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual(['querylens: cannot write to standard output: no space left on device (ENOSPC)']);
  });

  it.skipIf(!existsSync('/dev/full'))('also for output written by commander (help text)', async () => {
    const r = await sh(`"${process.execPath}" "${BIN}" index --help > /dev/full`);
    expect(r.stderr).not.toContain('    at ');
    expect(r.code).not.toBe(0);
  });
});
