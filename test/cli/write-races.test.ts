/**
 * In-place and output writes of the real CLI against a concurrent appender in another process
 * and through symlinks (issue 11, item 7). `format --write` either writes a file that keeps every
 * appended line or refuses ("changed while formatting; nothing written"); no line is ever lost.
 */
import { execFile, spawn } from 'node:child_process';
import { lstatSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../support/build.js';
import { runChecked } from '../support/process.js';

const work = mkdtempSync(join(tmpdir(), 'querylens-write-races-'));
const BIN = join(ROOT, 'bin/querylens.js');
afterAll(() => rmSync(work, { recursive: true, force: true }));
beforeAll(() => ensureBuilt(), 120_000);

function querylens(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

/**
 * A child process that appends numbered query lines to `path` (open, append, close, as `>>`
 * does), one a millisecond or so, until its stdin closes, then prints how many it appended.
 */
const APPENDER = `
const fs = require('node:fs');
const path = process.argv[1];
let i = 0, stop = false;
process.stdin.on('data', () => {}).on('end', () => { stop = true; });
process.stdin.resume();
process.stdout.write('started\\n');
(function next() {
  if (stop) { process.stdout.write(String(i) + '\\n'); return; }
  fs.appendFileSync(path, (900000 + i++) + '\\tappended\\n');
  setTimeout(next, 4);
})();
`;

const UNFORMATTED = Array.from({ length: 200 }, (_, i) => `${i + 1}\t#combine(heat    transfer   slab${i})`).join('\n') + '\n';

describe('format --write against a concurrent appender', () => {
  it('never loses an appended line (8 trials)', async () => {
    const outcomes = { formatted: 0, refused: 0 };
    for (let trial = 0; trial < 8; trial++) {
      const file = join(work, `race-${trial}.indri`);
      writeFileSync(file, UNFORMATTED);
      const appender = spawn(process.execPath, ['-e', APPENDER, file], { stdio: ['pipe', 'pipe', 'inherit'] });
      let out = '';
      appender.stdout.on('data', (d: Buffer) => (out += d.toString()));
      await new Promise<void>((resolve) => appender.stdout.once('data', () => resolve()));
      const r = await querylens('format', '--write', file);
      appender.stdin.end();
      await new Promise((resolve) => appender.on('close', resolve));
      const appended = Number(out.trim().split('\n').pop());
      expect(appended).toBeGreaterThan(0);

      const text = readFileSync(file, 'utf8');
      const lines = new Set(text.split('\n'));
      const lost = [];
      for (let i = 0; i < appended; i++) if (!lines.has(`${900000 + i}\tappended`)) lost.push(900000 + i);
      expect(lost, `trial ${trial}: ${r.stderr}`).toEqual([]);
      if (r.code === 0) {
        outcomes.formatted++;
        expect(text).toContain('1\t#combine( heat transfer slab0 )');
      } else {
        outcomes.refused++;
        expect(r.stderr.trim()).toBe(`querylens: ${file}: the file changed while formatting; nothing written (run format again)`);
      }
    }
    console.log(`format --write with a concurrent appender: ${outcomes.formatted} formatted, ${outcomes.refused} refused, 0 lines lost`);
  }, 300_000);
});

describe('writes through symlinks', () => {
  it('format --write formats the real file and leaves the link a link', async () => {
    const real = join(work, 'real.indri');
    const link = join(work, 'link.indri');
    writeFileSync(real, UNFORMATTED);
    symlinkSync('real.indri', link);
    const r = await querylens('format', '--write', link);
    expect(r.code, r.stderr).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).toContain('1\t#combine( heat transfer slab0 )');
  });

  it('search --queries-out writes through a symlink', async () => {
    const corpus = join(work, 'c.jsonl');
    writeFileSync(corpus, '{"_id":"d1","text":"heat transfer"}\n{"_id":"d2","text":"slab"}\n');
    await runChecked(process.execPath, [BIN, 'index', corpus, '--out', join(work, 'idx')]);
    const queries = join(work, 'q.indri');
    writeFileSync(queries, '1\theat\n');
    const real = join(work, 'queries-real.txt');
    writeFileSync(real, 'old\n');
    symlinkSync(real, join(work, 'queries-link.txt'));
    const r = await querylens('search', '--index', join(work, 'idx'), queries, '--queries-out', join(work, 'queries-link.txt'));
    expect(r.code, r.stderr).toBe(0);
    expect(lstatSync(join(work, 'queries-link.txt')).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).toContain('1\theat');
  });
});
